package repair

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRepair(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		changed bool
		err     error
		offset  int
	}{
		// Valid input comes back untouched, whatever the library thinks of it.
		{name: "valid object", in: `{"a":1}`, want: `{"a":1}`},
		{name: "valid with spaces kept", in: ` { "a" : [1, 2] } `, want: ` { "a" : [1, 2] } `},
		{name: "upstream doubles backslashes", in: `{"p":"C:\\Program Files\\App"}`, want: `{"p":"C:\\Program Files\\App"}`},
		{name: "upstream rejects escaped quotes", in: `{"cmd":"/bin/echo \"hi\""}`, want: `{"cmd":"/bin/echo \"hi\""}`},
		{name: "valid scalar", in: `42`, want: `42`},

		// Repairs done by this package alone.
		{name: "raw newline in string", in: "{\"a\":\"x\ny\"}", want: `{"a":"x\u000ay"}`, changed: true},
		{name: "upstream not idempotent on control char", in: "\"/\x03\"", want: `"/\u0003"`, changed: true},
		{name: "raw tab and nul", in: "[\"\t\",\"\x00\"]", want: `["\u0009","\u0000"]`, changed: true},
		{name: "invalid escape keeps its backslash", in: `{"a":"\x41"}`, want: `{"a":"\\x41"}`, changed: true},
		{name: "short unicode escape at the end", in: `"\u1"`, want: `"\\u1"`, changed: true},
		{name: "incomplete unicode escape", in: `{"a":"\u00e"}`, want: `{"a":"\\u00e"}`, changed: true},
		{name: "bad escape and control", in: "{\"a\":\"\\q\x01\"}", want: `{"a":"\\q\u0001"}`, changed: true},
		{name: "escaped quote in single-quoted string", in: `{'a': 'it\'s'}`, want: `{"a": "it's"}`, changed: true},
		{name: "literal after an escape is checked where it is", in: "{\"a\":\"\x01\",\"p\":\"C:\\\\Program Files\",}", err: ErrUnsafeRepair, offset: 13},

		// Repairs done by the library, checked.
		{name: "single quotes and trailing comma", in: `{'a': 1,}`, want: `{"a": 1}`, changed: true},
		{name: "unquoted key", in: `{a:1}`, want: `{"a":1}`, changed: true},
		{name: "python literal", in: `{"a": True}`, want: `{"a": true}`, changed: true},
		{name: "markdown fence", in: "```json\n{\"a\":1}\n```", want: "\n{\"a\":1}\n", changed: true},
		{name: "control char and trailing comma", in: "{\"a\":\"x\ty\",}", want: `{"a":"x\u0009y"}`, changed: true},

		// Refusals.
		{name: "empty", in: "", err: ErrEmpty},
		{name: "white space", in: " \n", err: ErrEmpty},
		{name: "truncated object", in: `{"a":1`, err: ErrTruncated, offset: 6},
		{name: "truncated string", in: `{"a":"b`, err: ErrTruncated, offset: 7},
		{name: "truncated single quoted", in: `{'a': 1`, err: ErrTruncated, offset: 7},
		{name: "truncated valid string with backslashes", in: `{"p":"C:\\Program Files\\App"`, err: ErrTruncated, offset: 29},
		{name: "upstream emits e0", in: `{"a":e}`, err: ErrUnrepairable, offset: 7},
		{name: "bare e", in: `e`, err: ErrUnrepairable, offset: 1},
		{name: "upstream doubles backslashes inside a repair", in: `{"p":"C:\\Program Files\\App",}`, err: ErrUnsafeRepair, offset: 5},
		{name: "concatenated objects", in: `{"q":"a"}{"q":"b"}`, err: ErrUnrepairable, offset: 9},
		{name: "library error offset maps back over escapes", in: "[\"\x01\"]]x", err: ErrUnrepairable, offset: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, err := Repair(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Repair(%q) error = %v, want %v", tt.in, err, tt.err)
				}
				var re *Error
				if !errors.As(err, &re) {
					t.Fatalf("Repair(%q) error %T is not an *Error", tt.in, err)
				}
				if re.Offset != tt.offset {
					t.Errorf("Repair(%q) error offset = %d, want %d (%v)", tt.in, re.Offset, tt.offset, err)
				}
				if got != "" || changed {
					t.Errorf("Repair(%q) = %q, %v with an error", tt.in, got, changed)
				}
				return
			}
			if err != nil {
				t.Fatalf("Repair(%q) error: %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Repair(%q) (-want +got):\n%s", tt.in, diff)
			}
			if changed != tt.changed {
				t.Errorf("Repair(%q) changed = %v, want %v", tt.in, changed, tt.changed)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("Repair(%q) = %q is not valid JSON", tt.in, got)
			}
		})
	}
}

func TestRepairTooLarge(t *testing.T) {
	big := "{" + strings.Repeat(" ", MaxInputBytes)
	_, _, err := Repair(big)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Repair(%d bytes) error = %v, want ErrTooLarge", len(big), err)
	}
	if want := "repair json: at byte 4194304: input too large: 4194305 bytes, limit 4194304"; err.Error() != want {
		t.Errorf("error text = %q, want %q", err.Error(), want)
	}
}

// deepObjects returns n nested objects around 1, valid JSON.
func deepObjects(n int) string {
	return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
}

func TestRepairDepth(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		err    error
		offset int
		want   string
	}{
		{name: "valid at the limit", in: strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), want: strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)},
		{name: "repairable at the limit", in: "[" + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + ",]", want: strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)},
		{name: "valid one past the limit", in: strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), err: ErrTooDeep, offset: MaxDepth},
		// encoding/json refuses more than 10,000 levels, so this valid
		// document once reached the library and was blamed on it.
		{name: "valid 100k objects", in: deepObjects(100_000), err: ErrTooDeep, offset: 5 * MaxDepth},
		{name: "2,090,000 brackets", in: strings.Repeat("[", 2_090_000) + strings.Repeat("]", 2_090_000), err: ErrTooDeep, offset: MaxDepth},
		{name: "2,090,000 open brackets", in: strings.Repeat("[", 2_090_000), err: ErrTooDeep, offset: MaxDepth},
		{name: "invalid and deep", in: strings.Repeat("{a:", MaxDepth+1), err: ErrTooDeep, offset: 3 * MaxDepth},
		{name: "brackets in a single-quoted string do not count", in: "['" + strings.Repeat("[", 2*MaxDepth) + "',]", want: `["` + strings.Repeat("[", 2*MaxDepth) + `"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := Repair(tt.in)
			if tt.err == nil {
				if err != nil || got != tt.want {
					t.Fatalf("Repair = %.60q, %v, want %.60q", got, err, tt.want)
				}
				return
			}
			var re *Error
			if !errors.Is(err, tt.err) || !errors.As(err, &re) {
				t.Fatalf("Repair error = %v, want an *Error wrapping %v", err, tt.err)
			}
			if re.Offset != tt.offset {
				t.Errorf("Repair error offset = %d, want %d (%v)", re.Offset, tt.offset, err)
			}
		})
	}
}

func TestRepairLibraryLimit(t *testing.T) {
	// One trailing comma after MaxLibraryBytes of elements: the library is
	// needed and the text is one byte too long for it.
	fill := strings.Repeat("1,", (MaxLibraryBytes-3)/2)
	atLimit := "[" + fill + "1,]"
	for len(atLimit) < MaxLibraryBytes {
		atLimit = "[ " + atLimit[1:]
	}
	if len(atLimit) != MaxLibraryBytes {
		t.Fatalf("test input is %d bytes, want %d", len(atLimit), MaxLibraryBytes)
	}
	if _, changed, err := Repair(atLimit); err != nil || !changed {
		t.Fatalf("Repair(%d bytes) = %v, %v, want repaired", len(atLimit), changed, err)
	}
	over := "[ " + atLimit[1:]
	_, _, err := Repair(over)
	var re *Error
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &re) || re.Offset != MaxLibraryBytes {
		t.Fatalf("Repair(%d bytes) error = %v, want ErrTooLarge at byte %d", len(over), err, MaxLibraryBytes)
	}
	// Repairs made without the library have no such limit.
	big := `{"a":"` + strings.Repeat("x\n\t", MaxLibraryBytes) + `"}`
	if _, changed, err := Repair(big); err != nil || !changed {
		t.Errorf("Repair(%d bytes of control characters) = %v, %v, want repaired", len(big), changed, err)
	}
}

func TestErrorText(t *testing.T) {
	_, _, err := Repair(`{"a":1`)
	if want := `repair json: at byte 6: input is truncated: it ends with "{" still open`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	_, _, err = Repair(`{"a":"b`)
	if want := `repair json: at byte 7: input is truncated: it ends inside a string`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	_, _, err = Repair(" ")
	if want := `repair json: at byte 0: empty input`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestCallLibraryRecoversPanic(t *testing.T) {
	// No known input makes the library panic, so the recovery is checked
	// through the helper it guards.
	out, pos, err := guarded(func() (string, error) { panic("boom") })
	if err == nil || out != "" || pos != 0 {
		t.Fatalf("guarded(panic) = %q, %d, %v, want an error", out, pos, err)
	}
	if want := "the repair library panicked: boom"; err.Error() != want {
		t.Errorf("error = %q, want %q", err.Error(), want)
	}
}

func TestCallLibraryPlainError(t *testing.T) {
	out, pos, err := guarded(func() (string, error) { return "", errors.New("plain") })
	if err == nil || err.Error() != "plain" || out != "" || pos != 0 {
		t.Errorf("guarded(plain error) = %q, %d, %v", out, pos, err)
	}
}

func TestOriginalOffset(t *testing.T) {
	// Original "a\x01b\\c": escaped "a\u0001b\\\\c".
	edits := []edit{{at: 1, control: true}, {at: 3}}
	tests := []struct{ esc, want int }{
		{0, 0}, {1, 1}, {4, 1}, {6, 1}, {7, 2}, {8, 3}, {9, 3}, {10, 4}, {11, 5},
	}
	for _, tt := range tests {
		if got := originalOffset(tt.esc, edits); got != tt.want {
			t.Errorf("originalOffset(%d) = %d, want %d", tt.esc, got, tt.want)
		}
	}
}

func TestRuneToByte(t *testing.T) {
	s := "aé€b"
	tests := []struct{ pos, want int }{{-1, 7}, {0, 0}, {1, 1}, {2, 3}, {3, 6}, {4, 7}, {9, 7}}
	for _, tt := range tests {
		if got := runeToByte(s, tt.pos); got != tt.want {
			t.Errorf("runeToByte(%d) = %d, want %d", tt.pos, got, tt.want)
		}
	}
}

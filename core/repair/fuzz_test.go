package repair

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// knownBad are inputs on which the repair library misbehaves on its own;
// each is a regression seed for the guards described in doc.go.
var knownBad = []string{
	`e`,
	`{"a":e}`,
	`{"a":1e}`,
	"{\"a\":\"x\ny\"}",
	"\"/\x03\"",
	"\"/\x03",
	`{"p":"C:\\Program Files\\App"}`,
	`{"p":"C:\\Program Files\\App",}`,
	`{"p":"C:\\Program Files\\App"`,
	`{"cmd":"/bin/echo \"hi\""}`,
	`{"q":"a"}{"q":"b"}`,
	`{'a': 1,}`,
	"```json\n{\"a\":1}\n```",
	"[\"\x01\"]]x",
	"{\"a\":\"\\\n\"}",
	`{"a":1`,
	``,
}

func FuzzRepair(f *testing.F) {
	for _, s := range knownBad {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, changed, err := Repair(in)
		if err != nil {
			var re *Error
			if !errors.As(err, &re) {
				t.Fatalf("Repair(%q) error %T is not an *Error: %v", in, err, err)
			}
			if re.Offset < 0 || re.Offset > len(in) {
				t.Fatalf("Repair(%q) error offset %d outside the input", in, re.Offset)
			}
			if out != "" || changed {
				t.Fatalf("Repair(%q) = %q, %v alongside error %v", in, out, changed, err)
			}
			return
		}
		if !json.Valid([]byte(out)) {
			t.Fatalf("Repair(%q) = %q, not valid JSON", in, out)
		}
		if json.Valid([]byte(in)) && (changed || out != in) {
			t.Fatalf("Repair(valid %q) = %q, %v, want it unchanged", in, out, changed)
		}
		if !json.Valid([]byte(in)) && !changed {
			t.Fatalf("Repair(invalid %q) = %q without changed", in, out)
		}
		again, changed2, err := Repair(out)
		if err != nil || changed2 || again != out {
			t.Fatalf("Repair not idempotent on %q: %q then %q, %v, %v", in, out, again, changed2, err)
		}
	})
}

func FuzzPreview(f *testing.F) {
	for _, s := range knownBad {
		f.Add(s)
	}
	f.Add(`{"a":[1,{"b":"c\u00`)
	f.Fuzz(func(t *testing.T, in string) {
		out, ok := Preview(in)
		if !ok {
			if out != nil {
				t.Fatalf("Preview(%q) = %s with ok false", in, out)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Preview(%q) = %q, not valid JSON", in, out)
		}
		if json.Valid([]byte(in)) {
			// A whole document previews to itself, compacted.
			var want bytes.Buffer
			if err := json.Compact(&want, []byte(in)); err != nil {
				t.Fatal(err)
			}
			if string(out) != want.String() {
				t.Fatalf("Preview(valid %q) = %q, want %q", in, out, want.String())
			}
		}
	})
}

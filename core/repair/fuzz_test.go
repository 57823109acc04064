package repair

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolconform/conform/core/internal/jsondepth"
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

// FuzzRepairDeep builds deep input in the target, since seeds of millions of
// brackets are too big for the corpus: count copies of unit (at most 8
// bytes, such as "[" or `{"a":`), then tail. Repair and Preview must not
// recurse on it (2,090,000 open brackets once overflowed the stack): input
// deeper than MaxDepth is an ErrTooDeep *Error, and what they return nests
// at most MaxDepth levels.
func FuzzRepairDeep(f *testing.F) {
	f.Add(uint32(2_090_000), "[", "")
	f.Add(uint32(2_090_000), "[", strings.Repeat("]", 100))
	f.Add(uint32(100_000), `{"a":`, "1")
	f.Add(uint32(MaxDepth), "[", "1,]")
	f.Add(uint32(MaxDepth+1), `['`, "")
	f.Add(uint32(600), `{a:`, "")
	f.Add(uint32(5000), `["]",`, "]")
	f.Fuzz(func(t *testing.T, count uint32, unit, tail string) {
		if unit == "" || len(unit) > 8 || len(tail) > 64 {
			return
		}
		n := int(count) % (MaxInputBytes/len(unit) + 2)
		in := strings.Repeat(unit, n) + tail
		out, _, err := Repair(in)
		var de *jsondepth.Error
		switch {
		case err != nil:
			var re *Error
			if !errors.As(err, &re) || re.Offset < 0 || re.Offset > len(in) {
				t.Fatalf("Repair(%d × %q + %q) error %v is not an *Error inside the input", n, unit, tail, err)
			}
		case errors.As(jsondepth.Check(in, true), &de):
			t.Fatalf("Repair(%d × %q + %q) = %.40q, want ErrTooDeep at byte %d", n, unit, tail, out, de.Offset)
		case jsondepth.Check(out, false) != nil || !json.Valid([]byte(out)):
			t.Fatalf("Repair(%d × %q + %q) = %.40q: invalid or deeper than MaxDepth", n, unit, tail, out)
		}
		if jsondepth.Check(in, true) != nil && err != nil && !errors.Is(err, ErrTooDeep) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("Repair(%d × %q + %q) error %v, want ErrTooDeep", n, unit, tail, err)
		}
		if p, ok := Preview(in); ok && (jsondepth.Check(p, false) != nil || !json.Valid(p)) {
			t.Fatalf("Preview(%d × %q + %q) = %.40q: invalid or deeper than MaxDepth", n, unit, tail, p)
		}
	})
}

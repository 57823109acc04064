package repair

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kaptinlin/jsonrepair"
	"github.com/toolconform/conform/core/internal/jsondepth"
)

// MaxInputBytes is the largest input Repair accepts.
const MaxInputBytes = 4 << 20

// MaxLibraryBytes is the largest text Repair hands to the repair library.
// The library's time grows with the square of its input (every comma it
// writes or inserts copies the output so far): 64 KiB of missing commas
// take seconds. Text that needs the library and is longer is refused with
// ErrTooLarge; the repairs this package makes itself (control characters,
// stray backslashes) run in linear time up to MaxInputBytes.
const MaxLibraryBytes = 8 << 10

// MaxDepth is the deepest nesting of arrays and objects Repair and Preview
// accept: core.MaxDepth, the one bound conform puts on JSON everywhere.
const MaxDepth = jsondepth.Max

// Sentinel errors wrapped by every error Repair returns.
var (
	// ErrTooLarge reports input longer than MaxInputBytes, or input that
	// needs the repair library and is longer than MaxLibraryBytes.
	ErrTooLarge = errors.New("input too large")
	// ErrTooDeep reports input nested deeper than MaxDepth; it is
	// core.ErrTooDeep.
	ErrTooDeep = jsondepth.ErrTooDeep
	// ErrEmpty reports input that holds nothing but white space.
	ErrEmpty = errors.New("empty input")
	// ErrTruncated reports input that ends inside an open string, object or
	// array: a prefix, which Repair refuses to complete.
	ErrTruncated = errors.New("input is truncated")
	// ErrUnrepairable reports input the library could not turn into valid
	// JSON, or a library fault (invalid output, a panic).
	ErrUnrepairable = errors.New("input is not repairable")
	// ErrUnsafeRepair reports a repair that changed a string literal which
	// was already valid, that is a repair that rewrote data.
	ErrUnsafeRepair = errors.New("repair changed a valid string")
)

// Error is a failed repair. Offset is the byte offset in the input of the
// fault, or of the end of the input when the fault is that it ended.
type Error struct {
	Offset int
	// Detail says more than the sentinel, such as the library's message.
	Detail string
	Err    error
}

func (e *Error) Error() string {
	if e.Detail != "" {
		return fmt.Sprintf("repair json: at byte %d: %v: %s", e.Offset, e.Err, e.Detail)
	}
	return fmt.Sprintf("repair json: at byte %d: %v", e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Repair returns text as valid JSON. Valid input is returned unchanged with
// changed == false; otherwise fixed is the repaired document and changed is
// true. On failure err is an *Error wrapping ErrTooLarge, ErrTooDeep,
// ErrEmpty, ErrTruncated, ErrUnrepairable or ErrUnsafeRepair. See the package
// documentation for the guards Repair puts around the repair library.
//
//	fixed, changed, err := repair.Repair(`{'city': 'Paris',}`)
//	// fixed == `{"city": "Paris"}`, changed == true, err == nil
func Repair(text string) (fixed string, changed bool, err error) {
	if len(text) > MaxInputBytes {
		return "", false, &Error{Offset: MaxInputBytes, Err: ErrTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", len(text), MaxInputBytes)}
	}
	// Depth first: encoding/json gives up at 10,000 levels, so valid
	// but deep JSON would otherwise be handed to the library.
	var de *jsondepth.Error
	if errors.As(jsondepth.Check(text, true), &de) {
		return "", false, tooDeep(de.Offset)
	}
	if json.Valid([]byte(text)) {
		return text, false, nil
	}
	if strings.TrimSpace(text) == "" {
		return "", false, &Error{Offset: 0, Err: ErrEmpty}
	}
	lx := lex(text)
	if lx.tooDeep >= 0 {
		return "", false, tooDeep(lx.tooDeep)
	}
	if lx.truncated {
		return "", false, &Error{Offset: len(text), Err: ErrTruncated, Detail: lx.openDetail()}
	}
	esc, elx := text, lx
	if len(lx.edits) > 0 {
		esc = applyEdits(text, lx.edits)
		if json.Valid([]byte(esc)) {
			return esc, true, nil
		}
		elx = lex(esc)
	}
	if len(esc) > MaxLibraryBytes {
		return "", false, &Error{Offset: originalOffset(MaxLibraryBytes, lx.edits), Err: ErrTooLarge,
			Detail: fmt.Sprintf("%d bytes need the repair library, which is given at most %d (MaxLibraryBytes)", len(esc), MaxLibraryBytes)}
	}
	out, pos, lerr := callLibrary(esc)
	if lerr != nil {
		off := originalOffset(runeToByte(esc, pos), lx.edits)
		return "", false, &Error{Offset: off, Err: ErrUnrepairable, Detail: lerr.Error()}
	}
	if olx := lex(out); len(olx.edits) > 0 {
		out = applyEdits(out, olx.edits)
	}
	if !json.Valid([]byte(out)) {
		return "", false, &Error{Offset: len(text), Err: ErrUnrepairable, Detail: "the repair library produced invalid json"}
	}
	if off, ok := literalsKept(esc, elx, out); !ok {
		return "", false, &Error{Offset: originalOffset(off, lx.edits), Err: ErrUnsafeRepair}
	}
	return out, true, nil
}

// tooDeep is the error for input nested deeper than MaxDepth, the bracket
// that opens level MaxDepth+1 being at byte off.
func tooDeep(off int) *Error {
	return &Error{Offset: off, Err: ErrTooDeep, Detail: fmt.Sprintf("more than %d levels", MaxDepth)}
}

// callLibrary runs the repair library, turning a panic into an error. pos is
// the library's rune position of the fault, or -1.
func callLibrary(text string) (out string, pos int, err error) {
	return guarded(func() (string, error) { return jsonrepair.Repair(text) })
}

// guarded runs a repair function, turning a panic into an error.
func guarded(f func() (string, error)) (out string, pos int, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, pos, err = "", 0, fmt.Errorf("the repair library panicked: %v", r)
		}
	}()
	out, err = f()
	if err != nil {
		var le *jsonrepair.Error
		if errors.As(err, &le) {
			return "", le.Position, err
		}
		return "", 0, err
	}
	return out, -1, nil
}

// runeToByte converts a rune position in s to a byte offset, clamped to
// len(s).
func runeToByte(s string, pos int) int {
	if pos < 0 {
		return len(s)
	}
	n := 0
	for i := range s {
		if n == pos {
			return i
		}
		n++
	}
	return len(s)
}

// edit is one fix the lexer found inside a string: a raw control character
// to write as \u00XX (B07), or a backslash that starts no valid escape
// (\x41, an incomplete \u) to double, so that the text stays as written
// instead of losing the backslash.
type edit struct {
	at      int
	control bool
}

// size is the length the edited byte takes in the escaped text.
func (e edit) size() int {
	if e.control {
		return 6
	}
	return 2
}

// applyEdits returns s with its edits applied.
func applyEdits(s string, edits []edit) string {
	var b strings.Builder
	b.Grow(len(s) + 5*len(edits))
	last := 0
	for _, e := range edits {
		b.WriteString(s[last:e.at])
		if e.control {
			const hex = "0123456789abcdef"
			c := s[e.at]
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		} else {
			b.WriteString(`\\`)
		}
		last = e.at + 1
	}
	b.WriteString(s[last:])
	return b.String()
}

// originalOffset maps a byte offset in the text after applyEdits back to
// the text before.
func originalOffset(off int, edits []edit) int {
	shift := 0
	for _, e := range edits {
		start := e.at + shift
		if off < start {
			return off - shift
		}
		if off < start+e.size() {
			return e.at
		}
		shift += e.size() - 1
	}
	return off - shift
}

// literalsKept reports whether every double-quoted string literal of in that
// is a valid JSON string reappears, with its content, in out, in order. On
// failure it gives the literal's offset in in.
func literalsKept(in string, lx lexResult, out string) (int, bool) {
	from := 0
	for _, l := range lx.literals {
		tok := in[l.start:l.end]
		if !json.Valid([]byte(tok)) {
			continue
		}
		content := tok[1 : len(tok)-1]
		i := strings.Index(out[from:], content)
		if i < 0 {
			return l.start, false
		}
		from += i + len(content)
	}
	return 0, true
}

// literal is the byte span of a double-quoted string in the input, quotes
// included.
type literal struct{ start, end int }

// lexResult is what the lenient lexer learned about a text.
type lexResult struct {
	// truncated is set when the text ends inside a string or with
	// brackets open.
	truncated bool
	inString  bool
	open      []byte
	// tooDeep is the offset of the bracket that opens level MaxDepth+1,
	// or -1.
	tooDeep int
	// edits are the fixes applyEdits makes inside strings, in order.
	edits    []edit
	literals []literal
}

func (r lexResult) openDetail() string {
	if r.inString {
		return "it ends inside a string"
	}
	return fmt.Sprintf("it ends with %q still open", string(r.open))
}

// lex scans text leniently: strings are delimited by double quotes, or by
// single quotes where a value or key may start; brackets are matched with a
// stack that forgives mismatches (a closer pops down to its opener, a closer
// without opener is ignored). It is not a validator: it finds what Repair's
// guards need to know.
func lex(text string) lexResult {
	r := lexResult{tooDeep: -1}
	var quote byte
	escaped := false
	start := 0
	prev := byte(0) // last significant byte outside strings
	for i := 0; i < len(text); i++ {
		c := text[i]
		if quote != 0 {
			switch {
			case escaped:
				escaped = false
				if !validEscape(text, i, quote) {
					r.edits = append(r.edits, edit{at: i - 1})
				}
			case c == '\\':
				escaped = true
			case c == quote:
				quote = 0
				if c == '"' {
					r.literals = append(r.literals, literal{start, i + 1})
				}
				prev = c
			case c < 0x20:
				r.edits = append(r.edits, edit{at: i, control: true})
			}
			continue
		}
		switch c {
		case '"':
			quote, start = c, i
		case '\'':
			if prev == 0 || prev == '{' || prev == '[' || prev == ',' || prev == ':' {
				quote, start = c, i
			}
		case '{', '[':
			r.open = append(r.open, c)
			if len(r.open) > MaxDepth && r.tooDeep < 0 {
				r.tooDeep = i
			}
		case '}', ']':
			want := byte('{')
			if c == ']' {
				want = '['
			}
			for k := len(r.open) - 1; k >= 0; k-- {
				if r.open[k] == want {
					r.open = r.open[:k]
					break
				}
			}
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			prev = c
		}
	}
	r.inString = quote != 0
	r.truncated = r.inString || len(r.open) > 0
	return r
}

// validEscape reports whether the byte at i, after a backslash inside a
// string delimited by quote, completes a valid escape. A control character
// after a backslash counts as valid here: it is left to the library, since
// doubling the backslash would not make it valid.
func validEscape(text string, i int, quote byte) bool {
	switch c := text[i]; {
	case c == '"', c == '\\', c == '/', c == 'b', c == 'f', c == 'n', c == 'r', c == 't', c == quote, c < 0x20:
		return true
	case c == 'u':
		if i+4 >= len(text) {
			return false
		}
		for _, h := range []byte(text[i+1 : i+5]) {
			if !((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')) {
				return false
			}
		}
		return true
	}
	return false
}

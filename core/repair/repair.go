package repair

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kaptinlin/jsonrepair"
)

// MaxInputBytes is the largest input Repair accepts.
const MaxInputBytes = 4 << 20

// Sentinel errors wrapped by every error Repair returns.
var (
	// ErrTooLarge reports input longer than MaxInputBytes.
	ErrTooLarge = errors.New("input too large")
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
// true. On failure err is an *Error wrapping ErrTooLarge, ErrEmpty,
// ErrTruncated, ErrUnrepairable or ErrUnsafeRepair. See the package
// documentation for the guards Repair puts around the repair library.
//
//	fixed, changed, err := repair.Repair(`{'city': 'Paris',}`)
//	// fixed == `{"city": "Paris"}`, changed == true, err == nil
func Repair(text string) (fixed string, changed bool, err error) {
	if len(text) > MaxInputBytes {
		return "", false, &Error{Offset: MaxInputBytes, Err: ErrTooLarge, Detail: fmt.Sprintf("%d bytes, limit %d", len(text), MaxInputBytes)}
	}
	if json.Valid([]byte(text)) {
		return text, false, nil
	}
	if strings.TrimSpace(text) == "" {
		return "", false, &Error{Offset: 0, Err: ErrEmpty}
	}
	lx := lex(text)
	if lx.truncated {
		return "", false, &Error{Offset: len(text), Err: ErrTruncated, Detail: lx.openDetail()}
	}
	esc := text
	if len(lx.controls) > 0 {
		esc = escapeControls(text, lx.controls)
		if json.Valid([]byte(esc)) {
			return esc, true, nil
		}
	}
	out, pos, lerr := callLibrary(esc)
	if lerr != nil {
		off := originalOffset(runeToByte(esc, pos), lx.controls)
		return "", false, &Error{Offset: off, Err: ErrUnrepairable, Detail: lerr.Error()}
	}
	if olx := lex(out); len(olx.controls) > 0 {
		out = escapeControls(out, olx.controls)
	}
	if !json.Valid([]byte(out)) {
		return "", false, &Error{Offset: len(text), Err: ErrUnrepairable, Detail: "the repair library produced invalid json"}
	}
	if off, ok := literalsKept(esc, lx, out); !ok {
		return "", false, &Error{Offset: originalOffset(off, lx.controls), Err: ErrUnsafeRepair}
	}
	return out, true, nil
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

// escapeControls returns s with the raw control characters at the given
// byte offsets written as \u00XX escapes.
func escapeControls(s string, at []int) string {
	var b strings.Builder
	b.Grow(len(s) + 5*len(at))
	last := 0
	for _, i := range at {
		b.WriteString(s[last:i])
		fmt.Fprintf(&b, `\u%04x`, s[i])
		last = i + 1
	}
	b.WriteString(s[last:])
	return b.String()
}

// originalOffset maps a byte offset in the escaped text back to the text
// before escapeControls, each escape having grown one byte into six.
func originalOffset(off int, controls []int) int {
	for k, c := range controls {
		e := c + 5*k
		if off < e {
			return off - 5*k
		}
		if off < e+6 {
			return c
		}
	}
	return off - 5*len(controls)
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
	// controls are the byte offsets of raw control characters inside
	// strings.
	controls []int
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
	var r lexResult
	var quote byte
	escaped := false
	start := 0
	prev := byte(0) // last significant byte outside strings
	for i := 0; i < len(text); i++ {
		c := text[i]
		if quote != 0 {
			switch {
			case escaped:
				// A control character after a backslash is left to the
				// library: escaping it would change the backslash's meaning.
				escaped = false
			case c == '\\':
				escaped = true
			case c == quote:
				quote = 0
				if c == '"' {
					r.literals = append(r.literals, literal{start, i + 1})
				}
				prev = c
			case c < 0x20:
				r.controls = append(r.controls, i)
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

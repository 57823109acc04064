package jsonscan

import (
	"strings"
	"unicode/utf8"

	"github.com/toolconform/conform/core"
)

// MaxDepth bounds the nesting of arrays and objects in a value Skip or
// Value consumes; deeper values are refused and left to the general path.
// It is core.MaxDepth, the one bound on JSON nesting, so that the fast path
// and the general path accept the same depths.
const MaxDepth = core.MaxDepth

// MaxKeys is the most keys Object tells apart; a caller with more keys
// gets false for those past it.
const MaxKeys = 64

// Scanner reads a fast path's subset of JSON from a byte slice, one value
// at a time. The zero Scanner reads an empty input; New starts one.
type Scanner struct {
	b []byte
	i int
	// spaced is set when WS consumes a byte (see CompactValue).
	spaced bool
}

// New returns a Scanner reading b from its start.
func New(b []byte) Scanner { return Scanner{b: b} }

// Pos returns the offset of the next byte the scanner reads.
func (p *Scanner) Pos() int { return p.i }

// Seek moves the scanner to offset i of its input, a value Pos returned.
func (p *Scanner) Seek(i int) { p.i = i }

// WS consumes JSON white space.
func (p *Scanner) WS() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
			p.spaced = true
		default:
			return
		}
	}
}

// End reports whether nothing but white space is left.
func (p *Scanner) End() bool {
	p.WS()
	return p.i == len(p.b)
}

// Byte consumes c after optional white space.
func (p *Scanner) Byte(c byte) bool {
	p.WS()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// Str consumes a string after optional white space and returns its content
// between the quotes, a view of the input, and whether it holds escapes.
// Control characters and malformed escapes are refused, as encoding/json
// refuses them; the content's UTF-8 is not checked.
func (p *Scanner) Str() (content []byte, esc, ok bool) {
	p.WS()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil, false, false
	}
	start := p.i + 1
	for i := plainRun(p.b, start); i < len(p.b); i = plainRun(p.b, i+1) {
		switch c := p.b[i]; {
		case c == '"':
			p.i = i + 1
			return p.b[start:i], esc, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			esc = true
			i++
			if i >= len(p.b) {
				return nil, false, false
			}
			switch p.b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(p.b) || !isHex(p.b[i+1]) || !isHex(p.b[i+2]) || !isHex(p.b[i+3]) || !isHex(p.b[i+4]) {
					return nil, false, false
				}
				i += 4
			default:
				return nil, false, false
			}
		}
	}
	return nil, false, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Small consumes a non-negative integer of at most 9 digits with no sign,
// fraction or exponent, the only integers a fast path reads.
func (p *Scanner) Small() (int, bool) {
	p.WS()
	start, n := p.i, 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		n = n*10 + int(p.b[p.i]-'0')
		p.i++
	}
	digits := p.i - start
	if digits == 0 || digits > 9 || (digits > 1 && p.b[start] == '0') {
		return 0, false
	}
	if p.i < len(p.b) {
		switch p.b[p.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	return n, true
}

// Number consumes a JSON number of any size after optional white space and
// returns its bytes, a view of the input.
func (p *Scanner) Number() ([]byte, bool) {
	p.WS()
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	intStart := p.i
	n := p.digits()
	if n == 0 || (n > 1 && p.b[intStart] == '0') {
		return nil, false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return nil, false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return nil, false
		}
	}
	return p.b[start:p.i:p.i], true
}

// digits consumes decimal digits and returns how many.
func (p *Scanner) digits() int {
	n := 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}

// Bool consumes true or false after optional white space.
func (p *Scanner) Bool() (v, ok bool) {
	p.WS()
	switch {
	case p.lit("true"):
		return true, true
	case p.lit("false"):
		return false, true
	}
	return false, false
}

// Null consumes null after optional white space.
func (p *Scanner) Null() bool {
	p.WS()
	return p.lit("null")
}

// lit consumes s.
func (p *Scanner) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// Skip consumes any JSON value after optional white space, checking its
// syntax: at most MaxDepth levels deep, its strings valid UTF-8.
func (p *Scanner) Skip() bool { return p.skip(0) }

// Value is Skip returning the value's bytes, a view of the input without
// the white space before it.
func (p *Scanner) Value() ([]byte, bool) {
	p.WS()
	start := p.i
	if !p.skip(0) {
		return nil, false
	}
	return p.b[start:p.i:p.i], true
}

// skip consumes a value inside depth open arrays and objects; one that
// would open level MaxDepth+1 is refused before the recursion.
func (p *Scanner) skip(depth int) bool {
	p.WS()
	if p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case (c == '{' || c == '[') && depth >= MaxDepth:
		return false
	case c == '"':
		raw, _, ok := p.Str()
		return ok && utf8.Valid(raw)
	case c == '{':
		p.i++
		if p.Byte('}') {
			return true
		}
		for {
			if raw, _, ok := p.Str(); !ok || !utf8.Valid(raw) || !p.Byte(':') || !p.skip(depth+1) {
				return false
			}
			if p.Byte(',') {
				continue
			}
			return p.Byte('}')
		}
	case c == '[':
		p.i++
		if p.Byte(']') {
			return true
		}
		for {
			if !p.skip(depth + 1) {
				return false
			}
			if p.Byte(',') {
				continue
			}
			return p.Byte(']')
		}
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	default:
		_, ok := p.Number()
		return ok
	}
}

// Object consumes an object after optional white space, handing field the
// number of each key found in keys (its position), and field reads the
// value and reports whether it could. Keys must be plain (unescaped)
// ASCII, and a key of keys may appear once and must be spelled exactly. A
// key not in keys is skipped with its value when Ignored(key, known): when
// it matches none of known, the json names encoding/json would match,
// case folded; otherwise the object is refused. An empty object is
// accepted; a caller that must refuse one checks first. Keys past MaxKeys
// are refused.
func (p *Scanner) Object(keys, known []string, field func(k int) bool) bool {
	if !p.Byte('{') {
		return false
	}
	if p.Byte('}') {
		return true
	}
	var seen uint64
	for {
		key, esc, ok := p.Str()
		if !ok || esc || !p.Byte(':') {
			return false
		}
		k := -1
		for j, name := range keys {
			if string(key) == name {
				k = j
				break
			}
		}
		switch {
		case k >= MaxKeys:
			return false
		case k >= 0:
			if seen&(1<<k) != 0 || !field(k) {
				return false
			}
			seen |= 1 << k
		case !Ignored(key, known) || !p.skip(0):
			return false
		}
		if p.Byte(',') {
			continue
		}
		return p.Byte('}')
	}
}

// Array consumes an array after optional white space, calling elem to read
// each element; an empty array is accepted.
func (p *Scanner) Array(elem func() bool) bool {
	if !p.Byte('[') {
		return false
	}
	if p.Byte(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if p.Byte(',') {
			continue
		}
		return p.Byte(']')
	}
}

// Ignored reports whether encoding/json would ignore key when decoding a
// struct whose json names are known: an ASCII key that matches none of
// them, case folded. The known names must be ASCII, as the adapters' json
// names all are.
func Ignored(key []byte, known []string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	for _, name := range known {
		// The key is ASCII and so are json names: only one of the same
		// length can match it.
		if len(name) == len(key) && strings.EqualFold(string(key), name) {
			return false
		}
	}
	return true
}

package repair

import (
	"encoding/json"
	"unicode/utf8"
)

// Preview returns a best-effort JSON value for an incomplete JSON prefix, for
// showing the arguments of a call that is still streaming. It closes an open
// string, array or object, drops a dangling key, cuts an incomplete number
// back to its last valid form and completes a partial true, false or null.
// ok is false when prefix is empty, longer than MaxInputBytes, nested deeper
// than MaxDepth, or not the beginning of any JSON document. Insignificant
// white space is dropped, so a complete document comes back compacted.
//
//	v, ok := repair.Preview(`{"city":"Par`)
//	// string(v) == `{"city":"Par"}`, ok == true
func Preview(prefix string) (json.RawMessage, bool) {
	if len(prefix) > MaxInputBytes {
		return nil, false
	}
	p := previewer{s: prefix, out: make([]byte, 0, len(prefix)+8)}
	st := p.value(0)
	if st == stErr || st == stNone {
		return nil, false
	}
	if st == stDone {
		p.ws()
		if p.i < len(p.s) {
			return nil, false
		}
	}
	if !json.Valid(p.out) {
		return nil, false
	}
	return json.RawMessage(p.out), true
}

// status is the outcome of parsing one value of a prefix.
type status int

const (
	// stDone: the value was complete.
	stDone status = iota
	// stPartial: the prefix ended inside the value; out holds a closed
	// form of it.
	stPartial
	// stNone: the prefix ended before anything of the value could be
	// shown; nothing was written.
	stNone
	// stErr: the prefix is not the beginning of a JSON document.
	stErr
)

type previewer struct {
	s   string
	i   int
	out []byte
}

func (p *previewer) eof() bool { return p.i >= len(p.s) }

func (p *previewer) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value parses one value inside depth open arrays and objects; a value
// that would open one more than MaxDepth is an error, checked before the
// recursion.
func (p *previewer) value(depth int) status {
	p.ws()
	if p.eof() {
		return stNone
	}
	switch c := p.s[p.i]; {
	case (c == '{' || c == '[') && depth >= MaxDepth:
		return stErr
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	}
	return stErr
}

func (p *previewer) object(depth int) status {
	p.i++
	p.out = append(p.out, '{')
	for first := true; ; first = false {
		mark := len(p.out)
		p.ws()
		if p.eof() {
			return p.close(mark, '}')
		}
		if p.s[p.i] == '}' && first {
			p.i++
			p.out = append(p.out, '}')
			return stDone
		}
		if !first {
			switch p.s[p.i] {
			case '}':
				p.i++
				p.out = append(p.out, '}')
				return stDone
			case ',':
				p.i++
				p.out = append(p.out, ',')
			default:
				return stErr
			}
			p.ws()
			if p.eof() {
				return p.close(mark, '}')
			}
		}
		if p.s[p.i] != '"' {
			return stErr
		}
		switch p.str() {
		case stErr:
			return stErr
		case stPartial:
			return p.close(mark, '}')
		}
		p.ws()
		if p.eof() {
			return p.close(mark, '}')
		}
		if p.s[p.i] != ':' {
			return stErr
		}
		p.i++
		p.out = append(p.out, ':')
		switch p.value(depth + 1) {
		case stErr:
			return stErr
		case stNone:
			return p.close(mark, '}')
		case stPartial:
			p.out = append(p.out, '}')
			return stPartial
		}
	}
}

func (p *previewer) array(depth int) status {
	p.i++
	p.out = append(p.out, '[')
	for first := true; ; first = false {
		mark := len(p.out)
		p.ws()
		if p.eof() {
			return p.close(mark, ']')
		}
		if p.s[p.i] == ']' {
			p.i++
			p.out = append(p.out, ']')
			return stDone
		}
		if !first {
			if p.s[p.i] != ',' {
				return stErr
			}
			p.i++
			p.out = append(p.out, ',')
		}
		switch p.value(depth + 1) {
		case stErr:
			return stErr
		case stNone:
			return p.close(mark, ']')
		case stPartial:
			p.out = append(p.out, ']')
			return stPartial
		}
	}
}

// close cuts out back to mark, dropping a member or element that could not
// be shown, and closes the container.
func (p *previewer) close(mark int, closer byte) status {
	p.out = append(p.out[:mark], closer)
	return stPartial
}

func (p *previewer) str() status {
	p.i++
	p.out = append(p.out, '"')
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			p.out = append(p.out, '"')
			return stDone
		case c < 0x20:
			return stErr
		case c == '\\':
			if p.i+1 >= len(p.s) {
				p.i = len(p.s)
				break
			}
			e := p.s[p.i+1]
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.out = append(p.out, c, e)
				p.i += 2
				continue
			case 'u':
				n := 0
				for n < 4 && p.i+2+n < len(p.s) && isHex(p.s[p.i+2+n]) {
					n++
				}
				if n == 4 {
					p.out = append(p.out, p.s[p.i:p.i+6]...)
					p.i += 6
					continue
				}
				if p.i+2+n < len(p.s) {
					return stErr
				}
				// An incomplete \u escape at the end is dropped.
				p.i = len(p.s)
				continue
			default:
				return stErr
			}
		default:
			p.out = append(p.out, c)
			p.i++
		}
	}
	p.out = trimPartialUTF8(p.out)
	p.out = append(p.out, '"')
	return stPartial
}

func (p *previewer) number() status {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			p.i++
			continue
		}
		break
	}
	tok := p.s[start:p.i]
	if !p.eof() {
		if !json.Valid([]byte(tok)) {
			return stErr
		}
		p.out = append(p.out, tok...)
		return stDone
	}
	tok, ok := numberPrefix(tok)
	if !ok {
		return stErr
	}
	if tok == "" {
		return stNone
	}
	p.out = append(p.out, tok...)
	return stPartial
}

func (p *previewer) literal(word string) status {
	n := 0
	for n < len(word) && p.i+n < len(p.s) && p.s[p.i+n] == word[n] {
		n++
	}
	p.i += n
	p.out = append(p.out, word...)
	if n == len(word) {
		return stDone
	}
	if p.eof() {
		return stPartial
	}
	return stErr
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// trimPartialUTF8 drops an incomplete UTF-8 sequence at the end of b, such
// as the first byte of a multi-byte character split across chunks (B05).
func trimPartialUTF8(b []byte) []byte {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
		i := len(b) - k
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// numberPrefix checks that tok is the beginning of a JSON number and returns
// its longest prefix that is a whole number ("" when there is none).
func numberPrefix(tok string) (string, bool) {
	i, last := 0, 0
	digits := func() int {
		n := 0
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	switch {
	case i < len(tok) && tok[i] == '0':
		i++
	case digits() == 0:
		return "", i == len(tok)
	}
	last = i
	if i < len(tok) && tok[i] == '.' {
		i++
		if digits() == 0 {
			return tok[:last], i == len(tok)
		}
		last = i
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		if digits() == 0 {
			return tok[:last], i == len(tok)
		}
		last = i
	}
	return tok[:last], i == len(tok)
}

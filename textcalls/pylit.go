package textcalls

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolconform/conform/core"
)

// errNotLiteral reports a value that is no Python literal.
var errNotLiteral = errors.New("not a Python literal")

// pyLiteral turns one Python literal (what pythonic calls pass as a
// keyword argument: strings in either quote, numbers, True/False/None
// and their JSON spellings, lists, tuples and dicts) into JSON.
func pyLiteral(s string) (json.RawMessage, error) {
	p := pyParser{s: s}
	var out []byte
	out, err := p.value(out, 0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("%w: text after the value at byte %d", errNotLiteral, p.i)
	}
	return out, nil
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) space() {
	for p.i < len(p.s) && isSpace(p.s[p.i]) {
		p.i++
	}
}

func (p *pyParser) value(out []byte, depth int) ([]byte, error) {
	if depth > core.MaxDepth {
		return nil, core.ErrTooDeep
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("%w: a value is missing", errNotLiteral)
	}
	switch c := p.s[p.i]; {
	case c == '\'' || c == '"':
		str, err := p.str()
		if err != nil {
			return nil, err
		}
		return append(append(append(out, '"'), appendEscaped(nil, str)...), '"'), nil
	case c == '[' || c == '(':
		end := byte(']')
		if c == '(' {
			end = ')'
		}
		p.i++
		out = append(out, '[')
		for n := 0; ; n++ {
			p.space()
			if p.i < len(p.s) && p.s[p.i] == end {
				p.i++
				return append(out, ']'), nil
			}
			if n > 0 {
				if p.i >= len(p.s) || p.s[p.i] != ',' {
					return nil, fmt.Errorf("%w: want , or %c at byte %d", errNotLiteral, end, p.i)
				}
				p.i++
				p.space()
				if p.i < len(p.s) && p.s[p.i] == end {
					p.i++
					return append(out, ']'), nil
				}
				out = append(out, ',')
			}
			var err error
			if out, err = p.value(out, depth+1); err != nil {
				return nil, err
			}
		}
	case c == '{':
		p.i++
		out = append(out, '{')
		for n := 0; ; n++ {
			p.space()
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				return append(out, '}'), nil
			}
			if n > 0 {
				if p.i >= len(p.s) || p.s[p.i] != ',' {
					return nil, fmt.Errorf("%w: want , or } at byte %d", errNotLiteral, p.i)
				}
				p.i++
				p.space()
				if p.i < len(p.s) && p.s[p.i] == '}' {
					p.i++
					return append(out, '}'), nil
				}
				out = append(out, ',')
			}
			key, err := p.value(nil, depth+1)
			if err != nil {
				return nil, err
			}
			if key[0] != '"' {
				key = jsonString(string(key)) // a number key, as JSON writes keys
			}
			out = append(out, key...)
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, fmt.Errorf("%w: want : at byte %d", errNotLiteral, p.i)
			}
			p.i++
			out = append(out, ':')
			if out, err = p.value(out, depth+1); err != nil {
				return nil, err
			}
		}
	default:
		j := p.i
		for j < len(p.s) && (isWordByte(p.s[j]) || strings.IndexByte("+-.", p.s[j]) >= 0) {
			j++
		}
		word := p.s[p.i:j]
		p.i = j
		switch word {
		case "True", "true":
			return append(out, "true"...), nil
		case "False", "false":
			return append(out, "false"...), nil
		case "None", "null":
			return append(out, "null"...), nil
		}
		if n, err := strconv.ParseInt(strings.ReplaceAll(word, "_", ""), 0, 64); err == nil && word != "" {
			return strconv.AppendInt(out, n, 10), nil
		}
		f, err := strconv.ParseFloat(word, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("%w: %q", errNotLiteral, word)
		}
		if isJSONNumber(word) {
			return append(out, word...), nil
		}
		return strconv.AppendFloat(out, f, 'g', -1, 64), nil
	}
}

// str reads a quoted string with Python's escapes.
func (p *pyParser) str() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\' && p.i+1 < len(p.s):
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case '/':
				b.WriteByte('/')
			case 'u', 'x':
				n := 4
				if e == 'x' {
					n = 2
				}
				if p.i+n > len(p.s) {
					return "", fmt.Errorf("%w: a cut \\%c escape", errNotLiteral, e)
				}
				r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
				if err != nil {
					return "", fmt.Errorf("%w: a bad \\%c escape", errNotLiteral, e)
				}
				b.WriteRune(rune(r))
				p.i += n
			case '\n':
			default:
				if e != '\\' && e != '\'' && e != '"' {
					b.WriteByte('\\')
				}
				b.WriteByte(e)
			}
		case c == '\n':
			return "", fmt.Errorf("%w: a line break in a string", errNotLiteral)
		default:
			_, n := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteString(p.s[p.i : p.i+n])
			p.i += n
		}
	}
	return "", fmt.Errorf("%w: a string that does not end", errNotLiteral)
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf
}

// pySpan finds where one Python value ends: at depth 0, before a ',' or
// ')' outside strings. It keeps no bytes.
type pySpan struct {
	depth int
	quote byte
	esc   bool
}

// scan reads s and returns how many bytes belong to the value; done says
// a delimiter follows them.
func (p *pySpan) scan(s string) (used int, done bool, err error) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case p.quote != 0 && p.esc:
			p.esc = false
		case p.quote != 0 && c == '\\':
			p.esc = true
		case p.quote != 0 && c == p.quote:
			p.quote = 0
		case p.quote != 0:
		case c == '\'' || c == '"':
			p.quote = c
		case c == '[' || c == '(' || c == '{':
			p.depth++
			if p.depth > core.MaxDepth {
				return i, false, core.ErrTooDeep
			}
		case (c == ',' || c == ')') && p.depth == 0:
			return i, true, nil
		case c == ']' || c == ')' || c == '}':
			p.depth--
			if p.depth < 0 {
				return i, false, fmt.Errorf("%w: an unmatched %c", errNotLiteral, c)
			}
		}
	}
	return len(s), false, nil
}

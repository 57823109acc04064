package wire

import (
	"errors"
	"strconv"
	"unicode/utf8"
)

// UnquoteRaw decodes a JSON string literal like strconv.Unquote would, but
// copies bytes that are not valid UTF-8 through unchanged instead of
// replacing them with U+FFFD. Streamed fragments may split one UTF-8
// character between two deltas (B05); keeping the raw bytes lets the
// concatenation come out exact.
func UnquoteRaw(lit []byte) (string, error) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", errors.New("not a JSON string")
	}
	s := lit[1 : len(lit)-1]
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(s) {
			return "", errors.New("bad escape at end of string")
		}
		switch s[i] {
		case '"', '\\', '/':
			out = append(out, s[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, n, err := readU(s[i+1:])
			if err != nil {
				return "", err
			}
			i += n
			if r >= 0xD800 && r < 0xDC00 && i+2 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				r2, n2, err := readU(s[i+3:])
				if err == nil && r2 >= 0xDC00 && r2 < 0xE000 {
					r = (r-0xD800)<<10 + (r2 - 0xDC00) + 0x10000
					i += 2 + n2
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", errors.New("bad escape \\" + string(s[i]))
		}
	}
	return string(out), nil
}

// readU reads the four hex digits of a \u escape.
func readU(s []byte) (rune, int, error) {
	if len(s) < 4 {
		return 0, 0, errors.New("short \\u escape")
	}
	v, err := strconv.ParseUint(string(s[:4]), 16, 32)
	if err != nil {
		return 0, 0, errors.New("bad \\u escape")
	}
	return rune(v), 4, nil
}

// QuoteRaw writes s as a JSON string literal, escaping quotes, backslashes
// and control characters and copying every other byte, valid UTF-8 or not,
// unchanged. It is the inverse of UnquoteRaw.
func QuoteRaw(s string) []byte {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, len(s)+2)
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c == '\n':
			out = append(out, '\\', 'n')
		case c == '\r':
			out = append(out, '\\', 'r')
		case c == '\t':
			out = append(out, '\\', 't')
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

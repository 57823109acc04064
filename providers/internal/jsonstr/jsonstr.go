package jsonstr

import (
	"bytes"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// UnquoteRaw decodes a JSON string literal like strconv.Unquote would, but
// copies bytes that are not valid UTF-8 through unchanged instead of
// replacing them with U+FFFD. Streamed fragments may split one UTF-8
// character between two deltas (B05); keeping the raw bytes lets the
// concatenation come out exact. A \u escape of a lone surrogate becomes
// U+FFFD, as in encoding/json.
func UnquoteRaw(lit []byte) (string, error) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", errors.New("not a JSON string")
	}
	s := lit[1 : len(lit)-1]
	out, _, err := AppendUnescaped(make([]byte, 0, len(s)), s)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// AppendUnescaped appends the value of a JSON string to dst, given the
// string's content between the quotes, and returns the extended buffer.
// It is the one JSON string unescaper of the adapters: UnquoteRaw wraps it,
// and the Chat Completions fast path calls it with a reused buffer. Bytes
// other than escapes are copied unchanged, valid UTF-8 or not. A \u escape
// of a lone surrogate (a high one not followed by a \u escape of a low one,
// or a low one alone) is written as U+FFFD, as encoding/json does, and
// reported by lone, so that a caller that must match encoding/json's
// handling exactly can tell. The error names the bad escape; on error the
// returned buffer holds what was decoded before it.
func AppendUnescaped(dst, s []byte) (out []byte, lone bool, err error) {
	out = dst
	for i := 0; i < len(s); i++ {
		// Byte by byte: deltas are short and dense with escapes, where
		// this beats finding the next backslash with bytes.IndexByte and
		// copying the run (about twice as fast on escape-dense strings).
		if c := s[i]; c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(s) {
			return out, lone, errors.New("bad escape at end of string")
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
			r, err := readU(s[i+1:])
			if err != nil {
				return out, lone, err
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if r < 0xDC00 && i+2 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
					r2, _ = readU(s[i+3:])
				}
				if r2 >= 0xDC00 && r2 < 0xE000 {
					r = utf16.DecodeRune(r, r2)
					i += 6
				} else {
					r, lone = utf8.RuneError, true
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return out, lone, errors.New("bad escape \\" + string(s[i]))
		}
	}
	return out, lone, nil
}

// The errors of a \u escape, made once so that readU stays small enough
// to inline.
var (
	errShortU = errors.New("short \\u escape")
	errBadU   = errors.New("bad \\u escape")
)

// readU reads the four hex digits of a \u escape.
func readU(s []byte) (rune, error) {
	if len(s) < 4 {
		return 0, errShortU
	}
	var r rune
	for _, c := range s[:4] {
		v := hexValue[c]
		if v < 0 {
			return 0, errBadU
		}
		r = r<<4 | rune(v)
	}
	return r, nil
}

// hexValue is the value of each byte as a hex digit, -1 for the bytes that
// are not one.
var hexValue = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for c := 0; c < 10; c++ {
		t['0'+c] = int8(c)
	}
	for c := 0; c < 6; c++ {
		t['a'+c], t['A'+c] = int8(10+c), int8(10+c)
	}
	return t
}()

// Field reads an optional string field as UnquoteRaw does: an absent or
// null value (white space around it allowed) is the empty string.
func Field(raw []byte) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	return UnquoteRaw(raw)
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

// AppendMarshaled appends s as a JSON string literal exactly as
// encoding/json.Marshal writes a string: quotes, backslashes and control
// characters escaped (\b, \f, \n, \r and \t by name), <, > and & as
// \u003c, \u003e and \u0026, U+2028 and U+2029 escaped, and each byte
// that is not part of valid UTF-8 written as \ufffd. It writes the same
// bytes as Marshal without its allocations.
func AppendMarshaled(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}

// MarshaledLen returns the length of what AppendMarshaled writes for s.
func MarshaledLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&':
				n++
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			default:
				n += 6
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// RawString is a JSON string decoded with UnquoteRaw: bytes that are not
// UTF-8 are kept, for CheckText to refuse, instead of becoming U+FFFD.
type RawString string

// UnmarshalJSON decodes a JSON string literal.
func (s *RawString) UnmarshalJSON(b []byte) error {
	v, err := UnquoteRaw(b)
	*s = RawString(v)
	return err
}

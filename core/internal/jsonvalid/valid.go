// Package jsonvalid reports whether bytes are one JSON value, as
// encoding/json's Valid does, in one pass without recursion or allocation:
// core checks the arguments of every call it completes, and for calls sent
// whole that check is most of what a stream costs. PlainRun scans a
// string's plain bytes eight at a time.
package jsonvalid

import "encoding/binary"

// maxDepth is encoding/json's bound on nesting: Valid refuses deeper
// values, as json.Valid does.
const maxDepth = 10000

// Valid reports whether b is exactly one JSON value with optional white
// space around it. It answers as json.Valid does for every input: strings
// may hold any byte from 0x20 up other than an unescaped quote or
// backslash, bytes that are not UTF-8 included.
func Valid(b []byte) bool {
	// open holds one bit per open array or object, set for an object.
	var open [maxDepth / 8]byte
	depth := 0
	i := skipSpace(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if depth == maxDepth {
				return false
			}
			if c == '{' {
				open[depth/8] |= 1 << (depth % 8)
			} else {
				open[depth/8] &^= 1 << (depth % 8)
			}
			depth++
			i = skipSpace(b, i+1)
			if i < len(b) && (b[i] == '}' && c == '{' || b[i] == ']' && c == '[') {
				depth--
				i++
				break
			}
			if c == '{' {
				if i = key(b, i); i < 0 {
					return false
				}
			}
			continue
		case c == '"':
			if i = str(b, i); i < 0 {
				return false
			}
		case c == '-' || c >= '0' && c <= '9':
			if i = number(b, i); i < 0 {
				return false
			}
		case c == 't':
			if i = literal(b, i, "true"); i < 0 {
				return false
			}
		case c == 'f':
			if i = literal(b, i, "false"); i < 0 {
				return false
			}
		case c == 'n':
			if i = literal(b, i, "null"); i < 0 {
				return false
			}
		default:
			return false
		}
		// A value ended before i: close what it ends, or go on to the
		// next element or member.
		for {
			i = skipSpace(b, i)
			if depth == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			inObject := open[(depth-1)/8]&(1<<((depth-1)%8)) != 0
			c := b[i]
			if c == ',' {
				i = skipSpace(b, i+1)
				if inObject {
					if i = key(b, i); i < 0 {
						return false
					}
				}
				break
			}
			if inObject && c != '}' || !inObject && c != ']' {
				return false
			}
			depth--
			i++
		}
	}
}

// key reads a member's key and its colon at i, returning the offset of
// its value with space skipped, or -1.
func key(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = str(b, i); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// str reads the string whose quote is at i and returns the offset after
// its closing quote, or -1.
func str(b []byte, i int) int {
	for i = PlainRun(b, i+1); i < len(b); i = PlainRun(b, i+1) {
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return -1
				}
				i += 4
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
	return -1
}

// PlainRun returns the offset of the first byte of b at or after i that
// a JSON string does not hold as it is (a quote, a backslash or a control
// character), or len(b). It tests eight bytes at a time.
func PlainRun(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		q, bs := w^(ones*'"'), w^(ones*'\\')
		// A byte below 0x20, or a zero byte of q or bs, sets its high bit
		// in one of the three terms (exact as a test of the whole word).
		if (w-ones*0x20)&^w&highs|(q-ones)&^q&highs|(bs-ones)&^bs&highs != 0 {
			break
		}
	}
	for ; i < len(b) && plain[b[i]]; i++ {
	}
	return i
}

// plain marks the bytes a string holds as they are: all from 0x20 up but
// the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number reads the number at i and returns the offset after it, or -1.
func number(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// literal reads lit at i and returns the offset after it, or -1.
func literal(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

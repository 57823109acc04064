package jsonscan

// Compact returns src, a valid JSON value, without the white space
// between its tokens, as json.Compact writes it: src itself when it has
// none (white space inside strings is part of them and stays), else the
// compacted bytes appended to (*scratch)[:0], valid until the next use of
// *scratch.
func Compact(scratch *[]byte, src []byte) []byte {
	i := spaceOutsideStrings(src)
	if i < 0 {
		return src
	}
	out := append((*scratch)[:0], src[:i]...)
	in := false
	for j := i; j < len(src); j++ {
		c := src[j]
		switch {
		case in:
			if c == '\\' && j+1 < len(src) {
				out = append(out, c)
				j++
				c = src[j]
			} else if c == '"' {
				in = false
			}
		case c == '"':
			in = true
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		}
		out = append(out, c)
	}
	*scratch = out
	return out
}

// spaceOutsideStrings returns the offset of the first white space byte of
// src outside a string, or -1.
func spaceOutsideStrings(src []byte) int {
	in := false
	for j := 0; j < len(src); j++ {
		c := src[j]
		switch {
		case in:
			if c == '\\' {
				j++
			} else if c == '"' {
				in = false
			}
		case c == '"':
			in = true
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			return j
		}
	}
	return -1
}

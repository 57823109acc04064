package jsonscan

// plain marks the bytes a JSON string holds as they are: all from 0x20 up
// but the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// CompactValue is Value also reporting whether the value is compact: no
// white space between its tokens, so that it is its own Compact.
func (p *Scanner) CompactValue() (v []byte, compact, ok bool) {
	p.WS()
	p.spaced = false
	v, ok = p.Value()
	return v, !p.spaced, ok
}

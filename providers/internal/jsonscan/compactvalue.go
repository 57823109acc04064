package jsonscan

import "encoding/binary"

// plainRun returns the offset of the first byte of b at or after i that a
// JSON string does not hold as it is (a quote, a backslash or a control
// character), or len(b), testing eight bytes at a time. It is the scan of
// core/internal/jsonvalid.PlainRun, which core's layering (standard
// library and core/ only) keeps out of this package's reach.
func plainRun(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		q, bs := w^(ones*'"'), w^(ones*'\\')
		if (w-ones*0x20)&^w&highs|(q-ones)&^q&highs|(bs-ones)&^bs&highs != 0 {
			break
		}
	}
	for ; i < len(b) && plain[b[i]]; i++ {
	}
	return i
}

// plain marks the bytes a string holds as they are: all from 0x20 up but
// the quote and the backslash. A table lookup keeps plainRun small enough
// to be inlined into Str.
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

package streamdec

import "unsafe"

// Vouched holds the argument texts a stream decoder checked to be one JSON
// value in well-formed UTF-8 among the events of its last input unit (an
// SSE event, a line), for the VouchArgs method core.Collect asks: a text
// is vouched for only as the very string the decoder checked, compared by
// address and length, never by its bytes. The zero value is ready to use;
// a Vouched must not be copied once used.
type Vouched struct {
	texts []string
	first [2]string
}

// Reset forgets every text, when the decoder reads its next input unit.
func (v *Vouched) Reset() {
	clear(v.texts)
	v.texts = v.texts[:0]
}

// Add vouches for s.
func (v *Vouched) Add(s string) {
	if v.texts == nil {
		v.texts = v.first[:0]
	}
	v.texts = append(v.texts, s)
}

// Has reports whether s, not empty, is one of the strings added since the
// last Reset.
func (v *Vouched) Has(s string) bool {
	if len(s) == 0 {
		return false
	}
	for _, t := range v.texts {
		if len(t) == len(s) && unsafe.StringData(t) == unsafe.StringData(s) {
			return true
		}
	}
	return false
}

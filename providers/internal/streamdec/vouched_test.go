package streamdec

import (
	"strings"
	"testing"
)

// TestVouched: only the very strings added since the last Reset are
// vouched for; a copy with the same bytes, a part of one and the empty
// string are not.
func TestVouched(t *testing.T) {
	var v Vouched
	a, b, c := strings.Repeat("a", 3), strings.Clone(`{"k":1}`), strings.Clone(`{"x":2}`)
	v.Add(a)
	v.Add(b)
	v.Add(c) // past the first storage
	for _, s := range []string{a, b, c} {
		if !v.Has(s) {
			t.Errorf("Has(%q) = false for a string added", s)
		}
	}
	for _, s := range []string{strings.Clone(b), b[:3], ""} {
		if v.Has(s) {
			t.Errorf("Has(%q) = true for a string not added", s)
		}
	}
	v.Reset()
	if v.Has(a) || v.Has(b) {
		t.Error("Has is true after Reset")
	}
	v.Add(c)
	if !v.Has(c) || v.Has(a) {
		t.Error("after Reset, Has does not give exactly the strings added since")
	}
}

package jsonstr

import (
	"testing"

	"pgregory.net/rapid"
)

// TestInvalidInDeltaSplits checks that a valid text cut into deltas at any
// bytes gives deltas invalidInDelta accepts (B05): only a character's start
// at a delta's end and its rest at the next one's start are incomplete.
func TestInvalidInDeltaSplits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.StringOf(rapid.SampledFrom([]rune("aé€😀\u0000\"\\"))).Draw(t, "text")
		cuts := rapid.SliceOfN(rapid.IntRange(0, len(text)), 0, 8).Draw(t, "cuts")
		prev := 0
		for _, c := range append(cuts, len(text)) {
			if c < prev {
				continue
			}
			if at := invalidInDelta(text[prev:c]); at >= 0 {
				t.Fatalf("delta %q of %q refused at byte %d", text[prev:c], text, at)
			}
			prev = c
		}
	})
}

// TestInvalidInDelta checks the bytes invalidInDelta refuses: any that
// cannot be the end or the start of a character cut between deltas.
func TestInvalidInDelta(t *testing.T) {
	tests := []struct {
		delta string
		want  int
	}{
		{"abc", -1},
		{"a\xffb", 1},
		{"\xff", 0},
		{"a\xe2\x82b", 1},        // a character's start, not at the end
		{"a\xe2\x82", -1},        // a character's start at the end
		{"\x82\xacb", -1},        // the rest of a character at the start
		{"\x9f\x98\x80b", -1},    // the rest of a four-byte character
		{"\x9f\x98\x80\x80b", 3}, // more than a character's rest
		{"a\xed\xa0\x80", 1},     // an encoded surrogate
		{"a\xc0\xaf", 1},         // an overlong encoding
	}
	for _, tt := range tests {
		if got := invalidInDelta(tt.delta); got != tt.want {
			t.Errorf("invalidInDelta(%q) = %d, want %d", tt.delta, got, tt.want)
		}
	}
}

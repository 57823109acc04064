package rules

import (
	"encoding/json"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

func TestInputConflict(t *testing.T) {
	tests := []struct {
		start, streamed string
		want            bool
	}{
		{`{"city":"Paris"}`, `{"city":"Paris"}`, false},          // deltas repeat the start
		{`{"city":"Paris"}`, `{"city":"Paris","days":3}`, false}, // deltas extend it
		{`{"n":1}`, `{"n":1.0}`, false},                          // spelling of a number
		{`{}`, `{"city":"Paris"}`, false},
		{`{"city":"Paris"}`, `{"city":"Rome"}`, true},     // another value
		{`{"city":"Paris","days":3}`, `{"days":3}`, true}, // a member dropped
		{`{"city":"Paris"}`, `[]`, true},
		{`{"city":"Paris"}`, `{"city":`, false}, // streamed text not JSON: the Buffer reports it
		{`{"city":"Paris"}`, ``, false},
		{`{"city":`, `{"city":"Rome"}`, false}, // start not JSON: nothing to compare
		{`{"a":1}{"a":2}`, `{"a":3}`, false},
	}
	for _, tt := range tests {
		if got := InputConflict([]byte(tt.start), []byte(tt.streamed)); got != tt.want {
			t.Errorf("InputConflict(%s, %s) = %v, want %v", tt.start, tt.streamed, got, tt.want)
		}
	}
}

// TestInputConflictItself checks that a JSON text never conflicts with
// itself.
func TestInputConflictItself(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(-20, 20).Draw(t, "n")
		s := rapid.StringMatching(`[a-c]{0,3}`).Draw(t, "s")
		text := []byte(`{"` + s + `":` + strconv.Itoa(n) + `,"x":[` + strconv.Itoa(n) + `]}`)
		if InputConflict(text, text) {
			t.Fatalf("InputConflict(%s, %s) = true", text, text)
		}
	})
}

// FuzzInputConflict checks that InputConflict never panics, that a text
// never conflicts with itself, and that a verdict of conflict needs two
// JSON values.
func FuzzInputConflict(f *testing.F) {
	f.Add([]byte(`{"city":"Paris"}`), []byte(`{"city":"Rome"}`))
	f.Add([]byte(`{"n":1e400}`), []byte(`{"n":10e399,"m":[1,{"x":null}]}`))
	f.Add([]byte(`{"a":`), []byte(`{"a":1}`))
	f.Add([]byte(`{"a":1}{"a":2}`), []byte(`{"a":1}`))
	f.Add([]byte(`{"n":1e999999999999}`), []byte(`{"n":1.0e999999999999}`))
	f.Fuzz(func(t *testing.T, start, streamed []byte) {
		got := InputConflict(start, streamed)
		if got && (!json.Valid(start) || !json.Valid(streamed)) {
			t.Errorf("InputConflict(%q, %q) = true for text that is not JSON", start, streamed)
		}
		if InputConflict(start, start) {
			t.Errorf("InputConflict(%q, itself) = true", start)
		}
	})
}

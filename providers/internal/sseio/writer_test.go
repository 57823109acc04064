package sseio

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// failAfter accepts n bytes, then fails every write.
type failAfter struct {
	n   int
	got strings.Builder
}

var errFull = errors.New("full")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.got.Len()+len(p) > f.n {
		return 0, errFull
	}
	return f.got.WriteString(string(p))
}

func TestWriterKeepsTheFirstError(t *testing.T) {
	w := &failAfter{n: 64}
	sw := NewWriter(w)
	sw.WriteJSON("a", map[string]int{"x": 1})
	if want := "event: a\ndata: {\"x\":1}\n\n"; w.got.String() != want || sw.Err() != nil {
		t.Fatalf("wrote %q (err %v), want %q", w.got.String(), sw.Err(), want)
	}
	sw.WriteJSON("b", math.Inf(1))
	jsonErr := sw.Err()
	if jsonErr == nil {
		t.Fatal("no error for a value JSON cannot encode")
	}
	sw.Write("c", []byte(strings.Repeat("x", 100)))
	if sw.Err() != jsonErr {
		t.Errorf("Err() = %v after a later failing write, want the first error %v", sw.Err(), jsonErr)
	}
	if w.got.Len() != len("event: a\ndata: {\"x\":1}\n\n") {
		t.Errorf("wrote %q after the first error", w.got.String())
	}
	sw2 := NewWriter(&failAfter{n: 0})
	sw2.Write("a", []byte("{}"))
	if !errors.Is(sw2.Err(), errFull) {
		t.Errorf("Err() = %v, want the writer's error", sw2.Err())
	}
}

package streamdec

import (
	"io"
	"testing"

	"github.com/toolconform/conform/core"
)

// countdown yields n text events, then io.EOF.
type countdown struct{ n, resets int }

func (c *countdown) Next() (core.Event, error) {
	if c.n == 0 {
		return core.Event{}, io.EOF
	}
	c.n--
	return core.Event{Kind: core.EventText, Text: "x"}, nil
}

// TestPoolNext: Next passes the decoder's events on; at its io.EOF the
// decoder is reset, goes back to the pool and is forgotten, so that later
// calls return io.EOF without touching it, and Get hands it out again.
func TestPoolNext(t *testing.T) {
	var p Pool[countdown, *countdown]
	d := p.Get()
	d.n = 2
	reset := func(c *countdown) { c.resets++ }
	for i := range 2 {
		if ev, err := p.Next(&d, reset); err != nil || ev.Text != "x" {
			t.Fatalf("event %d: %+v, %v", i, ev, err)
		}
	}
	kept := d
	for range 3 {
		if _, err := p.Next(&d, reset); err != io.EOF || d != nil {
			t.Fatalf("after the end: %v, decoder %p, want io.EOF and none", err, d)
		}
	}
	if kept.resets != 1 {
		t.Errorf("the decoder was reset %d times, want once", kept.resets)
	}
	if again := p.Get(); again != kept && again.resets != 0 {
		t.Errorf("Get gave a decoder that is neither the pooled one nor new: %+v", again)
	}
}

package streamenc

import (
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// countingStream yields n text events numbered in their Text, then err,
// and counts the events read.
type countingStream struct {
	n, read int
	err     error
}

func (s *countingStream) Next() (core.Event, error) {
	if s.read == s.n {
		return core.Event{}, s.err
	}
	s.read++
	return core.Event{Kind: core.EventText, Text: string(rune('a' + s.read%26))}, nil
}

// drain takes every event of src, looking ahead from each to the next
// two, and returns the events and what each look ahead saw.
func drain(src *Source) (got []core.Event, ahead [][]string) {
	for {
		e, _, ok := src.Next()
		if !ok {
			return got, ahead
		}
		got = append(got, e)
		var seen []string
		src.Ahead(func(f core.Event) bool {
			seen = append(seen, f.Text)
			return len(seen) < 2
		})
		ahead = append(ahead, seen)
	}
}

// TestSourceLiveLikeList checks that a live Source gives the events of its
// stream, and the same look-ahead, as a Source of the same events as a
// list, reading ahead no further than asked, and that the stream's error
// is Err's.
func TestSourceLiveLikeList(t *testing.T) {
	live := &countingStream{n: 10, err: io.EOF}
	wantEvents, wantAhead := drain(Events(func() []core.Event {
		var l []core.Event
		s := &countingStream{n: 10, err: io.EOF}
		for e, err := s.Next(); err == nil; e, err = s.Next() {
			l = append(l, e)
		}
		return l
	}()))
	src := Live(live)
	if _, _, ok := src.Next(); !ok || live.read != 1 {
		t.Fatalf("the first Next read %d events", live.read)
	}
	src.Ahead(func(core.Event) bool { return false })
	if live.read != 2 {
		t.Fatalf("a look at one event read %d in all, want 2", live.read)
	}
	got, ahead := drain(src)
	if diff := cmp.Diff(wantEvents[1:], got); diff != "" {
		t.Errorf("events (-list +live):\n%s", diff)
	}
	if diff := cmp.Diff(wantAhead[1:], ahead); diff != "" {
		t.Errorf("look-ahead (-list +live):\n%s", diff)
	}
	if src.Err() != nil {
		t.Errorf("Err %v at EOF", src.Err())
	}
	broken := errors.New("broken")
	src = Live(&countingStream{n: 1, err: broken})
	drain(src)
	if !errors.Is(src.Err(), broken) {
		t.Errorf("Err %v, want the stream's", src.Err())
	}
}

// TestSourceAheadBound looks ahead without end on a long live stream: the
// Source reads MaxAhead events and no more.
func TestSourceAheadBound(t *testing.T) {
	live := &countingStream{n: 3 * MaxAhead, err: io.EOF}
	src := Live(live)
	seen := 0
	src.Ahead(func(core.Event) bool { seen++; return true })
	if seen != MaxAhead || live.read != MaxAhead {
		t.Errorf("looked at %d events, read %d; want %d", seen, live.read, MaxAhead)
	}
}

package streamenc

import (
	"errors"
	"io"

	"github.com/toolconform/conform/core"
)

// MaxAhead bounds the events a live Source reads ahead for Ahead: an
// encoder that looks further sees the events end there.
const MaxAhead = 4096

// Source is the events a stream encoder writes, one at a time: those of a
// list (Events), or those of a stream as they arrive (Live), so that one
// encoder writes both EncodeStream and EncodeLiveStream. What an encoder
// must know before it writes an event (what comes later in the stream) it
// asks Ahead, which holds back the events it reads.
type Source struct {
	list  []core.Event
	live  core.EventStream
	ahead []core.Event // read from live and not yet taken
	n     int          // events taken
	err   error
	ended bool
}

// Events returns a Source of a list of events.
func Events(events []core.Event) *Source { return &Source{list: events} }

// Live returns a Source of the events of s, read as the encoder asks for
// them; an error of s ends the events and is Err's.
func Live(s core.EventStream) *Source { return &Source{live: s} }

// IsLive reports whether the events come from a stream, so that what
// follows an event is not known when it is written.
func (s *Source) IsLive() bool { return s.live != nil }

// Next returns the next event and its index; ok is false when the events
// have ended.
func (s *Source) Next() (e core.Event, i int, ok bool) {
	switch {
	case s.live == nil:
		if s.n == len(s.list) {
			return core.Event{}, s.n, false
		}
		e = s.list[s.n]
	case len(s.ahead) > 0:
		e = s.ahead[0]
		if s.ahead = s.ahead[1:]; len(s.ahead) == 0 {
			s.ahead = nil
		}
	default:
		if e, ok = s.read(); !ok {
			return core.Event{}, s.n, false
		}
	}
	s.n++
	return e, s.n - 1, true
}

// read reads one event from the live stream.
func (s *Source) read() (core.Event, bool) {
	if s.ended {
		return core.Event{}, false
	}
	e, err := s.live.Next()
	if err != nil {
		s.ended = true
		if !errors.Is(err, io.EOF) {
			s.err = err
		}
		return core.Event{}, false
	}
	return e, true
}

// Ahead calls f with each event after the last one Next returned, in
// order, until f returns false or the events end. A live Source reads
// them from its stream and keeps them for Next, at most MaxAhead.
func (s *Source) Ahead(f func(core.Event) bool) {
	if s.live == nil {
		for _, e := range s.list[s.n:] {
			if !f(e) {
				return
			}
		}
		return
	}
	for i := 0; ; i++ {
		if i == len(s.ahead) {
			if len(s.ahead) == MaxAhead {
				return
			}
			e, ok := s.read()
			if !ok {
				return
			}
			s.ahead = append(s.ahead, e)
		}
		if !f(s.ahead[i]) {
			return
		}
	}
}

// Err returns the error that ended a live Source's stream, nil at its end.
func (s *Source) Err() error { return s.err }

package sseio

import (
	"io"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/streamdec"
	"github.com/toolconform/conform/providers/internal/vendorerr"
)

// Handler is what an SSE stream decoder adds to Stream, its own decoder
// kept in it: Handle decodes one event into Stream.Q (calling Known for an
// event of the protocol and Unknown for one that is not), and AtEOF is the
// error that ends the stream at the end of input that held an event of
// the protocol: io.EOF for a clean end, or the fault of a cut stream.
type Handler interface {
	Handle(ev Event) error
	AtEOF() error
}

// Stream is the skeleton every SSE stream decoder shares, kept in the
// decoder itself so that it costs no allocation of its own: the SSE
// Reader, the vendor-error guard before the first event, the text rule,
// and the queue with its pull loop. Its Next is the decoder's: guarded,
// text-checked events pulled from the queue, which Handle fills. Input
// that is not blank but holds no event of the protocol ends with
// streamdec.NotStream at the first event Handle could not use.
type Stream struct {
	R     Reader
	Q     streamdec.Queue
	guard vendorerr.Guard
	check jsonstr.TextCheck
	h     Handler
	err   error
	// known is set by the first event of the protocol; unknownAt is the
	// offset of the first event that is not one (sawUnknown).
	known      bool
	sawUnknown bool
	unknownAt  int64
}

// Init makes s the stream of h reading r, its events at most max bytes;
// protocol names it in errors and types are its event types (see
// NewReader).
func (s *Stream) Init(h Handler, r io.Reader, max int, protocol string, types ...string) {
	s.h = h
	s.check.Protocol = protocol
	s.R.Init(s.guard.Reader(r), max, protocol, types...)
}

// Reset readies a Stream whose input ended for the next Init: it drops
// the input and every state, and keeps its Reader's SSE decoder (see
// Reader.Reset).
func (s *Stream) Reset() {
	r := s.R
	r.Reset()
	*s = Stream{R: r}
}

// Known records that an event of the protocol came.
func (s *Stream) Known() { s.known = true }

// IsKnown reports whether an event of the protocol came.
func (s *Stream) IsKnown() bool { return s.known }

// Unknown records an event at offset that is not of the protocol; the
// first one is where NotStream places its error.
func (s *Stream) Unknown(offset int64) {
	if !s.sawUnknown {
		s.sawUnknown, s.unknownAt = true, offset
	}
}

// Next returns the next event, io.EOF at the end, or the error that ends
// the stream.
func (s *Stream) Next() (core.Event, error) {
	if !s.guard.Passing() || s.check.Err() != nil {
		return s.guard.Next(s.checked)
	}
	// What the guard and the text rule give once the first event passed
	// and while the text is sound, without their calls around decoded.
	ev, err := s.decoded()
	if err == nil {
		if err = s.check.Check(&ev); err != nil {
			return core.Event{}, err
		}
	}
	return ev, err
}

func (s *Stream) checked() (core.Event, error) { return s.check.Next(s.decoded) }

func (s *Stream) decoded() (core.Event, error) { return streamdec.Pull(&s.Q, &s.err, s.pull) }

// pull decodes one SSE event into the queue, or returns the error that
// ends the stream. The event is a view of the reader's buffer, valid until
// the next: Handle decodes it, and keeps none of it.
func (s *Stream) pull() error {
	ev, err := s.R.NextRaw()
	switch {
	case err == io.EOF:
		if !s.known && !s.R.Blank() {
			off := int64(0)
			if s.sawUnknown {
				off = s.unknownAt
			}
			return streamdec.NotStream(s.check.Protocol, off, s.R.Offset())
		}
		return s.h.AtEOF()
	case err != nil:
		return err
	}
	return s.h.Handle(ev)
}

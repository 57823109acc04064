package sseio

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/streamdec"
	"github.com/toolconform/conform/providers/internal/wire"
	"github.com/toolconform/conform/sse"
)

// Event is one dispatched server-sent event. Offset is the byte offset of
// its first line in the stream.
type Event struct {
	Name   string
	Data   []byte
	Offset int64
}

// Reader adapts the shared SSE decoder to an adapter's errors: every
// failure is a *wire.DecodeError of the adapter's protocol with the offset the
// decoder names, and an event past the size limit also wraps the adapter's
// own too-large sentinel.
type Reader struct {
	protocol string
	// in counts the bytes read and judges whether they are blank (see
	// streamdec.Input); its event bookkeeping is not used here.
	in streamdec.Input
	d  *sse.Decoder
}

// NewReader returns a reader of the events of r, none larger than max
// bytes (an oversized event's error wraps core.ErrTooLarge). protocol
// names the adapter in errors; types, when given, are the protocol's event
// types (see sse.EventTypes).
func NewReader(r io.Reader, max int, protocol string, types ...string) *Reader {
	s := new(Reader)
	s.Init(r, max, protocol, types...)
	return s
}

// Init makes s, a Reader kept in a stream decoder, the reader NewReader
// returns, which spares its allocation. A Reader whose stream has ended
// and that Reset dropped keeps its SSE decoder for the next Init.
func (s *Reader) Init(r io.Reader, max int, protocol string, types ...string) {
	d := s.d
	if d == nil {
		d = new(sse.Decoder)
	}
	*s = Reader{protocol: protocol, d: d}
	s.in.Init(r)
	d.Init(&s.in, sse.FlushAtEOF(), sse.MaxEventSize(max), sse.EventTypes(types...))
}

// Reset drops the input of a Reader whose stream has ended, keeping its
// SSE decoder, whose buffers went back to sse's pool at the end, for the
// next Init.
func (s *Reader) Reset() {
	d := s.d
	if d != nil {
		*d = sse.Decoder{}
	}
	*s = Reader{d: d}
}

// Offset returns the number of bytes read so far.
func (s *Reader) Offset() int64 { return s.in.Offset() }

// Blank reports whether the bytes read so far are all ASCII white space
// (an empty body is blank).
func (s *Reader) Blank() bool { return s.in.Blank() }

// Next returns the next event, or io.EOF after the last. The event's Data
// is its own copy, which the caller may keep.
func (s *Reader) Next() (Event, error) {
	ev, err := s.NextRaw()
	if err != nil {
		return Event{}, err
	}
	ev.Data = bytes.Clone(ev.Data)
	return ev, nil
}

// NextRaw is Next without the copy: the event's Data is a view of the
// decoder's buffer, valid until the next call of Next or NextRaw, which
// the caller must not modify. The events, offsets and errors are those of
// Next, and a stream decoded event by event as it arrives costs no
// allocation per event.
func (s *Reader) NextRaw() (Event, error) {
	ev, err := s.d.NextRaw()
	if err == io.EOF {
		return Event{}, io.EOF
	}
	if err != nil {
		var se *sse.Error
		off := int64(-1)
		if errors.As(err, &se) {
			off = se.Offset
		}
		if errors.Is(err, sse.ErrEventTooLarge) {
			return Event{}, &wire.DecodeError{Protocol: s.protocol, Op: "decode stream", Offset: off, Err: fmt.Errorf("%w: %v", core.ErrTooLarge, err)}
		}
		return Event{}, &wire.DecodeError{Protocol: s.protocol, Op: "decode stream", Offset: off, Err: err}
	}
	return Event{Name: ev.Type, Data: ev.Data, Offset: s.d.Offset()}, nil
}

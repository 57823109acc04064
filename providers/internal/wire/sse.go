package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/sse"
)

// SSEEvent is one dispatched server-sent event. Offset is the byte offset of
// its first line in the stream.
type SSEEvent struct {
	Name   string
	Data   []byte
	Offset int64
}

// SSEReader adapts the shared SSE decoder to an adapter's errors: every
// failure is a *DecodeError of the adapter's protocol with the offset the
// decoder names, and an event past the size limit also wraps the adapter's
// own too-large sentinel.
type SSEReader struct {
	protocol string
	tooLarge error
	// in counts the bytes read and judges whether they are blank (see
	// StreamInput); its event bookkeeping is not used here.
	in StreamInput
	d  *sse.Decoder
}

// NewSSEReader returns a reader of the events of r, none larger than max
// bytes. protocol names the adapter in errors and tooLarge is the sentinel
// an oversized event's error wraps; types, when given, are the protocol's
// event types (see sse.EventTypes).
func NewSSEReader(r io.Reader, max int, protocol string, tooLarge error, types ...string) *SSEReader {
	s := new(SSEReader)
	s.Init(r, max, protocol, tooLarge, types...)
	return s
}

// Init makes s, a zero SSEReader kept in a stream decoder, the reader
// NewSSEReader returns, which spares its allocation.
func (s *SSEReader) Init(r io.Reader, max int, protocol string, tooLarge error, types ...string) {
	*s = SSEReader{protocol: protocol, tooLarge: tooLarge, in: StreamInput{r: r}}
	s.d = sse.NewDecoder(&s.in, sse.FlushAtEOF(), sse.MaxEventSize(max), sse.EventTypes(types...))
}

// Offset returns the number of bytes read so far.
func (s *SSEReader) Offset() int64 { return s.in.n }

// Blank reports whether the bytes read so far are all ASCII white space
// (an empty body is blank).
func (s *SSEReader) Blank() bool { return !s.in.solid }

// NotStream is the error of a stream decoder that met the end of a
// non-blank input without one event of its protocol: a *DecodeError at
// offset, the first event it could not use or byte 0, wrapping malformed
// and core.ErrNotStream. n is the length of the input.
func NotStream(protocol string, offset, n int64, malformed error) *DecodeError {
	return &DecodeError{Protocol: protocol, Op: "decode stream", Offset: offset, Err: fmt.Errorf("%w: no %s event in %d bytes: %w", malformed, protocol, n, core.ErrNotStream)}
}

// Next returns the next event, or io.EOF after the last. The event's Data
// is its own copy, which the caller may keep.
func (s *SSEReader) Next() (SSEEvent, error) {
	ev, err := s.NextRaw()
	if err != nil {
		return SSEEvent{}, err
	}
	ev.Data = bytes.Clone(ev.Data)
	return ev, nil
}

// NextRaw is Next without the copy: the event's Data is a view of the
// decoder's buffer, valid until the next call of Next or NextRaw, which
// the caller must not modify. The events, offsets and errors are those of
// Next, and a stream decoded event by event as it arrives costs no
// allocation per event.
func (s *SSEReader) NextRaw() (SSEEvent, error) {
	ev, err := s.d.NextRaw()
	if err == io.EOF {
		return SSEEvent{}, io.EOF
	}
	if err != nil {
		var se *sse.Error
		off := int64(-1)
		if errors.As(err, &se) {
			off = se.Offset
		}
		if errors.Is(err, sse.ErrEventTooLarge) {
			return SSEEvent{}, &DecodeError{Protocol: s.protocol, Op: "decode stream", Offset: off, Err: fmt.Errorf("%w: %v", s.tooLarge, err)}
		}
		return SSEEvent{}, &DecodeError{Protocol: s.protocol, Op: "decode stream", Offset: off, Err: err}
	}
	return SSEEvent{Name: ev.Type, Data: ev.Data, Offset: s.d.Offset()}, nil
}

package openairesponses

import (
	"errors"
	"fmt"
	"io"

	"github.com/toolconform/conform/providers/internal/sse"
)

// sseEvent is one dispatched server-sent event. Offset is the byte offset of
// its first line in the stream.
type sseEvent struct {
	Name   string
	Data   []byte
	Offset int64
}

// countingReader counts the bytes read, for the offset of a truncation.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// sseReader adapts the shared SSE decoder to this package's errors.
type sseReader struct {
	cr *countingReader
	d  *sse.Decoder
}

func newSSEReader(r io.Reader, max int) *sseReader {
	cr := &countingReader{r: r}
	return &sseReader{cr: cr, d: sse.NewDecoder(cr, sse.FlushAtEOF(), sse.MaxEventSize(max))}
}

// offset is the number of bytes read so far.
func (s *sseReader) offset() int64 { return s.cr.n }

// next returns the next event, or io.EOF.
func (s *sseReader) next() (sseEvent, error) {
	ev, err := s.d.Next()
	if err == io.EOF {
		return sseEvent{}, io.EOF
	}
	if err != nil {
		var se *sse.Error
		off := int64(-1)
		if errors.As(err, &se) {
			off = se.Offset
		}
		if errors.Is(err, sse.ErrEventTooLarge) {
			return sseEvent{}, &DecodeError{Op: "decode stream", Offset: off, Err: fmt.Errorf("%w: %v", ErrTooLarge, err)}
		}
		return sseEvent{}, &DecodeError{Op: "decode stream", Offset: off, Err: err}
	}
	return sseEvent{Name: ev.Type, Data: []byte(ev.Data), Offset: s.d.Offset()}, nil
}

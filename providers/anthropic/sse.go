package anthropic

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// sseEvent is one dispatched server-sent event. Offset is the byte offset of
// its first line in the stream.
type sseEvent struct {
	Name   string
	Data   []byte
	Offset int64
}

// sseReader is a minimal pull-based SSE reader that keeps byte offsets for
// error messages and bounds the size of one event.
type sseReader struct {
	r      *bufio.Reader
	off    int64
	max    int
	line   []byte
	data   []byte
	hasDat bool
}

func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 4096), max: max}
}

// readLine returns one line without its terminator, or io.EOF when the
// stream has no more bytes.
func (s *sseReader) readLine() ([]byte, int64, error) {
	start := s.off
	s.line = s.line[:0]
	for {
		frag, err := s.r.ReadSlice('\n')
		s.off += int64(len(frag))
		if len(s.line)+len(frag) > s.max+2 {
			return nil, start, &DecodeError{Op: "decode stream", Offset: start, Err: fmt.Errorf("line longer than %d bytes: %w", s.max, ErrTooLarge)}
		}
		s.line = append(s.line, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			if len(s.line) == 0 {
				return nil, start, io.EOF
			}
			return s.line, start, nil
		}
		if err != nil {
			return nil, start, err
		}
		line := s.line[:len(s.line)-1]
		line = bytes.TrimSuffix(line, []byte("\r"))
		return line, start, nil
	}
}

// next returns the next event with data, or io.EOF.
func (s *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	ev.Offset = -1
	s.data = s.data[:0]
	s.hasDat = false
	for {
		line, off, err := s.readLine()
		if err == io.EOF {
			if s.hasDat {
				ev.Data = s.data
				return ev, nil
			}
			return sseEvent{}, io.EOF
		}
		if err != nil {
			return sseEvent{}, err
		}
		if ev.Offset < 0 {
			ev.Offset = off
		}
		if len(line) == 0 {
			if s.hasDat {
				ev.Data = s.data
				return ev, nil
			}
			ev = sseEvent{Offset: -1}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.Name = string(value)
		case "data":
			if s.hasDat {
				s.data = append(s.data, '\n')
			}
			if len(s.data)+len(value) > s.max {
				return sseEvent{}, &DecodeError{Op: "decode stream", Offset: ev.Offset, Err: fmt.Errorf("event larger than %d bytes: %w", s.max, ErrTooLarge)}
			}
			s.data = append(s.data, value...)
			s.hasDat = true
		}
	}
}

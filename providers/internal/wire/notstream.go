package wire

import (
	"bytes"
	"io"
)

// StreamInput is the input of a stream decoder that must tell a body
// holding no event of its protocol (core.ErrNotStream) from a blank one, as
// the Cohere and Chat Completions decoders do over their own SSE decoder.
// Read counts the bytes read and notes whether any of them was more than
// ASCII white space (space, tab, CR, LF), judged byte by byte so that the
// verdict does not depend on how the body is split into reads. The decoder
// reports the events it reads with Known and Unknown; at the end of input
// NotStream says whether the body was no stream of the protocol, and where.
type StreamInput struct {
	r          io.Reader
	n          int64
	solid      bool
	known      bool
	sawUnknown bool
	unknownAt  int64
}

// NewStreamInput returns a StreamInput reading from r.
func NewStreamInput(r io.Reader) *StreamInput { return &StreamInput{r: r} }

// Init makes in a new StreamInput reading from r, for a decoder that
// holds its StreamInput in its own allocation.
func (in *StreamInput) Init(r io.Reader) { *in = StreamInput{r: r} }

// Read reads from the underlying reader, counting and judging the bytes.
func (in *StreamInput) Read(p []byte) (int, error) {
	n, err := in.r.Read(p)
	in.n += int64(n)
	if !in.solid {
		in.solid = len(bytes.Trim(p[:n], " \t\r\n")) > 0
	}
	return n, err
}

// Known notes an event of the protocol: the body is a stream of it.
func (in *StreamInput) Known() { in.known = true }

// IsKnown reports whether Known was called.
func (in *StreamInput) IsKnown() bool { return in.known }

// Unknown notes an event, at byte offset, that is not one of the
// protocol's; the first such offset is the place NotStream names.
func (in *StreamInput) Unknown(offset int64) {
	if !in.sawUnknown {
		in.sawUnknown, in.unknownAt = true, offset
	}
}

// NotStream reports whether the input read so far is no stream of the
// protocol: it is not blank and no event of the protocol was seen. offset
// is that of the first unknown event, or 0 when there was none; n is the
// number of bytes read.
func (in *StreamInput) NotStream() (offset, n int64, ok bool) {
	if in.known || !in.solid {
		return 0, in.n, false
	}
	if in.sawUnknown {
		offset = in.unknownAt
	}
	return offset, in.n, true
}

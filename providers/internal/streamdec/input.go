package streamdec

import (
	"bytes"
	"fmt"
	"io"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/wire"
)

// Input is the input of a stream decoder that must tell a body
// holding no event of its protocol (core.ErrNotStream) from a blank one, as
// the Cohere and Chat Completions decoders do over their own SSE decoder.
// Read counts the bytes read and notes whether any of them was more than
// ASCII white space (space, tab, CR, LF), judged byte by byte so that the
// verdict does not depend on how the body is split into reads. The decoder
// reports the events it reads with Known and Unknown; at the end of input
// NotStream says whether the body was no stream of the protocol, and where.
type Input struct {
	r          io.Reader
	n          int64
	solid      bool
	known      bool
	sawUnknown bool
	unknownAt  int64
}

// NewInput returns a Input reading from r.
func NewInput(r io.Reader) *Input { return &Input{r: r} }

// Init makes in a new Input reading from r, for a decoder that
// holds its Input in its own allocation.
func (in *Input) Init(r io.Reader) { *in = Input{r: r} }

// Read reads from the underlying reader, counting and judging the bytes.
func (in *Input) Read(p []byte) (int, error) {
	n, err := in.r.Read(p)
	in.n += int64(n)
	if !in.solid {
		in.solid = len(bytes.Trim(p[:n], " \t\r\n")) > 0
	}
	return n, err
}

// Known notes an event of the protocol: the body is a stream of it.
func (in *Input) Known() { in.known = true }

// IsKnown reports whether Known was called.
func (in *Input) IsKnown() bool { return in.known }

// Unknown notes an event, at byte offset, that is not one of the
// protocol's; the first such offset is the place NotStream names.
func (in *Input) Unknown(offset int64) {
	if !in.sawUnknown {
		in.sawUnknown, in.unknownAt = true, offset
	}
}

// NotStream reports whether the input read so far is no stream of the
// protocol: it is not blank and no event of the protocol was seen. offset
// is that of the first unknown event, or 0 when there was none; n is the
// number of bytes read.
func (in *Input) NotStream() (offset, n int64, ok bool) {
	if in.known || !in.solid {
		return 0, in.n, false
	}
	if in.sawUnknown {
		offset = in.unknownAt
	}
	return offset, in.n, true
}

// NotStream is the error of a stream decoder that met the end of a
// non-blank input without one event of its protocol: a *wire.DecodeError at
// offset, the first event it could not use or byte 0, wrapping
// core.ErrNotStream (a kind of core.ErrMalformed). n is the length of the
// input.
func NotStream(protocol string, offset, n int64) *wire.DecodeError {
	return &wire.DecodeError{Protocol: protocol, Op: "decode stream", Offset: offset, Err: fmt.Errorf("%w: no %s event in %d bytes: %w", core.ErrMalformed, protocol, n, core.ErrNotStream)}
}

// Offset is the number of bytes read so far.
func (in *Input) Offset() int64 { return in.n }

// Blank reports whether every byte read so far is white space.
func (in *Input) Blank() bool { return !in.solid }

// Package outside holds three adapters written outside conform's module, as
// a user would write them, to show how conformtest grades each.
package outside

import (
	"io"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/openaichat"
)

// Wrapper is a correct adapter of openai-chat under a name of its own.
type Wrapper struct{ core.Adapter }

// NewWrapper returns a Wrapper of the reference adapter.
func NewWrapper() core.Adapter { return Wrapper{openaichat.New()} }

// Name returns the adapter's own name, which is not a protocol.
func (Wrapper) Name() string { return "my-openai" }

// IndexRouter is the reference adapter with a planted bug: it routes
// streamed calls by index only, so a second call on a reused index (A01,
// A02) is merged into the first.
type IndexRouter struct{ Wrapper }

// NewIndexRouter returns the broken adapter.
func NewIndexRouter() core.Adapter { return IndexRouter{Wrapper{openaichat.New()}} }

// DecodeStream drops the id and name of every call chunk whose index was
// seen before.
func (r IndexRouter) DecodeStream(body io.Reader) core.EventStream {
	return &indexOnly{s: r.Adapter.DecodeStream(body), seen: map[int]bool{}}
}

type indexOnly struct {
	s    core.EventStream
	seen map[int]bool
}

func (x *indexOnly) Next() (core.Event, error) {
	ev, err := x.s.Next()
	if c := ev.Chunk; c != nil && c.HasIndex {
		if x.seen[c.Index] {
			cp := *c
			cp.ID, cp.Name = "", ""
			ev.Chunk = &cp
		}
		x.seen[c.Index] = true
	}
	return ev, err
}

// StreamOnly is a stream accumulator: it implements DecodeStream and
// nothing else of core.Adapter.
type StreamOnly struct{ d core.StreamDecoder }

// NewStreamOnly returns a StreamOnly over the reference decoder.
func NewStreamOnly() StreamOnly { return StreamOnly{openaichat.New()} }

// DecodeStream decodes an openai-chat stream.
func (s StreamOnly) DecodeStream(r io.Reader) core.EventStream { return s.d.DecodeStream(r) }

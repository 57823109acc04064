package streamdec

import (
	"io"
	"sync"

	"github.com/toolconform/conform/core"
)

// Pool keeps the decoders of streams that have ended, of type D, for the
// streams that follow: a stream then costs what its events point into,
// not its decoder's buffers. The zero value is ready to use.
type Pool[D any, PD interface {
	*D
	Next() (core.Event, error)
}] struct{ p sync.Pool }

// Get returns a decoder the pool holds, as its reset left it, or a new one.
func (p *Pool[D, PD]) Get() *D {
	if d, ok := p.p.Get().(*D); ok {
		return d
	}
	return new(D)
}

// Next is the Next of the stream a DecodeStream returns over the decoder
// *d, which came from p: the decoder's next event, and once it returned
// io.EOF, the decoder reset (emptied of all that events point into and of
// its input, by reset) and back in p, and *d nil, so that every later
// call returns io.EOF without it. Events never point into a decoder that
// goes back to the pool.
func (p *Pool[D, PD]) Next(d **D, reset func(*D)) (core.Event, error) {
	if *d == nil {
		return core.Event{}, io.EOF
	}
	ev, err := PD(*d).Next()
	if err == io.EOF {
		reset(*d)
		p.p.Put(*d)
		*d = nil
	}
	return ev, err
}

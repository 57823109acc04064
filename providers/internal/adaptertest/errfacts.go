package adaptertest

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/wire"
)

// ErrorFacts describes an error by all a caller can branch on: its type,
// its text, where a *wire.DecodeError places it (Offset -2 when it is none)
// and the sentinels it wraps, so that two errors with the same text but
// another place or sentinel differ. The zero value stands for no error.
type ErrorFacts struct {
	Type, Text  string
	Offset      int64
	Event, Path string
	// Sentinels names the sentinels the error wraps, sorted, joined by
	// commas: core's and the caller's own.
	Sentinels string
}

// coreSentinels are the sentinels of core (and io) a stream error may wrap.
var coreSentinels = []error{
	core.ErrMalformed, core.ErrNotStream, core.ErrTruncated, core.ErrTooLarge, core.ErrInvalidUTF8,
	core.ErrInvalidArguments, core.ErrUnsupported, core.ErrArgumentsTooLarge, core.ErrTooManyCalls,
	io.ErrUnexpectedEOF,
}

// FactsOf returns the facts of err, checking core's sentinels and own, a
// protocol's sentinels.
func FactsOf(err error, own ...error) ErrorFacts {
	if err == nil {
		return ErrorFacts{}
	}
	f := ErrorFacts{Type: fmt.Sprintf("%T", err), Text: err.Error(), Offset: -2}
	var de *wire.DecodeError
	if errors.As(err, &de) {
		f.Offset, f.Event, f.Path = de.Offset, de.Event, de.Path
	}
	var names []string
	for _, s := range slices.Concat(coreSentinels, own) {
		if errors.Is(err, s) {
			names = append(names, s.Error())
		}
	}
	slices.Sort(names)
	f.Sentinels = strings.Join(names, ", ")
	return f
}

// DrainFacts is Drain with the facts of the error that ended the stream,
// the zero ErrorFacts at io.EOF.
func DrainFacts(st core.EventStream, own ...error) ([]core.Event, ErrorFacts) {
	evs, err := Drain(st)
	return evs, FactsOf(err, own...)
}

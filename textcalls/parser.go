package textcalls

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/toolconform/conform/core"
)

// Parser reads the text a model wrote, one delta at a time, and turns it
// into canonical events: EventText, EventThinking, EventCallStart,
// EventCallDelta, EventCallEnd and, for a limit hit, EventError.
//
// Feed appends the events that delta makes known to dst and returns it;
// it holds back only what may still begin a marker (or a UTF-8 character
// cut by the delta), so a marker split across deltas is never lost and
// text is never late by more than a marker's length. Close ends the text
// and appends what was held back. After an EventError the parser ignores
// the rest of its input. A Parser is used by one goroutine.
//
// Every call event carries a Chunk with HasIndex set and Index the call's
// position in the text (0, 1, …), the call's id where the format writes
// one, and the name on EventCallStart. A call whose closing marker never
// came, or whose body is malformed, gets no EventCallEnd: collected, it is
// incomplete (see Stream).
type Parser interface {
	Feed(dst []core.Event, delta string) []core.Event
	Close(dst []core.Event) []core.Event
}

// Tool is a declared tool as a parser needs it: its name and the JSON
// Schema of its parameters, which types the values of formats that write
// parameters as raw text (see ParamValue).
type Tool struct {
	Name       string          `json:"name"`
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// Options configure a parser.
type Options struct {
	// Tools are the declared tools, for the formats whose parameter
	// types come from the schema. Nil declares none: values stay text.
	Tools []Tool
	// ThinkingOpen says the prompt already opened the reasoning region
	// (a chat template that ends with <think>): the text starts inside it.
	ThinkingOpen bool
	// NoThinking says reasoning is off: the format's reasoning markers
	// are plain text.
	NoThinking bool
	// MaxBody bounds the bytes of one call body a parser keeps while it
	// waits for the body's end. Default DefaultMaxBody.
	MaxBody int
}

// DefaultMaxBody is the default Options.MaxBody, the most arguments
// core.Buffer accepts (core.DefaultMaxArgBytes).
const DefaultMaxBody = core.DefaultMaxArgBytes

// ErrBodyTooLarge reports a call body above Options.MaxBody.
var ErrBodyTooLarge = fmt.Errorf("call body %w", core.ErrTooLarge)

func (o Options) withDefaults() Options {
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	return o
}

// tool returns the declared tool called name, or nil.
func (o *Options) tool(name string) *Tool {
	for i := range o.Tools {
		if o.Tools[i].Name == name {
			return &o.Tools[i]
		}
	}
	return nil
}

// Aliases are the names engines give a format.
type Aliases struct {
	VLLM, SGLang, LlamaCpp, Ollama []string
}

// Format is one way of writing tool calls into text.
type Format struct {
	// Name is the canonical name (FORMATS.md), Aliases what each engine
	// calls it.
	Name    string
	Aliases Aliases
	// Grammar is one line on how the format writes calls.
	Grammar string
	// New returns a parser of the format.
	New func(Options) Parser
	// Render writes a turn in the format: its reasoning, text and calls,
	// the inverse of parsing it (with the same Options).
	Render func(Turn) (string, error)
}

// Turn is what one model turn says: reasoning, text and calls, in that
// order when rendered.
type Turn struct {
	Thinking string
	Text     string
	Calls    []core.Call
}

// ErrCannotRender reports a turn a format has no way of writing:
// reasoning in a format without a reasoning region, text beside calls in
// one whose calls must be all the text, a value its notation cannot hold.
var ErrCannotRender = errors.New("cannot render")

// plain checks that a format without a reasoning region is given none.
func plain(format string, t Turn) error {
	if t.Thinking != "" {
		return fmt.Errorf("%s: %w: reasoning, which the format has no region for", format, ErrCannotRender)
	}
	return nil
}

// ErrUnknownFormat reports a format name Lookup does not know.
var ErrUnknownFormat = errors.New("unknown format")

// Formats returns every built-in format, sorted by name.
func Formats() []*Format {
	out := slices.Clone(formats)
	slices.SortFunc(out, func(a, b *Format) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Lookup returns the built-in format called name (its canonical name).
func Lookup(name string) (*Format, error) {
	for _, f := range formats {
		if f.Name == name {
			return f, nil
		}
	}
	names := make([]string, 0, len(formats))
	for _, f := range Formats() {
		names = append(names, f.Name)
	}
	return nil, fmt.Errorf("%w %q; known: %s", ErrUnknownFormat, name, strings.Join(names, ", "))
}

// Parse feeds deltas to a new parser of f and returns every event, with
// the end of the text.
func Parse(f *Format, opts Options, deltas ...string) []core.Event {
	p := f.New(opts)
	var evs []core.Event
	for _, d := range deltas {
		evs = p.Feed(evs, d)
	}
	return p.Close(evs)
}

// Stream yields a parser's events as a core.EventStream, pulling deltas
// from next until it returns io.EOF. The parser's error events (a
// malformed call body, a limit) are held to the end of the text and given
// there as one error event, so that collecting goes on past them; without
// errors the stream ends with a finish event: "tool_calls" when calls were
// made and all ended, "stop" when none were, and "length" (provider reason
// "unclosed_call") when the text ended inside a call. Either way
// core.Collect leaves every call without its end incomplete. An error
// from next ends the stream with that error.
type Stream struct {
	p     Parser
	next  func() (string, error)
	queue []core.Event
	at    int
	done  bool
	open  map[int]bool
	calls int
	errs  []string
}

// NewStream returns the stream of p's events over the deltas next yields.
func NewStream(p Parser, next func() (string, error)) *Stream {
	return &Stream{p: p, next: next, open: map[int]bool{}}
}

// Deltas returns a next function for NewStream over a fixed list.
func Deltas(deltas ...string) func() (string, error) {
	return func() (string, error) {
		if len(deltas) == 0 {
			return "", io.EOF
		}
		d := deltas[0]
		deltas = deltas[1:]
		return d, nil
	}
}

// Next returns the next event; see core.EventStream.
func (s *Stream) Next() (core.Event, error) {
	for s.at == len(s.queue) {
		if s.done {
			return core.Event{}, io.EOF
		}
		s.queue, s.at = s.queue[:0], 0
		d, err := s.next()
		switch {
		case err == io.EOF:
			s.queue = s.p.Close(s.queue)
			s.done = true
			s.track()
			s.queue = append(s.queue, s.finish())
		case err != nil:
			s.done = true
			return core.Event{}, err
		default:
			s.queue = s.p.Feed(s.queue, d)
			s.track()
		}
	}
	ev := s.queue[s.at]
	s.at++
	return ev, nil
}

// track notes the calls the queued events open and end, and takes their
// errors out of the queue.
func (s *Stream) track() {
	kept := s.queue[:0]
	for _, ev := range s.queue {
		switch ev.Kind {
		case core.EventCallStart:
			s.open[ev.Chunk.Index] = true
			s.calls++
		case core.EventCallEnd:
			delete(s.open, ev.Chunk.Index)
		case core.EventError:
			s.errs = append(s.errs, ev.Error.Message)
			continue
		}
		kept = append(kept, ev)
	}
	s.queue = kept
}

// finish is the stream's last event.
func (s *Stream) finish() core.Event {
	switch {
	case len(s.errs) > 0:
		return core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: ErrorType, Message: strings.Join(s.errs, "; ")}}
	case len(s.open) > 0:
		return core.Event{Kind: core.EventFinish, Finish: core.FinishLength, ProviderFinish: "unclosed_call"}
	case s.calls > 0:
		return core.Event{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "tool_calls"}
	}
	return core.Event{Kind: core.EventFinish, Finish: core.FinishStop, ProviderFinish: "stop"}
}

// ErrorType is the ProviderError.Type of a parser's error events.
const ErrorType = "parse_error"

// Collect parses deltas with a new parser of f and collects the events
// with core.Collect: the Response and every problem, as for any adapter.
func Collect(f *Format, opts Options, deltas ...string) (*core.Response, error) {
	return core.Collect(NewStream(f.New(opts), Deltas(deltas...)))
}

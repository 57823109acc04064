package openairesponses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonscan"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/sseio"
	"github.com/toolconform/conform/providers/internal/streamdec"
	"github.com/toolconform/conform/providers/internal/wire"
)

type streamEvent struct {
	Type        string          `json:"type"`
	Response    *wireResponse   `json:"response"`
	Item        *wireItem       `json:"item"`
	ItemID      string          `json:"item_id"`
	OutputIndex *int            `json:"output_index"`
	Delta       json.RawMessage `json:"delta"`
	Arguments   json.RawMessage `json:"arguments"`
	Code        any             `json:"code"`
	Message     string          `json:"message"`
	Error       *wireError      `json:"error"`
}

type callState struct {
	ended bool
}

type stream struct {
	sseio.Stream
	// ResponseMemory holds the Response core.Collect returns, whose
	// strings point into the stream's storage (first): it lives as long
	// as the stream anyway.
	core.ResponseMemory
	a        *Adapter
	calls    streamdec.SmallMap[callState] // by item id
	callIDs  streamdec.SmallMap[struct{}]
	sawCall  bool
	finished bool
	errored  bool

	// noFast turns the fast path off, for tests that compare the two;
	// fastHits counts the events it decoded.
	noFast   bool
	fastHits int
	// chunks and strs are reused storage, and itemIDs the strings of the
	// item ids the fast path read last, by their raw bytes (see fast.go).
	chunks  []core.Chunk
	strs    jsonscan.Strings
	itemIDs [maxItemIDs]itemIDString
	nextID  int // the entry of itemIDs the next new id replaces
	// events is the queue's first storage, first that of the strings
	// and chunks; usage that of the first usage event, given out when
	// usageOut is set.
	events   [4]core.Event
	first    jsonscan.First
	usage    core.Usage
	usageOut bool
	// env is the event the envelope scanner, or json.Unmarshal, decoded
	// (envelope.go).
	env envelope
}

// DecodeStream reads a Responses SSE stream one event at a time. See the
// package documentation for how each event maps to core events. Input
// that is not blank but holds no Responses event at all is not a stream of
// the protocol: a *DecodeError wrapping core.ErrMalformed and core.ErrNotStream
// at the offset of the first event it could not use, or byte 0.
func (a *Adapter) DecodeStream(r io.Reader) core.EventStream { return a.newStream(r) }

// newStream returns the decoder of a stream, which guards its start
// (vendorerr.GuardStream) and checks its text (jsonstr.CheckText) itself.
func (a *Adapter) newStream(r io.Reader) *stream {
	s := &stream{a: a}
	s.Init(s, r, a.maxEvent, protocolName, eventTypes...)
	s.Q.Use(s.events[:])
	s.first.Use(&s.strs, &s.chunks)
	return s
}

// eventTypes are the event types a Responses stream names most, which its
// SSE reader need not copy (sse.EventTypes).
var eventTypes = []string{
	"response.created", "response.in_progress", "response.queued",
	"response.output_item.added", "response.output_item.done",
	"response.content_part.added", "response.content_part.done",
	"response.output_text.delta", "response.output_text.done",
	"response.function_call_arguments.delta", "response.function_call_arguments.done",
	"response.reasoning_summary_part.added", "response.reasoning_summary_part.done",
	"response.reasoning_summary_text.delta", "response.reasoning_summary_text.done",
	"response.reasoning_text.delta", "response.reasoning_text.done",
	"response.completed", "response.incomplete", "response.failed", "error",
}

// args returns the arguments of an item or of function_call_arguments.done
// as argsOf does, its string made in the stream's arena.
func (s *stream) args(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		args, _ := argsOf(raw)
		return args
	}
	// As jsonstr.UnquoteRaw, which argsOf calls.
	v, ok := s.strs.Raw(raw[1:len(raw)-1], bytes.IndexByte(raw, '\\') >= 0)
	if !ok {
		return ""
	}
	return v
}

// final returns the whole arguments an end event carries for a call's
// end chunk, which the Buffer checks against the deltas streamed before
// it: nil, no final, when the event has no arguments field or null there,
// never an empty text that would replace the deltas.
func (s *stream) final(raw json.RawMessage) *string {
	if raw = bytes.TrimSpace(raw); len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	args := s.args(raw)
	return &args
}

// newUsage returns u for a usage event. The first is kept in the stream,
// which never writes it again.
func (s *stream) newUsage(u core.Usage) *core.Usage {
	if s.usageOut {
		p := new(core.Usage) // not &u, which would move every u to the heap
		*p = u
		return p
	}
	s.usage, s.usageOut = u, true
	return &s.usage
}

func (s *stream) emit(e core.Event) {
	s.Q.Push(e)
}

// AtEOF gives the error that ends a stream of the protocol at the end of
// its input (sseio.Handler).
func (s *stream) AtEOF() error {
	if !s.finished && !s.errored && (s.Q.ID != "" || s.sawCall || s.Q.Stamped()) {
		return &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: s.R.Offset(), Err: fmt.Errorf("%w: no response.completed, response.incomplete, response.failed or error event", core.ErrTruncated)}
	}
	return io.EOF
}

func (s *stream) fail(ev sseio.Event, format string, args ...any) error {
	return &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: ev.Offset, Err: fmt.Errorf("%w: "+format, append([]any{core.ErrMalformed}, args...)...)}
}

func (s *stream) str(ev sseio.Event, raw json.RawMessage, field string) (string, error) {
	v, err := jsonstr.Field(raw)
	if err != nil {
		return "", s.fail(ev, "%s: %v", field, err)
	}
	return v, nil
}

// Handle decodes one SSE event into the queue (sseio.Handler).
func (s *stream) Handle(ev sseio.Event) error {
	data := bytes.TrimSpace(ev.Data)
	if string(data) == "[DONE]" {
		s.Known()
	}
	if len(data) == 0 || string(data) == "[DONE]" {
		return nil
	}
	if !s.noFast && s.fast(data) {
		return nil
	}
	se := &s.env.ev
	switch {
	case !s.noFast && s.scan(data):
		s.fastHits++
	default:
		*se = streamEvent{}
		if err := json.Unmarshal(data, se); err != nil {
			if off, _, ok := wire.JSONPlace(err); ok {
				return &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: ev.Offset, Err: fmt.Errorf("%w: event data at byte %d: %v", core.ErrMalformed, off, err)}
			}
			return &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: ev.Offset, Err: fmt.Errorf("%w: %v", core.ErrMalformed, err)}
		}
	}
	typ := se.Type
	if typ == "" {
		typ = ev.Name
	}
	switch {
	case strings.HasPrefix(typ, "response.") || typ == "error" || typ == "keepalive":
		s.Known()
	default:
		s.Unknown(ev.Offset)
	}
	chunk := func() *core.Chunk {
		c := s.chunk()
		c.ItemID = se.ItemID
		if se.OutputIndex != nil {
			c.Index, c.HasIndex = *se.OutputIndex, true
		}
		return c
	}
	switch typ {
	case "response.created", "response.in_progress", "response.queued":
		if se.Response != nil && !s.Q.Stamped() {
			s.Q.ID, s.Q.Model = se.Response.ID, se.Response.Model
		}
	case "response.output_item.added":
		if se.Item == nil {
			return s.fail(ev, "%s without item", typ)
		}
		if se.Item.Type != "function_call" {
			return nil
		}
		it := se.Item
		if s.callIDs.Get(it.CallID) != nil {
			return &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: ev.Offset, Err: fmt.Errorf("%w: duplicate call_id %q", core.ErrDuplicateCallID, it.CallID)}
		}
		if s.calls.Len() >= s.a.maxItems {
			return &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: ev.Offset, Err: fmt.Errorf("more than %d function calls: %w", s.a.maxItems, core.ErrTooLarge)}
		}
		s.callIDs.Put(it.CallID, struct{}{})
		s.calls.Put(it.ID, callState{})
		s.sawCall = true
		c := chunk()
		c.ItemID, c.ID, c.Name, c.Start = it.ID, it.CallID, it.Name, true
		c.ArgsDelta = s.args(it.Arguments)
		s.emit(core.Event{Kind: core.EventCallStart, Chunk: c})
	case "response.function_call_arguments.delta":
		d, err := s.str(ev, se.Delta, "delta")
		if err != nil {
			return err
		}
		if d == "" {
			return nil
		}
		c := chunk()
		c.ArgsDelta = d
		s.emit(core.Event{Kind: core.EventCallDelta, Chunk: c})
	case "response.function_call_arguments.done":
		if st := s.calls.Get(se.ItemID); st != nil {
			if st.ended {
				return nil
			}
			st.ended = true
		}
		c := chunk()
		c.Args, c.Done = s.final(se.Arguments), true
		s.emit(core.Event{Kind: core.EventCallEnd, Chunk: c})
	case "response.output_item.done":
		if se.Item == nil {
			return s.fail(ev, "%s without item", typ)
		}
		it := se.Item
		switch it.Type {
		case "function_call":
			st := s.calls.Get(it.ID)
			if st == nil || st.ended || it.Status == "incomplete" {
				return nil
			}
			st.ended = true
			c := chunk()
			c.ItemID, c.Args, c.Done = it.ID, s.final(it.Arguments), true
			s.emit(core.Event{Kind: core.EventCallEnd, Chunk: c})
		case "reasoning":
			if it.EncryptedContent != nil && *it.EncryptedContent != "" {
				s.emit(core.Event{Kind: core.EventThinking, Signature: *it.EncryptedContent, ItemID: it.ID})
			}
		}
	case "response.output_text.delta":
		d, err := s.str(ev, se.Delta, "delta")
		if err != nil {
			return err
		}
		if d != "" {
			s.emit(core.Event{Kind: core.EventText, Text: d})
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		d, err := s.str(ev, se.Delta, "delta")
		if err != nil {
			return err
		}
		if d != "" {
			s.emit(core.Event{Kind: core.EventThinking, Text: d, ItemID: se.ItemID})
		}
	case "response.completed", "response.incomplete", "response.failed":
		s.finished = true
		r := se.Response
		if r == nil {
			return s.fail(ev, "%s without response", typ)
		}
		if r.Usage != nil {
			s.emit(core.Event{Kind: core.EventUsage, Usage: s.newUsage(core.Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens})})
		}
		reason := ""
		if r.IncompleteDetails != nil {
			reason = r.IncompleteDetails.Reason
		}
		status := r.Status
		if status == "" {
			status = typ[len("response."):]
		}
		// The finish comes before the failed response's error, so that a
		// client that stops at the error (core.Collect) has the raw
		// "failed" status, as DecodeResponse gives for the same response.
		f, raw := finishOf(status, reason, s.sawCall)
		s.emit(core.Event{Kind: core.EventFinish, Finish: f, ProviderFinish: raw})
		if r.Error != nil && !s.errored {
			s.errored = true
			s.emit(core.Event{Kind: core.EventError, Error: r.Error.provider()})
		}
	case "error":
		s.errored = true
		var pe *core.ProviderError
		if se.Error != nil {
			pe = se.Error.provider()
		} else {
			pe = (&wireError{Code: se.Code, Message: se.Message}).provider()
		}
		s.emit(core.Event{Kind: core.EventError, Error: pe})
	default:
		// Other events (content_part, *.done of text, built-in tool
		// progress, keep-alives) carry nothing new; unknown events are
		// ignored.
	}
	return nil
}

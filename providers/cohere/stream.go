package cohere

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/wire"
	"github.com/toolconform/conform/sse"
)

// streamEvent is the union of the v2 stream events conform reads. Unknown
// types and fields are ignored.
type streamEvent struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Index *int   `json:"index"`
	Delta *struct {
		Message *struct {
			// Content and ToolCalls are objects in deltas but arrays
			// in message-start, so they are read only when objects.
			Content   json.RawMessage `json:"content"`
			ToolPlan  *string         `json:"tool_plan"`
			ToolCalls json.RawMessage `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
		Usage        *usage `json:"usage"`
		Error        string `json:"error"`
	} `json:"delta"`
}

// contentDelta is a content delta. Its strings keep bytes that are not
// UTF-8 (wire.RawString): a character split between deltas comes out whole
// (B05), and one that is invalid is refused by wire.CheckText.
type contentDelta struct {
	Type     string          `json:"type"`
	Text     *wire.RawString `json:"text"`
	Thinking *wire.RawString `json:"thinking"`
}

type toolCallDelta struct {
	ID       string `json:"id"`
	Function *struct {
		Name      string          `json:"name"`
		Arguments *wire.RawString `json:"arguments"`
	} `json:"function"`
}

// object decodes raw into v when raw is a JSON object; other values (the
// empty arrays of message-start) leave v nil.
func object[T any](raw json.RawMessage, field string) (*T, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return nil, nil
	}
	v := new(T)
	if err := json.Unmarshal(t, v); err != nil {
		return nil, fmt.Errorf("data field %s: %w", field, err)
	}
	return v, nil
}

type eventStream struct {
	in    *wire.StreamInput
	dec   *sse.Decoder
	q     wire.Queue
	calls map[int]int // open calls by index: argument bytes received
	err   error
}

// knownEvents are the event types of the v2 chat stream.
var knownEvents = map[string]bool{
	"message-start": true, "content-start": true, "content-delta": true, "content-end": true,
	"tool-plan-delta": true, "tool-call-start": true, "tool-call-delta": true, "tool-call-end": true,
	"citation-start": true, "citation-end": true, "message-end": true, "debug": true,
}

// DecodeStream reads a Cohere v2 chat stream (SSE; the event type is taken
// from each payload's "type" field, so streams with or without "event:"
// lines decode alike) and yields canonical events one SSE event at a time.
// "data: [DONE]" is accepted and ignored. Input that is not blank but holds
// no v2 chat event is not a stream of the protocol ("[DONE]", which Cohere
// does not send, is no such event: OpenAI's streams end with it): a
// *DecodeError wrapping core.ErrNotStream at the offset of the first event
// it could not use, or byte 0.
func (a *Adapter) DecodeStream(r io.Reader) core.EventStream {
	return wire.GuardStream(r, a.decodeStream)
}

// decodeStream decodes a stream of the protocol's own events, v2 SSE or
// v1 NDJSON (see v1.go), told apart by its first byte.
func (a *Adapter) decodeStream(r io.Reader) core.EventStream {
	return &dialectStream{a: a, br: bufio.NewReader(r)}
}

// decodeSSE decodes a Cohere v2 SSE stream.
func (a *Adapter) decodeSSE(r io.Reader) core.EventStream {
	opts := []sse.Option{sse.FlushAtEOF()}
	if a.maxEvent > 0 {
		opts = append(opts, sse.MaxEventSize(a.maxEvent))
	}
	in := wire.NewStreamInput(r)
	return wire.CheckText("cohere", &eventStream{in: in, dec: sse.NewDecoder(in, opts...), calls: map[int]int{}})
}

// atEOF gives the error that ends the stream at the end of its input:
// io.EOF, or a *DecodeError wrapping core.ErrNotStream for input that is
// not blank but held no event of the protocol.
func (s *eventStream) atEOF() error {
	off, n, ok := s.in.NotStream()
	if !ok {
		return io.EOF
	}
	return streamError(off, "", fmt.Errorf("no cohere event in %d bytes: %w", n, core.ErrNotStream))
}

// unknown notes an event that is not one of the protocol's, the first of
// which is the place named by the error of a body that is no stream.
func (s *eventStream) unknown() {
	s.in.Unknown(s.dec.Offset())
}

// Next returns the next event, io.EOF after the last one, or the error that
// ended the stream.
func (s *eventStream) Next() (core.Event, error) {
	for {
		if e, ok := s.q.Pop(); ok {
			return e, nil
		}
		if s.err != nil {
			return core.Event{}, s.err
		}
		ev, err := s.dec.Next()
		if errors.Is(err, io.EOF) {
			s.err = s.atEOF()
			return core.Event{}, s.err
		}
		if err != nil {
			var se *sse.Error
			off := int64(0)
			if errors.As(err, &se) {
				off = se.Offset
			}
			s.err = streamError(off, "", err)
			return core.Event{}, s.err
		}
		if err := s.event(ev); err != nil {
			s.err = streamError(s.dec.Offset(), ev.Type, err)
			return core.Event{}, s.err
		}
	}
}

func (s *eventStream) emit(e core.Event) {
	s.q.Push(e)
}

func (s *eventStream) event(raw sse.Event) error {
	data := strings.TrimSpace(raw.Data)
	if data == "" {
		s.unknown()
	}
	if data == "" || data == "[DONE]" {
		return nil
	}
	var ev streamEvent
	if err := json.Unmarshal([]byte(data), &ev); err != nil {
		return wire.WrapJSONError("data", err)
	}
	typ := ev.Type
	if typ == "" {
		typ = raw.Type
	}
	if knownEvents[typ] {
		s.in.Known()
	} else {
		s.unknown()
	}
	msg := func() bool { return ev.Delta != nil && ev.Delta.Message != nil }
	var content *contentDelta
	var tcall *toolCallDelta
	if msg() {
		var err error
		if content, err = object[contentDelta](ev.Delta.Message.Content, "delta.message.content"); err != nil {
			return err
		}
		if tcall, err = object[toolCallDelta](ev.Delta.Message.ToolCalls, "delta.message.tool_calls"); err != nil {
			return err
		}
	}
	switch typ {
	case "message-start":
		s.q.ID = ev.ID
	case "content-start", "content-delta":
		if content == nil {
			return nil
		}
		c := content
		if c.Text != nil && *c.Text != "" {
			s.emit(core.Event{Kind: core.EventText, Text: string(*c.Text)})
		}
		if c.Thinking != nil && *c.Thinking != "" {
			s.emit(core.Event{Kind: core.EventThinking, Text: string(*c.Thinking)})
		}
	case "tool-plan-delta":
		if msg() && ev.Delta.Message.ToolPlan != nil && *ev.Delta.Message.ToolPlan != "" {
			s.emit(core.Event{Kind: core.EventPlan, Text: *ev.Delta.Message.ToolPlan})
		}
	case "tool-call-start":
		c := chunkAt(ev.Index)
		c.Start = true
		if _, open := s.calls[c.Index]; !open && len(s.calls) >= maxOpenCalls {
			return fmt.Errorf("%w: limit %d", ErrTooManyCalls, maxOpenCalls)
		}
		s.calls[c.Index] = 0
		if tcall != nil {
			tc := tcall
			c.ID = tc.ID
			if tc.Function != nil {
				c.Name = tc.Function.Name
				if a := tc.Function.Arguments; a != nil && *a != "null" {
					c.ArgsDelta = string(*a)
					s.calls[c.Index] += len(*a)
				}
			}
		}
		s.emit(core.Event{Kind: core.EventCallStart, Chunk: &c})
	case "tool-call-delta":
		if tcall == nil || tcall.Function == nil || tcall.Function.Arguments == nil {
			return nil
		}
		frag := string(*tcall.Function.Arguments)
		c := chunkAt(ev.Index)
		n, open := s.calls[c.Index]
		if !open && len(s.calls) >= maxOpenCalls {
			return fmt.Errorf("%w: limit %d", ErrTooManyCalls, maxOpenCalls)
		}
		// "null" before any argument text is a call without arguments
		// (C06); no argument object can start with it.
		if frag == "" || (n == 0 && frag == "null") {
			s.calls[c.Index] = n
			return nil
		}
		s.calls[c.Index] = n + len(frag)
		c.ArgsDelta = frag
		s.emit(core.Event{Kind: core.EventCallDelta, Chunk: &c})
	case "tool-call-end":
		c := chunkAt(ev.Index)
		c.Done = true
		if n, open := s.calls[c.Index]; open && n == 0 {
			// A call with a start and an end only is a call without
			// arguments: {} (C02, C06), never empty text.
			empty := "{}"
			c.Args = &empty
		}
		delete(s.calls, c.Index)
		s.emit(core.Event{Kind: core.EventCallEnd, Chunk: &c})
	case "message-end":
		if ev.Delta == nil {
			return nil
		}
		if u := canonicalUsage(ev.Delta.Usage); u != nil {
			s.emit(core.Event{Kind: core.EventUsage, Usage: u})
		}
		if ev.Delta.Error != "" {
			s.emit(core.Event{Kind: core.EventError, Error: &core.ProviderError{Message: ev.Delta.Error}})
		}
		if ev.Delta.FinishReason != "" {
			s.emit(core.Event{Kind: core.EventFinish, Finish: finishFromWire(ev.Delta.FinishReason), ProviderFinish: ev.Delta.FinishReason})
		}
	}
	return nil
}

func chunkAt(idx *int) core.Chunk {
	if idx == nil {
		return core.Chunk{}
	}
	return core.Chunk{Index: *idx, HasIndex: true}
}

type obj = map[string]any

// streamWriter turns canonical events into Cohere SSE events.
type streamWriter struct {
	enc      *sse.Encoder
	started  bool
	open     string // "text", "thinking" or "" for the open content block
	contentN int
	calls    map[int]bool // open calls: whether argument text was written
	usage    *core.Usage
}

// EncodeStream writes events as a Cohere v2 chat stream, each SSE event with
// an "event:" line and a JSON payload whose "type" repeats it.
//
// What the wire cannot express is normalised: thinking signatures, the
// model, error types and codes are dropped; the response id travels on
// message-start and comes back on the first event; usage is held until
// message-end and written with the finish reason; Args on a call's end is
// written as an argument delta, except "{}" for a call without argument
// text, which the decoder gives back by itself.
func (a *Adapter) EncodeStream(w io.Writer, events []core.Event) error {
	sw := &streamWriter{enc: sse.NewEncoder(w), calls: map[int]bool{}}
	for i, e := range events {
		if err := sw.event(e); err != nil {
			return fmt.Errorf("cohere: encode stream: events[%d]: %w", i, err)
		}
	}
	if err := sw.closeContent(); err != nil {
		return fmt.Errorf("cohere: encode stream: %w", err)
	}
	if sw.usage != nil {
		if err := sw.write("message-end", obj{"delta": obj{"usage": wireUsage(sw.usage)}}); err != nil {
			return fmt.Errorf("cohere: encode stream: %w", err)
		}
	}
	return nil
}

func (sw *streamWriter) write(typ string, payload obj) error {
	payload["type"] = typ
	data, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	return sw.enc.Encode(sse.Event{Type: typ, Data: string(data)})
}

func (sw *streamWriter) closeContent() error {
	if sw.open == "" {
		return nil
	}
	sw.open = ""
	sw.contentN++
	return sw.write("content-end", obj{"index": sw.contentN - 1})
}

func (sw *streamWriter) content(kind, text string) error {
	if sw.open != kind {
		if err := sw.closeContent(); err != nil {
			return err
		}
		sw.open = kind
		if err := sw.write("content-start", obj{"index": sw.contentN, "delta": obj{"message": obj{"content": obj{"type": kind, kind: ""}}}}); err != nil {
			return err
		}
	}
	return sw.write("content-delta", obj{"index": sw.contentN, "delta": obj{"message": obj{"content": obj{kind: text}}}})
}

func (sw *streamWriter) argDelta(idx int, frag string) error {
	sw.calls[idx] = true
	return sw.write("tool-call-delta", obj{"index": idx, "delta": obj{"message": obj{"tool_calls": obj{"function": obj{"arguments": frag}}}}})
}

func (sw *streamWriter) event(e core.Event) error {
	if !sw.started {
		sw.started = true
		start := obj{"delta": obj{"message": obj{"role": "assistant", "content": []any{}, "tool_plan": "", "tool_calls": []any{}, "citations": []any{}}}}
		if e.ID != "" {
			start["id"] = e.ID
		}
		if err := sw.write("message-start", start); err != nil {
			return err
		}
	}
	switch e.Kind {
	case core.EventText:
		if e.Text == "" {
			return nil
		}
		return sw.content("text", e.Text)
	case core.EventThinking:
		if e.Text == "" {
			return nil
		}
		return sw.content("thinking", e.Text)
	case core.EventPlan:
		if e.Text == "" {
			return nil
		}
		if err := sw.closeContent(); err != nil {
			return err
		}
		return sw.write("tool-plan-delta", obj{"delta": obj{"message": obj{"tool_plan": e.Text}}})
	case core.EventCallStart, core.EventCallDelta, core.EventCallEnd:
		if e.Chunk == nil {
			return fmt.Errorf("%s event without a chunk", e.Kind)
		}
		if err := sw.closeContent(); err != nil {
			return err
		}
		return sw.call(e.Kind, *e.Chunk)
	case core.EventUsage:
		if e.Usage != nil {
			u := *e.Usage
			sw.usage = &u
		}
	case core.EventFinish:
		if err := sw.closeContent(); err != nil {
			return err
		}
		finish := e.ProviderFinish
		if finish == "" {
			finish = finishToWire(e.Finish)
		}
		delta := obj{"finish_reason": finish}
		if sw.usage != nil {
			delta["usage"] = wireUsage(sw.usage)
			sw.usage = nil
		}
		return sw.write("message-end", obj{"delta": delta})
	case core.EventError:
		msg := "unknown error"
		if e.Error != nil {
			msg = e.Error.Message
		}
		delta := obj{"error": msg}
		if sw.usage != nil {
			delta["usage"] = wireUsage(sw.usage)
			sw.usage = nil
		}
		return sw.write("message-end", obj{"delta": delta})
	}
	return nil
}

func (sw *streamWriter) call(kind core.EventKind, c core.Chunk) error {
	idx := c.Index
	switch kind {
	case core.EventCallStart:
		sw.calls[idx] = c.ArgsDelta != ""
		if err := sw.write("tool-call-start", obj{"index": idx, "delta": obj{"message": obj{"tool_calls": obj{"id": c.ID, "type": "function", "function": obj{"name": c.Name, "arguments": c.ArgsDelta}}}}}); err != nil {
			return err
		}
		if c.Args != nil && *c.Args != "" {
			return sw.argDelta(idx, *c.Args)
		}
	case core.EventCallDelta, core.EventCallEnd:
		var buf [2]string
		for _, frag := range wire.AppendCallArgs(buf[:0], kind, &c, sw.calls[idx]) {
			if err := sw.argDelta(idx, frag); err != nil {
				return err
			}
		}
		if kind == core.EventCallEnd {
			delete(sw.calls, idx)
			return sw.write("tool-call-end", obj{"index": idx})
		}
	}
	return nil
}

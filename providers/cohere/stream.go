package cohere

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonscan"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/sseio"
	"github.com/toolconform/conform/providers/internal/streamdec"
	"github.com/toolconform/conform/providers/internal/streamenc"
	"github.com/toolconform/conform/providers/internal/vendorerr"
	"github.com/toolconform/conform/providers/internal/wire"
	"github.com/toolconform/conform/sse"
)

// streamEvent is the union of the v2 stream events conform reads, as the
// general path decodes them with encoding/json. Unknown types and fields
// are ignored.
type streamEvent struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Index *int   `json:"index"`
	Delta *struct {
		Message *struct {
			// Content and ToolCalls are objects in deltas but arrays
			// in message-start, so they are read only when objects.
			Content   json.RawMessage    `json:"content"`
			ToolPlan  *jsonstr.RawString `json:"tool_plan"`
			ToolCalls json.RawMessage    `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
		Usage        *usage `json:"usage"`
		Error        string `json:"error"`
	} `json:"delta"`
}

// contentDelta is a content delta. Its strings, like the tool plan and
// the arguments, keep bytes that are not UTF-8 (jsonstr.RawString): a
// character split between deltas comes out whole (B05), and one that is
// invalid is refused by jsonstr.CheckText.
type contentDelta struct {
	Type     string             `json:"type"`
	Text     *jsonstr.RawString `json:"text"`
	Thinking *jsonstr.RawString `json:"thinking"`
}

type toolCallDelta struct {
	ID       string `json:"id"`
	Function *struct {
		Name      string             `json:"name"`
		Arguments *jsonstr.RawString `json:"arguments"`
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

// v2Event is one v2 stream event reduced to what the decoder uses. The
// general path (encoding/json into streamEvent) and the fast path
// (fast.go) both fill it, and apply turns it into canonical events, so
// that the two paths differ only in how they read the bytes. An absent
// string is "".
type v2Event struct {
	typ      string
	id       string
	index    int
	hasIndex bool
	// hasDelta says the event has a delta object.
	hasDelta bool
	// text and thinking are those of a content object, plan the tool
	// plan.
	text, thinking, plan string
	// callID, name and args are those of a tool_calls object; hasArgs
	// says it has a function with arguments.
	callID, name, args string
	hasArgs            bool
	finish, errMsg     string
	usage              *usage
}

// general decodes an event's data with encoding/json into ev.
func general(data []byte, ev *v2Event) error {
	var w streamEvent
	if err := json.Unmarshal(data, &w); err != nil {
		return wire.WrapJSONError("data", err)
	}
	ev.typ, ev.id = w.Type, w.ID
	if w.Index != nil {
		ev.index, ev.hasIndex = *w.Index, true
	}
	d := w.Delta
	if d == nil {
		return nil
	}
	ev.hasDelta = true
	ev.finish, ev.errMsg, ev.usage = d.FinishReason, d.Error, d.Usage
	m := d.Message
	if m == nil {
		return nil
	}
	content, err := object[contentDelta](m.Content, "delta.message.content")
	if err != nil {
		return err
	}
	tcall, err := object[toolCallDelta](m.ToolCalls, "delta.message.tool_calls")
	if err != nil {
		return err
	}
	if content != nil {
		if content.Text != nil {
			ev.text = string(*content.Text)
		}
		if content.Thinking != nil {
			ev.thinking = string(*content.Thinking)
		}
	}
	if m.ToolPlan != nil {
		ev.plan = string(*m.ToolPlan)
	}
	if tcall != nil {
		ev.callID = tcall.ID
		if f := tcall.Function; f != nil {
			ev.name = f.Name
			if f.Arguments != nil {
				ev.args, ev.hasArgs = string(*f.Arguments), true
			}
		}
	}
	return nil
}

type eventStream struct {
	r     *sseio.Reader
	q     streamdec.Queue
	calls openCalls
	err   error
	// known says an event of the protocol was read; unknownAt is the
	// offset of the first event that was not, if sawUnknown.
	known, sawUnknown bool
	unknownAt         int64
	// chunks hands out the events' chunks (jsonscan.Take).
	chunks []core.Chunk
	// queued is the queue's first array, usage the first usage event's:
	// a stream that needs no more costs no allocation for them.
	queued    [2]core.Event
	usage     core.Usage
	usageUsed bool
	fast      fastDecoder
}

// openCalls holds the number of argument bytes received by each open
// call, by index: the first few in an array, the rest in a map made when
// a stream has more open at once.
type openCalls struct {
	few  [4]openCall
	nFew int
	more map[int]int
}

type openCall struct{ index, n int }

// get returns the bytes of the call at index and whether it is open.
func (o *openCalls) get(index int) (n int, open bool) {
	for _, c := range o.few[:o.nFew] {
		if c.index == index {
			return c.n, true
		}
	}
	n, open = o.more[index]
	return n, open
}

// set records n bytes for the call at index, opening it if need be.
func (o *openCalls) set(index, n int) {
	for i := range o.few[:o.nFew] {
		if o.few[i].index == index {
			o.few[i].n = n
			return
		}
	}
	if _, open := o.more[index]; open || o.nFew == len(o.few) {
		if o.more == nil {
			o.more = map[int]int{}
		}
		o.more[index] = n
		return
	}
	o.few[o.nFew] = openCall{index, n}
	o.nFew++
}

// remove closes the call at index.
func (o *openCalls) remove(index int) {
	for i := range o.few[:o.nFew] {
		if o.few[i].index == index {
			o.nFew--
			o.few[i] = o.few[o.nFew]
			return
		}
	}
	delete(o.more, index)
}

// len returns the number of open calls.
func (o *openCalls) len() int { return o.nFew + len(o.more) }

// eventTypes are the event types of the v2 chat stream, the commonest
// first, which the SSE decoder gives as these strings (sse.EventTypes).
var eventTypes = []string{
	"tool-call-delta", "tool-plan-delta", "content-delta", "tool-call-start", "tool-call-end",
	"content-start", "content-end", "message-start", "message-end", "citation-start", "citation-end", "debug",
}

// knownEvent reports whether typ is an event type of the v2 chat stream.
func knownEvent(typ string) bool {
	switch typ {
	case "message-start", "content-start", "content-delta", "content-end",
		"tool-plan-delta", "tool-call-start", "tool-call-delta", "tool-call-end",
		"citation-start", "citation-end", "message-end", "debug":
		return true
	}
	return false
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
	return vendorerr.GuardStream(r, a.decodeStream)
}

// decodeStream decodes a stream of the protocol's own events, v2 SSE or
// v1 NDJSON (see v1.go), told apart by its first byte.
func (a *Adapter) decodeStream(r io.Reader) core.EventStream {
	return &dialectStream{a: a, r: r}
}

// newStream returns the v2 SSE decoder of r, before jsonstr.CheckText.
func (a *Adapter) newStream(r io.Reader) *eventStream {
	s := new(eventStream)
	s.init(a, r)
	return s
}

// init makes s the v2 SSE decoder of r.
func (s *eventStream) init(a *Adapter, r io.Reader) {
	s.r = sseio.NewReader(r, a.maxEvent, "cohere", eventTypes...)
	s.q.Use(s.queued[:])
	s.fast.off = a.slowOnly
}

// start makes s the v2 SSE decoder of r and returns it checked by
// jsonstr.CheckText.
func (s *eventStream) start(a *Adapter, r io.Reader) core.EventStream {
	s.init(a, r)
	return jsonstr.CheckText("cohere", s)
}

// Next returns the next event, io.EOF after the last one, or the error that
// ended the stream.
func (s *eventStream) Next() (core.Event, error) {
	return streamdec.Pull(&s.q, &s.err, s.pull)
}

// pull decodes the next SSE event into the queue, or returns the error
// that ends the stream: io.EOF at the end of a stream of the protocol, a
// *DecodeError wrapping core.ErrNotStream at the end of input that is not
// blank but held no event of the protocol, or the fault.
func (s *eventStream) pull() error {
	raw, err := s.r.NextRaw()
	switch {
	case err == io.EOF:
		if s.known || s.r.Blank() {
			return io.EOF
		}
		return streamError(s.unknownAt, "", fmt.Errorf("no cohere event in %d bytes: %w", s.r.Offset(), core.ErrNotStream))
	case err != nil:
		return err
	}
	if err := s.event(raw); err != nil {
		return streamError(raw.Offset, raw.Name, err)
	}
	return nil
}

// unknown notes an event, at byte offset off, that is not one of the
// protocol's; the first is the place named by the error of a body that is
// no stream.
func (s *eventStream) unknown(off int64) {
	if !s.sawUnknown {
		s.sawUnknown, s.unknownAt = true, off
	}
}

// event decodes one SSE event, with the fast path when it can and the
// general path otherwise, and queues its canonical events.
func (s *eventStream) event(raw sseio.Event) error {
	data := bytes.TrimSpace(raw.Data)
	if len(data) == 0 {
		s.unknown(raw.Offset)
		return nil
	}
	if string(data) == "[DONE]" {
		return nil
	}
	var ev v2Event
	if !s.fast.decode(data, &ev) {
		ev = v2Event{}
		if err := general(data, &ev); err != nil {
			return err
		}
	}
	if ev.typ == "" {
		ev.typ = raw.Name
	}
	if knownEvent(ev.typ) {
		s.known = true
	} else {
		s.unknown(raw.Offset)
	}
	return s.apply(&ev)
}

// chunk returns a chunk for the event's index from the stream's slab.
func (s *eventStream) chunk(ev *v2Event) *core.Chunk {
	c := jsonscan.Take(&s.chunks)
	c.Index, c.HasIndex = ev.index, ev.hasIndex
	return c
}

// open notes that the call at index has n argument bytes, refusing a call
// past the bound on open calls.
func (s *eventStream) open(index, n int) error {
	if _, open := s.calls.get(index); !open && s.calls.len() >= maxOpenCalls {
		return fmt.Errorf("%w: limit %d", core.ErrTooManyCalls, maxOpenCalls)
	}
	s.calls.set(index, n)
	return nil
}

// apply queues the canonical events of one decoded event.
func (s *eventStream) apply(ev *v2Event) error {
	switch ev.typ {
	case "message-start":
		s.q.ID = ev.id
	case "content-start", "content-delta":
		if ev.text != "" {
			s.q.Push(core.Event{Kind: core.EventText, Text: ev.text})
		}
		if ev.thinking != "" {
			s.q.Push(core.Event{Kind: core.EventThinking, Text: ev.thinking})
		}
	case "tool-plan-delta":
		if ev.plan != "" {
			s.q.Push(core.Event{Kind: core.EventPlan, Text: ev.plan})
		}
	case "tool-call-start":
		n := 0
		if ev.args != "null" {
			n = len(ev.args)
		}
		if err := s.open(ev.index, n); err != nil {
			return err
		}
		c := s.chunk(ev)
		c.Start, c.ID, c.Name = true, ev.callID, ev.name
		if ev.args != "null" {
			c.ArgsDelta = ev.args
		}
		s.q.Push(core.Event{Kind: core.EventCallStart, Chunk: c})
	case "tool-call-delta":
		if !ev.hasArgs {
			return nil
		}
		frag := ev.args
		n, _ := s.calls.get(ev.index)
		// "null" before any argument text is a call without arguments
		// (C06); no argument object can start with it.
		if frag == "" || (n == 0 && frag == "null") {
			return s.open(ev.index, n)
		}
		if err := s.open(ev.index, n+len(frag)); err != nil {
			return err
		}
		c := s.chunk(ev)
		c.ArgsDelta = frag
		s.q.Push(core.Event{Kind: core.EventCallDelta, Chunk: c})
	case "tool-call-end":
		c := s.chunk(ev)
		c.Done = true
		if n, open := s.calls.get(ev.index); open && n == 0 {
			// A call with a start and an end only is a call without
			// arguments: {} (C02, C06), never empty text.
			empty := "{}"
			c.Args = &empty
		}
		s.calls.remove(ev.index)
		s.q.Push(core.Event{Kind: core.EventCallEnd, Chunk: c})
	case "message-end":
		if !ev.hasDelta {
			return nil
		}
		if v, ok := usageValue(ev.usage); ok {
			u := &s.usage
			if s.usageUsed {
				u = new(core.Usage)
			}
			*u, s.usageUsed = v, true
			s.q.Push(core.Event{Kind: core.EventUsage, Usage: u})
		}
		if ev.errMsg != "" {
			s.q.Push(core.Event{Kind: core.EventError, Error: &core.ProviderError{Message: ev.errMsg}})
		}
		if ev.finish != "" {
			s.q.Push(core.Event{Kind: core.EventFinish, Finish: finishFromWire(ev.finish), ProviderFinish: ev.finish})
		}
	}
	return nil
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
// an "event:" line and a JSON payload whose "type" repeats it, ending after
// a finish's message-end with "data: [DONE]" as v2 streams do.
//
// What the wire cannot express is normalised: thinking signatures, the
// model, error types and codes are dropped; the response id travels on
// message-start and comes back on the first event; usage is held until
// message-end and written with the finish reason; Args on a call's end is
// written as an argument delta, except "{}" for a call without argument
// text, which the decoder gives back by itself. An event of no known kind
// is refused (streamenc.CheckKinds) before anything is written.
func (a *Adapter) EncodeStream(w io.Writer, events []core.Event) error {
	if err := streamenc.CheckKinds("cohere: encode stream", events, true); err != nil {
		return err
	}
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
			return fmt.Errorf("%w: %s event without a chunk", core.ErrMalformed, e.Kind)
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
		// Every recorded message-end carries usage: zero counts when the
		// events have none.
		u := sw.usage
		if u == nil {
			u = &core.Usage{}
		}
		sw.usage = nil
		if err := sw.write("message-end", obj{"delta": obj{"finish_reason": finish, "usage": wireUsage(u)}}); err != nil {
			return err
		}
		// A v2 stream ends with "data: [DONE]" after message-end
		// (recorded in testdata/corpus/cohere; cohere-python #730).
		return sw.enc.Encode(sse.Event{Data: "[DONE]"})
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
		for _, frag := range streamenc.AppendCallArgs(buf[:0], kind, &c, sw.calls[idx]) {
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

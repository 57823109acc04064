package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/streamdec"
	"github.com/toolconform/conform/providers/internal/wire"
	"github.com/toolconform/conform/sse"
)

// The Gemini Interactions API (POST /v1beta/interactions) is a separate
// protocol from generateContent: a response is an "interaction" with a list
// of typed steps, and its stream is SSE whose data carry an event_type
// (interaction.created, step.start, step.delta, step.stop,
// interaction.completed). conform decodes its responses and streams only,
// with DecodeInteraction and DecodeInteractionStream; requests and encoders
// are not written, since the corpus holds responses only (vercel/ai
// fixtures in testdata/corpus/other).

type wireInteraction struct {
	ID     string             `json:"id"`
	Status string             `json:"status"`
	Model  string             `json:"model"`
	Steps  []wireStep         `json:"steps"`
	Usage  *wireInteractUsage `json:"usage"`
	Error  *wireError         `json:"error"`
}

type wireInteractUsage struct {
	TotalInputTokens   int `json:"total_input_tokens"`
	TotalOutputTokens  int `json:"total_output_tokens"`
	TotalThoughtTokens int `json:"total_thought_tokens"`
}

type wireStep struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Signature string          `json:"signature"`
	Text      string          `json:"text"`
	Content   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// interactionFinish normalises an interaction status: requires_action means
// the client must run calls.
func interactionFinish(status string, hasCalls bool) core.FinishReason {
	switch status {
	case "":
		return ""
	case "completed", "requires_action":
		if hasCalls {
			return core.FinishToolCalls
		}
		if status == "completed" {
			return core.FinishStop
		}
	case "incomplete":
		return core.FinishLength
	case "failed":
		return core.FinishError
	}
	return core.FinishOther
}

func interactionUsage(u *wireInteractUsage) core.Usage {
	return core.Usage{InputTokens: u.TotalInputTokens, OutputTokens: u.TotalOutputTokens + u.TotalThoughtTokens}
}

// DecodeInteraction decodes a Gemini Interactions API response body. Steps
// of type thought become thinking parts (their signature kept), model_output
// text parts, function_call calls; other step types, such as provider-run
// tools, are not client calls and are dropped. A call without an id gets
// one generated as in DecodeResponse, "gemini_call_<key>_<k>", k counting
// the function_call steps before it and key a hash of the interaction's
// id, or of the call's name and arguments when it has none: unique per
// interaction, and the same as DecodeInteractionStream gives. The status is the raw finish reason:
// requires_action or completed with calls is tool_calls, completed stop,
// incomplete length, failed error, anything else other.
func (a *Adapter) DecodeInteraction(body []byte) (*core.Response, error) {
	const op = "gemini: decode interaction"
	var w wireInteraction
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, syntaxError(op, 0, err)
	}
	resp := &core.Response{ID: w.ID, Model: w.Model, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}}
	if w.Error != nil {
		resp.Error, resp.Finish = providerError(w.Error), core.FinishError
		return resp, nil
	}
	k := 0
	for i, s := range w.Steps {
		switch s.Type {
		case "thought":
			resp.Message.Parts = append(resp.Message.Parts, core.Part{Kind: core.PartThinking, Text: s.Text, Signature: s.Signature})
		case "model_output":
			for _, c := range s.Content {
				if c.Type == "text" {
					resp.Message.Parts = append(resp.Message.Parts, core.TextPart(c.Text))
				}
			}
		case "function_call":
			args, err := argsOf(s.Arguments)
			if err != nil {
				return nil, wire.Placed(op, -1, "steps["+strconv.Itoa(i)+"].arguments", err)
			}
			id := s.ID
			if id == "" {
				id = responseCallID(w.ID, s.Name, args, k)
			}
			k++
			resp.Message.Parts = append(resp.Message.Parts, core.CallPart(core.Call{ID: id, Name: s.Name, Arguments: args, Signature: s.Signature}))
		}
	}
	if w.Usage != nil {
		u := interactionUsage(w.Usage)
		resp.Usage = &u
	}
	resp.ProviderFinish = w.Status
	resp.Finish = interactionFinish(w.Status, k > 0)
	return resp, nil
}

type wireInteractionEvent struct {
	EventType   string           `json:"event_type"`
	Interaction *wireInteraction `json:"interaction"`
	Index       *int             `json:"index"`
	Step        *wireStep        `json:"step"`
	Delta       *wireStepDelta   `json:"delta"`
	Error       *wireError       `json:"error"`
}

type wireStepDelta struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Signature string `json:"signature"`
	Arguments string `json:"arguments"`
}

// DecodeInteractionStream reads a Gemini Interactions API SSE stream. A
// function_call step becomes EventCallStart (Chunk with the step's id, its
// index and name), EventCallDelta per arguments_delta, and EventCallEnd at
// step.stop (with the start's arguments as Args when no delta came, so a
// call whose arguments only rode on step.start is complete, and never both,
// A18). Thought signatures become EventThinking with Signature, text deltas
// EventText. interaction.completed gives EventUsage and EventFinish. Events
// are limited to DefaultMaxEventSize bytes; malformed data names its byte
// offset.
//
// A call without an id gets the id DecodeInteraction gives it, from the
// interaction id of interaction.created. When no interaction id came
// before the call's step.start, the id depends on the arguments, so the
// call is held back until its step.stop: then its start, one delta with
// all its argument text (if any came as deltas) and its end are emitted
// together. A held call still open when the stream ends or fails is
// emitted without an end, never complete.
func (a *Adapter) DecodeInteractionStream(r io.Reader) core.EventStream {
	s := &interactionStream{a: a}
	s.dec.Init(r, a.sseOptions()...)
	s.q.Use(s.evBuf[:0])
	s.fast.strs.Use(s.fast.arena[:], s.fast.scratch[:])
	return s
}

// ReuseEventText lets the stream reuse, once it reads its next SSE event,
// the storage of the call chunks it gave and of their text (see
// core.Collect): the chunks then come from the stream's storage for that
// event instead of an allocation each.
func (s *interactionStream) ReuseEventText() { s.reuse = true }

// VouchArgs reports whether args is the very string the last SSE event
// gave a call's end as its arguments, which the decoder compacted (so
// checked to be JSON) and checked to be UTF-8, for core.Collect.
func (s *interactionStream) VouchArgs(args string) bool { return s.vouched.Has(args) }

type iStep struct {
	typ, id, name string
	startArgs     json.RawMessage
	deltas        bool
	// k is a call's position among the function_call steps; a held call
	// (id-less, before any interaction id) keeps its signature and its
	// argument deltas until step.stop.
	k         int
	held      bool
	signature string
	args      strings.Builder
}

type interactionStream struct {
	// ResponseMemory holds the Response core.Collect returns, whose
	// strings point into the stream's arena: it lives as long as the
	// stream anyway.
	core.ResponseMemory
	a   *Adapter
	dec sse.Decoder
	// q stamps the interaction's id and model, once interaction.created
	// names them, on the next event.
	q     streamdec.Queue
	err   error
	steps stepTable
	calls int
	// usage is the counts of interaction.completed, which the usage event
	// points to.
	usage core.Usage
	// evBuf is the first storage of q.
	evBuf [4]core.Event
	// fast is the fast path's reused storage (see interactfast.go).
	fast interactFast
	// vouched holds the arguments of the calls the last SSE event ended
	// that the decoder compacted and found UTF-8 (see VouchArgs).
	vouched streamdec.Vouched
	// reuse is set by ReuseEventText: chunks then holds the chunks of the
	// last SSE event's call events, reused from the next SSE event on,
	// which pull reads only once the events of the last have all been
	// returned; a held call's release gives up to three for one event.
	reuse  bool
	chunks [3]core.Chunk
	used   int
	// endArgs holds, in reuse mode, the arguments of the call the last
	// SSE event ended (keepArgs).
	endArgs string
}

// chunk returns storage for the chunk of a call event: the stream's own
// for this SSE event in reuse mode, an allocation of its own otherwise.
func (s *interactionStream) chunk(c core.Chunk) *core.Chunk {
	var p *core.Chunk
	if s.reuse && s.used < len(s.chunks) {
		s.used++
		p = &s.chunks[s.used-1]
	} else {
		// new, not &c: a c whose address is taken would be on the heap
		// for every call.
		p = new(core.Chunk)
	}
	*p = c
	return p
}

// keepArgs returns a pointer to a, the arguments of the call the SSE event
// ends: the stream's own in reuse mode, a new one otherwise.
func (s *interactionStream) keepArgs(a string) *string {
	p := &s.endArgs
	if !s.reuse {
		p = new(string)
	}
	*p = a
	return p
}

// stepTable holds the open steps by index: the first ones in the table
// itself, found by a scan, as a stream seldom has more than a few open at
// once; the others in a map.
type stepTable struct {
	first [4]iStep
	idx   [4]int
	open  [4]bool
	more  map[int]*iStep
}

// get returns the open step of index idx, or nil.
func (t *stepTable) get(idx int) *iStep {
	for i := range t.first {
		if t.open[i] && t.idx[i] == idx {
			return &t.first[i]
		}
	}
	return t.more[idx]
}

// add opens a step of index idx, replacing any open one, and returns it.
func (t *stepTable) add(idx int, st iStep) *iStep {
	t.remove(idx)
	for i := range t.first {
		if !t.open[i] {
			t.open[i], t.idx[i] = true, idx
			t.first[i] = st
			return &t.first[i]
		}
	}
	if t.more == nil {
		t.more = map[int]*iStep{}
	}
	p := new(iStep)
	*p = st
	t.more[idx] = p
	return p
}

// remove closes the step of index idx, if open.
func (t *stepTable) remove(idx int) {
	for i := range t.first {
		if t.open[i] && t.idx[i] == idx {
			t.open[i] = false
			t.first[i] = iStep{}
			return
		}
	}
	delete(t.more, idx)
}

// held returns the indexes of the held calls, in order.
func (t *stepTable) held() []int {
	var idxs []int
	for i := range t.first {
		if t.open[i] && t.first[i].held {
			idxs = append(idxs, t.idx[i])
		}
	}
	for idx, st := range t.more {
		if st.held {
			idxs = append(idxs, idx)
		}
	}
	sort.Ints(idxs)
	return idxs
}

func (s *interactionStream) emit(ev core.Event) { s.q.Push(ev) }

func (s *interactionStream) Next() (core.Event, error) { return streamdec.Pull(&s.q, &s.err, s.pull) }

// pull reads one SSE event and queues its events, or returns the error
// that ends the stream; the calls still held then are queued first.
func (s *interactionStream) pull() error {
	err := s.read()
	if err != nil {
		s.abandonHeld()
	}
	return err
}

// read reads and decodes one SSE event.
func (s *interactionStream) read() error {
	const op = "gemini: decode interaction stream"
	s.used = 0
	s.vouched.Reset()
	ev, err := s.dec.NextRaw()
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		var se *sse.Error
		if errors.As(err, &se) {
			e := err
			if errors.Is(err, sse.ErrEventTooLarge) {
				e = fmt.Errorf("%w: %v", core.ErrTooLarge, err)
			}
			return wire.Placed(op, se.Offset, "", e)
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	// A view of the decoder's buffer, decoded before the next event.
	data := bytes.TrimSpace(ev.Data)
	if len(data) == 0 {
		return nil
	}
	off := s.dec.Offset() + int64(len("data: "))
	w, ok := s.fast.event(data)
	if !ok {
		w = new(wireInteractionEvent)
		if err := json.Unmarshal(data, w); err != nil {
			return syntaxError(op, off, err)
		}
	}
	if err := s.event(w); err != nil {
		return wire.Placed(op, off, "", err)
	}
	return nil
}

// release emits the start of a held call, with the id its arguments so
// far give, and one delta with the argument text it received as deltas.
func (s *interactionStream) release(st *iStep, idx int) {
	st.held = false
	args := st.startArgs
	if st.deltas {
		args = json.RawMessage(st.args.String())
	}
	if a, err := argsOf(args); err == nil {
		args = a // the arguments as DecodeInteraction reads them
	}
	st.id = callID(&s.fast.strs, s.q.ID, st.name, args, st.k)
	s.emit(core.Event{Kind: core.EventCallStart, Chunk: s.chunk(core.Chunk{ID: st.id, Index: idx, HasIndex: true, Name: st.name, Start: true, Signature: st.signature})})
	if st.args.Len() > 0 {
		s.emit(core.Event{Kind: core.EventCallDelta, Chunk: s.chunk(core.Chunk{ID: st.id, Index: idx, HasIndex: true, ArgsDelta: st.args.String()})})
	}
	st.args.Reset()
}

// abandonHeld emits the calls still held when the stream ends or fails,
// in the order of their steps, without an end: they are incomplete.
func (s *interactionStream) abandonHeld() {
	for _, idx := range s.steps.held() {
		s.release(s.steps.get(idx), idx)
	}
}

func (s *interactionStream) event(w *wireInteractionEvent) error {
	idx := -1
	if w.Index != nil {
		idx = *w.Index
	}
	switch w.EventType {
	case "interaction.created":
		if w.Interaction != nil {
			s.q.ID, s.q.Model = w.Interaction.ID, w.Interaction.Model
		}
	case "step.start":
		if w.Step == nil || idx < 0 {
			return fmt.Errorf("%w: step.start without index or step", core.ErrMalformed)
		}
		st := s.steps.add(idx, iStep{typ: w.Step.Type, id: w.Step.ID, name: w.Step.Name, startArgs: w.Step.Arguments})
		switch st.typ {
		case "function_call":
			st.k = s.calls
			s.calls++
			if st.id == "" {
				if s.q.ID == "" {
					st.held, st.signature = true, w.Step.Signature
					break
				}
				st.id = callID(&s.fast.strs, s.q.ID, "", nil, st.k)
			}
			s.emit(core.Event{Kind: core.EventCallStart, Chunk: s.chunk(core.Chunk{ID: st.id, Index: idx, HasIndex: true, Name: st.name, Start: true, Signature: w.Step.Signature})})
		case "thought":
			if w.Step.Signature != "" || w.Step.Text != "" {
				s.emit(core.Event{Kind: core.EventThinking, Text: w.Step.Text, Signature: w.Step.Signature})
			}
		}
	case "step.delta":
		st := s.steps.get(idx)
		if st == nil || w.Delta == nil {
			return fmt.Errorf("%w: step.delta for index %d with no open step", core.ErrMalformed, idx)
		}
		switch w.Delta.Type {
		case "text":
			if st.typ == "thought" {
				s.emit(core.Event{Kind: core.EventThinking, Text: w.Delta.Text})
			} else if w.Delta.Text != "" {
				s.emit(core.Event{Kind: core.EventText, Text: w.Delta.Text})
			}
		case "thought_signature":
			s.emit(core.Event{Kind: core.EventThinking, Signature: w.Delta.Signature})
		case "arguments_delta":
			if st.typ != "function_call" {
				return fmt.Errorf("%w: arguments_delta for a %s step", core.ErrMalformed, st.typ)
			}
			st.deltas = true
			if st.held {
				st.args.WriteString(w.Delta.Arguments)
				break
			}
			s.emit(core.Event{Kind: core.EventCallDelta, Chunk: s.chunk(core.Chunk{ID: st.id, Index: idx, HasIndex: true, ArgsDelta: w.Delta.Arguments})})
		}
	case "step.stop":
		st := s.steps.get(idx)
		if st == nil {
			return fmt.Errorf("%w: step.stop for index %d with no open step", core.ErrMalformed, idx)
		}
		defer s.steps.remove(idx)
		if st.typ == "function_call" {
			ch := core.Chunk{Index: idx, HasIndex: true, Done: true}
			if !st.deltas {
				args, err := argsOf(st.startArgs)
				if err != nil {
					return err
				}
				// args is the compacted copy, never written again.
				ch.Args = s.keepArgs(unsafe.String(unsafe.SliceData(args), len(args)))
				if utf8.Valid(args) {
					s.vouched.Add(*ch.Args)
				}
			}
			if st.held {
				s.release(st, idx)
			}
			ch.ID = st.id
			s.emit(core.Event{Kind: core.EventCallEnd, Chunk: s.chunk(ch)})
		}
	case "interaction.completed":
		if in := w.Interaction; in != nil {
			if in.Usage != nil {
				s.usage = interactionUsage(in.Usage)
				s.emit(core.Event{Kind: core.EventUsage, Usage: &s.usage})
			}
			s.emit(core.Event{Kind: core.EventFinish, Finish: interactionFinish(in.Status, s.calls > 0), ProviderFinish: in.Status})
		}
	case "error":
		if w.Error != nil {
			s.emit(core.Event{Kind: core.EventError, Error: providerError(w.Error)})
		}
	}
	return nil
}

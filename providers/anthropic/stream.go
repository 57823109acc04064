package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonscan"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/rules"
	"github.com/toolconform/conform/providers/internal/sseio"
	"github.com/toolconform/conform/providers/internal/streamdec"
	"github.com/toolconform/conform/providers/internal/vendorerr"
	"github.com/toolconform/conform/providers/internal/wire"
)

// blockState is what the decoder keeps about one content block.
type blockState struct {
	used       bool   // the block was started
	typ        string // text, thinking, tool_use, or "" for ignored blocks
	open       bool
	id         string // tool_use id, for errors
	startInput string // input of a tool_use start, if populated (A18, I01)
	sawDelta   bool   // a non-empty input_json_delta arrived
	// streamed is the input_json_delta text of a tool_use whose start
	// input is populated, kept to check that the deltas do not contradict
	// the start (A18); empty for every other block.
	streamed []byte
}

// ErrInputConflict reports a tool_use whose content_block_start carries a
// populated input that its input_json_delta fragments contradict (A18);
// bedrock.ErrInputConflict is the same sentinel.
var ErrInputConflict = rules.ErrInputConflict

// A18: some proxies put the input in content_block_start and stream it
// again as input_json_delta. The deltas are the input (never a
// concatenation of both), which is right when they repeat the start's
// input or extend it. When they drop a member of the start's input or give
// it another value, taking the deltas would lose data silently and taking
// the start would drop the stream's: the decoder cannot know which is the
// call, so the stream ends with a *DecodeError wrapping core.ErrMalformed and
// ErrInputConflict that names the block index and the call id, at the
// offset of the block's content_block_stop. The call has no end, so
// core.Collect reports it incomplete; calls completed before it stand. The
// check keeps the delta text of such a block only (at most the maximum
// event size, else core.ErrTooLarge), and compares JSON as JSON: key order,
// white space and number spelling (1, 1.0, 1e0) make no difference. Delta
// text that is not JSON is not compared: the Buffer reports it (repaired
// or incomplete), as for any call.

// checkStartInput returns an error when the streamed input of block b
// (index i) contradicts its populated start input (A18).
func (s *stream) checkStartInput(ev sseio.Event, i int, b *blockState) error {
	if b.startInput == "" || !b.sawDelta || !rules.InputConflict([]byte(b.startInput), b.streamed) {
		return nil
	}
	return &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: ev.Offset, Err: fmt.Errorf("%w: %w: tool_use block %d (id %q): start input %s, streamed input %s", core.ErrMalformed, ErrInputConflict, i, b.id, b.startInput, b.streamed)}
}

type streamEvent struct {
	Type         string          `json:"type"`
	Index        *int            `json:"index"`
	Message      json.RawMessage `json:"message"`
	ContentBlock *wireBlock      `json:"content_block"`
	Delta        json.RawMessage `json:"delta"`
	Usage        *wireUsage      `json:"usage"`
	Error        *wireError      `json:"error"`
}

type streamDelta struct {
	Type        string          `json:"type"`
	Text        json.RawMessage `json:"text"`
	Thinking    json.RawMessage `json:"thinking"`
	Signature   string          `json:"signature"`
	PartialJSON json.RawMessage `json:"partial_json"`
	StopReason  string          `json:"stop_reason"`
}

type stream struct {
	sseio.Stream
	a      *Adapter
	blocks blockSet
	ids    streamdec.SmallMap[struct{}] // the tool_use ids started
	// pending is the held-back call_end of the last stopped tool_use
	// (B11), when hasPending.
	pending    core.Event
	hasPending bool
	// input is message_start's input token count, when hasInput.
	input    int
	hasInput bool
	started  bool
	stopped  bool
	errored  bool

	// noFast turns the fast path (fast.go) off, for tests that compare
	// the two; fastHits counts the events it decoded.
	noFast   bool
	fastHits int
	// chunks and strs hand out the chunks and strings of the events
	// (see jsonscan.Slab and jsonscan.Strings); events is the queue's
	// first storage.
	chunks jsonscan.Slab[core.Chunk]
	strs   jsonscan.Strings
	events [4]core.Event
}

// firstChunks is the size of a stream's first slab of chunks: 17 of the
// 20 recorded streams need 8 or fewer (0 to 27).
const firstChunks = 8

// eventTypes are the event types of the Messages stream.
var eventTypes = []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop", "ping", "error"}

// knownEvents are the event types of the Messages stream, as a set.
var knownEvents = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range eventTypes {
		m[t] = true
	}
	return m
}()

// DecodeStream reads an Anthropic SSE stream one event at a time. See the
// package documentation for how each event maps to core events. Input
// that is not blank but holds no Anthropic event at all is not a stream of
// the protocol: a *DecodeError wrapping core.ErrMalformed and core.ErrNotStream
// at the offset of the first event it could not use, or byte 0.
func (a *Adapter) DecodeStream(r io.Reader) core.EventStream {
	return &reusedStream{s: a.newStream(r)}
}

// streams holds the decoders of streams that ended cleanly, for the next
// stream to reuse (reusedStream): what a decoder hands out (chunks,
// strings, usage) is never in it, so a reused decoder costs no allocation
// and no event of an earlier stream changes.
var streams streamdec.Pool[stream, *stream]

// newStream returns the decoder of a stream, which guards its start
// (vendorerr.GuardStream) and checks its text (jsonstr.CheckText) itself.
func (a *Adapter) newStream(r io.Reader) *stream {
	s := streams.Get()
	s.a = a
	s.Init(s, r, a.maxEvent, protocolName, eventTypes...)
	s.Q.Use(s.events[:])
	s.chunks.Start(firstChunks)
	return s
}

// reset empties the decoder of a stream that ended cleanly for the next
// stream: it keeps the SSE decoder and the unescape buffer, and drops
// everything else, the input and what was handed out included.
func (s *stream) reset() {
	strs := s.strs
	strs.Release()
	s.Reset()
	*s = stream{Stream: s.Stream, strs: strs}
}

// reusedStream is the EventStream DecodeStream returns: its decoder goes
// back to streams once Next returned io.EOF, after which Next returns
// io.EOF without it. It holds the Response core.Collect returns, which
// then costs no allocation of its own.
type reusedStream struct {
	s *stream
	core.ResponseMemory
}

func (r *reusedStream) Next() (core.Event, error) { return streams.Next(&r.s, (*stream).reset) }

// blockSet holds a stream's content blocks by index: those at indexes 0
// to 3, which most streams stop at, in place, the others in a map made
// when one comes.
type blockSet struct {
	low  [4]blockState
	more map[int]*blockState
	n    int // the number of indexes started
}

// get returns the block at index i, or nil if none was started there.
func (bs *blockSet) get(i int) *blockState {
	if i >= 0 && i < len(bs.low) {
		if !bs.low[i].used {
			return nil
		}
		return &bs.low[i]
	}
	return bs.more[i]
}

// put sets the block at index i, replacing the one started there before.
func (bs *blockSet) put(i int, b blockState) {
	b.used = true
	if bs.get(i) == nil {
		bs.n++
	}
	if i >= 0 && i < len(bs.low) {
		bs.low[i] = b
		return
	}
	if bs.more == nil {
		bs.more = make(map[int]*blockState)
	}
	p := new(blockState) // not &b, which would move every b to the heap
	*p = b
	bs.more[i] = p
}

func (s *stream) emit(e core.Event) {
	s.Q.Push(e)
}

// flush emits the held-back call_end, if any.
func (s *stream) flush() {
	if s.hasPending {
		s.emit(s.pending)
		s.pending, s.hasPending = core.Event{}, false
	}
}

// chunk returns a zero Chunk from a slab (see jsonscan.Slab), so that
// call events cost one allocation per jsonscan.SlabSize events.
func (s *stream) chunk() *core.Chunk { return s.chunks.Take() }

// AtEOF gives the error that ends a stream of the protocol at the end of
// its input (sseio.Handler).
func (s *stream) AtEOF() error {
	if s.started && !s.stopped && !s.errored {
		return &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: s.R.Offset(), Err: fmt.Errorf("%w: no message_stop", core.ErrTruncated)}
	}
	return io.EOF
}

func (s *stream) fail(ev sseio.Event, format string, args ...any) error {
	return &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: ev.Offset, Err: fmt.Errorf("%w: "+format, append([]any{core.ErrMalformed}, args...)...)}
}

// Handle decodes one SSE event into the queue (sseio.Handler).
func (s *stream) Handle(ev sseio.Event) error {
	data := bytes.TrimSpace(ev.Data)
	if len(data) == 0 {
		return nil
	}
	if !s.noFast && s.fast(data) {
		return nil
	}
	var se streamEvent
	if err := json.Unmarshal(data, &se); err != nil {
		if off, _, ok := wire.JSONPlace(err); ok {
			return &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: ev.Offset, Err: fmt.Errorf("%w: event data at byte %d: %v", core.ErrMalformed, off, err)}
		}
		return &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: ev.Offset, Err: fmt.Errorf("%w: %v", core.ErrMalformed, err)}
	}
	typ := se.Type
	if typ == "" {
		typ = ev.Name
	}
	if knownEvents[typ] {
		s.Known()
	} else {
		s.Unknown(ev.Offset)
	}
	switch typ {
	case "message_start":
		s.started = true
		var m struct {
			ID    string     `json:"id"`
			Model string     `json:"model"`
			Usage *wireUsage `json:"usage"`
		}
		if len(se.Message) > 0 {
			if err := json.Unmarshal(se.Message, &m); err != nil {
				return s.fail(ev, "message_start.message: %v", err)
			}
		}
		s.Q.ID, s.Q.Model = m.ID, m.Model
		if m.Usage != nil && m.Usage.InputTokens != nil {
			s.input, s.hasInput = *m.Usage.InputTokens, true
		}
	case "content_block_start":
		s.started = true
		if se.Index == nil || se.ContentBlock == nil {
			return s.fail(ev, "content_block_start without index or content_block")
		}
		s.flush()
		i := *se.Index
		if b := s.blocks.get(i); b != nil && b.open {
			return s.fail(ev, "content_block_start for block %d that is already open", i)
		}
		if s.blocks.n >= s.a.maxBlocks {
			return &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: ev.Offset, Err: fmt.Errorf("more than %d content blocks: %w", s.a.maxBlocks, core.ErrTooLarge)}
		}
		cb := se.ContentBlock
		var b blockState
		b.open = true
		switch cb.Type {
		case "text":
			b.typ = "text"
			if cb.Text != "" {
				s.emit(core.Event{Kind: core.EventText, Text: cb.Text})
			}
		case "thinking":
			b.typ = "thinking"
			if cb.Thinking != "" {
				s.emit(core.Event{Kind: core.EventThinking, Text: cb.Thinking})
			}
			if cb.Signature != "" {
				s.emit(core.Event{Kind: core.EventThinking, Signature: cb.Signature})
			}
		case "redacted_thinking":
			// Redacted thinking comes whole in its start and has no
			// deltas; its opaque data must be replayed (G12).
			b.typ = "redacted_thinking"
			if cb.Data != "" {
				s.emit(core.Event{Kind: core.EventThinking, Data: cb.Data})
			}
		case "tool_use":
			b.typ = "tool_use"
			if cb.ID != "" && s.ids.Get(cb.ID) != nil {
				return &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: ev.Offset, Err: fmt.Errorf("%w: tool_use id %q", core.ErrDuplicateCallID, cb.ID)}
			}
			if cb.ID != "" {
				s.ids.Put(cb.ID, struct{}{})
			}
			b.id = cb.ID
			in := bytes.TrimSpace(cb.Input)
			if len(in) > 0 && string(in) != "null" && string(in) != "{}" {
				b.startInput = string(in)
			}
			c := s.chunk()
			c.Index, c.HasIndex, c.ID, c.Name, c.Start = i, true, cb.ID, cb.Name, true
			s.emit(core.Event{Kind: core.EventCallStart, Chunk: c})
		default:
			// Provider-run tools (server_tool_use, *_tool_result) and
			// unknown blocks are ignored, their deltas too.
		}
		s.addBlock(i, b)
	case "content_block_delta":
		if se.Index == nil {
			return s.fail(ev, "content_block_delta without index")
		}
		b := s.blocks.get(*se.Index)
		if b == nil || !b.open {
			return s.fail(ev, "content_block_delta for block %d that is not open", *se.Index)
		}
		s.flush()
		var d streamDelta
		if err := json.Unmarshal(se.Delta, &d); err != nil {
			return s.fail(ev, "content_block_delta.delta: %v", err)
		}
		return s.delta(ev, *se.Index, b, d)
	case "content_block_stop":
		if se.Index == nil {
			return s.fail(ev, "content_block_stop without index")
		}
		b := s.blocks.get(*se.Index)
		if b == nil || !b.open {
			return s.fail(ev, "content_block_stop for block %d that is not open", *se.Index)
		}
		s.flush()
		b.open = false
		if err := s.checkStartInput(ev, *se.Index, b); err != nil {
			return err
		}
		s.stop(*se.Index, b)
	case "message_delta":
		var d streamDelta
		if len(se.Delta) > 0 {
			if err := json.Unmarshal(se.Delta, &d); err != nil {
				return s.fail(ev, "message_delta.delta: %v", err)
			}
		}
		var u *core.Usage
		if se.Usage != nil {
			u = s.newUsage(*usageOf(se.Usage), se.Usage.InputTokens != nil)
		}
		s.messageDelta(d.StopReason, u)
	case "message_stop":
		// A message that ends without max_tokens completed its last block.
		s.flush()
		s.stopped = true
	case "error":
		s.flush()
		s.errored = true
		pe := &core.ProviderError{Message: "error event without error object"}
		if se.Error != nil {
			pe = &core.ProviderError{Type: se.Error.Type, Message: se.Error.Message}
		} else if ve := vendorerr.FromBody(ev.Data); ve != nil {
			pe = ve // another vendor's error body as the event's data
		}
		s.emit(core.Event{Kind: core.EventError, Error: pe})
	default:
		// ping and unknown events are no-ops.
	}
	return nil
}

func (s *stream) delta(ev sseio.Event, index int, b *blockState, d streamDelta) error {
	str := func(raw json.RawMessage, field string) (string, error) {
		v, err := jsonstr.Field(raw)
		if err != nil {
			return "", s.fail(ev, "delta.%s: %v", field, err)
		}
		return v, nil
	}
	switch d.Type {
	case "text_delta":
		t, err := str(d.Text, "text")
		if err != nil {
			return err
		}
		if t != "" && b.typ == "text" {
			s.emit(core.Event{Kind: core.EventText, Text: t})
		}
	case "thinking_delta":
		t, err := str(d.Thinking, "thinking")
		if err != nil {
			return err
		}
		if t != "" && b.typ == "thinking" {
			s.emit(core.Event{Kind: core.EventThinking, Text: t})
		}
	case "signature_delta":
		if d.Signature != "" && b.typ == "thinking" {
			s.emit(core.Event{Kind: core.EventThinking, Signature: d.Signature})
		}
	case "input_json_delta":
		t, err := str(d.PartialJSON, "partial_json")
		if err != nil {
			return err
		}
		if t != "" && b.typ == "tool_use" {
			if b.startInput != "" && len(b.streamed)+len(t) > s.a.maxEvent {
				return &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: ev.Offset, Err: fmt.Errorf("tool_use block %d (id %q): streamed input kept to check the start input (A18) over %d bytes: %w", index, b.id, s.a.maxEvent, core.ErrTooLarge)}
			}
			s.callDelta(index, b, t)
		}
	}
	return nil
}

// addBlock records block i as started.
func (s *stream) addBlock(i int, b blockState) {
	s.blocks.put(i, b)
}

// callDelta emits a non-empty input_json_delta text t of tool_use block b
// (index i), which the caller has checked against the A18 bound.
func (s *stream) callDelta(i int, b *blockState, t string) {
	// Deltas carry the whole input; a populated start input is
	// superseded by them, if they do not contradict it (A18).
	b.sawDelta = true
	if b.startInput != "" {
		b.streamed = append(b.streamed, t...)
	}
	c := s.chunk()
	c.Index, c.HasIndex, c.ArgsDelta = i, true, t
	s.emit(core.Event{Kind: core.EventCallDelta, Chunk: c})
}

// stop closes block b (index i), whose A18 check the caller has made,
// holding back the call_end of a tool_use (B11).
func (s *stream) stop(i int, b *blockState) {
	b.open = false
	b.streamed = nil
	if b.typ != "tool_use" {
		return
	}
	c := s.chunk()
	c.Index, c.HasIndex, c.Done = i, true, true
	if !b.sawDelta {
		args := b.startInput
		if args == "" {
			args = "{}"
		}
		c.Args = &args
	}
	s.pending, s.hasPending = core.Event{Kind: core.EventCallEnd, Chunk: c}, true
}

// newUsage returns the usage of a message_delta, u, with the input token
// count of message_start when the delta has none (hasInput false).
func (s *stream) newUsage(u core.Usage, hasInput bool) *core.Usage {
	if !hasInput && s.hasInput {
		u.InputTokens = s.input
	}
	p := new(core.Usage) // not &u, which would move every u to the heap
	*p = u
	return p
}

// messageDelta applies a message_delta with stop reason stop and usage u
// (nil when the event has none).
func (s *stream) messageDelta(stop string, u *core.Usage) {
	if finishOf(stop) == core.FinishLength {
		// The block that was being written when the limit hit is
		// truncated even if it was stopped: its call stays open (B11).
		s.pending, s.hasPending = core.Event{}, false
	} else {
		s.flush()
	}
	if u != nil {
		s.emit(core.Event{Kind: core.EventUsage, Usage: u})
	}
	if stop != "" {
		s.emit(core.Event{Kind: core.EventFinish, Finish: finishOf(stop), ProviderFinish: stop})
	}
}

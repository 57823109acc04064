package bedrock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonscan"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/rules"
	"github.com/toolconform/conform/providers/internal/streamdec"
	"github.com/toolconform/conform/providers/internal/vendorerr"
	"github.com/toolconform/conform/providers/internal/wire"
)

// blockKind says what an open content block holds.
type blockKind int

const (
	blockOther  blockKind = iota // text, thinking: no call events on stop
	blockTool                    // a client tool call
	blockServer                  // a provider-run tool; its deltas are dropped
)

type block struct {
	kind     blockKind
	open     bool
	argBytes int
	// id is a tool block's call id, for errors.
	id string
	// startInput is the input of an InvokeModel tool_use start, if
	// populated (A18, I01); streamed is the input_json_delta text of such
	// a block, kept to check that it does not contradict the start.
	startInput string
	streamed   []byte
}

// cvStreamEvent is the union of the ConverseStream event payloads conform
// reads. Unknown fields, including the "p" padding, are ignored.
type cvStreamEvent struct {
	ContentBlockIndex *int           `json:"contentBlockIndex"`
	Start             *cvStreamStart `json:"start"`
	Delta             *cvStreamDelta `json:"delta"`
	StopReason        *string        `json:"stopReason"`
	Usage             *cvUsage       `json:"usage"`
	Message           string         `json:"message"`
	Bytes             string         `json:"bytes"`
	// chunk is the base64 text of Bytes, a view of the frame on the fast
	// path; decoded is its bytes when isDecoded, the fast path having
	// decoded them.
	chunk     []byte
	decoded   []byte
	isDecoded bool
}

type cvStreamStart struct {
	ToolUse *cvStreamToolStart `json:"toolUse"`
}

type cvStreamToolStart struct {
	ToolUseID string `json:"toolUseId"`
	Name      string `json:"name"`
	Type      string `json:"type"`
}

type cvStreamDelta struct {
	// Text holds the JSON string as sent, unquoted by rawText.
	Text             json.RawMessage    `json:"text"`
	ToolUse          *cvStreamToolDelta `json:"toolUse"`
	ReasoningContent *cvStreamReasoning `json:"reasoningContent"`
}

type cvStreamToolDelta struct {
	Input json.RawMessage `json:"input"`
}

type cvStreamReasoning struct {
	Text            json.RawMessage `json:"text"`
	Signature       *string         `json:"signature"`
	RedactedContent *string         `json:"redactedContent"`
}

// anStreamEvent is the union of the Anthropic stream events that
// InvokeModelWithResponseStream carries base64-encoded in "chunk" frames.
type anStreamEvent struct {
	Type         string           `json:"type"`
	Index        *int             `json:"index"`
	Message      *anStreamMessage `json:"message"`
	ContentBlock *anBlock         `json:"content_block"`
	Delta        *anStreamDelta   `json:"delta"`
	Usage        *anUsage         `json:"usage"`
	Error        *anError         `json:"error"`
}

type anStreamMessage struct {
	ID    string   `json:"id"`
	Model string   `json:"model"`
	Usage *anUsage `json:"usage"`
}

type anStreamDelta struct {
	Type        string  `json:"type"`
	Text        string  `json:"text"`
	PartialJSON string  `json:"partial_json"`
	Thinking    string  `json:"thinking"`
	Signature   string  `json:"signature"`
	StopReason  *string `json:"stop_reason"`
}

// eventStream decodes a Bedrock stream one frame at a time.
type eventStream struct {
	// ResponseMemory holds the Response core.Collect returns, whose
	// strings point into the stream's arena: it lives as long as the
	// stream anyway.
	core.ResponseMemory
	guard  vendorerr.Guard
	check  jsonstr.TextCheck
	fr     frameReader
	cur    frame
	q      streamdec.Queue
	err    error
	blocks blockSet
	input  int
	// scratch holds a chunk's decoded base64, first in scratchBuf.
	scratch    []byte
	scratchBuf [512]byte
	// pending is the held-back call end of the last stopped client tool
	// block (when held): a token-limit stop drops it (B11), anything
	// written after the block lets it through.
	pending core.Event
	held    bool
	// known is set by the first frame of the protocol; foreign is the
	// offset of the first frame that was not one, or -1.
	known   bool
	foreign int64
	// chunks hands out the events' chunks (chunk), first from
	// chunksBuf; strs holds their strings.
	chunks    []core.Chunk
	chunksBuf [16]core.Chunk
	slabs     int
	strs      jsonscan.Strings
	arena     [512]byte
	unescaped [256]byte
	// events is the queue's first storage; usage that of the first usage
	// event.
	events    [4]core.Event
	usage     core.Usage
	usageUsed bool
	fast      fastStore
}

// DecodeStream reads a ConverseStream body, or an
// InvokeModelWithResponseStream body whose "chunk" frames carry Anthropic
// stream events, and yields canonical events one frame at a time. Frames
// larger than the maximum frame size, cut frames and bad CRCs end the stream
// with a *DecodeError naming the frame's byte offset. Exception frames become
// EventError events. A client tool call that the token limit cut while it
// was the block written last never ends, so core.Collect reports it
// incomplete as DecodeResponse does (B11), and an InvokeModel tool_use whose
// input deltas contradict the input its start carried ends the stream with
// a *DecodeError wrapping core.ErrMalformed and ErrInputConflict (A18); the
// package documentation gives both rules.
func (a *Adapter) DecodeStream(r io.Reader) core.EventStream { return a.newStream(r) }

// newStream returns the decoder of a stream, which guards its start
// (vendorerr.GuardStream) and checks its text (jsonstr.CheckText) itself.
func (a *Adapter) newStream(r io.Reader) *eventStream {
	s := &eventStream{fr: frameReader{max: a.maxFrame}, foreign: -1}
	s.fr.r = s.guard.Reader(r)
	s.check.Protocol = "bedrock"
	s.q.Use(s.events[:])
	s.chunks = s.chunksBuf[:]
	s.scratch = s.scratchBuf[:]
	s.strs.Use(s.arena[:], s.unescaped[:])
	return s
}

// Next returns the next event, io.EOF after the last one, or the error that
// ended the stream.
func (s *eventStream) Next() (core.Event, error) { return s.guard.Next(s.checked) }

// checked is Next before the guard: the decoded event, its text checked.
func (s *eventStream) checked() (core.Event, error) { return s.check.Next(s.decoded) }

// decoded is the next decoded event.
func (s *eventStream) decoded() (core.Event, error) { return streamdec.Pull(&s.q, &s.err, s.pull) }

// pull reads one frame and queues its events, or returns the error that
// ends the stream.
func (s *eventStream) pull() error {
	err := s.fr.next(&s.cur)
	if err == io.EOF {
		// A stream that ends without saying why keeps its last call,
		// as a body without a stop reason does.
		s.flush()
		if !s.known && s.foreign >= 0 {
			// Frames, but none of a Converse or InvokeModel stream:
			// not a Bedrock response stream.
			return streamError(s.foreign, "", fmt.Errorf("no bedrock event frame (an exception, or an event of a type Converse or InvokeModel streams send): %w", core.ErrNotStream))
		}
		return io.EOF
	}
	if err == nil {
		err = s.frame(&s.cur)
	}
	if err != nil {
		s.held = false
	}
	return err
}

func (s *eventStream) emit(e core.Event) {
	s.q.Push(e)
}

// chunk returns a new chunk at block index idx (none when idx is nil).
func (s *eventStream) chunk(idx *int) *core.Chunk {
	c := s.newChunk()
	if idx != nil {
		c.Index, c.HasIndex = *idx, true
	}
	return c
}

// newChunk returns a pointer to a zero chunk, from storage allocated 32
// and then 64 chunks at a time once the stream's first 16 are used, so
// that a short stream costs no allocation for its chunks and a long one
// one per 64.
func (s *eventStream) newChunk() *core.Chunk {
	if len(s.chunks) == 0 {
		s.chunks = make([]core.Chunk, min(32<<min(s.slabs, 1), jsonscan.SlabSize))
		s.slabs++
	}
	c := &s.chunks[0]
	s.chunks = s.chunks[1:]
	return c
}

// newUsage returns storage for a usage event's counts: the stream's own
// for the first, a new allocation for any later one.
func (s *eventStream) newUsage(u core.Usage) *core.Usage {
	if s.usageUsed {
		p := new(core.Usage)
		*p = u
		return p
	}
	s.usage, s.usageUsed = u, true
	return &s.usage
}

// flush emits the held-back call end, if any: the call was finished.
func (s *eventStream) flush() {
	if s.held {
		s.emit(s.pending)
		s.pending, s.held = core.Event{}, false
	}
}

// settle resolves the held-back call end when the message stops with the
// wire stop reason stop. A token-limit stop cut the block written last: the
// call end is dropped, so the call stays open and core.Collect reports it
// incomplete (B11). Its input so far stays with it: Args the end would have
// carried (a start's input, or "{}" for a call without input) are given as
// a delta instead, as DecodeResponse keeps the input in Original. Any other
// stop lets the call end through.
func (s *eventStream) settle(stop string) {
	if s.held && finishFromStop(stop) == core.FinishLength {
		p := s.pending.Chunk
		s.pending, s.held = core.Event{}, false
		if p.Args != nil {
			c := s.newChunk()
			*c = *p
			c.ArgsDelta, c.Args, c.Done = *c.Args, nil, false
			s.emit(core.Event{Kind: core.EventCallDelta, Chunk: c})
		}
	}
	s.flush()
}

// eventName returns the event type of a frame as one of the names the
// stream reads, or "" for any other.
func eventName(et []byte) string {
	switch string(et) {
	case "contentBlockDelta":
		return "contentBlockDelta"
	case "contentBlockStart":
		return "contentBlockStart"
	case "contentBlockStop":
		return "contentBlockStop"
	case "chunk":
		return "chunk"
	case "messageStart":
		return "messageStart"
	case "messageStop":
		return "messageStop"
	case "metadata":
		return "metadata"
	}
	return ""
}

func (s *eventStream) frame(f *frame) error {
	switch string(f.messageType) {
	case "exception":
		var body struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(f.payload, &body) // a non-JSON exception body still reports its type
		if body.Message == "" {
			body.Message = string(bytes.TrimSpace(f.payload))
		}
		s.known = true
		s.flush()
		s.emit(core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: string(f.exceptionType), Message: body.Message}})
		return nil
	case "error":
		s.known = true
		s.flush()
		s.emit(core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: "error", Code: string(f.errorCode), Message: string(f.errorMessage)}})
		return nil
	case "event", "":
	default:
		s.noteForeign(f.off) // unknown message types are ignored
		return nil
	}
	et := eventName(f.eventType)
	if et == "" {
		s.noteForeign(f.off) // unknown event types are ignored
		return nil
	}
	s.known = true
	ev, ok := s.fast.converse(f.payload, &s.strs, &s.scratch)
	if !ok {
		ev = &cvStreamEvent{}
		if err := json.Unmarshal(f.payload, ev); err != nil {
			return streamError(f.off, et, payloadError(err))
		}
		ev.chunk = []byte(ev.Bytes)
	}
	if err := s.converse(et, ev); err != nil {
		return streamError(f.off, et, err)
	}
	return nil
}

// noteForeign notes the offset of the first frame of no Bedrock stream, for
// the error of a stream that has no other kind.
func (s *eventStream) noteForeign(off int64) {
	if s.foreign < 0 {
		s.foreign = off
	}
}

// payloadError places an encoding/json error of a frame's payload.
func payloadError(err error) error { return wire.WrapJSONError("payload", err) }

func key(idx *int) int {
	if idx == nil {
		return 0
	}
	return *idx
}

func (s *eventStream) open(idx *int, kind blockKind) (*block, error) {
	k := key(idx)
	if b := s.blocks.get(k); b != nil {
		*b = block{kind: kind, open: true, streamed: b.streamed[:0]}
		return b, nil
	}
	if s.blocks.n >= maxOpenBlocks {
		return nil, fmt.Errorf("%w: more than %d open content blocks", core.ErrTooLarge, maxOpenBlocks)
	}
	return s.blocks.add(k, kind), nil
}

// blockSet holds the open content blocks by index: those at indexes 0 to
// 3, where most streams stay, in place, others in a map made when one
// opens.
type blockSet struct {
	low  [4]block
	more map[int]*block
	n    int // open blocks
}

// get returns the open block at index k, or nil.
func (bs *blockSet) get(k int) *block {
	if k >= 0 && k < len(bs.low) {
		if !bs.low[k].open {
			return nil
		}
		return &bs.low[k]
	}
	return bs.more[k]
}

// add opens a block of kind at index k, where none is open.
func (bs *blockSet) add(k int, kind blockKind) *block {
	bs.n++
	if k >= 0 && k < len(bs.low) {
		b := &bs.low[k]
		*b = block{kind: kind, open: true, streamed: b.streamed[:0]}
		return b
	}
	if bs.more == nil {
		bs.more = make(map[int]*block)
	}
	b := &block{kind: kind, open: true}
	bs.more[k] = b
	return b
}

// remove closes the open block at index k; b stays readable until a
// block opens there again.
func (bs *blockSet) remove(k int, b *block) {
	bs.n--
	b.open = false
	if !(k >= 0 && k < len(bs.low)) {
		delete(bs.more, k)
	}
}

func (s *eventStream) converse(et string, ev *cvStreamEvent) error {
	switch et {
	case "messageStart", "contentBlockStart", "contentBlockDelta", "metadata":
		// Something written after a stopped call, or usage, which
		// Converse sends after messageStop: the call was finished.
		s.flush()
	}
	switch et {
	case "contentBlockStart":
		if ev.Start == nil || ev.Start.ToolUse == nil {
			_, err := s.open(ev.ContentBlockIndex, blockOther)
			return err
		}
		if ev.Start.ToolUse.Type == serverToolUse {
			_, err := s.open(ev.ContentBlockIndex, blockServer)
			return err
		}
		b, err := s.open(ev.ContentBlockIndex, blockTool)
		if err != nil {
			return err
		}
		b.id = ev.Start.ToolUse.ToolUseID
		c := s.chunk(ev.ContentBlockIndex)
		c.ID, c.Name, c.Start = ev.Start.ToolUse.ToolUseID, ev.Start.ToolUse.Name, true
		s.emit(core.Event{Kind: core.EventCallStart, Chunk: c})
	case "contentBlockDelta":
		if ev.Delta == nil {
			return nil
		}
		d := ev.Delta
		text, err := s.rawText(d.Text, "delta.text")
		if err != nil {
			return err
		}
		if text != "" {
			s.emit(core.Event{Kind: core.EventText, Text: text})
		}
		if rc := d.ReasoningContent; rc != nil {
			thinking, err := s.rawText(rc.Text, "delta.reasoningContent.text")
			if err != nil {
				return err
			}
			if thinking != "" {
				s.emit(core.Event{Kind: core.EventThinking, Text: thinking})
			}
			if rc.Signature != nil && *rc.Signature != "" {
				s.emit(core.Event{Kind: core.EventThinking, Signature: *rc.Signature})
			}
			if rc.RedactedContent != nil && *rc.RedactedContent != "" {
				s.emit(core.Event{Kind: core.EventThinking, Data: *rc.RedactedContent})
			}
		}
		if d.ToolUse != nil {
			frag, err := s.inputFragment(d.ToolUse.Input)
			if err != nil {
				return err
			}
			return s.argDelta(ev.ContentBlockIndex, frag)
		}
	case "contentBlockStop":
		return s.stop(ev.ContentBlockIndex)
	case "messageStop":
		stop := ""
		if ev.StopReason != nil {
			stop = *ev.StopReason
		}
		s.settle(stop)
		s.emit(core.Event{Kind: core.EventFinish, Finish: finishFromStop(stop), ProviderFinish: stop})
	case "metadata":
		if ev.Usage != nil {
			s.emit(core.Event{Kind: core.EventUsage, Usage: s.newUsage(core.Usage{InputTokens: ev.Usage.InputTokens, OutputTokens: ev.Usage.OutputTokens})})
		}
	case "chunk":
		data := ev.decoded
		if !ev.isDecoded {
			n := base64.StdEncoding.DecodedLen(len(ev.chunk))
			if cap(s.scratch) < n {
				s.scratch = make([]byte, n)
			}
			n, err := base64.StdEncoding.Decode(s.scratch[:n], ev.chunk)
			if err != nil {
				return fmt.Errorf("payload field bytes: %w", err)
			}
			data = s.scratch[:n]
		}
		an, ok := s.fast.anthropic(data, &s.strs)
		if !ok {
			an = &anStreamEvent{}
			if err := json.Unmarshal(data, an); err != nil {
				return fmt.Errorf("chunk: %w", payloadError(err))
			}
			if err := keepDeltaBytes(data, an); err != nil {
				return fmt.Errorf("chunk: %w", err)
			}
		}
		return s.anthropic(an)
	}
	return nil
}

// keepDeltaBytes applies to the Anthropic event of an InvokeModel chunk,
// which encoding/json decoded with bytes that are not UTF-8 replaced by
// U+FFFD, the text rule of every other stream dialect: the delta's text,
// input and thinking keep their bytes, for jsonstr.CheckText to take a
// character split between two deltas (B05) and refuse any other, and a
// byte that is not UTF-8 anywhere else in the chunk is refused here
// (RFC 8259 §8.1), naming its offset in the decoded chunk.
func keepDeltaBytes(data []byte, an *anStreamEvent) error {
	bad := jsonstr.InvalidUTF8At(data)
	if bad < 0 {
		return nil
	}
	var raw struct {
		Delta struct {
			Text        json.RawMessage `json:"text"`
			PartialJSON json.RawMessage `json:"partial_json"`
			Thinking    json.RawMessage `json:"thinking"`
		} `json:"delta"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return payloadError(err)
	}
	// Blank out the delta strings: what is left must be UTF-8.
	rest := bytes.Clone(data)
	for _, r := range []json.RawMessage{raw.Delta.Text, raw.Delta.PartialJSON, raw.Delta.Thinking} {
		if i := bytes.Index(rest, r); len(r) > 0 && i >= 0 {
			copy(rest[i:i+len(r)], bytes.Repeat([]byte{' '}, len(r)))
		}
	}
	if bad := jsonstr.InvalidUTF8At(rest); bad >= 0 {
		return fmt.Errorf("%w: payload byte %d", core.ErrInvalidUTF8, bad)
	}
	if an.Delta == nil {
		return nil
	}
	for _, f := range []struct {
		raw json.RawMessage
		dst *string
	}{{raw.Delta.Text, &an.Delta.Text}, {raw.Delta.PartialJSON, &an.Delta.PartialJSON}, {raw.Delta.Thinking, &an.Delta.Thinking}} {
		if t := bytes.TrimSpace(f.raw); len(t) > 0 && t[0] == '"' {
			v, err := jsonstr.UnquoteRaw(t)
			if err != nil {
				return fmt.Errorf("%w payload: %w", core.ErrMalformed, err)
			}
			*f.dst = v
		}
	}
	return nil
}

// rawText returns a text delta, a JSON string or null, with bytes that are
// not UTF-8 kept as they are (jsonstr.UnquoteRaw): a character split between
// deltas comes out whole (B05), and an invalid one is refused
// (jsonstr.CheckText) rather than replaced.
func (s *eventStream) rawText(raw json.RawMessage, field string) (string, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return "", nil
	}
	if t[0] != '"' {
		return "", fmt.Errorf("%w payload field %s: not a string", core.ErrMalformed, field)
	}
	return s.unquote(t, field)
}

// unquote returns the value of the JSON string t as jsonstr.UnquoteRaw does,
// into the stream's string arena.
func (s *eventStream) unquote(t []byte, field string) (string, error) {
	if len(t) >= 2 && t[len(t)-1] == '"' {
		content := t[1 : len(t)-1]
		if v, ok := s.strs.Raw(content, bytes.IndexByte(content, '\\') >= 0); ok {
			return v, nil
		}
	}
	_, err := jsonstr.UnquoteRaw(t)
	if err == nil {
		err = errors.New("not a JSON string")
	}
	return "", fmt.Errorf("%w payload field %s: %w", core.ErrMalformed, field, err)
}

// inputFragment returns a toolUse input delta as text. ConverseStream sends
// a string; an object (as some gateways send, C04) is taken as its JSON text.
func (s *eventStream) inputFragment(raw json.RawMessage) (string, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return "", nil
	}
	if t[0] == '"' {
		// Bytes that are not UTF-8 are kept: a character split
		// between deltas comes out whole (B05), and an invalid one is
		// refused (jsonstr.CheckText) rather than replaced.
		return s.unquote(t, "delta.toolUse.input")
	}
	return string(t), nil
}

func (s *eventStream) argDelta(idx *int, frag string) error {
	b := s.blocks.get(key(idx))
	if b == nil {
		// A delta for a block that never started: the provider sent it,
		// so it is passed on for the Buffer to route.
		var err error
		if b, err = s.open(idx, blockTool); err != nil {
			return err
		}
	}
	if b.kind == blockServer || frag == "" {
		return nil
	}
	if b.startInput != "" {
		if len(b.streamed)+len(frag) > core.DefaultMaxArgBytes {
			return fmt.Errorf("tool_use block %d (id %q): streamed input kept to check the start input (A18) over %d bytes: %w", key(idx), b.id, core.DefaultMaxArgBytes, core.ErrArgumentsTooLarge)
		}
		b.streamed = append(b.streamed, frag...)
	}
	b.argBytes += len(frag)
	c := s.chunk(idx)
	c.ArgsDelta = frag
	s.emit(core.Event{Kind: core.EventCallDelta, Chunk: c})
	return nil
}

// stop closes a block. A tool block that received no input at all is a
// no-argument call and ends with Args "{}" (C02), never with empty text,
// or, on InvokeModel, with the input its start carried (A18, I01). Input
// deltas that contradict a populated start input are an error wrapping
// core.ErrMalformed and ErrInputConflict. The end of a tool block is held back
// until something shows the block was not cut by the token limit (B11;
// see finish).
func (s *eventStream) stop(idx *int) error {
	b := s.blocks.get(key(idx))
	if b == nil {
		return nil
	}
	s.blocks.remove(key(idx), b)
	if b.kind != blockTool {
		return nil
	}
	if err := checkStartInput(key(idx), b); err != nil {
		return err
	}
	c := s.chunk(idx)
	c.Done = true
	if b.argBytes == 0 {
		args := b.startInput
		if args == "" {
			args = "{}"
		}
		c.Args = &args
	}
	s.flush()
	s.pending, s.held = core.Event{Kind: core.EventCallEnd, Chunk: c}, true
	return nil
}

func (s *eventStream) anthropic(ev *anStreamEvent) error {
	switch ev.Type {
	case "message_start", "content_block_start", "content_block_delta", "message_stop", "error":
		// Something written after a stopped call, or the end of a
		// message without a token-limit stop: the call was finished.
		s.flush()
	}
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			s.q.ID, s.q.Model = ev.Message.ID, ev.Message.Model
			if ev.Message.Usage != nil {
				s.input = ev.Message.Usage.InputTokens
			}
		}
	case "content_block_start":
		cb := ev.ContentBlock
		if cb == nil {
			return nil
		}
		switch cb.Type {
		case "tool_use":
			b, err := s.open(ev.Index, blockTool)
			if err != nil {
				return err
			}
			b.id = cb.ID
			c := s.chunk(ev.Index)
			c.ID, c.Name, c.Start = cb.ID, cb.Name, true
			// A start that already carries input (A18, I01) is the
			// call's input unless input deltas follow, which then are
			// the input; "{}" is the usual empty placeholder.
			if in := bytes.TrimSpace(cb.Input); len(in) > 0 && string(in) != "{}" && string(in) != "null" {
				b.startInput = string(in)
			}
			s.emit(core.Event{Kind: core.EventCallStart, Chunk: c})
		case "text":
			if _, err := s.open(ev.Index, blockOther); err != nil {
				return err
			}
			if cb.Text != nil && *cb.Text != "" {
				s.emit(core.Event{Kind: core.EventText, Text: *cb.Text})
			}
		case "thinking":
			if _, err := s.open(ev.Index, blockOther); err != nil {
				return err
			}
			if cb.Thinking != nil && *cb.Thinking != "" {
				s.emit(core.Event{Kind: core.EventThinking, Text: *cb.Thinking})
			}
		case "redacted_thinking":
			if _, err := s.open(ev.Index, blockOther); err != nil {
				return err
			}
			if cb.Data != "" {
				s.emit(core.Event{Kind: core.EventThinking, Data: cb.Data})
			}
		default:
			// server_tool_use and other provider-run blocks.
			if _, err := s.open(ev.Index, blockServer); err != nil {
				return err
			}
		}
	case "content_block_delta":
		d := ev.Delta
		if d == nil {
			return nil
		}
		switch d.Type {
		case "text_delta":
			if d.Text != "" {
				s.emit(core.Event{Kind: core.EventText, Text: d.Text})
			}
		case "thinking_delta":
			if d.Thinking != "" {
				s.emit(core.Event{Kind: core.EventThinking, Text: d.Thinking})
			}
		case "signature_delta":
			if d.Signature != "" {
				s.emit(core.Event{Kind: core.EventThinking, Signature: d.Signature})
			}
		case "input_json_delta":
			return s.argDelta(ev.Index, d.PartialJSON)
		}
	case "content_block_stop":
		return s.stop(ev.Index)
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != nil {
			s.settle(*ev.Delta.StopReason)
		} else {
			// Usage without a stop reason: Anthropic sends both in
			// one message_delta, so the message ended uncut.
			s.flush()
		}
		if ev.Usage != nil {
			s.emit(core.Event{Kind: core.EventUsage, Usage: s.newUsage(core.Usage{InputTokens: s.input, OutputTokens: ev.Usage.OutputTokens})})
		}
		if ev.Delta != nil && ev.Delta.StopReason != nil {
			stop := *ev.Delta.StopReason
			s.emit(core.Event{Kind: core.EventFinish, Finish: finishFromStop(stop), ProviderFinish: stop})
		}
	case "error":
		pe := &core.ProviderError{Message: "unknown error"}
		if ev.Error != nil {
			pe = &core.ProviderError{Type: ev.Error.Type, Message: ev.Error.Message}
		}
		s.emit(core.Event{Kind: core.EventError, Error: pe})
	}
	return nil
}

// ErrInputConflict reports an InvokeModel tool_use whose
// content_block_start carries a populated input that its input_json_delta
// fragments contradict (A18). It is wrapped beside core.ErrMalformed;
// anthropic.ErrInputConflict is the same sentinel.
var ErrInputConflict = rules.ErrInputConflict

// checkStartInput returns an error when the streamed input of tool block b
// (index i) contradicts its populated start input (A18): a member of the
// start's input is missing from the deltas' input or has another value.
// Deltas that repeat the start's input or extend it with more members are
// the call's input. Either side that is not one JSON value is not compared:
// the Buffer reports delta text that is not JSON (repaired or incomplete).
func checkStartInput(i int, b *block) error {
	if b.startInput == "" || b.argBytes == 0 || !rules.InputConflict([]byte(b.startInput), b.streamed) {
		return nil
	}
	return fmt.Errorf("%w: %w: tool_use block %d (id %q): start input %s, streamed input %s", core.ErrMalformed, ErrInputConflict, i, b.id, clip(b.startInput), clip(string(b.streamed)))
}

// clip shortens s for an error message.
func clip(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

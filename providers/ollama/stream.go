package ollama

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/ndjson"
	"github.com/toolconform/conform/providers/internal/streamdec"
	"github.com/toolconform/conform/providers/internal/streamenc"
	"github.com/toolconform/conform/providers/internal/vendorerr"
	"github.com/toolconform/conform/providers/internal/wire"
)

const streamOp = "ollama: decode stream"

// DecodeStream reads an /api/chat NDJSON stream one line at a time. Each
// line's message.thinking becomes EventThinking, message.content
// EventText, and each of its tool_calls — which Ollama sends whole, one or
// several in one line (A15) — EventCallStart then EventCallEnd with the
// complete Args. Calls route by their id (the provider's, or
// "ollama_call_<k>" counting the calls of the stream, the same ids
// DecodeResponse gives), and by function.index when Ollama sends one. The
// done line gives EventUsage (prompt_eval_count, eval_count) and
// EventFinish. {"error": "..."} gives EventError. Lines longer than the
// limit (WithMaxLine) fail with an error wrapping core.ErrTooLarge; malformed
// lines name their byte offset. JSON lines none of which is an /api/chat
// line (model, created_at, message, done or error) are not an Ollama
// stream: an error wrapping core.ErrNotStream names the first of them.
func (a *Adapter) DecodeStream(r io.Reader) core.EventStream {
	k := new(streamKeep)
	s := streams.Get()
	a.initStream(s, r, k)
	k.s = s
	return k
}

// newStream returns the decoder of a stream, not handed back to streams
// when it ends, for tests that look into it.
func (a *Adapter) newStream(r io.Reader) *stream {
	s := new(stream)
	a.initStream(s, r, new(streamKeep))
	return s
}

// initStream makes the zero stream s the decoder of r, whose events point
// into k. It guards its start (vendorerr.GuardStream) and checks its text
// (jsonstr.CheckText) itself.
func (a *Adapter) initStream(s *stream, r io.Reader, k *streamKeep) {
	s.keep, s.foreign = k, -1
	s.lines.Init(s.guard.Reader(r), a.maxLine)
	s.check.Protocol = Name
	s.q.Use(s.evBuf[:0])
	s.fast.strs.Use(k.arena[:], s.fast.scratch[:])
}

// streams holds the decoders of streams that have ended, zeroed, for the
// next stream: a stream then costs only its streamKeep, not the ~3 KB of
// its decoder.
var streams streamdec.Pool[stream, *stream]

// streamKeep is the core.EventStream DecodeStream returns: the memory the
// stream's events point into (the chunks of its first calls, its usage,
// the arena of its small strings), which lives as long as they do, and
// its decoder, handed back to streams once Next has returned io.EOF,
// which it then returns forever, as the decoder does.
type streamKeep struct {
	s *stream
	// firstCalls are the chunks of the first calls.
	firstCalls [2]callChunks
	// usage is the counts of the done line, which the usage event points
	// to.
	usage core.Usage
	// arena is the first block of the small strings' arena.
	arena [512]byte
	// ResponseMemory holds the Response core.Collect returns, whose
	// strings point into arena: it lives as long as this anyway.
	core.ResponseMemory
}

func (k *streamKeep) Next() (core.Event, error) {
	return streams.Next(&k.s, func(s *stream) { *s = stream{} })
}

// ReuseEventText lets the stream reuse, once it reads its next line, the
// storage of the call chunks it gave and of their arguments (see
// core.Collect): the chunks of a line's calls then come from the decoder,
// and the arguments of a call, an object, are a view of the line.
func (k *streamKeep) ReuseEventText() {
	if k.s != nil {
		k.s.reuse = true
	}
}

// VouchArgs reports whether args is the very string the last line gave a
// call's end as its arguments, an object its decoding checked (see
// stream.vouched), for core.Collect.
func (k *streamKeep) VouchArgs(args string) bool { return k.s != nil && k.s.vouched.Has(args) }

type stream struct {
	// guard and check are what vendorerr.GuardStream and jsonstr.CheckText wrap
	// around a decoder, kept in the stream.
	guard    vendorerr.Guard
	check    jsonstr.TextCheck
	lines    ndjson.Reader
	q        streamdec.Queue
	err      error
	calls    int
	model    string
	sentMeta bool
	// known is set by the first line of the protocol; foreign is the
	// offset of the first line that was not one, or -1.
	known   bool
	foreign int64
	// keep holds what the events point into: the usage, the chunks of
	// the first calls and the first block of small strings.
	keep *streamKeep
	// evBuf is the first storage of q, which a line's events seldom
	// outgrow. usedCalls counts the calls given the keep's firstCalls.
	evBuf     [4]core.Event
	usedCalls int
	// fast is the fast path's reused storage (see fast.go).
	fast fastStore

	// vouched holds the argument texts of the calls of the last line that
	// are objects its decoding checked (either path; the text check then
	// refuses any byte that is not UTF-8 before the event is returned).
	vouched streamdec.Vouched

	// reuse is set by ReuseEventText. lineCalls then holds the call
	// chunks of the last line's events, the first lineUsed of them taken,
	// and lineArgs the arguments of its calls compacted; both are reused
	// from the next line on, which pull reads only once the events of the
	// last have all been returned, and start in lineCallsBuf and
	// lineArgsBuf.
	reuse        bool
	lineCalls    []callChunks
	lineUsed     int
	lineArgs     []byte
	lineCallsBuf [2]callChunks
	lineArgsBuf  [512]byte
}

// callChunks are the chunks of one call's events, with the text of its
// arguments, in one allocation.
type callChunks struct {
	start, end core.Chunk
	args       string
}

func (s *stream) Next() (core.Event, error) { return s.guard.Next(s.checked) }

// checked is Next before the guard: the decoded event, its text checked.
func (s *stream) checked() (core.Event, error) { return s.check.Next(s.decoded) }

// decoded is Next before the text check.
func (s *stream) decoded() (core.Event, error) { return streamdec.Pull(&s.q, &s.err, s.pull) }

func (s *stream) emit(ev core.Event) {
	if !s.sentMeta && s.model != "" {
		ev.Model = s.model
		s.sentMeta = true
	}
	s.q.Push(ev)
}

// pull reads one line and queues its events, or returns the error that
// ends the stream.
func (s *stream) pull() error {
	if s.lineArgs == nil {
		s.lineArgs = s.lineArgsBuf[:0]
	}
	s.vouched.Reset()
	s.lineUsed, s.lineArgs = 0, s.lineArgs[:0]
	line, off, err := s.lines.Next()
	if err == io.EOF {
		if !s.known && s.foreign >= 0 {
			// JSON lines, but none of /api/chat: not an Ollama stream.
			return wire.Placed(streamOp, s.foreign, "", fmt.Errorf("no ollama line (one with model, created_at, message, done or error): %w", core.ErrNotStream))
		}
		return io.EOF
	}
	if err != nil {
		var ne *ndjson.Error
		if errors.As(err, &ne) {
			e := ne.Err
			if errors.Is(err, ndjson.ErrLineTooLong) {
				e = fmt.Errorf("%w: %v", core.ErrTooLarge, ne.Err)
			}
			return wire.Placed(streamOp, ne.Offset, "", e)
		}
		return fmt.Errorf("%s: %w", streamOp, err)
	}
	w, fast := s.fast.fastLine(line)
	if !fast {
		w = new(wireResponse)
		if err := json.Unmarshal(line, w); err != nil {
			return syntaxError(streamOp, off, err)
		}
	}
	if w.Model == "" && w.CreatedAt == "" && w.Message == nil && !w.Done && w.Error == nil {
		if !s.known && s.foreign < 0 {
			s.foreign = off
		}
		return nil
	}
	s.known = true
	// Text decodes through encoding/json, which would turn bytes that are
	// not UTF-8 into U+FFFD; a line holding such bytes outside a call's
	// arguments (which keep their bytes for jsonstr.CheckText to name) is
	// refused here, at the bad byte. A line the fast path decoded is valid
	// UTF-8 throughout.
	if !fast && !utf8.Valid(line) && !argsHoldInvalidUTF8(w) {
		return wire.Placed(streamOp, off+int64(jsonstr.InvalidUTF8At(line)), "", core.ErrInvalidUTF8)
	}
	if s.model == "" {
		s.model = w.Model
	}
	if w.Error != nil {
		s.emit(core.Event{Kind: core.EventError, Error: &core.ProviderError{Message: *w.Error}})
		return nil
	}
	if m := w.Message; m != nil {
		if m.Thinking != "" {
			s.emit(core.Event{Kind: core.EventThinking, Text: m.Thinking})
		}
		if m.Content != "" {
			s.emit(core.Event{Kind: core.EventText, Text: m.Content})
		}
		for k, tc := range m.ToolCalls {
			if zeroCall(tc) {
				continue // a zero-valued entry is an absent one
			}
			if err := s.call(tc); err != nil {
				return wire.Placed(streamOp, off, "", fmt.Errorf("message.tool_calls[%d].function.arguments: %w", k, err))
			}
		}
	}
	if w.Done {
		if w.PromptEvalCount != nil || w.EvalCount != nil {
			s.keep.usage = core.Usage{InputTokens: deref(w.PromptEvalCount), OutputTokens: deref(w.EvalCount)}
			s.emit(core.Event{Kind: core.EventUsage, Usage: &s.keep.usage})
		}
		s.emit(core.Event{Kind: core.EventFinish, Finish: NormalizeFinish(w.DoneReason, s.calls > 0), ProviderFinish: w.DoneReason})
	}
	return nil
}

// callChunks returns storage for the chunks of a call's events: in reuse
// mode the line's, reused from the next line on, else the keep's first
// ones or an allocation of their own.
func (s *stream) callChunks() *callChunks {
	switch {
	case s.reuse:
		if s.lineCalls == nil {
			s.lineCalls = s.lineCallsBuf[:]
		}
		if s.lineUsed == len(s.lineCalls) {
			// The events queued point into the storage taken; the rest
			// of this line's calls, and those of later lines, get new.
			s.lineCalls, s.lineUsed = make([]callChunks, 2*len(s.lineCalls)), 0
		}
		s.lineUsed++
		return &s.lineCalls[s.lineUsed-1]
	case s.usedCalls < len(s.keep.firstCalls):
		s.usedCalls++
		return &s.keep.firstCalls[s.usedCalls-1]
	}
	return new(callChunks)
}

// call queues the start and end of a call Ollama sent whole.
func (s *stream) call(tc wireToolCall) error {
	cc := s.callChunks()
	raw := tc.Function.Arguments
	switch t := bytes.TrimSpace(raw); {
	case len(t) > 0 && t[0] == '{':
		// An object, checked by the line's decoding: compacted, as
		// DecodeArguments does, without its buffer. In reuse mode it is
		// a view of the line, or of the line's compacted arguments.
		if !tc.Function.compact {
			t = s.fast.strs.Compact(t)
		}
		switch {
		case !s.reuse:
			cc.args = s.fast.strs.String(t)
		case tc.Function.compact:
			cc.args = unsafe.String(unsafe.SliceData(t), len(t))
		default:
			n := len(s.lineArgs)
			s.lineArgs = append(s.lineArgs, t...)
			cc.args = unsafe.String(unsafe.SliceData(s.lineArgs[n:]), len(t))
		}
		s.vouched.Add(cc.args)
	default:
		args, repaired, _, err := DecodeArguments(raw)
		if err != nil {
			return err
		}
		if repaired {
			// A Chunk cannot say that its arguments were repaired, so the
			// stream passes the double-encoded string as sent and leaves
			// the repair, and its report, to the Buffer (C05).
			args = t
		}
		cc.args = string(args)
	}
	id := tc.ID
	if id == "" {
		id = GeneratedIDPrefix + strconv.Itoa(s.calls)
	}
	s.calls++
	ch := core.Chunk{ID: id}
	if tc.Function.Index != nil {
		ch.Index, ch.HasIndex = *tc.Function.Index, true
	}
	cc.start, cc.end = ch, ch
	cc.start.Name, cc.start.Start = tc.Function.Name, true
	cc.end.Done, cc.end.Args = true, &cc.args
	s.emit(core.Event{Kind: core.EventCallStart, Chunk: &cc.start})
	s.emit(core.Event{Kind: core.EventCallEnd, Chunk: &cc.end})
	return nil
}

// EncodeStream writes events as an /api/chat NDJSON stream: one line per
// text or thinking event, one line per call at its
// end event carrying the whole call (deltas and patches accumulated; a call
// without an end is not written), and a done line with usage and
// done_reason for the finish. Usage without a finish cannot be written
// (Ollama reports counts only on the done line) and is dropped; the
// response id has no place and is dropped; the model and created_at are
// written on every line, and the done line has its counts (zero without
// usage) and total_duration. A plan, which Ollama has no place for, and an event of no known
// kind are refused (streamenc.CheckKinds) before anything is written.
func (a *Adapter) EncodeStream(w io.Writer, events []core.Event) error {
	const op = "ollama: encode stream"
	if err := streamenc.CheckKinds(op, events, false); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	model := ""
	for _, ev := range events {
		if ev.Model != "" {
			model = ev.Model
			break
		}
	}
	write := func(r wireResponse) error {
		r.Model = model
		b, err := marshalBody(r)
		if err != nil {
			return err
		}
		b = append(b, '\n')
		_, err = bw.Write(b)
		return err
	}
	var calls streamenc.WholeCalls
	var usage *core.Usage
	// writeCall writes one whole call as a line of its own.
	writeCall := func(c streamenc.WholeCall) error {
		tc, err := wireCall(core.Call{ID: c.ID, Name: c.Name, Arguments: c.Args})
		if err != nil {
			return err
		}
		if c.HasIndex {
			ix := c.Index
			tc.Function.Index = &ix
		}
		return write(wireResponse{Message: &wireMessage{Role: "assistant", ToolCalls: []wireToolCall{tc}}})
	}
	errored := false
	for i, ev := range events {
		var err error
		switch ev.Kind {
		case core.EventText, core.EventPlan:
			err = write(wireResponse{Message: &wireMessage{Role: "assistant", Content: ev.Text}})
		case core.EventThinking:
			err = write(wireResponse{Message: &wireMessage{Role: "assistant", Thinking: ev.Text}})
		case core.EventCallStart, core.EventCallDelta, core.EventCallEnd:
			c, ended, cerr := calls.Add(ev)
			if cerr != nil {
				return fmt.Errorf("%s: events[%d]: %w", op, i, cerr)
			}
			if !ended {
				continue
			}
			if cerr := writeCall(c); cerr != nil {
				return fmt.Errorf("%s: events[%d]: %w", op, i, cerr)
			}
		case core.EventUsage:
			usage = ev.Usage
		case core.EventFinish:
			// The finish ends the calls still open, as core.Collect
			// ends them, and they are written before it.
			for _, c := range calls.Finish(ev.Finish) {
				if cerr := writeCall(c); cerr != nil {
					return fmt.Errorf("%s: events[%d]: %w", op, i, cerr)
				}
			}
			r := wireResponse{Message: &wireMessage{Role: "assistant"}, Done: true, DoneReason: rawFinish(ev.Finish, ev.ProviderFinish)}
			r.setDone(usage)
			err = write(r)
		case core.EventError:
			errored = true
			msg := "error"
			if ev.Error != nil {
				msg = ev.Error.Message
			}
			err = write(wireResponse{Error: &msg})
		}
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	if err := calls.Unended(); err != nil && !errored {
		// A call cut off (no end, no finish that ends it) cannot be
		// written whole, and the stream says nothing of its loss.
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// argsHoldInvalidUTF8 reports whether the arguments of a call in w hold
// bytes that are not UTF-8.
func argsHoldInvalidUTF8(w *wireResponse) bool {
	if w.Message == nil {
		return false
	}
	for _, c := range w.Message.ToolCalls {
		if !utf8.Valid(c.Function.Arguments) {
			return true
		}
	}
	return false
}

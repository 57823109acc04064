package gemini

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
	"unsafe"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/streamdec"
	"github.com/toolconform/conform/providers/internal/streamenc"
	"github.com/toolconform/conform/providers/internal/vendorerr"
	"github.com/toolconform/conform/providers/internal/wire"
	"github.com/toolconform/conform/sse"
)

// DecodeStream reads a streamGenerateContent body, in either of its forms,
// and yields its events one at a time. The form is chosen by the first
// non-space byte: '[' is the one-JSON-array form (no alt=sse), '{' a bare
// sequence of JSON objects, anything else SSE. See the package
// documentation for the events produced. Input that is neither blank nor
// an empty array but holds no chunk of a GenerateContentResponse is not a
// stream of the protocol: a *DecodeError wrapping core.ErrMalformed and
// core.ErrNotStream at the first event or element it could not use, else
// at its first byte that is not white space.
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
	s.a, s.keep = a, k
	s.src = s.guard.Reader(r)
	s.check.Protocol = Name
	s.q.Use(s.evBuf[:0])
	s.fast.strs.Use(k.arena[:], s.fast.scratch[:])
}

// streams holds the decoders of streams that have ended, zeroed, for the
// next stream: a stream then costs only its streamKeep, not the ~5 KB of
// its decoder's buffers.
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
	// usage is the last usageMetadata, kept by value so that a chunk's
	// usage costs no allocation.
	usage core.Usage
	// arena is the first block of the small strings' arena: 1 KB, which
	// holds a thought signature as Gemini sends them (200 to 664 bytes
	// in the recorded streams) with the ids and names of a few calls.
	arena [1024]byte
	// ResponseMemory holds the Response core.Collect returns, whose
	// strings point into arena: it lives as long as this anyway.
	core.ResponseMemory
}

// VouchArgs reports whether args is the very string the last input chunk
// gave a call's end as its arguments and the decoder checked (see
// stream.vouched), for core.Collect.
func (k *streamKeep) VouchArgs(args string) bool { return k.s != nil && k.s.vouched.Has(args) }

// ReuseEventText lets the stream reuse, once it decodes its next input
// chunk, the storage of the call chunks it gave, of their arguments and
// of its events' text (see core.Collect), which it then takes from the
// decoder instead of keeping: the arguments of a call sent whole and
// ended in one chunk, those assembled from partialArgs pieces, and the
// text of a part the fast path decodes, are views of that chunk's bytes
// or of a buffer reused for the next.
func (k *streamKeep) ReuseEventText() {
	if s := k.s; s != nil {
		s.reuse, s.fast.view = true, &s.chunkArgs
	}
}

func (k *streamKeep) Next() (core.Event, error) { return streams.Next(&k.s, (*stream).reset) }

// reset empties a decoder for the next stream, keeping only its frame
// buffer and its argument store while they are small (see frames.keep
// and argStore.keep).
func (s *stream) reset() {
	buf, args := s.frames.keep(), s.argStore.keep()
	*s = stream{}
	s.frames.buf, s.argStore = buf, args
}

const streamOp = "gemini: decode stream"

type stream struct {
	a *Adapter
	// guard and check are what vendorerr.GuardStream and jsonstr.CheckText wrap
	// around a decoder, kept in the stream.
	guard vendorerr.Guard
	check jsonstr.TextCheck
	// src is the body; head holds the first bytes read from it to find
	// the stream's form, which rest replays before the rest of src. br is
	// the buffered reader of a body that starts with more white space than
	// head holds; otherwise the SSE decoder and the JSON forms' framer
	// read rest with buffers of their own.
	src  io.Reader
	head [64]byte
	rest replay
	br   *bufio.Reader

	started bool
	// form is the framing detect found: 0 an empty body, 's' SSE, 'j' a
	// JSON array or sequence.
	form byte

	// frames frames the JSON forms (see frame.go); frameOracle, set by
	// tests, frames them in its place.
	frames      jsonFrames
	frameOracle func(*jsonFrames) ([]byte, int64, error)

	// sse is the SSE form's decoder, sseDec once set up: kept in the
	// stream, it costs no allocation of its own.
	sse    *sse.Decoder
	sseDec sse.Decoder

	q   streamdec.Queue
	err error

	id, model   string
	metaPending bool
	// respID is the first responseId seen, the key of generated call ids.
	respID string
	// solidAt is the offset of the first byte that is not white space
	// (solid: there is one, other than the '[' of an array, since an
	// empty array is an empty stream). known is set by the first chunk with anything
	// of a GenerateContentResponse in it; unknownAt is the offset of the
	// first chunk without (sawUnknown). They make the error of non-blank
	// input that is no Gemini stream at all.
	solid, known, sawUnknown bool
	solidAt, unknownAt       int64
	// keep holds what the events point into: the last usageMetadata, if
	// any (hasUsage), the chunks of the first calls and the first block
	// of small strings.
	keep       *streamKeep
	hasUsage   bool
	finishRaw  string
	sawCall    bool
	sawContent bool
	calls      int
	// open is the call whose parts are still coming (cur), or nil.
	open *openCall
	cur  openCall
	// argStore holds the tree of partialArgs pieces of the open call.
	argStore argStore
	// evBuf is the first storage of q, which a chunk's events seldom
	// outgrow. usedCalls counts the calls given chunks: the keep's
	// firstCalls, then moreCalls, the rest of a block of later calls'.
	evBuf     [4]core.Event
	usedCalls int
	moreCalls []callChunks

	// fast is the fast path's reused storage (see fast.go).
	fast fastStore

	// vouched holds the argument texts of the calls the last input chunk
	// ended that are one JSON value in well-formed UTF-8: sent whole and
	// checked by the chunk's decoding (either path; the text check then
	// refuses any byte that is not UTF-8 before the event is returned),
	// assembled from partialArgs pieces (argTree writes only such text),
	// or no arguments at all ("{}").
	vouched streamdec.Vouched

	// reuse is set by ReuseEventText. chunkCalls then holds the call
	// chunks of the last input chunk's events, the first chunkUsed of
	// them taken, and chunkArgs the arguments of its calls compacted or
	// assembled from pieces and its parts' text unescaped
	// (fastStore.view); both
	// are reused from the next input chunk on, which pull decodes only
	// once the events of the last have all been returned, and start in
	// chunkCallsBuf and chunkArgsBuf. inputs counts the input chunks
	// decoded.
	reuse         bool
	inputs        int
	chunkCalls    []callChunks
	chunkUsed     int
	chunkArgs     []byte
	chunkCallsBuf [2]callChunks
	chunkArgsBuf  [512]byte
}

// openCall is a call whose arguments stream as Vertex partialArgs.
type openCall struct {
	id, name, sig string
	// k is the call's position among the calls of the response.
	k    int
	args argTree
	// ev holds the chunks of the call's start and end events; in reuse
	// mode, they were taken for input chunk evInput.
	ev      *callChunks
	evInput int
	// started is false while the call's start waits for its id: a call
	// with no id of its own in a response with no responseId (yet) gets
	// one from its arguments, known only when they are complete.
	started bool
}

func (s *stream) Next() (core.Event, error) { return s.guard.Next(s.checked) }

// checked is Next before the guard: the decoded event, its text checked.
func (s *stream) checked() (core.Event, error) { return s.check.Next(s.decoded) }

// decoded is Next before the text check.
func (s *stream) decoded() (core.Event, error) { return streamdec.Pull(&s.q, &s.err, s.pull) }

// pull reads one chunk and queues its events, or returns the error that
// ends the stream.
func (s *stream) pull() error {
	if !s.started {
		s.started = true
		if err := s.detect(); err != nil {
			return err
		}
	}
	s.vouched.Reset()
	s.inputs++
	if s.chunkArgs == nil {
		s.chunkArgs = s.chunkArgsBuf[:0]
	}
	s.chunkUsed, s.chunkArgs = 0, s.chunkArgs[:0]
	raw, off, err := s.nextChunk()
	if err == io.EOF && (s.solid || s.sawUnknown) && !s.known {
		at := s.solidAt
		if s.sawUnknown {
			at = s.unknownAt
		}
		return wire.Placed(streamOp, at, "", fmt.Errorf("%w: no gemini event: %w", core.ErrMalformed, core.ErrNotStream))
	}
	if err == io.EOF {
		s.finishStream()
		return io.EOF
	}
	if err != nil {
		s.abandon()
		return err
	}
	w, ok := s.fastResponse(raw)
	if !ok {
		w = new(wireResponse)
		if err := json.Unmarshal(raw, w); err != nil {
			s.abandon()
			return syntaxError(streamOp, off, err)
		}
	}
	switch {
	case w.Candidates != nil || w.Error != nil || w.PromptFeedback != nil || w.UsageMetadata != nil || w.ResponseID != "" || w.ModelVersion != "":
		s.known = true
	case !s.sawUnknown:
		s.sawUnknown, s.unknownAt = true, off
		if s.sse != nil {
			s.unknownAt = s.sse.Offset() // the event, not its data
		}
	}
	// Text decodes through encoding/json, which would turn bytes that are
	// not UTF-8 into U+FFFD; a known chunk holding such bytes outside a
	// call's arguments (which keep their bytes for jsonstr.CheckText to name)
	// is refused here, at the bad byte.
	if s.known && !utf8.Valid(raw) && !argsHoldInvalidUTF8(w) {
		s.abandon()
		return wire.Placed(streamOp, off+int64(jsonstr.InvalidUTF8At(raw)), "", core.ErrInvalidUTF8)
	}
	if err := s.chunk(w); err != nil {
		s.abandon()
		return wire.Placed(streamOp, off, "", err)
	}
	return nil
}

// argsHoldInvalidUTF8 reports whether the arguments of a call in w hold
// bytes that are not UTF-8.
func argsHoldInvalidUTF8(w *wireResponse) bool {
	for _, c := range w.Candidates {
		if c.Content == nil {
			continue
		}
		for _, p := range c.Content.Parts {
			if p.FunctionCall != nil && !utf8.Valid(p.FunctionCall.Args) {
				return true
			}
		}
	}
	return false
}

// replay reads buf, then the error err if any, then r.
type replay struct {
	buf []byte
	err error
	r   io.Reader
}

func (p *replay) Read(b []byte) (int, error) {
	switch {
	case len(p.buf) > 0:
		n := copy(b, p.buf)
		p.buf = p.buf[n:]
		return n, nil
	case p.err != nil:
		err := p.err
		p.err = nil
		return 0, err
	}
	return p.r.Read(b)
}

// detect looks at the first non-space byte and sets up the framing. It
// reads the first bytes into head: a stream is then read without a
// buffered reader of its own, the SSE decoder and the JSON forms' framer
// having one. A body whose first read brings nothing, or which starts
// with more white space than head holds, is left to detectBuffered.
func (s *stream) detect() error {
	n := 0
	for n < len(s.head) {
		m, err := s.src.Read(s.head[n:])
		n += m
		for i := n - m; i < n; i++ {
			if c := s.head[i]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
				s.rest = replay{buf: s.head[:n], err: err, r: s.src}
				s.solid, s.solidAt = c != '[', int64(i)
				return s.setup(c, 0)
			}
		}
		if err != nil || m == 0 {
			s.rest = replay{buf: s.head[:n], err: err, r: s.src}
			break
		}
	}
	if n == len(s.head) {
		s.rest = replay{buf: s.head[:n], r: s.src}
	}
	s.br = bufio.NewReader(&s.rest)
	return s.detectBuffered()
}

// detectBuffered is detect through br.
func (s *stream) detectBuffered() error {
	var skipped int
	for {
		b, err := s.br.Peek(skipped + 1)
		if len(b) <= skipped {
			if err == io.EOF || err == nil {
				s.form = 0 // empty body: no events
				return nil
			}
			return wire.Placed(streamOp, int64(skipped), "", err)
		}
		c := b[skipped]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			skipped++
			if skipped == s.br.Size() {
				// Discard leading space before Peek would need more
				// than the buffer holds.
				if _, err := s.br.Discard(skipped); err != nil {
					return err
				}
				return s.detectAfter(int64(skipped))
			}
			continue
		}
		s.solid, s.solidAt = c != '[', int64(skipped)
		return s.setup(c, 0)
	}
}

func (s *stream) detectAfter(base int64) error {
	for {
		b, err := s.br.Peek(1)
		if len(b) == 0 {
			if err == io.EOF {
				s.form = 0 // empty body: no events
				return nil
			}
			return wire.Placed(streamOp, base, "", err)
		}
		if c := b[0]; c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			_, _ = s.br.Discard(1)
			base++
			continue
		}
		s.solid, s.solidAt = b[0] != '[', base
		return s.setup(b[0], base)
	}
}

func (s *stream) setup(first byte, base int64) error {
	var r io.Reader = &s.rest
	if s.br != nil {
		r = s.br
	}
	switch first {
	case '[', '{':
		s.frames.init(r, s.a.maxEvent, base, first == '[')
		s.form = 'j'
	default:
		s.sseDec.Init(r, s.a.sseOptions()...)
		s.sse = &s.sseDec
		s.form = 's'
	}
	return nil
}

// nextChunk returns the next chunk and its offset, as the stream's form
// reads it.
func (s *stream) nextChunk() (json.RawMessage, int64, error) {
	switch s.form {
	case 's':
		return s.nextSSE()
	case 'j':
		if s.frameOracle != nil {
			return s.frameOracle(&s.frames)
		}
		return s.frames.next()
	}
	return nil, 0, io.EOF
}

func (s *stream) nextSSE() (json.RawMessage, int64, error) {
	for {
		ev, err := s.sse.NextRaw()
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		if err != nil {
			var se *sse.Error
			if errors.As(err, &se) {
				if errors.Is(err, sse.ErrEventTooLarge) {
					return nil, 0, wire.Placed(streamOp, se.Offset, "", fmt.Errorf("%w: %v", core.ErrTooLarge, err))
				}
				return nil, 0, wire.Placed(streamOp, se.Offset, "", err)
			}
			return nil, 0, fmt.Errorf("%s: %w", streamOp, err)
		}
		// A view of the decoder's buffer, valid until the next event:
		// pull decodes it before asking for another.
		raw := ev.Data
		data := bytes.TrimSpace(raw)
		if len(data) == 0 {
			continue // keep-alive
		}
		// The offset of the data's first byte in the stream, wherever
		// its data line is in the event.
		lead := len(raw) - len(bytes.TrimLeft(raw, " \t\r\n"))
		return data, s.sse.DataOffset(lead), nil
	}
}

// emit queues an event, giving it the response id and model if it is the
// first.
func (s *stream) emit(ev core.Event) {
	if s.metaPending {
		ev.ID, ev.Model = s.id, s.model
		s.metaPending = false
	}
	s.q.Push(ev)
}

// chunk turns one GenerateContentResponse into events.
func (s *stream) chunk(w *wireResponse) error {
	if s.respID == "" {
		s.respID = w.ResponseID
	}
	if s.id == "" && s.model == "" && (w.ResponseID != "" || w.ModelVersion != "") {
		s.id, s.model, s.metaPending = w.ResponseID, w.ModelVersion, true
	}
	if w.Error != nil {
		s.abandon()
		s.emit(core.Event{Kind: core.EventError, Error: providerError(w.Error)})
		return nil
	}
	if u := w.UsageMetadata; u != nil {
		s.keep.usage, s.hasUsage = core.Usage{InputTokens: u.PromptTokenCount, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount}, true
	}
	if len(w.Candidates) == 0 {
		if w.PromptFeedback != nil && w.PromptFeedback.BlockReason != "" {
			s.finishRaw = string(w.PromptFeedback.BlockReason)
			s.sawContent = true // a block is not an empty answer
		}
		return nil
	}
	c := w.Candidates[0]
	if c.Content != nil {
		for i, p := range c.Content.Parts {
			if err := s.part(p); err != nil {
				return fmt.Errorf("candidates[0].content.parts[%d]: %w", i, err)
			}
		}
	}
	if c.FinishReason != "" {
		s.finishRaw = string(c.FinishReason)
	}
	return nil
}

func (s *stream) part(p wirePart) error {
	// A zero-valued functionCall ends the call whose partialArgs are
	// open, and outside one is an absent object.
	if fc := p.FunctionCall; fc != nil && (s.open != nil || !zeroCall(fc)) {
		return s.functionCall(fc, p.ThoughtSignature)
	}
	switch {
	case p.Text != nil && p.Thought:
		if *p.Text == "" && p.ThoughtSignature == "" {
			return nil
		}
		s.sawContent = true
		s.emit(core.Event{Kind: core.EventThinking, Text: *p.Text, Signature: p.ThoughtSignature})
	case p.Text != nil || p.ThoughtSignature != "":
		text := ""
		if p.Text != nil {
			text = *p.Text
		}
		if text == "" && p.ThoughtSignature == "" {
			return nil
		}
		if text != "" {
			s.sawContent = true
		}
		s.emit(core.Event{Kind: core.EventText, Text: text, Signature: p.ThoughtSignature})
	}
	return nil
}

func (s *stream) functionCall(fc *wireFunctionCall, sig string) error {
	if s.open != nil && fc.Name == "" {
		if err := s.open.args.apply(fc, &s.fast.strs, s.argsView(fc)); err != nil {
			return err
		}
		if !fc.WillContinue {
			s.end()
		}
		return nil
	}
	if fc.Name == "" {
		if len(fc.PartialArgs) > 0 || len(fc.Args) > 0 {
			return fmt.Errorf("%w: functionCall arguments with no call open and no name", core.ErrMalformed)
		}
		return nil // an empty functionCall outside a call carries nothing
	}
	// A named functionCall starts a call. A call still open is abandoned
	// without an end, so the Buffer reports it incomplete.
	s.abandon()
	oc := &s.cur
	*oc = openCall{id: fc.ID, name: fc.Name, sig: sig, k: s.calls, args: argTree{max: s.a.maxArgs, st: &s.argStore}}
	if oc.id == "" && s.respID != "" {
		oc.id = callID(&s.fast.strs, s.respID, fc.Name, nil, oc.k)
	}
	s.calls++
	s.sawCall, s.sawContent = true, true
	s.open = oc
	if oc.id != "" {
		s.start(oc)
	}
	if err := oc.args.apply(fc, &s.fast.strs, s.argsView(fc)); err != nil {
		return err
	}
	if !fc.WillContinue {
		s.end()
	}
	return nil
}

// argsView returns, in reuse mode, the buffer that the arguments of fc,
// when sent whole, are compacted into as a view valid until the next
// input chunk is decoded: the call ends with this part, so its end event
// is the last use of them. It returns nil otherwise: the arguments are
// then kept as strings of their own.
func (s *stream) argsView(fc *wireFunctionCall) *[]byte {
	if !s.reuse || fc.WillContinue {
		return nil
	}
	return &s.chunkArgs
}

// chunkCall returns storage for the chunks of a call's events in reuse
// mode, for the events of the input chunk being decoded.
func (s *stream) chunkCall() *callChunks {
	if s.chunkCalls == nil {
		s.chunkCalls = s.chunkCallsBuf[:]
	}
	if s.chunkUsed == len(s.chunkCalls) {
		// The events queued point into the storage taken; the rest of
		// this input chunk's calls, and those of later chunks, get new.
		s.chunkCalls, s.chunkUsed = make([]callChunks, 2*len(s.chunkCalls)), 0
	}
	s.chunkUsed++
	return &s.chunkCalls[s.chunkUsed-1]
}

// start queues the start of a call, its id made from its arguments so far
// when it has none yet.
func (s *stream) start(oc *openCall) {
	if oc.id == "" {
		oc.id = callID(&s.fast.strs, s.respID, oc.name, oc.args.scratchJSON(), oc.k)
	}
	oc.started = true
	switch {
	case s.reuse:
		oc.ev, oc.evInput = s.chunkCall(), s.inputs
	case s.usedCalls < len(s.keep.firstCalls):
		oc.ev = &s.keep.firstCalls[s.usedCalls]
	default:
		if len(s.moreCalls) == 0 {
			// Later calls' chunks come in blocks that double up to 16.
			s.moreCalls = make([]callChunks, min(s.usedCalls, 16))
		}
		oc.ev = &s.moreCalls[0]
		s.moreCalls = s.moreCalls[1:]
	}
	s.usedCalls++
	oc.ev.start = core.Chunk{ID: oc.id, Name: oc.name, Start: true, Signature: oc.sig}
	s.emit(core.Event{Kind: core.EventCallStart, Chunk: &oc.ev.start})
}

// callChunks are the chunks of one call's events, with the text of its
// arguments, in one allocation.
type callChunks struct {
	start, end core.Chunk
	args       string
}

// end queues the start, if still pending, and the end of the open call,
// whose arguments are complete.
func (s *stream) end() {
	oc := s.open
	s.open = nil
	if !oc.started {
		s.start(oc)
	}
	ev := oc.ev
	if s.reuse && oc.evInput != s.inputs {
		// The start came in an earlier input chunk, whose storage the
		// events of this one may reuse.
		ev = s.chunkCall()
	}
	if s.reuse && oc.args.pieces {
		// A view, as arguments sent whole are (argsView), copied from
		// the store's buffer so that chunkArgs grows at most once.
		n := len(s.chunkArgs)
		s.chunkArgs = append(s.chunkArgs, oc.args.scratchJSON()...)
		ev.args = unsafe.String(unsafe.SliceData(s.chunkArgs[n:]), len(s.chunkArgs)-n)
	} else {
		ev.args = oc.args.json()
	}
	s.vouched.Add(ev.args)
	ev.end = core.Chunk{ID: oc.id, Done: true, Args: &ev.args}
	s.emit(core.Event{Kind: core.EventCallEnd, Chunk: &ev.end})
}

// abandon leaves the open call, if any, without an end, queueing its start
// if it was still pending, so that the Buffer reports it incomplete.
func (s *stream) abandon() {
	if oc := s.open; oc != nil {
		s.open = nil
		if !oc.started {
			s.start(oc)
		}
	}
}

// finishStream queues the usage and finish events at the end of input. A
// call still open then is left without an end (never reported complete).
func (s *stream) finishStream() {
	s.abandon()
	if s.hasUsage {
		// The last usage, which no chunk changes after the end of input.
		s.emit(core.Event{Kind: core.EventUsage, Usage: &s.keep.usage})
	}
	if s.finishRaw != "" {
		s.emit(core.Event{Kind: core.EventFinish, Finish: NormalizeFinish(s.finishRaw, s.sawCall, s.sawContent), ProviderFinish: s.finishRaw})
	}
}

// EncodeStream writes events as a streamGenerateContent body: SSE by
// default, the one-JSON-array form with WithJSONArrayStream. Each content
// event becomes one chunk; a call becomes one functionCall part with its
// whole arguments, written at its call_end (deltas and patches are
// accumulated; a call with no end is not written, since Gemini cannot send
// a partial call without Vertex partialArgs). The finish and the usage go
// in the last chunk; every chunk carries modelVersion and usageMetadata
// (zero counts when there is no usage, the prompt's before the last), as
// every recorded chunk does. Generated call ids are not written. A plan, which Gemini has
// no place for, and an event of no known kind are refused
// (streamenc.CheckKinds) before anything is written.
func (a *Adapter) EncodeStream(w io.Writer, events []core.Event) error {
	const op = "gemini: encode stream"
	if err := streamenc.CheckKinds(op, events, false); err != nil {
		return err
	}
	var chunks []wireResponse
	var id, model string
	var calls streamenc.WholeCalls
	var usage *core.Usage
	var finish *core.Event
	addPart := func(p wirePart) {
		chunks = append(chunks, wireResponse{Candidates: []wireCandidate{{Content: &wireContent{Role: "model", Parts: []wirePart{p}}}}})
	}
	addCall := func(c streamenc.WholeCall) error {
		args, err := objectArgs(c.Args)
		if err != nil {
			return err
		}
		addPart(wirePart{FunctionCall: &wireFunctionCall{ID: wireID(c.ID), Name: c.Name, Args: args}, ThoughtSignature: c.Signature})
		return nil
	}
	errored := false
	for i, ev := range events {
		if id == "" && model == "" {
			id, model = ev.ID, ev.Model
		}
		switch ev.Kind {
		case core.EventText:
			addPart(wirePart{Text: ptr(ev.Text), ThoughtSignature: ev.Signature})
		case core.EventThinking:
			addPart(wirePart{Text: ptr(ev.Text), Thought: true, ThoughtSignature: ev.Signature})
		case core.EventPlan:
			addPart(wirePart{Text: ptr(ev.Text)})
		case core.EventCallStart, core.EventCallDelta, core.EventCallEnd:
			c, ended, cerr := calls.Add(ev)
			if cerr != nil {
				return fmt.Errorf("%s: events[%d]: %w", op, i, cerr)
			}
			if !ended {
				continue
			}
			if err := addCall(c); err != nil {
				return fmt.Errorf("%s: events[%d]: %w", op, i, err)
			}
		case core.EventUsage:
			usage = ev.Usage
		case core.EventFinish:
			// The finish ends the calls still open, as core.Collect
			// ends them, and they are written before it.
			for _, c := range calls.Finish(ev.Finish) {
				if err := addCall(c); err != nil {
					return fmt.Errorf("%s: events[%d]: %w", op, i, err)
				}
			}
			e := ev
			finish = &e
		case core.EventError:
			errored = true
			pe := ev.Error
			if pe == nil {
				pe = &core.ProviderError{Message: "error"}
			}
			chunks = append(chunks, wireResponse{Error: wireErrorFrom(pe)})
		}
	}
	if err := calls.Unended(); err != nil && !errored {
		// A call cut off (no end, no finish that ends it) cannot be
		// written whole, and the stream says nothing of its loss.
		return fmt.Errorf("%s: %w", op, err)
	}
	if usage != nil || finish != nil {
		var tail wireResponse
		if n := len(chunks); n > 0 && chunks[n-1].Error == nil && chunks[n-1].Candidates != nil {
			tail = chunks[n-1]
			chunks = chunks[:n-1]
		}
		if finish != nil {
			if len(tail.Candidates) == 0 {
				tail.Candidates = []wireCandidate{{Content: &wireContent{Role: "model", Parts: []wirePart{}}}}
			}
			tail.Candidates[0].FinishReason = finishReason(rawFinish(finish.Finish, finish.ProviderFinish))
		}
		tail.UsageMetadata = usageOf(usage)
		chunks = append(chunks, tail)
	}
	if (id != "" || model != "") && len(chunks) == 0 {
		chunks = append(chunks, wireResponse{})
	}
	// Every recorded chunk carries modelVersion and usageMetadata, whose
	// counts are cumulative: a chunk before the last has the prompt's.
	var prompt *core.Usage
	if usage != nil {
		prompt = &core.Usage{InputTokens: usage.InputTokens}
	}
	for i := range chunks {
		chunks[i].ResponseID, chunks[i].ModelVersion = id, model
		if chunks[i].Error == nil && chunks[i].UsageMetadata == nil {
			chunks[i].UsageMetadata = usageOf(prompt)
		}
	}
	if a.arrayStream {
		return writeArray(w, chunks)
	}
	enc := sse.NewEncoder(w)
	for _, c := range chunks {
		b, err := marshalBody(c)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		if err := enc.Encode(sse.Event{Data: string(b)}); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	return nil
}

func writeArray(w io.Writer, chunks []wireResponse) error {
	var buf bytes.Buffer
	buf.WriteString("[")
	for i, c := range chunks {
		if i > 0 {
			buf.WriteString(",\r\n")
		}
		b, err := marshalBody(c)
		if err != nil {
			return fmt.Errorf("gemini: encode stream: %w", err)
		}
		buf.Write(b)
	}
	buf.WriteString("]")
	_, err := w.Write(buf.Bytes())
	if err != nil {
		return fmt.Errorf("gemini: encode stream: %w", err)
	}
	return nil
}

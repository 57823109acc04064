package core

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"unsafe"
)

// StreamError is a problem Collect met at one event of a stream: the stream's
// own error, a provider error event, a malformed event, a limit, or a
// chunk the Buffer rejected or a call it could not complete.
type StreamError struct {
	// Event is the 1-based position of the event in the stream. For an
	// error from EventStream.Next, and for calls found incomplete at the
	// end, it is one past the last event received.
	Event int
	Err   error
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("collect: event %d: %v", e.Event, e.Err)
}

func (e *StreamError) Unwrap() error { return e.Err }

// maxStreamErrors is how many errors Collect keeps for the events of one
// stream (rejected chunks, malformed events, calls that failed); the others
// are counted and reported in one more error wrapping ErrTooManyErrors, so
// that memory grows with the errors kept, not with the stream. The error
// that ends a stream and the calls left incomplete are always reported.
const maxStreamErrors = 64

// ErrTooManyErrors reports the errors of a stream past the first 64,
// counted but not kept.
var ErrTooManyErrors = errors.New("too many errors")

// ErrNotStream reports input in which a stream decoder found no event of
// its protocol at all: not a stream of the protocol, rather than one cut
// off. Decoders wrap it in an error that names the byte offset of the
// first event they could not use, or byte 0. It is a kind of ErrMalformed:
// errors.Is(err, ErrMalformed) holds for it too.
var ErrNotStream error = notStream{}

// notStream is ErrNotStream, which unwraps to ErrMalformed.
type notStream struct{}

func (notStream) Error() string { return "not a stream of this protocol" }
func (notStream) Unwrap() error { return ErrMalformed }

// Collect drains s into a Response, the way a client that waits for the end
// of a stream sees it.
//
// Text, thinking (with its signatures) and plan deltas are merged into parts
// in arrival order: a delta extends the last part when it is of the same
// kind (a thinking part only until it has its signature), and starts a new
// part otherwise. Call events are fed to a Buffer built with opts
// (EventCallStart sets Chunk.Start, EventCallEnd sets Chunk.Done); each call
// becomes a tool-call part where it completes. A finish event records the
// finish reasons and, unless the reason is length, content_filter or
// error, ends every open call that has a name, as a Chat
// Completions finish_reason does; a "stop" finish that carries calls keeps
// them and keeps its reason (F01). Usage counts are merged (a later non-zero
// count replaces), and the response id and model are the first ones seen.
//
// An error from s, or an error event, ends the collection: calls already
// complete stay in the Response, calls still open go to
// Response.Incomplete, and the error is returned. An error event also sets
// Response.Error and, when no finish event came before it, Finish to
// FinishError, as a whole error body gives; a finish that came first is
// kept with its raw reason. An error from s is not the provider's and sets
// no finish.
//
// Calls still open at the end of the stream (B09–B11), and calls whose
// arguments could not be repaired, are in Response.Incomplete too (with
// their text in Original and no Arguments) and are reported in the returned
// error; they must never be run. A stream that ends without an error but
// before any finish event is reported with ErrTruncated: it was cut off, or
// it is not a stream of the protocol at all, and its text may be
// incomplete. Every problem is reported, joined, each as a *StreamError
// that names its event, up to 64 of them and a count of the rest; the
// Response is returned in every case.
//
// Collect uses two optional methods of s, which the stream decoders of
// this module have. It calls ReuseEventText() once, before the first
// Next: from then on s may reuse, at each Next, the storage of the last
// event's Text, of its Chunk and of the chunk's ArgsDelta and Args, which
// Collect has copied by then; every other string of an event must stay
// as it is. It calls VouchArgs(args) with the Args of each call chunk,
// right after Next returned it: true says that s checked that very string
// to be one JSON value in well-formed UTF-8, and the Buffer does not check
// it again. A stream that vouches for text it did not check is wrong, and
// its calls may be too. When s embeds a ResponseMemory that no Collect
// has used, Collect returns its Response there (see ResponseMemory).
//
//	resp, err := core.Collect(adapter.DecodeStream(body))
func Collect(s EventStream, opts ...BufferOption) (*Response, error) {
	b, _ := collectBuffers.Get().(*Buffer)
	if b == nil {
		b = new(Buffer)
	}
	b.lim = Limits{}.withDefaults()
	b.scratchSize = max(b.scratchSize, firstScratch)
	for _, o := range opts {
		o(b)
	}
	defer func() {
		b.reset()
		collectBuffers.Put(b)
	}()
	mem := newResponseMem(s)
	c := collector{
		mem:  mem,
		resp: &mem.resp,
		buf:  b,
		lim:  b.lim.MaxTextBytes,
		room: mem.bytes[:],
	}
	if r, ok := s.(textReuser); ok {
		r.ReuseEventText()
	}
	c.voucher, _ = s.(argsVoucher)
	for {
		ev, err := s.Next()
		c.n++
		if err == io.EOF {
			if !c.finished {
				c.failEnd(fmt.Errorf("%w: no finish event", ErrTruncated))
			}
			break
		}
		if err != nil {
			c.failEnd(err)
			break
		}
		if !c.event(&ev) {
			break
		}
	}
	c.flush()
	c.orderCalls()
	if c.omitted > 0 {
		c.errs = append(c.errs, &StreamError{Event: c.lastOmitted, Err: fmt.Errorf("%w: %d more after the first %d, the last at event %d",
			ErrTooManyErrors, c.omitted, maxStreamErrors, c.lastOmitted)})
	}
	inc, err := b.Finish()
	if err != nil {
		c.failEnd(err)
	}
	c.resp.Incomplete = inc
	for _, ce := range b.failed {
		c.resp.Incomplete = append(c.resp.Incomplete, ce.Call)
	}
	c.moveArgs()
	return c.resp, errors.Join(c.errs...)
}

// moveArgs copies the arguments of the Response's calls that lie in the
// Buffer's scratch block, which the next stream reuses, into the
// Response's own bytes when they fit, else into one allocation of their
// exact size: a stream of calls sent whole costs at most one allocation
// for all their arguments.
func (c *collector) moveArgs() {
	b := c.buf
	if len(b.scratch) == 0 {
		return
	}
	size := 0
	for _, p := range c.resp.Message.Parts {
		if p.Kind == PartToolCall && b.inScratch(p.Call.Arguments) {
			size += len(p.Call.Arguments)
		}
	}
	if size == 0 {
		return
	}
	var moved []byte
	if size <= len(c.room) {
		moved, c.room = c.room[:0:size], c.room[size:]
	} else {
		moved = make([]byte, 0, size)
	}
	for _, p := range c.resp.Message.Parts {
		if a := p.Call; p.Kind == PartToolCall && b.inScratch(a.Arguments) {
			n := len(moved)
			moved = append(moved, a.Arguments...)
			a.Arguments = moved[n:len(moved):len(moved)]
		}
	}
}

// textReuser, argsVoucher and memoryGiver are the optional methods of a
// stream that Collect uses (see Collect).
type (
	textReuser  interface{ ReuseEventText() }
	argsVoucher interface{ VouchArgs(args string) bool }
	memoryGiver interface{ giveResponseMemory() *ResponseMemory }
)

// newResponseMem returns the memory of the Response Collect returns for s:
// the memory s gives, or a new one.
func newResponseMem(s EventStream) *responseMem {
	if g, ok := s.(memoryGiver); ok {
		if m := g.giveResponseMemory(); m != nil {
			m.mem = responseMem{resp: Response{Message: Message{Role: RoleAssistant}}}
			return &m.mem
		}
	}
	return &responseMem{resp: Response{Message: Message{Role: RoleAssistant}}}
}

// ResponseMemory is the memory of one Response that Collect returns, with
// room for its first parts, calls and bytes of text and arguments. A
// stream decoder that allocates, for each stream, memory that its events
// point into, and never reuses it for another stream, may embed a
// ResponseMemory there: Collect then returns its Response in it, memory the
// Response keeps alive anyway, and a short stream costs one allocation,
// not two. Collect uses it once, the first time it collects the stream,
// and allocates the Response of any later Collect of the same stream. The
// zero value is ready to use; its contents are Collect's alone.
type ResponseMemory struct {
	mem   responseMem
	given bool
}

// giveResponseMemory returns m the first time it is called, for Collect,
// and nil after that: two Responses in one memory would overwrite each
// other. A stream has it by embedding a ResponseMemory.
func (m *ResponseMemory) giveResponseMemory() *ResponseMemory {
	if m.given {
		return nil
	}
	m.given = true
	return m
}

// collectBuffers holds the Buffers of Collect calls that have returned,
// emptied (Buffer.reset), for the next call: nothing Collect returns
// points into its Buffer (calls, their arguments and errors are copies or
// allocations of their own), so a stream costs no Buffer and, mostly, no
// routing maps of its own.
var collectBuffers sync.Pool

// responseMem is the Response Collect returns with its usage, its first
// parts and calls, the first call order Collect keeps and its first bytes
// of text and arguments, in one allocation: four parts, four calls and
// 256 bytes, so that a short response of up to four calls, or of text and
// a call or two, costs no other allocation for them.
type responseMem struct {
	resp   Response
	usage  Usage
	parts  [4]Part
	calls  [4]Call
	ncalls int
	seqs   [4]int
	bytes  [256]byte
}

type collector struct {
	mem  *responseMem
	resp *Response
	buf  *Buffer
	// voucher is the stream, when it vouches for argument text.
	voucher argsVoucher
	n       int
	text    int
	lim     int
	errs    []error
	// kept counts the errors fail kept, omitted those it only counted,
	// the last of them at event lastOmitted.
	kept, omitted, lastOmitted int
	// finished is set once a finish event arrived.
	finished bool
	// building is set while the last part is a text, thinking or plan
	// part whose text is still in sb.
	building bool
	// tb holds the text of the part being built; see write. tbInRoom
	// says that it lies at the start of room.
	tb       []byte
	tbInRoom bool
	// room is the rest of mem.bytes, which no part's text or call's
	// arguments holds yet.
	room []byte
	// callSeq holds, for each call part in order, the call's position in
	// order of first appearance.
	callSeq []int
	// more is the rest of the block the calls past the Response's own
	// (mem.calls) are copied into; mem.ncalls counts all calls.
	more []Call
}

// fail records a problem at the current event: the first maxStreamErrors
// are kept, the rest only counted.
func (c *collector) fail(err error) {
	if c.kept >= maxStreamErrors {
		c.omitted++
		c.lastOmitted = c.n
		return
	}
	c.kept++
	c.errs = append(c.errs, &StreamError{Event: c.n, Err: err})
}

// failEnd records the problem that ends the stream, which is always kept.
func (c *collector) failEnd(err error) {
	c.errs = append(c.errs, &StreamError{Event: c.n, Err: err})
}

// event takes one event and reports whether to go on.
func (c *collector) event(ev *Event) bool {
	r := c.resp
	if r.ID == "" {
		r.ID = ev.ID
	}
	if r.Model == "" {
		r.Model = ev.Model
	}
	switch ev.Kind {
	case EventText, EventThinking, EventPlan:
		c.text += len(ev.Text) + len(ev.Signature) + len(ev.Data)
		if c.text > c.lim {
			c.failEnd(fmt.Errorf("%w: text, thinking and plan deltas over %d bytes", ErrTooLarge, c.lim))
			return false
		}
		c.delta(ev)
	case EventCallStart, EventCallDelta, EventCallEnd:
		if ev.Chunk == nil {
			c.fail(fmt.Errorf("%w event: %s event without a chunk", ErrMalformed, ev.Kind))
			return true
		}
		ch := *ev.Chunk
		ch.Start = ch.Start || ev.Kind == EventCallStart
		ch.Done = ch.Done || ev.Kind == EventCallEnd
		vouched := ch.Args != nil && c.voucher != nil && c.voucher.VouchArgs(*ch.Args)
		done, err := c.buf.add(ch, vouched)
		c.calls(done)
		if err != nil {
			c.fail(err)
		}
	case EventUsage:
		if ev.Usage == nil {
			c.fail(fmt.Errorf("%w event: usage event without usage", ErrMalformed))
			return true
		}
		if r.Usage == nil {
			r.Usage = &c.mem.usage
		}
		if ev.Usage.InputTokens != 0 {
			r.Usage.InputTokens = ev.Usage.InputTokens
		}
		if ev.Usage.OutputTokens != 0 {
			r.Usage.OutputTokens = ev.Usage.OutputTokens
		}
	case EventFinish:
		c.finished = true
		r.Finish = ev.Finish
		if ev.ProviderFinish != "" {
			r.ProviderFinish = ev.ProviderFinish
		}
		switch ev.Finish {
		case FinishLength, FinishContentFilter, FinishError:
		default:
			done, err := c.buf.doneAll()
			c.calls(done)
			if err != nil {
				c.fail(err)
			}
		}
	case EventError:
		pe := ProviderError{Message: "error event without details"}
		if ev.Error != nil {
			pe = *ev.Error
		}
		r.Error = &pe
		if !c.finished {
			// The response ended in an error, as a whole error body says
			// with its finish reason; a finish that came first stands.
			r.Finish = FinishError
		}
		c.failEnd(&pe)
		return false
	default:
		c.fail(fmt.Errorf("%w event: unknown kind %q", ErrMalformed, ev.Kind))
	}
	return true
}

// calls appends the calls the Buffer just completed, each remembered with
// its order of first appearance.
func (c *collector) calls(done []Call) {
	if len(done) > 0 {
		c.flush()
	}
	seqs := c.buf.completedSeq[len(c.buf.completedSeq)-len(done):]
	for i, call := range done {
		if c.callSeq == nil {
			c.callSeq = c.mem.seqs[:0]
		}
		c.callSeq = append(c.callSeq, seqs[i])
		p := Part{Kind: PartToolCall}
		if n := c.mem.ncalls; n < len(c.mem.calls) {
			p.Call = &c.mem.calls[n]
		} else {
			// Later calls come in blocks that double up to 16 calls.
			if len(c.more) == 0 {
				c.more = make([]Call, min(n, 16))
			}
			p.Call = &c.more[0]
			c.more = c.more[1:]
		}
		*p.Call = call
		c.mem.ncalls++
		c.addPart(p)
	}
}

// addPart appends a part to the message, the first four in the Response's
// own allocation: a response of a plan, text and a call or two costs no
// allocation for its parts.
func (c *collector) addPart(p Part) {
	if c.resp.Message.Parts == nil {
		c.resp.Message.Parts = c.mem.parts[:0]
	}
	c.resp.Message.Parts = append(c.resp.Message.Parts, p)
}

// orderCalls puts the calls back in the order the provider opened them,
// keeping the places calls took among the other parts. Calls complete in
// whatever order their ends arrive (overlapping Anthropic blocks, A19;
// interleaved Chat Completions indexes, A05), but the message must list
// them as the provider did, since results are matched to calls in that
// order downstream (G05).
func (c *collector) orderCalls() {
	parts := c.resp.Message.Parts
	n := 0
	for _, p := range parts {
		if p.Kind == PartToolCall {
			n++
		}
	}
	if n != len(c.callSeq) {
		panic("core: collect lost track of its calls") // a bug here, not bad input
	}
	if slices.IsSorted(c.callSeq) {
		return // completed in the order opened, as most streams' calls are
	}
	slots := make([]int, 0, n)
	for i, p := range parts {
		if p.Kind == PartToolCall {
			slots = append(slots, i)
		}
	}
	byOpening := make([]int, len(slots))
	for i := range byOpening {
		byOpening[i] = i
	}
	slices.SortStableFunc(byOpening, func(a, b int) int { return c.callSeq[a] - c.callSeq[b] })
	calls := make([]Part, len(slots))
	for i, k := range byOpening {
		calls[i] = parts[slots[k]]
	}
	for i, slot := range slots {
		parts[slot] = calls[i]
	}
}

// delta merges a text, thinking or plan delta into the message parts. The
// text of the part being built grows in a strings.Builder, so that many
// small deltas cost amortised appends, not one new string each.
func (c *collector) delta(ev *Event) {
	var kind PartKind
	switch ev.Kind {
	case EventText:
		kind = PartText
	case EventThinking:
		kind = PartThinking
	default:
		kind = PartPlan
	}
	parts := c.resp.Message.Parts
	if c.building && continues(&parts[len(parts)-1], kind, ev) {
		last := &parts[len(parts)-1]
		c.write(ev.Text)
		if ev.Signature != "" {
			last.Signature = ev.Signature
		}
		if ev.ItemID != "" {
			last.ItemID = ev.ItemID
		}
		return
	}
	if ev.Text == "" && ev.Signature == "" && ev.Data == "" {
		return
	}
	c.flush()
	c.addPart(Part{Kind: kind, Signature: ev.Signature, Data: ev.Data, ItemID: ev.ItemID})
	c.write(ev.Text)
	c.building = true
}

// write appends s to the text of the part being built. The text starts
// in the Response's own bytes (room) when it fits there; past that the
// buffer doubles when it must grow, as a strings.Builder does, but never
// beyond the text limit unless s needs it, so that a response whose text
// reaches the limit holds about the limit, not twice it.
func (c *collector) write(s string) {
	if need := len(c.tb) + len(s); need > cap(c.tb) {
		if c.tb == nil && need <= len(c.room) {
			c.tb, c.tbInRoom = c.room[:0:len(c.room)], true
		} else {
			grown := make([]byte, len(c.tb), max(min(2*cap(c.tb), c.lim), need, 64))
			copy(grown, c.tb)
			c.tb, c.tbInRoom = grown, false
		}
	}
	c.tb = append(c.tb, s...)
}

// continues reports whether a delta event extends the part being built: the
// same kind, a thinking part still without its signature, no opaque data on
// either side (redacted thinking stands alone), and no other item id.
func continues(last *Part, kind PartKind, ev *Event) bool {
	return last.Kind == kind &&
		(kind != PartThinking || last.Signature == "") &&
		last.Data == "" && ev.Data == "" &&
		(ev.ItemID == "" || last.ItemID == "" || ev.ItemID == last.ItemID)
}

// flush stores the text of the part being built.
func (c *collector) flush() {
	if !c.building {
		return
	}
	parts := c.resp.Message.Parts
	// The part takes tb's bytes without a copy; tb is dropped, never
	// written again.
	parts[len(parts)-1].Text = unsafe.String(unsafe.SliceData(c.tb), len(c.tb))
	if c.tbInRoom {
		c.room = c.room[len(c.tb):]
	}
	c.tb, c.tbInRoom = nil, false
	c.building = false
}

// SliceStream returns an EventStream that yields events in order, then
// io.EOF.
func SliceStream(events []Event) EventStream {
	return &sliceStream{events: events}
}

type sliceStream struct {
	events []Event
	i      int
}

func (s *sliceStream) Next() (Event, error) {
	if s.i >= len(s.events) {
		return Event{}, io.EOF
	}
	s.i++
	return s.events[s.i-1], nil
}

package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// liveEncoder is a front adapter that writes a stream's events as they
// arrive (the adapters of Chat Completions, Mistral and Anthropic).
type liveEncoder interface {
	EncodeLiveStream(w io.Writer, events core.EventStream) error
}

// live translates a stream event by event: the upstream's events pass
// through translation (see translation) to the front's live encoder,
// and each write reaches the client at once.
func (p *Proxy) live(enc liveEncoder, w http.ResponseWriter, body io.Reader) (int, error) {
	w.Header().Set("Content-Type", p.frontEP.StreamContentType)
	w.WriteHeader(http.StatusOK)
	fw := &flushWriter{w: w, rc: http.NewResponseController(w)}
	fw.rc.Flush()
	t := &translation{p: p, up: p.upstream.DecodeStream(body), buf: core.NewBuffer(), serial: p.frontEP.BlockIndexes}
	if err := enc.EncodeLiveStream(fw, t); err != nil {
		return http.StatusOK, fmt.Errorf("encode %s stream: %w", p.opts.Front, err)
	}
	t.remember()
	return http.StatusOK, t.lostErr
}

// flushWriter sends each write to the client at once.
type flushWriter struct {
	w  io.Writer
	rc *http.ResponseController
}

func (f *flushWriter) Write(b []byte) (int, error) {
	n, err := f.w.Write(b)
	if err == nil {
		err = f.rc.Flush()
	}
	return n, err
}

// translation is the event stream a live front encoder writes: the
// upstream's events, normalised one by one as normalise does a whole
// response, and checked as core.Collect would: call chunks go through a
// core.Buffer, so that a call the upstream lost (arguments cut or
// invalid, a chunk past a limit or in conflict) or a stream that fails
// or is cut ends the stream with an error event, never with a clean
// finish. It holds what it must: the calls' arguments until they
// complete (in the Buffer, within core's limits) and the thinking before
// the first call, for the follow-up (G12); text passes through.
type translation struct {
	p             *Proxy
	up            core.EventStream
	buf           *core.Buffer
	queue         []core.Event // events to hand out before reading on
	open          []*openCall  // the calls started and not ended
	ordinal       int          // calls started
	written       int          // calls whose start the front has been given
	calls         int          // calls completed
	think         []core.Event // thinking before the first call
	started       bool         // a call has started
	finished      bool         // the finish has come
	finishWritten bool         // and has been queued
	pending       core.Event   // the finish, held until the stream ends
	ended         bool         // the stream has ended (EOF next)
	lostErr       error        // why the stream ended in the proxy's error
	serial        bool         // the front writes one block at a time, numbered among its blocks
	cur           string       // in serial, the id of the call whose block is open
	held          []core.Event // in serial, the events that wait for that block to end
	heldBytes     int
}

// Next returns the next translated event.
func (t *translation) Next() (core.Event, error) {
	for len(t.queue) == 0 {
		if t.ended {
			return core.Event{}, io.EOF
		}
		t.step()
	}
	e := t.queue[0]
	if t.queue = t.queue[1:]; len(t.queue) == 0 {
		t.queue = nil
	}
	return e, nil
}

// fail ends the stream with the proxy's error event. Calls that arrived
// whole get a tool_calls finish before it, when no finish was written,
// as normalise gives them (F01): a Chat Completions client closes its
// calls at the finish, and then reads the error.
func (t *translation) fail(err error) {
	t.lostErr = err
	if t.calls > 0 && !t.finishWritten {
		t.queue = append(t.queue, core.Event{Kind: core.EventFinish, Finish: core.FinishToolCalls})
	}
	t.queue = append(t.queue, core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: "proxy_error", Message: err.Error()}})
	t.ended = true
}

// step reads one upstream event and queues what it becomes.
func (t *translation) step() {
	e, err := t.up.Next()
	switch {
	case errors.Is(err, io.EOF) && t.finished:
		t.end()
		return
	case errors.Is(err, io.EOF):
		t.fail(fmt.Errorf("upstream %s stream: %w: it ended before its finish", t.p.opts.Upstream, core.ErrTruncated))
		return
	case err != nil:
		t.fail(fmt.Errorf("upstream %s stream: %w", t.p.opts.Upstream, err))
		return
	}
	switch e.Kind {
	case core.EventPlan:
		if !t.p.frontPlans {
			return // G16: a plan is not answer text
		}
	case core.EventThinking:
		if !t.started {
			t.think = append(t.think, e)
		}
	case core.EventCallStart, core.EventCallDelta, core.EventCallEnd:
		if e.Chunk == nil {
			t.fail(fmt.Errorf("upstream %s stream: %w: %s event without a chunk", t.p.opts.Upstream, core.ErrMalformed, e.Kind))
			return
		}
		t.call(&e)
		return
	case core.EventFinish:
		t.finish(e)
		return
	case core.EventError:
		// The upstream's error ends the stream; calls that arrived whole
		// get their finish before it (see fail).
		if t.calls > 0 {
			t.queue = append(t.queue, core.Event{Kind: core.EventFinish, Finish: core.FinishToolCalls})
		}
		t.queue = append(t.queue, e)
		t.ended = true
		return
	}
	t.emit(e)
}

// maxHeld bounds the text and argument bytes a serial front's translation
// holds while one call's block is open.
const maxHeld = 32 << 20

// emit queues a translated event. A front that writes one block at a time
// (serial) gets a call's block whole before any other: while a call's
// block is open, the events of other calls and text wait, and follow in
// order once it ends.
func (t *translation) emit(e core.Event) {
	if !t.serial {
		t.queue = append(t.queue, e)
		return
	}
	call := e.Kind == core.EventCallStart || e.Kind == core.EventCallDelta || e.Kind == core.EventCallEnd
	switch {
	case t.cur == "" && len(t.held) == 0 || t.cur != "" && call && e.Chunk.ID == t.cur:
	case e.Kind == core.EventUsage && t.cur == "" && len(t.held) == 0:
	default:
		t.held = append(t.held, e)
		t.heldBytes += len(e.Text)
		if call {
			t.heldBytes += len(e.Chunk.ArgsDelta)
		}
		if t.heldBytes > maxHeld {
			t.fail(fmt.Errorf("the %s front writes one block at a time: more than %d bytes of other blocks waited for call %s to end", t.p.opts.Front, maxHeld, t.cur))
		}
		return
	}
	t.queue = append(t.queue, e)
	switch {
	case call && e.Kind == core.EventCallStart:
		t.cur = e.Chunk.ID
	case call && e.Kind == core.EventCallEnd:
		t.cur = ""
		held := t.held
		t.held, t.heldBytes = nil, 0
		for _, h := range held {
			t.emit(h)
		}
	}
}

// closeBlocks ends, in a serial front, the block of a call the finish
// cut (its text is incomplete, and its client reads it so) and every call
// that waits behind it, so that the finish comes after every block.
func (t *translation) closeBlocks() {
	for t.serial && (t.cur != "" || len(t.held) > 0) {
		if t.cur != "" {
			t.emit(core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: t.cur, Done: true}})
			continue
		}
		held := t.held
		t.held, t.heldBytes = nil, 0
		for _, h := range held {
			t.emit(h)
		}
	}
}

// openCall is a call started and not ended: how the upstream's chunks
// route to it, and the id and index the front's chunks give it.
type openCall struct {
	route  core.Chunk // ID, ItemID, Turn, Index, HasIndex as the upstream sent them
	id     string
	index  int    // the call's position among the calls, as the front numbers them
	named  bool   // a chunk with the call's name has been passed on
	held   string // argument text that came before the name
	deltas bool   // argument text has been passed on
}

// call checks a call event with the Buffer and emits what it becomes for
// the front: routed by the call's id and its position
// among the calls (providers.ResponseEvents numbers calls so for a front
// whose stream numbers them among the calls), with the id Collect would
// give a call the upstream sent without one. A chunk the Buffer rejects
// loses its call and ends the stream in an error.
func (t *translation) call(e *core.Event) {
	c := *e.Chunk
	c.Start = c.Start || e.Kind == core.EventCallStart
	c.Done = c.Done || e.Kind == core.EventCallEnd
	// A chunk opens a call when it routes to no open one; a start that
	// routes to an open call adds to it (its name, after its first
	// arguments, A09), as the Buffer takes it.
	oc := t.route(&c)
	if oc == nil {
		oc = t.begin(&c)
		if c.ID == "" {
			c.ID = oc.id
		}
	}
	done, err := t.buf.Add(c)
	if err != nil {
		t.fail(fmt.Errorf("upstream %s stream: a call is lost: %w", t.p.opts.Upstream, err))
		return
	}
	t.calls += len(done)
	if c.Done {
		t.open = slices.DeleteFunc(t.open, func(o *openCall) bool { return o == oc })
	}
	// The argument text to write: the deltas, or the whole arguments of
	// a call that sent no deltas (an end's whole copy of text already
	// written is the Buffer's to check, not the client's to read twice).
	text := e.Chunk.ArgsDelta
	if a := e.Chunk.Args; a != nil && !oc.deltas && text == "" {
		text = *a
	}
	if !oc.named && e.Chunk.Name == "" {
		// A client of the front needs the name in the call's first chunk
		// (A09): its text waits for the name. A call that never gets one
		// stays open and ends the stream in an error at the finish.
		oc.held += text
		return
	}
	text, oc.held = oc.held+text, ""
	// The chunk becomes the front's events: the call's start once, its
	// text as a delta, its end; routed by the call's id and, for a front
	// that numbers calls among the calls, its position.
	if !oc.named {
		// Numbered when the front first sees it, so that a call that
		// never gets its name leaves no gap (A21).
		oc.index = t.written
		t.written++
	}
	route := core.Chunk{ID: oc.id, ItemID: e.Chunk.ItemID, Index: oc.index, HasIndex: !t.serial}
	sig := e.Chunk.Signature
	if !oc.named {
		oc.named = true
		st := route
		st.Start, st.Name, st.Signature, sig = true, e.Chunk.Name, sig, ""
		t.emit(core.Event{Kind: core.EventCallStart, ID: e.ID, Model: e.Model, Chunk: &st})
	}
	if text != "" || sig != "" {
		d := route
		d.ArgsDelta, d.Signature, sig = text, sig, ""
		oc.deltas = oc.deltas || text != ""
		t.emit(core.Event{Kind: core.EventCallDelta, Chunk: &d})
	}
	if c.Done {
		end := route
		end.Done = true
		t.emit(core.Event{Kind: core.EventCallEnd, Chunk: &end})
	}
}

// begin opens a call for chunk c.
func (t *translation) begin(c *core.Chunk) *openCall {
	t.started = true
	id := c.ID
	if id == "" {
		n := t.ordinal
		if c.HasIndex {
			n = c.Index
		}
		id = "tool_" + strconv.Itoa(c.Turn) + "_" + strconv.Itoa(n)
	}
	oc := &openCall{route: core.Chunk{ID: c.ID, ItemID: c.ItemID, Turn: c.Turn, Index: c.Index, HasIndex: c.HasIndex}, id: id}
	t.ordinal++
	t.open = append(t.open, oc)
	return oc
}

// route returns the open call chunk c names, by id, item id or index as
// the Buffer routes it, else the latest; nil when none is open.
func (t *translation) route(c *core.Chunk) *openCall {
	for i := len(t.open) - 1; i >= 0; i-- {
		o := t.open[i]
		switch {
		case c.ID != "" && o.route.ID != "":
			if o.route.ID == c.ID {
				return o
			}
		case c.ItemID != "" && o.route.ItemID != "":
			if o.route.ItemID == c.ItemID {
				return o
			}
		case c.HasIndex && o.route.HasIndex:
			if o.route.Index == c.Index && o.route.Turn == c.Turn {
				return o
			}
		case !c.HasIndex && c.ID == "" && c.ItemID == "":
			return o
		}
	}
	return nil
}

// finish ends the calls still open as Collect does at a finish (a length,
// content_filter or error finish leaves the calls it cut open) and holds
// the finish until the upstream stream ends: a later turn of the same
// stream (a Responses stream of several responses) may add calls, and
// the front's one finish must come after them, as Collect gives one
// finish for the whole stream.
func (t *translation) finish(e core.Event) {
	t.finished = true
	raw := t.pending.ProviderFinish
	t.pending = e
	if e.ProviderFinish == "" {
		t.pending.ProviderFinish = raw
	}
	switch e.Finish {
	case core.FinishLength, core.FinishContentFilter, core.FinishError:
		return
	}
	for _, o := range t.open {
		if !o.named {
			continue // a call without a name stays open (Collect's rule)
		}
		end := o.route
		end.Done = true
		done, err := t.buf.Add(end)
		if err != nil {
			t.fail(fmt.Errorf("upstream %s stream: a call is lost: %w", t.p.opts.Upstream, err))
			return
		}
		t.calls += len(done)
		t.emit(core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: o.id, Index: o.index, HasIndex: !t.serial, Done: true}})
	}
	t.open = slices.DeleteFunc(t.open, func(o *openCall) bool { return o.named })
}

// end writes the held finish once the upstream stream has ended,
// normalised as normalise does a whole response's; calls still open
// that the finish does not say were cut (B11) end the stream in an error
// instead.
func (t *translation) end() {
	t.ended = true
	e := t.pending
	if inc, err := t.buf.Finish(); len(inc) > 0 && !cutByFinish(e.Finish, err) {
		t.fail(fmt.Errorf("%s", lostCalls(t.p.opts.Upstream, inc, err)))
		return
	}
	t.closeBlocks()
	raw := e.ProviderFinish
	e.ProviderFinish = ""
	switch {
	case t.calls > 0 && !slices.Contains([]core.FinishReason{core.FinishToolCalls, core.FinishLength, core.FinishContentFilter, core.FinishError}, e.Finish):
		t.p.logf("finish %q (%s) with %d call(s) sent as tool_calls (F01)", e.Finish, raw, t.calls)
		e.Finish = core.FinishToolCalls
	case t.calls == 0 && e.Finish == core.FinishToolCalls:
		t.p.logf("finish tool_calls without a call sent as stop (F03)")
		e.Finish = core.FinishStop
	}
	if e.Finish == core.FinishError {
		// F04: the error ends the stream, as the front says a failed turn.
		t.queue = append(t.queue, core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: "upstream_error", Message: fmt.Sprintf("the upstream ended the turn with %q", raw)}})
		return
	}
	t.queue = append(t.queue, e)
	t.finishWritten = true
}

// remember keeps for the follow-up what normalise keeps of a whole
// response: the calls' signatures, the thinking before the first call,
// and the ids the front's wire rewrote.
func (t *translation) remember() {
	calls := t.buf.Calls()
	if len(calls) == 0 {
		return
	}
	resp := &core.Response{Finish: core.FinishToolCalls}
	if len(t.think) > 0 {
		th, _ := core.Collect(core.SliceStream(append(t.think, core.Event{Kind: core.EventFinish, Finish: core.FinishStop})))
		resp.Message.Parts = th.Message.Parts
	}
	for _, c := range calls {
		if c.Repaired {
			t.p.logf("call %s %s: arguments %q repaired to %s (C09)", c.ID, c.Name, c.Original, c.Arguments)
		}
		resp.Message.Parts = append(resp.Message.Parts, core.CallPart(c))
	}
	t.p.remember(resp)
	var b bytes.Buffer
	if t.p.front.EncodeStream(&b, providers.ResponseEvents(t.p.opts.Front, resp)) == nil {
		t.p.rememberWireIDs(resp, b.Bytes(), true)
	}
}

package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/toolconform/conform/core/internal/jsonvalid"
	"github.com/toolconform/conform/core/repair"
)

// The sentinel errors of Buffer, besides the limits in limits.go.
var (
	// ErrAfterDone reports a chunk that adds to a call that is already
	// complete (or failed) and is neither an empty trailer (B03) nor an
	// identical final copy of its arguments (B02).
	ErrAfterDone = errors.New("chunk adds to a completed tool call")
	// ErrConflict reports a chunk that contradicts its call: another name
	// (A10) or another id for the same call, or a provider id equal to one
	// the buffer generated for an earlier call.
	ErrConflict = errors.New("chunk contradicts its tool call")
	// ErrInvalidPatch reports a patch value that is not valid JSON, or a
	// patch applied to arguments that are not a JSON object.
	ErrInvalidPatch = errors.New("invalid tool call argument patch")
	// errFinalDiffers reports a chunk whose whole arguments (Args) differ
	// from the argument deltas its call streamed before it: the pieces and
	// the whole of one call disagree, so neither can be trusted, and the
	// call is lost. Callers branch on ErrConflict, which it wraps.
	errFinalDiffers = fmt.Errorf("%w: final arguments differ from the streamed deltas", ErrConflict)
	// errFinished reports a chunk added after Finish.
	errFinished = errors.New("buffer is finished")
	// ErrIncomplete reports calls still open when the stream ended; the
	// error of Buffer.Finish wraps it.
	ErrIncomplete = errors.New("tool calls incomplete")
)

// ChunkError is a chunk that Buffer.Add rejected. A rejected chunk leaves
// the buffer as it was.
type ChunkError struct {
	// Chunk is the 1-based position of the chunk among those added.
	Chunk int
	// Route names the call the chunk was routed to, such as `id "call_1"`
	// or `index 2 of turn 0`.
	Route string
	// Detail says more than the sentinel, such as the sizes involved.
	Detail string
	Err    error
}

func (e *ChunkError) Error() string {
	s := fmt.Sprintf("buffer add chunk %d (%s): %v", e.Chunk, e.Route, e.Err)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func (e *ChunkError) Unwrap() error { return e.Err }

// CallError is a call that ended (on Done) with arguments that are neither
// valid JSON nor repairable. Call holds its id and name and, in Original, the
// argument text as received; Arguments is nil. The call is never returned as
// complete; other calls are not affected.
type CallError struct {
	Call Call
	Err  error
}

func (e *CallError) Error() string {
	return fmt.Sprintf("buffer complete call %q (%s): %v", e.Call.ID, e.Call.Name, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

// incompleteError lists the calls still open when Buffer.Finish ended the
// stream (B09–B11), and the calls that lost a chunk. Each holds its id and
// name and, in Original, the argument text received so far (up to the lost
// chunk); Arguments is nil. They must never be run.
type incompleteError struct {
	Calls []Call
	// Lost holds, for each call of Calls, why it lost bytes: nil for a
	// call the end of the stream cut off, a *lostError otherwise. It is
	// nil when no call was lost.
	Lost []*lostError
	// Refused counts the chunks refused because they would have opened a
	// call past the limit of MaxCalls calls: their calls are lost, and
	// counted rather than kept.
	Refused, MaxCalls int
}

func (e *incompleteError) Error() string {
	var b strings.Builder
	if len(e.Calls) == 0 {
		fmt.Fprintf(&b, "buffer finish: %v: %d chunks of calls past the limit of %d refused, their calls lost", ErrTooManyCalls, e.Refused, e.MaxCalls)
		return b.String()
	}
	fmt.Fprintf(&b, "buffer finish: %d tool call", len(e.Calls))
	if len(e.Calls) != 1 {
		b.WriteString("s")
	}
	b.WriteString(" incomplete:")
	for i, c := range e.Calls {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s (%s) after %d bytes of arguments", short(c.ID), c.Name, len(c.Original))
		if i < len(e.Lost) && e.Lost[i] != nil {
			fmt.Fprintf(&b, " (%v)", e.Lost[i])
		}
	}
	if e.Refused > 0 {
		fmt.Fprintf(&b, "; and %d chunks of calls past the limit of %d refused, their calls lost", e.Refused, e.MaxCalls)
	}
	return b.String()
}

// Unwrap returns ErrIncomplete, ErrTooManyCalls when chunks were refused
// past the call limit, and the *lostError of each lost call.
func (e *incompleteError) Unwrap() []error {
	errs := []error{ErrIncomplete}
	if e.Refused > 0 {
		errs = append(errs, ErrTooManyCalls)
	}
	for _, l := range e.Lost {
		if l != nil {
			errs = append(errs, l)
		}
	}
	return errs
}

// ErrLostChunk is wrapped by the error of Buffer.Finish for a call one of
// whose chunks Add rejected, which can therefore never be complete.
var ErrLostChunk = errors.New("tool call lost a chunk")

// lostError says why a call is incomplete although its stream may have
// gone on: Add rejected one of its chunks (Chunk, wrapping the reason:
// ErrArgumentsTooLarge, ErrConflict, …) and dropped the Dropped chunks
// routed to it afterwards.
type lostError struct {
	Chunk   *ChunkError
	Dropped int
}

func (e *lostError) Error() string {
	return fmt.Sprintf("%v: chunk %d rejected: %v; %d later chunks dropped", ErrLostChunk, e.Chunk.Chunk, e.Chunk.Err, e.Dropped)
}

// Unwrap returns ErrLostChunk and the rejected chunk's error.
func (e *lostError) Unwrap() []error { return []error{ErrLostChunk, e.Chunk} }

// BufferOption configures a Buffer.
type BufferOption func(*Buffer)

// WithLimits sets the buffer's limits; zero fields keep their defaults.
func WithLimits(l Limits) BufferOption {
	return func(b *Buffer) { b.lim = l.withDefaults() }
}

// WithCumulativeArgs declares that the provider resends the cumulative
// argument text in every delta (B01): a delta that begins with all the text
// accumulated so far replaces it instead of being appended. It is off by
// default because the same test corrupts ordinary incremental streams whose
// delta happens to repeat the text before it.
func WithCumulativeArgs() BufferOption {
	return func(b *Buffer) { b.cumulative = true }
}

// turnIndex is the (turn, index) routing key.
type turnIndex struct{ turn, index int }

// callState is one call being accumulated, or one that has ended (done),
// kept so that late chunks routed to it can be recognised.
type callState struct {
	seq      int
	openAt   int // the call's slot in Buffer.open, or -1 once ended
	turn     int
	index    int
	hasIndex bool
	ordinal  int // position among the calls of its turn
	id       string
	itemID   string
	name     string
	sig      string
	args     []byte
	// full holds the blocks of argument text before args, for a call
	// whose text has outgrown argBlock; fullLen is their length.
	full     [][]byte
	fullLen  int
	patch    map[string]json.RawMessage
	patchLen int
	doneSeen bool // Done arrived, possibly before the name
	fromArgs bool // the text was set whole by Args, not by deltas
	vouched  bool // the text is Args its stream vouched for (Buffer.add)
	done     bool // ended: completed, failed or left incomplete
	looksCum bool // a delta repeated all the text before it (B01 hint)
	// genID is the id the buffer generated for a call without a provider
	// id, set when the call ends.
	genID string
	// text and final are the argument text as received and the
	// arguments as returned, kept once the call has completed.
	text  string
	final json.RawMessage
	// lost is the first chunk of this call that Add rejected: the call
	// can then only end incomplete, and dropped counts the chunks routed
	// to it after that.
	lost    *ChunkError
	dropped int
	// shadowed is set when a call routed by neither id nor index could not
	// open after this one (too many calls): chunks routed to this call
	// that way belong to that lost call and are dropped.
	shadowed bool
}

// NewBuffer returns an empty Buffer with default limits unless an option
// says otherwise.
func NewBuffer(opts ...BufferOption) *Buffer {
	b := &Buffer{lim: Limits{}.withDefaults()}
	for _, o := range opts {
		o(b)
	}
	return b
}

// put sets (*m)[k] = v, making the map on its first entry: a Buffer makes
// only the maps its stream's chunks need, none for a stream without calls.
func put[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = make(map[K]V)
	}
	(*m)[k] = v
}

// reset empties b as the zero Buffer, but for its routing maps, which it
// keeps cleared when they are small, for Collect to reuse b: a lookup in
// an empty map and in none give the same. It keeps the spare blocks of
// argument text too, when the stream used blocks: a Buffer whose streams
// stop sending long calls drops them at the next stream, rather than
// holding up to 4 MiB for streams that never use it.
func (b *Buffer) reset() {
	spare := b.spare
	if !b.blocksUsed {
		spare = nil
	}
	scratch, size := b.withScratch()
	*b = Buffer{byID: cleared(b.byID), byItem: cleared(b.byItem), byIndex: cleared(b.byIndex), perTurn: cleared(b.perTurn), genIDs: cleared(b.genIDs), spare: spare,
		scratch: scratch, scratchSize: size}
}

// maxKeptEntries is the most entries a map reset keeps may have held, so
// that one stream of many calls does not leave a large map to every later
// one.
const maxKeptEntries = 64

// cleared returns m emptied, or nil when m held more than maxKeptEntries.
func cleared[K comparable, V any](m map[K]V) map[K]V {
	if len(m) > maxKeptEntries {
		return nil
	}
	clear(m)
	return m
}

// Calls returns the calls completed so far, in the order they completed.
func (b *Buffer) Calls() []Call { return append([]Call(nil), b.completed...) }

// Add feeds one chunk to the buffer and returns the calls this chunk
// completed: none, or the one call it routes to when that call has both its
// Done and its name. A chunk never completes another call.
//
// A *ChunkError means the chunk was rejected (a limit, a conflict, a chunk
// after Done or after Finish): nothing of it is kept, and the open call it
// routes to, or would have opened, is lost: it never completes, later
// chunks routed to it are dropped (counted), and Finish reports it
// incomplete with the rejection. A *CallError means the chunk was taken but
// ended a call whose arguments could not be repaired; that call never
// completes (the *CallError holds it), and the other calls go on.
func (b *Buffer) Add(c Chunk) ([]Call, error) { return b.add(c, false) }

// add is Add; vouched says that c.Args is text its stream checked to be
// one JSON value in well-formed UTF-8 (see Collect), which the call then
// need not check again unless a delta replaces it.
func (b *Buffer) add(c Chunk, vouched bool) ([]Call, error) {
	b.nchunks++
	if b.finished {
		return nil, b.chunkErr(&c, errFinished, "")
	}
	cs, displaced := b.route(&c)
	if cs != nil && (cs.lost != nil || (cs.shadowed && byLatest(&c))) {
		if cs.lost != nil {
			cs.dropped++
		}
		b.dropped++
		return nil, nil
	}
	if cs != nil && cs.done {
		return nil, b.afterDone(cs, &c)
	}
	if err := b.check(cs, &c); err != nil {
		b.lose(cs, displaced, &c, err)
		return nil, err
	}
	if cs == nil && empty(&c) {
		// A chunk of zero values (a zero-valued tool call entry beside
		// real ones, or in a text answer) routed to no call opens none:
		// a zero-valued object is an absent one, never a call.
		return nil, nil
	}

	// The chunk is accepted: from here on the buffer changes.
	if displaced != nil {
		b.displace(displaced)
	}
	if cs == nil {
		cs = b.newCall(&c)
	}
	kept := c.Args != nil && cs.streamed()
	b.apply(cs, &c)
	switch {
	case kept:
		cs.vouched = false
	case c.Args != nil:
		cs.vouched = vouched
	case c.ArgsDelta != "":
		cs.vouched = false
	}
	if cs.doneSeen && cs.name != "" {
		if _, err := b.complete(cs); err != nil {
			return nil, err
		}
		// The call just completed, as a view of the completed list that
		// nothing writes again, capped so that an append copies it.
		n := len(b.completed)
		return b.completed[n-1 : n : n], nil
	}
	return nil, nil
}

// check returns the error of a chunk that must be rejected, routed to the
// open call cs (nil for a new call), or nil.
func (b *Buffer) check(cs *callState, c *Chunk) *ChunkError {
	if c.HasIndex && (c.Index < singleCallIndex || c.Index > b.lim.MaxIndex) {
		return b.chunkErr(c, ErrIndexOutOfRange, fmt.Sprintf("index %d, allowed 0 to %d, or %d for a lone call", c.Index, b.lim.MaxIndex, singleCallIndex))
	}
	if c.Args != nil && c.ArgsDelta != "" {
		return b.chunkErr(c, ErrConflict, "both Args and ArgsDelta are set")
	}
	for k, v := range c.Patch {
		if !jsonvalid.Valid(v) {
			return b.chunkErr(c, ErrInvalidPatch, fmt.Sprintf("value of key %s is not valid JSON", short(k)))
		}
	}
	if c.ID != "" && b.genIDs[c.ID] && (cs == nil || cs.id == "") {
		return b.chunkErr(c, ErrConflict, fmt.Sprintf("id %s was generated for an earlier call that had none; a provider id may not repeat it", short(c.ID)))
	}
	if cs == nil && len(b.calls) >= b.lim.MaxCalls {
		return b.chunkErr(c, ErrTooManyCalls, fmt.Sprintf("limit %d", b.lim.MaxCalls))
	}
	if cs != nil {
		if c.Name != "" && cs.name != "" && c.Name != cs.name {
			return b.chunkErr(c, ErrConflict, fmt.Sprintf("name %s, the call is named %s", short(c.Name), short(cs.name)))
		}
		if c.ID != "" && cs.id != "" && c.ID != cs.id {
			return b.chunkErr(c, ErrConflict, fmt.Sprintf("id %s, the call has id %s", short(c.ID), short(cs.id)))
		}
		if c.ItemID != "" && cs.itemID != "" && c.ItemID != cs.itemID {
			return b.chunkErr(c, ErrConflict, fmt.Sprintf("item id %s, the call has item id %s", short(c.ItemID), short(cs.itemID)))
		}
	}
	if cs != nil && c.Args != nil && cs.streamed() {
		if streamed := b.argText(cs); !argumentsAgree(streamed, []byte(*c.Args)) {
			return b.chunkErr(c, errFinalDiffers, fmt.Sprintf("final %s, streamed %s", short(*c.Args), short(string(streamed))))
		}
	}
	argLen, curPatch := 0, 0
	var curPatchMap map[string]json.RawMessage
	if cs != nil {
		argLen, curPatch, curPatchMap = cs.argLen(), cs.patchLen, cs.patch
	}
	switch {
	case c.Args != nil:
		argLen = len(*c.Args)
	case c.ArgsDelta != "":
		if b.restarts(cs, c.ArgsDelta) {
			argLen = len(c.ArgsDelta)
		} else {
			argLen += len(c.ArgsDelta)
		}
	}
	patchLen := curPatch
	for k, v := range c.Patch {
		if old, ok := curPatchMap[k]; ok {
			patchLen -= len(k) + len(old)
		}
		patchLen += len(k) + len(v)
	}
	if argLen+patchLen > b.lim.MaxArgBytes {
		return b.chunkErr(c, ErrArgumentsTooLarge, fmt.Sprintf("%d bytes, limit %d", argLen+patchLen, b.lim.MaxArgBytes))
	}
	return nil
}

// lose records that the call a rejected chunk routes to lost that chunk:
// the open call cs, or, when the chunk would have opened a call, a new call
// opened lost, so that the rest of that call is recognised and dropped too.
// No call is opened when the call limit is reached, when the chunk's id
// clashes with a generated one, or when it has no route but an index out of
// range: every later chunk of such a call is refused the same way. A call
// routed by neither id nor index that could not open (too many calls)
// shadows the turn's latest open call instead: later chunks routed to it
// that way are the lost call's and are dropped.
func (b *Buffer) lose(cs, displaced *callState, c *Chunk, err *ChunkError) {
	if cs != nil {
		cs.lost = err
		return
	}
	validIndex := c.HasIndex && c.Index >= singleCallIndex && c.Index <= b.lim.MaxIndex
	switch {
	case errors.Is(err, ErrTooManyCalls):
		if x := b.latestOpen(c.Turn); x != nil && byLatest(c) {
			x.shadowed = true
		}
		b.refused++
		return
	case c.ID != "" && b.genIDs[c.ID]:
		return
	case c.HasIndex && !validIndex && c.ID == "" && c.ItemID == "":
		return
	case len(b.calls) >= b.lim.MaxCalls:
		// A call that would open lost past the call limit is counted,
		// not kept: its later chunks are refused again, each counted.
		b.refused++
		return
	}
	if displaced != nil && validIndex {
		b.displace(displaced)
	}
	cs = b.newCall(c)
	cs.lost = err
	cs.name = c.Name
	cs.id, cs.itemID = c.ID, c.ItemID
	if c.ID != "" {
		put(&b.byID, c.ID, cs)
	}
	if c.ItemID != "" {
		put(&b.byItem, c.ItemID, cs)
	}
	if validIndex {
		key := turnIndex{c.Turn, c.Index}
		if x := b.byIndex[key]; x == nil || x.done {
			cs.hasIndex, cs.index = true, c.Index
			put(&b.byIndex, key, cs)
		}
	}
}

// empty reports whether a chunk carries nothing but its routing by turn
// and index: no id, name, argument text, patch, signature, start or end.
func empty(c *Chunk) bool {
	return c.ID == "" && c.ItemID == "" && c.Name == "" && c.ArgsDelta == "" && c.Args == nil && len(c.Patch) == 0 &&
		c.Signature == "" && !c.Start && !c.Done
}

// byLatest reports whether a chunk is routed to its turn's latest call: it
// has neither id nor index.
func byLatest(c *Chunk) bool {
	return c.ID == "" && c.ItemID == "" && !c.HasIndex
}

// argumentsAgree reports whether the whole arguments a protocol sends for
// a call (final) agree with the text its pieces streamed: the same bytes,
// or the same JSON text once compacted, key order included. It is the one
// rule for a call sent both in pieces and whole (a decoder that assembles
// pieces itself, as Gemini's partialArgs, compares compacted text the same
// way): any other final changes the call, and the call is lost.
func argumentsAgree(streamed, final []byte) bool {
	if bytes.Equal(streamed, final) {
		return true
	}
	var x, y bytes.Buffer
	return json.Compact(&x, streamed) == nil && json.Compact(&y, final) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}

// streamed reports whether the call's argument text came from deltas
// since its last whole Args value.
func (cs *callState) streamed() bool { return !cs.fromArgs && cs.argLen() > 0 }

// maxQuoted is how many bytes of an id or name an error message quotes.
const maxQuoted = 64

// short quotes s for an error message, cut to maxQuoted bytes, so that an
// error costs little memory however long the provider's strings are.
func short(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:maxQuoted], len(s))
}

// route finds the call a chunk belongs to without changing the buffer. It
// returns nil when the chunk opens a new call, and in displaced an open call
// whose index the new call takes over (A02).
func (b *Buffer) route(c *Chunk) (cs, displaced *callState) {
	if c.ID != "" {
		if x := b.byID[c.ID]; x != nil {
			return b.reopen(c, x), nil
		}
	}
	if c.ItemID != "" {
		if x := b.byItem[c.ItemID]; x != nil {
			return b.reopen(c, x), nil
		}
	}
	hasID := c.ID != "" || c.ItemID != ""
	if c.HasIndex {
		x := b.byIndex[turnIndex{c.Turn, c.Index}]
		switch {
		case x == nil:
			return nil, nil
		case x.done:
			if c.Start || hasID {
				return nil, nil
			}
			return x, nil
		case (c.ID != "" && x.id != "") || (c.ItemID != "" && x.itemID != ""):
			// Another id on the index of an open call (A01, A02).
			return nil, x
		}
		return x, nil
	}
	if hasID {
		return nil, nil
	}
	if x := b.latestOpen(c.Turn); x != nil {
		if c.Start || (c.Name != "" && x.name != "" && c.Name != x.name) {
			return nil, nil
		}
		return x, nil
	}
	if c.Start || c.Name != "" {
		return nil, nil
	}
	return b.latest(c.Turn), nil
}

// reopen returns nil (a new call) for a Start chunk naming a call that has
// ended, such as a second call reusing an id (D06), and x otherwise.
func (b *Buffer) reopen(c *Chunk, x *callState) *callState {
	if x.done && c.Start {
		return nil
	}
	return x
}

func (b *Buffer) latestOpen(turn int) *callState {
	for i := len(b.open) - 1; i >= 0; i-- {
		if x := b.open[i]; x != nil && x.turn == turn {
			return x
		}
	}
	return nil
}

func (b *Buffer) latest(turn int) *callState {
	for i := len(b.calls) - 1; i >= 0; i-- {
		if b.calls[i].turn == turn {
			return b.calls[i]
		}
	}
	return nil
}

// afterDone handles a chunk routed to a call that has ended: an empty
// trailer (B03), a repeat of its id or name (A04) or an identical final copy
// of its arguments (B02) is taken as a no-op; anything else is rejected.
func (b *Buffer) afterDone(cs *callState, c *Chunk) error {
	if c.Name != "" && c.Name != cs.name {
		return b.chunkErr(c, ErrAfterDone, fmt.Sprintf("name %s for a call named %s", short(c.Name), short(cs.name)))
	}
	if c.ArgsDelta != "" {
		return b.chunkErr(c, ErrAfterDone, fmt.Sprintf("%d bytes of argument delta", len(c.ArgsDelta)))
	}
	if len(c.Patch) > 0 {
		return b.chunkErr(c, ErrAfterDone, "an argument patch")
	}
	if c.Args != nil && *c.Args != cs.text && *c.Args != string(cs.final) && !sameCompactText(*c.Args, cs.final) {
		return b.chunkErr(c, ErrAfterDone, "final arguments that differ from those accumulated")
	}
	return nil
}

// displace takes the index route away from an open call whose index a new
// call takes over (A01, A02). The call stays open, routed by its id (and
// item id) only, and ends like any other: on its own Done, at a finish (doneAll), or
// as incomplete on Finish. It is never completed here, whatever its
// arguments look like: an A01 stream may send more of them after the new
// call opened, and text that parses so far (empty, or a valid prefix, B09)
// is no proof that it is whole (A20).
func (b *Buffer) displace(x *callState) {
	key := turnIndex{x.turn, x.index}
	if b.byIndex[key] == x {
		delete(b.byIndex, key)
	}
}

func (b *Buffer) newCall(c *Chunk) *callState {
	var cs *callState
	if n := len(b.calls); n < len(b.firstStates) {
		cs = &b.firstStates[n]
	} else {
		cs = new(callState)
	}
	*cs = callState{seq: len(b.calls), turn: c.Turn}
	if c.Turn == 0 {
		cs.ordinal = b.turn0
		b.turn0++
	} else {
		cs.ordinal = b.perTurn[c.Turn]
		put(&b.perTurn, c.Turn, cs.ordinal+1)
	}
	if b.calls == nil {
		b.calls, b.open = b.firstCalls[:0], b.firstOpen[:0]
	}
	b.calls = append(b.calls, cs)
	if len(b.open) >= 2*b.nopen+len(b.firstOpen) {
		b.compactOpen()
	}
	cs.openAt = len(b.open)
	b.open = append(b.open, cs)
	b.nopen++
	return cs
}

// apply merges an accepted chunk into its call.
func (b *Buffer) apply(cs *callState, c *Chunk) {
	if c.ID != "" && cs.id == "" {
		cs.id = c.ID
		put(&b.byID, c.ID, cs)
	}
	if c.ItemID != "" && cs.itemID == "" {
		cs.itemID = c.ItemID
		put(&b.byItem, c.ItemID, cs)
	}
	if c.HasIndex && !cs.hasIndex {
		key := turnIndex{c.Turn, c.Index}
		if x := b.byIndex[key]; x == nil || x.done {
			cs.hasIndex, cs.index = true, c.Index
			put(&b.byIndex, key, cs)
		}
	}
	if c.Name != "" {
		cs.name = c.Name
	}
	if c.Signature != "" {
		cs.sig = c.Signature
	}
	switch {
	case c.Args != nil && cs.streamed():
		// A final copy that agrees with the deltas (check saw to it):
		// the text stays as the deltas sent it, and a delta after it
		// starts afresh, as after any whole value (A18).
		cs.fromArgs = true
	case c.Args != nil:
		b.keepBlocks(cs.full...)
		cs.full, cs.fullLen = nil, 0
		cs.args = b.wholeArgs(cs.args, *c.Args)
		cs.fromArgs = true
	case c.ArgsDelta != "":
		switch {
		case b.restarts(cs, c.ArgsDelta):
			b.keepBlocks(cs.full...)
			cs.args, cs.full, cs.fullLen, cs.fromArgs = cs.args[:0], nil, 0, false
		case cs.argLen() > 0 && len(c.ArgsDelta) > cs.argLen() && hasPrefix(c.ArgsDelta, b.argText(cs)):
			cs.looksCum = true
		}
		b.appendDelta(cs, c.ArgsDelta)
	}
	for k, v := range c.Patch {
		if cs.patch == nil {
			cs.patch = make(map[string]json.RawMessage)
		}
		if old, ok := cs.patch[k]; ok {
			cs.patchLen -= len(k) + len(old)
		}
		cs.patch[k] = append(json.RawMessage(nil), v...)
		cs.patchLen += len(k) + len(v)
	}
	if c.Done {
		cs.doneSeen = true
	}
}

// The sizes of the slab blocks that the arguments of calls sent whole are
// copied into (Buffer.wholeArgs): the first is firstSlab bytes, or twice
// the text that needs it, and each next one twice the last, up to
// maxSlab; a text of maxSlab bytes or more gets an allocation of its own.
const (
	firstSlab = 1 << 10
	maxSlab   = argBlock
)

// wholeArgs returns a copy of args, the whole argument text of a call
// whose text so far is old: over old when it fits there, and else in the
// Buffer's slab, so that the calls of a stream that sends calls whole (a
// Gemini chunk, an Ollama line) share a few blocks instead of costing an
// allocation each. Each text is a full slice of its own (len = cap), so
// that no append to one call's text, and no later text, writes into
// another's; the slab is never written where it was handed out, since the
// calls returned point into it.
func (b *Buffer) wholeArgs(old []byte, args string) []byte {
	switch {
	case len(args) <= cap(old):
		return append(old[:0], args...)
	case len(args) >= maxSlab:
		// A text of a block's size or more gets its own: a delta that
		// replaces it (A18) may hand it to the spare blocks (keepBlocks),
		// which must never get a piece of the slab or the scratch block.
		return []byte(args)
	}
	if a, ok := b.toScratch(args); ok {
		return a
	}
	if len(args) > cap(b.slab)-len(b.slab) {
		b.slab = make([]byte, 0, min(max(firstSlab, 2*cap(b.slab), 2*len(args)), maxSlab))
	}
	n := len(b.slab)
	b.slab = append(b.slab, args...)
	return b.slab[n:len(b.slab):len(b.slab)]
}

// toScratch returns a copy of s in the scratch block of Collect's Buffer,
// a full slice of its own, or false when b has no scratch block (it is no
// Buffer of Collect) or s does not fit in what is left of it.
func (b *Buffer) toScratch(s string) ([]byte, bool) {
	if b.scratchSize == 0 {
		return nil, false
	}
	if b.scratch == nil {
		b.scratch = make([]byte, 0, b.scratchSize)
	}
	n := len(b.scratch)
	if len(s) > cap(b.scratch)-n {
		b.scratchShort = true
		return nil, false
	}
	b.scratch = append(b.scratch, s...)
	return b.scratch[n:len(b.scratch):len(b.scratch)], true
}

// The sizes of the scratch block of Collect's pooled Buffer (see
// Buffer.scratch): it starts at firstScratch bytes and doubles, up to
// maxSlab, after a stream whose whole arguments did not fit in it.
const firstScratch = 8 << 10

// withScratch returns the scratch block b keeps for the next stream, and
// its size: emptied, or, when this stream's whole arguments did not fit
// in it, none, to be made twice as large.
func (b *Buffer) withScratch() ([]byte, int) {
	size := max(b.scratchSize, firstScratch)
	if !b.scratchShort || size >= maxSlab {
		return b.scratch[:0], size
	}
	return nil, min(2*size, maxSlab)
}

// inScratch reports whether a, not empty, lies in b's scratch block.
func (b *Buffer) inScratch(a []byte) bool {
	if len(a) == 0 || cap(b.scratch) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b.scratch)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
	return p >= start && p < start+uintptr(cap(b.scratch))
}

// end removes cs from the open calls, in constant time: its slot in
// b.open is cleared, the cleared slots at the end are dropped, and
// newCall compacts the rest when more than half are cleared, so that
// ending n calls costs O(n) however many are open.
func (b *Buffer) end(cs *callState) {
	cs.done = true
	if cs.openAt < 0 {
		return
	}
	b.open[cs.openAt] = nil
	cs.openAt = -1
	b.nopen--
	n := len(b.open)
	for n > 0 && b.open[n-1] == nil {
		n--
	}
	clear(b.open[n:])
	b.open = b.open[:n]
}

// compactOpen drops the cleared slots of b.open, keeping the open calls in
// order of appearance.
func (b *Buffer) compactOpen() {
	n := 0
	for _, x := range b.open {
		if x != nil {
			x.openAt = n
			b.open[n] = x
			n++
		}
	}
	clear(b.open[n:])
	b.open = b.open[:n]
}

// callID returns the call's provider id, or a generated one, the same on
// every call: tool_<turn>_<index> for a call routed by index,
// tool_<turn>_<n> for the n-th call of a turn that had neither. When that
// is taken, by a provider id seen so far or an id already generated, it
// gets _<position> (the call's position among all calls), and then _2,
// _3, … until it is free. Generated ids are chosen when calls end, so they
// avoid every provider id that came before; a provider id that arrives
// later and repeats one is rejected by Add.
func (b *Buffer) callID(cs *callState) string {
	if cs.id != "" {
		return cs.id
	}
	if cs.genID != "" {
		return cs.genID
	}
	n := cs.ordinal
	if cs.hasIndex {
		n = cs.index
	}
	base := "tool_" + strconv.Itoa(cs.turn) + "_" + strconv.Itoa(n)
	id := base
	for k := 1; b.genIDs[id] || b.byID[id] != nil; k++ {
		id = base + "_" + strconv.Itoa(cs.seq)
		if k > 1 {
			id += "_" + strconv.Itoa(k)
		}
	}
	put(&b.genIDs, id, true)
	cs.genID = id
	return id
}

// complete ends a call that has its Done and its name.
func (b *Buffer) complete(cs *callState) (Call, error) {
	b.end(cs)
	raw := b.argText(cs)
	cs.args = nil
	call := Call{ID: b.callID(cs), ItemID: cs.itemID, Name: cs.name, Signature: cs.sig}
	args, repaired, err := finalArgs(raw, cs.patch, cs.vouched)
	cs.patch = nil
	if err != nil || repaired {
		cs.text = string(raw)
	}
	if err != nil {
		if cs.looksCum {
			err = fmt.Errorf("%w (each delta repeated the text before it: a cumulative stream, B01, needs WithCumulativeArgs)", err)
		}
		call.Original = cs.text
		ce := &CallError{Call: call, Err: err}
		b.failed = append(b.failed, ce)
		return Call{}, ce
	}
	call.Arguments = args
	cs.final = args
	if repaired {
		call.Repaired, call.Original = true, cs.text
	}
	if b.completed == nil {
		b.completed, b.completedSeq = b.firstCompleted[:0], b.firstSeqs[:0]
	}
	b.completed = append(b.completed, call)
	b.completedSeq = append(b.completedSeq, cs.seq)
	return call, nil
}

// finalArgs turns a call's argument text and patches into its arguments.
// Empty text becomes {} (C01, C02); valid JSON is kept as it is, object or
// not (judging its shape is validation's work); two identical copies of one
// document become one (B02, reported as a repair); other invalid text goes
// through core/repair, whose result must be an object (a repair that turns
// stray text into a JSON string would hide the fault, C09). Text its stream
// vouched for is kept as it is, unchecked.
func finalArgs(raw []byte, patch map[string]json.RawMessage, vouched bool) (args json.RawMessage, repaired bool, err error) {
	if vouched && len(raw) > 0 {
		args = raw[:len(raw):len(raw)]
	} else {
		args, repaired, err = textArgs(raw)
	}
	if err != nil || len(patch) == 0 {
		return args, repaired, err
	}
	obj := make(map[string]json.RawMessage, len(patch))
	if err := json.Unmarshal(args, &obj); err != nil {
		return nil, false, fmt.Errorf("%w: the arguments are not a JSON object", ErrInvalidPatch)
	}
	for k, v := range patch {
		obj[k] = v
	}
	// Every value is valid JSON (patches are checked by Add), so the
	// object is written by hand, keys sorted, with nothing that can fail.
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var m bytes.Buffer
	m.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			m.WriteByte(',')
		}
		key, _ := json.Marshal(k) // a string always marshals
		m.Write(key)
		m.WriteByte(':')
		m.Write(obj[k])
	}
	m.WriteByte('}')
	return m.Bytes(), repaired, nil
}

// textArgs is finalArgs without patches. Valid text is handed back without
// a copy: the buffer gives up raw to it.
func textArgs(raw []byte) (json.RawMessage, bool, error) {
	// Each delta was checked on its own, allowing a character cut at its
	// edges (B05); the whole text is checked here, where a sequence spread
	// over two deltas that never forms a character shows.
	if !utf8.Valid(raw) {
		return nil, false, fmt.Errorf("%w: the arguments at byte %d", ErrInvalidUTF8, firstInvalidUTF8(raw))
	}
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return json.RawMessage("{}"), false, nil
	}
	if jsonvalid.Valid(raw) {
		return raw[:len(raw):len(raw)], false, nil
	}
	if n := len(t); n%2 == 0 && bytes.Equal(t[:n/2], t[n/2:]) && jsonvalid.Valid(t[:n/2]) {
		return t[: n/2 : n/2], true, nil
	}
	text := string(raw)
	fixed, _, err := repair.Repair(text)
	if err != nil {
		return nil, false, err
	}
	if f := strings.TrimSpace(fixed); f == "" || f[0] != '{' {
		return nil, false, fmt.Errorf("%w: repaired to %.40q", ErrInvalidArguments, fixed)
	}
	return json.RawMessage(fixed), true, nil
}

// firstInvalidUTF8 returns the offset of the first byte of b that does not
// start a valid UTF-8 character.
func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// argBlock is the size the argument text of a call grows to by doubling;
// past it, the text grows in blocks of argBlock bytes, joined once, at the
// text's exact size, when the whole text is needed (Buffer.argText), so
// that n bytes of deltas cost about 2n bytes of allocation wherever n
// falls between two powers of two, not up to 4n. The blocks are never
// handed out: once joined, they go to the Buffer's spare blocks
// (keepBlocks), which the next long text, of this stream or of the next
// one Collect gives the Buffer to, fills instead of new ones.
const argBlock = 64 << 10

// maxSpareBlocks bounds the spare blocks a Buffer keeps: as many as the
// text of one call at the default limit (DefaultMaxArgBytes) fills, 4 MiB.
const maxSpareBlocks = DefaultMaxArgBytes / argBlock

// argLen returns the length of the call's argument text.
func (cs *callState) argLen() int { return cs.fullLen + len(cs.args) }

// argText returns the argument text of call cs as one slice, joining the
// blocks of a long call into one of the text's exact size, which then
// stands for them; the blocks become spare blocks.
func (b *Buffer) argText(cs *callState) []byte {
	if len(cs.full) == 0 {
		return cs.args
	}
	joined := make([]byte, 0, cs.argLen())
	for _, blk := range cs.full {
		joined = append(joined, blk...)
	}
	joined = append(joined, cs.args...)
	b.keepBlocks(cs.full...)
	b.keepBlocks(cs.args)
	cs.args, cs.full, cs.fullLen = joined, nil, 0
	return joined
}

// appendDelta appends an argument delta to the text of call cs: into
// args, which doubles up to argBlock bytes (or the argument limit, if
// lower), and once args is that large and full, into a new block, a spare
// one if there is one.
func (b *Buffer) appendDelta(cs *callState, s string) {
	if cap(cs.args) == 0 && cs.fullLen == 0 && len(s) < argBlock {
		// A call's first delta goes to the scratch block, as a whole
		// text does: a call sent in one delta (Mistral) then costs no
		// allocation of its own; a second delta copies it out.
		if a, ok := b.toScratch(s); ok {
			cs.args = a
			return
		}
	}
	if len(cs.args)+len(s) > cap(cs.args) && cap(cs.args) >= argBlock {
		cs.full = append(cs.full, cs.args)
		cs.fullLen += len(cs.args)
		cs.args = b.block(len(s))
	}
	cs.args = appendArgs(cs.args, s, min(b.lim.MaxArgBytes, argBlock))
}

// block returns an empty block for at least n bytes of argument text: a
// spare block when n fits in one, else a new one.
func (b *Buffer) block(n int) []byte {
	b.blocksUsed = true
	if k := len(b.spare); k > 0 && n <= argBlock {
		blk := b.spare[k-1]
		b.spare[k-1] = nil
		b.spare = b.spare[:k-1]
		return blk[:0]
	}
	return make([]byte, 0, max(argBlock, n))
}

// keepBlocks makes blocks of argument text that no call holds any more
// spare blocks, those of argBlock bytes only and up to maxSpareBlocks. A
// block a call handed out as its arguments must never come here: calls
// hold blocks only in callState.full, and in args while full is not empty.
func (b *Buffer) keepBlocks(blocks ...[]byte) {
	for _, blk := range blocks {
		if cap(blk) == argBlock && len(b.spare) < maxSpareBlocks {
			b.spare = append(b.spare, blk)
		}
		b.blocksUsed = true
	}
}

// appendArgs appends s to dst, doubling the capacity when it must grow (but
// not beyond limit unless s needs it), so that n bytes of deltas cost about
// 2n bytes of allocation, where append's gentler growth for large slices
// costs about 5n.
func appendArgs(dst []byte, s string, limit int) []byte {
	if need := len(dst) + len(s); need > cap(dst) {
		n := max(min(2*cap(dst), limit), need, 64)
		grown := make([]byte, len(dst), n)
		copy(grown, dst)
		dst = grown
	}
	return append(dst, s...)
}

// restarts reports whether a delta replaces the text of call cs (nil for a
// new call) instead of extending it: the first delta after a whole value
// set by Args (A18), and, with WithCumulativeArgs, a delta that repeats all
// the text so far (B01).
func (b *Buffer) restarts(cs *callState, delta string) bool {
	if cs == nil {
		return false
	}
	return cs.fromArgs || (b.cumulative && cs.argLen() > 0 && len(delta) >= cs.argLen() && hasPrefix(delta, b.argText(cs)))
}

// hasPrefix reports whether s begins with p, without converting p.
func hasPrefix(s string, p []byte) bool {
	return len(s) >= len(p) && s[:len(p)] == string(p)
}

// sameCompactText reports whether a and b are the same JSON text once
// compacted: an identical copy, key order included (B02).
func sameCompactText(a string, b json.RawMessage) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, []byte(a)) != nil || json.Compact(&y, b) != nil {
		return false
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// doneAll ends every open call that has a name as if it had received Done,
// for protocols where the end of the response ends its calls (a Chat
// Completions finish_reason). Calls without a name, and lost calls, stay
// open. It returns
// the calls it completed and, joined, the *CallError of each that failed.
func (b *Buffer) doneAll() ([]Call, error) {
	start := len(b.completed)
	var errs []error
	// complete clears cs's slot of b.open (and may shorten it); nothing
	// here compacts it.
	for i := 0; i < len(b.open); i++ {
		cs := b.open[i]
		if cs == nil || cs.name == "" || cs.lost != nil {
			continue
		}
		cs.doneSeen = true
		if _, err := b.complete(cs); err != nil {
			errs = append(errs, err)
		}
	}
	// The calls completed, in order: a view of the completed list that
	// nothing writes again, capped so that an append copies it.
	n := len(b.completed)
	if n == start {
		return nil, errors.Join(errs...)
	}
	return b.completed[start:n:n], errors.Join(errs...)
}

// Finish ends the stream. Calls still open, lost calls among them, become
// incomplete: they are returned, in order of appearance, with their text so
// far in Original, no Arguments and, when the provider sent none, a
// generated id; the error, wrapping ErrIncomplete, reports them, with the
// rejected chunk of each lost call (wrapping ErrLostChunk); they never
// become complete. Later chunks are rejected. Finish may be called again and returns the same.
func (b *Buffer) Finish() ([]Call, error) {
	if !b.finished {
		b.finished = true
		anyLost := false
		// end clears each slot of b.open (and may shorten it); nothing
		// here compacts it.
		for i := 0; i < len(b.open); i++ {
			cs := b.open[i]
			if cs == nil {
				continue
			}
			b.end(cs)
			text := string(b.argText(cs))
			cs.args, cs.text = nil, text
			b.incomplete = append(b.incomplete, Call{ID: b.callID(cs), ItemID: cs.itemID, Name: cs.name, Signature: cs.sig, Original: text})
			var le *lostError
			if cs.lost != nil {
				le, anyLost = &lostError{Chunk: cs.lost, Dropped: cs.dropped}, true
			}
			b.lostReasons = append(b.lostReasons, le)
		}
		if !anyLost {
			b.lostReasons = nil
		}
	}
	if len(b.incomplete) == 0 && b.refused == 0 {
		return nil, nil
	}
	inc := append([]Call(nil), b.incomplete...)
	return inc, &incompleteError{Calls: append([]Call(nil), b.incomplete...), Lost: append([]*lostError(nil), b.lostReasons...),
		Refused: b.refused, MaxCalls: b.lim.MaxCalls}
}

// Preview returns a best-effort view of the arguments of the open call that
// route names (by ID, ItemID, or Turn and Index, as Add would route it), for
// display while it streams; see repair.Preview. ok is false when no open
// call matches, the call is lost, or its text so far cannot be previewed. The result must never
// be run.
func (b *Buffer) Preview(route Chunk) (json.RawMessage, bool) {
	route.Start, route.Name = false, ""
	cs, _ := b.route(&route)
	if cs == nil || cs.done || cs.lost != nil {
		return nil, false
	}
	if len(cs.patch) > 0 {
		args, _, err := finalArgs(bytes.Clone(b.argText(cs)), cs.patch, cs.vouched)
		return args, err == nil
	}
	if len(bytes.TrimSpace(b.argText(cs))) == 0 {
		return json.RawMessage("{}"), true
	}
	return repair.Preview(string(b.argText(cs)))
}

// chunkErr builds the error for a rejected chunk, naming how it routes.
func (b *Buffer) chunkErr(c *Chunk, err error, detail string) *ChunkError {
	var route string
	switch {
	case c.ID != "":
		route = "id " + short(c.ID)
	case c.ItemID != "":
		route = "item id " + short(c.ItemID)
	case c.HasIndex:
		route = fmt.Sprintf("index %d of turn %d", c.Index, c.Turn)
	default:
		route = fmt.Sprintf("latest call of turn %d", c.Turn)
	}
	return &ChunkError{Chunk: b.nchunks, Route: route, Detail: detail, Err: err}
}

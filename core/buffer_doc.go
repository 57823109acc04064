package core

// Buffer accumulates the Chunks of a streamed response into complete Calls.
// The zero value is not usable; use NewBuffer. A Buffer is not safe for
// concurrent use.
//
//	b := core.NewBuffer()
//	for _, c := range chunks {
//		done, err := b.Add(c) // done: the calls this chunk completed
//		...
//	}
//	incomplete, err := b.Finish() // wraps ErrIncomplete if a call was cut off
//
// # Routing
//
// Add routes each chunk without changing the buffer, then checks the limits,
// then applies it, so that nothing of a rejected chunk is kept (see Lost
// calls).
//
//  1. By provider id: Chunk.ID, else Chunk.ItemID, looked up among the ids
//     and item ids every call has shown. An empty string is no id (A03). A
//     call first seen by index that later shows an id keeps both routes and
//     stays one call; so does a call first seen by item id that later shows
//     its call id (A16).
//  2. Else by (Turn, Index) when HasIndex is set. An index is never below
//     -1, a lone call's index (A11), nor above Limits.MaxIndex (A12):
//     ErrIndexOutOfRange.
//  3. Else the most recent open call of the turn (A06, A07), unless the
//     chunk has Start or a name other than that call's, which opens a new
//     call. With no open call, a chunk without name or Start goes to the
//     turn's last call (where it is usually a trailer, B03).
//
// Start opens a new call only when the call it routes to has ended: a second
// call reusing an ended call's id (D06) or index. Start on an open call is
// ignored, so a decoder that splits one entry into two (A08) stays safe.
//
// # Decision table
//
//	case                                         decision
//	A01/A02 new id on the index of an open call  the new id opens a new call that takes
//	                                             the index; the old call stays open,
//	                                             routed by its id only, and ends like any
//	                                             call: on its own Done, at a finish, or as
//	                                             incomplete on Finish; it is never
//	                                             completed by the takeover, whatever its
//	                                             arguments (A20: more may follow by id)
//	A03 empty-string id                          no id: routed by index or latest call
//	A04 id and name on every chunk               set once, never concatenated; a repeat is
//	                                             a no-op, another name is ErrConflict
//	A05 interleaved parallel calls               routed by id or index, any order
//	A08 two entries with one index in one chunk  both route to the same call and merge
//	                                             (name part, then argument part)
//	A09 name after the first arguments           accepted; a call completes on Done only
//	                                             once it has a name, so a Done that comes
//	                                             before the name waits for it
//	A10 names of different calls                 never merged: another name on a routed
//	                                             call is ErrConflict (the call is lost),
//	                                             on the latest call it opens a new call
//	A11 index -1 for a lone call                 routed like any index: the call is kept
//	A11/A12 index below -1 or above MaxIndex     ErrIndexOutOfRange, chunk rejected (its
//	                                             call, found by id, is lost)
//	A18 whole arguments, then deltas            the first delta after an Args value
//	                                             starts the text afresh: a start event
//	                                             that carries the input ({} or all of it)
//	                                             and deltas that then stream it give the
//	                                             deltas' text, never the two glued
//	B01 cumulative resend                        not guessed (the guess corrupts ordinary
//	                                             streams): appended, so the call fails at
//	                                             Done with a CallError whose message names
//	                                             B01; WithCumulativeArgs makes a delta
//	                                             that starts with all the text so far
//	                                             replace it
//	B02 deltas then a final full copy            as Args: kept only when it agrees with
//	                                             the deltas (the same text, or compacted
//	                                             the same), the deltas' text staying;
//	                                             any other final, "" included, is
//	                                             ErrConflict naming both, and the call is
//	                                             lost (after Done, an identical copy is a
//	                                             no-op, a different one ErrAfterDone); as
//	                                             a delta, so that the text is one
//	                                             document twice: kept once, reported as
//	                                             a repair
//	B03 empty delta after Done                   no-op
//	B09 valid-looking prefix                     never completed early: a call completes
//	                                             only on Done or at a finish, and a chunk
//	                                             completes only the call it routes to
//	B09-B11 stream ends with calls open          Finish returns them and an error
//	                                             wrapping ErrIncomplete; never complete
//	C01 arguments ""                             {} (not reported as a repair)
//	C02 no argument chunk at all                 {}
//	C09 invalid arguments at Done                core/repair; Repaired set and Original
//	                                             kept; unrepairable or truncated: a
//	                                             *CallError for that call only
//	D06 a second call with an ended call's id    opens a new call when it has Start,
//	                                             else ErrAfterDone
//	D01 a provider id equal to a generated one   ErrConflict, chunk rejected (see Ids)
//	any other chunk after Done                   ErrAfterDone, chunk rejected; the call
//	                                             stays complete (it ended before)
//	both Args and ArgsDelta in one chunk         ErrConflict, chunk rejected, call lost
//	a patch value that is not JSON               ErrInvalidPatch, chunk rejected, call lost
//	a chunk over MaxArgBytes                     ErrArgumentsTooLarge, chunk rejected,
//	                                             call lost
//	any chunk of a lost call                     dropped and counted, no error
//	chunk after Finish                           rejected: the buffer is finished
//
// # Lost calls
//
// A call that lost any byte is never complete. When Add rejects a chunk
// (a limit, a conflict, a malformed chunk) the open call it routes to is
// lost; a chunk that would have opened a call opens it lost, routed by its
// id, item id and index, so that the rest of that call is recognised. A lost
// call keeps the text it had, takes no further chunk (each is dropped and
// counted), is not ended by a finish, and ends at Finish among the
// incomplete calls; Finish's error wraps ErrLostChunk and the rejection
// for it. Three rejections open no call, since
// every later chunk of theirs is refused the same way: too many calls, an id
// equal to a generated one, and an index out of range on a chunk with no id.
// A call routed by neither id nor index that cannot open (too many calls)
// shadows its turn's latest open call instead: the chunks routed to that
// call by neither id nor index afterwards are the lost call's, and are
// dropped. A chunk routed to a call that already ended is rejected
// (ErrAfterDone) and changes nothing: that call was complete before it.
//
// # Ids
//
// Calls without a provider id get tool_<turn>_<index>, or tool_<turn>_<n>
// for the n-th call of a turn routed by neither id nor index. The id is
// chosen when the call ends (completes, fails, or is left incomplete by
// Finish), so it can skip every provider id seen until then: a clash adds
// _<position> (the call's position among all calls), then _2, _3, … until
// the id is free. A provider id that arrives after an equal id was
// generated is rejected with ErrConflict: the generated id has been handed
// out already and cannot change, and a provider id is never rewritten,
// since results must echo it (D02). So a generated id is never equal to
// any other call's id. Provider ids themselves are kept as sent, even when
// a provider repeats one for a second call (D06), so that the duplicate
// stays visible.
//
// Patches (Chunk.Patch) are merged key by key into the argument object at
// completion, later values winning.
//
// # Memory
//
// Argument text grows one []byte per call, appended in place, doubling up
// to 64 KB and past that in 64 KB blocks joined once, at the exact size,
// when the call ends: n bytes cost about 2n. Routing uses maps keyed by
// the chunk's own strings, so an ordinary delta costs no allocation. A
// completed call drops its buffer and keeps only its final arguments; the
// blocks of a long one are kept (up to 4 MiB) for the next long text, and
// Collect's pooled Buffer keeps them for the next stream when its stream
// used them, until sync.Pool drops the Buffer. Arguments sent whole
// (Chunk.Args) are copied into blocks shared by the calls of a stream;
// in Collect, into a block the pooled Buffer keeps, from which Collect
// moves those of the calls it returns into one allocation per stream.
//
// Every operation costs amortised O(1) per chunk besides the bytes it
// copies, however many calls are open: ending a call clears its slot in
// the list of open calls, compacted when half of it is cleared, so that
// Finish and a finish event end n open calls in O(n). A chunk that would
// open a call past Limits.MaxCalls is counted, not kept (Finish reports
// the count, wrapping ErrTooManyCalls), so memory grows with the calls
// the limits allow, never with the chunks refused.
type Buffer struct {
	lim        Limits
	cumulative bool

	calls []*callState // every call, in order of first appearance
	// open holds the calls not yet ended, in order of appearance, with a
	// nil slot for each call that ended since the last compaction
	// (Buffer.end); nopen counts the calls in it.
	open    []*callState
	nopen   int
	byID    map[string]*callState
	byItem  map[string]*callState
	byIndex map[turnIndex]*callState
	perTurn map[int]int // number of calls per turn other than 0
	turn0   int         // number of calls in turn 0
	genIDs  map[string]bool
	// The first calls' states and the first arrays of calls and open, in
	// the Buffer itself: a stream of a few calls allocates none of them.
	firstStates    [4]callState
	firstCalls     [4]*callState
	firstOpen      [4]*callState
	firstCompleted [4]Call
	firstSeqs      [4]int
	nchunks        int
	dropped        int // chunks dropped because their call was lost
	refused        int // chunks refused that would open a call past MaxCalls
	finished       bool

	// slab is the rest of the block the arguments of calls sent whole
	// are copied into (wholeArgs).
	slab []byte
	// scratch is where the arguments of calls sent whole go first in
	// Collect's pooled Buffer (scratchSize > 0; a Buffer of NewBuffer has
	// none): Collect moves those of the calls it returns into one
	// allocation of their exact size (collector.moveArgs), and the Buffer
	// keeps the block for the next stream. scratchShort says that this
	// stream's did not all fit (reset then makes the next one larger).
	scratch      []byte
	scratchSize  int
	scratchShort bool
	// spare holds blocks of argument text that no call holds, for the
	// next long text (Buffer.block); blocksUsed says whether the stream
	// took or gave back any (reset keeps spare only then).
	spare      [][]byte
	blocksUsed bool

	completed []Call
	// completedSeq holds, for each completed call, its position in order
	// of first appearance, so that Collect can give calls in the order the
	// provider opened them.
	completedSeq []int
	failed       []*CallError
	incomplete   []Call
	lostReasons  []*lostError // aligned with incomplete; nil if none lost
}

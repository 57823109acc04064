package oaichat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unsafe"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/internal/jsonvalue"
	"github.com/toolconform/conform/providers/internal/jsonscan"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/streamdec"
	"github.com/toolconform/conform/providers/internal/streamenc"
	"github.com/toolconform/conform/providers/internal/vendorerr"
	"github.com/toolconform/conform/providers/internal/wire"
	"github.com/toolconform/conform/sse"
)

// DecodeStream reads a streamed Chat Completions body (SSE, ended by
// "data: [DONE]") and yields its events one at a time, pulling from r only
// as far as needed. See the package documentation for what is emitted.
// Input that is not blank but holds no event of the protocol (no chunk
// with choices, usage or an error, no "[DONE]") is not a stream of it: an
// *DecodeError wrapping core.ErrNotStream at the offset of the first event it
// could not use, or byte 0.
func (c *Codec) DecodeStream(r io.Reader) core.EventStream {
	return jsonstr.CheckText(c.cfg.Name, c.newStream(r))
}

// DecodeGuardedStream is vendorerr.GuardStream over DecodeStream, the adapters'
// DecodeStream: a body that fails before its first event and is a vendor
// error body yields that error. The guard and the text check are kept in
// the stream instead of allocated around it.
func (c *Codec) DecodeGuardedStream(r io.Reader) core.EventStream {
	s := c.newStream(nil)
	s.in.Init(s.guard.Reader(r))
	s.check.Protocol = c.cfg.Name
	return (*guardedStream)(s)
}

// guardedStream is a stream read through its guard and text check.
type guardedStream stream

// ReuseEventText lets the stream reuse the storage of its events' text,
// their chunks and the chunks' argument text once core.Collect has copied
// them (see core.Collect): what the events of one input chunk hold stays
// as it is until the next input chunk is decoded.
func (g *guardedStream) ReuseEventText() {
	g.reuse = true
	g.copies.arena = (*jsonscan.Arena)(&g.arena)
	// Nothing was taken from the first chunks yet.
	g.reusable, g.text = g.first.chunks[:], g.first.text[:0]
}

// Next returns the next event as vendorerr.GuardStream over jsonstr.CheckText over
// the stream gives it.
func (g *guardedStream) Next() (core.Event, error) { return g.guard.Next(g.checked) }

// checked returns the stream's next event, its text checked.
func (g *guardedStream) checked() (core.Event, error) { return g.check.Next((*stream)(g).Next) }

// newStream returns the decoder of a stream, before its text is checked.
func (c *Codec) newStream(r io.Reader) *stream {
	s := &stream{c: c, op: c.streamOp}
	s.in.Init(r)
	s.dec.Init(&s.in, sse.FlushAtEOF(), sse.MaxEventSize(c.cfg.MaxEventSize))
	s.q.Use(s.first.events[:])
	s.chunks.Use(s.first.chunks[:])
	s.arena, s.scratch = s.first.arena[:0], s.first.scratch[:0]
	s.env.prefix, s.shape.buf = s.first.envelope[:0], s.first.shape[:0]
	return s
}

// jsonSpace is the whitespace JSON allows around a value.
const jsonSpace = " \t\r\n"

type stream struct {
	// ResponseMemory holds the Response core.Collect returns, whose
	// strings point into the stream's arena: it lives as long as the
	// stream anyway.
	core.ResponseMemory
	c  *Codec
	op string
	in streamdec.Input
	// guard and check are the guard and text check of DecodeGuardedStream.
	guard vendorerr.Guard
	check jsonstr.TextCheck
	dec   sse.Decoder
	q     streamdec.Queue
	done  bool
	err   error

	id, model string
	metaSent  bool
	finished  bool // a finish event was emitted

	copies copyTracker

	// reuse is set by ReuseEventText. The text, thinking and argument
	// deltas of the events decoded from one input chunk are then views of
	// the chunk's data or of text, and their chunks come from reusable;
	// both are given back (release) when the next input chunk is decoded,
	// never sooner, since the events of one chunk are handed out one Next
	// at a time. used counts the chunks of reusable taken since.
	reuse    bool
	text     []byte
	reusable []core.Chunk
	used     int
	// poison, for tests, overwrites what release gives back, so that an
	// event still in use when its storage is reused shows.
	poison bool

	// noFast turns the fast path off, for tests that compare the two;
	// fastHits counts the events it decoded.
	noFast   bool
	fastHits int
	// chunks, arena, scratch and env are the fast path's reused storage
	// (see fast.go); the general path takes its chunks from the same
	// slab.
	chunks  jsonscan.Slab[core.Chunk]
	arena   []byte
	scratch []byte
	env     envelope
	shape   deltaShape

	// first is the first storage of the queue, the slab, the arena, the
	// unescape buffer, the envelope and the delta shape, in the stream's
	// own allocation, so that a stream of a few events allocates none of
	// them; each grows out of it as it must.
	first struct {
		events   [4]core.Event
		chunks   [2]core.Chunk
		arena    [256]byte
		scratch  [256]byte
		text     [256]byte
		envelope [320]byte
		shape    [128]byte
		usage    core.Usage
		hasUsage bool
	}
}

// usage returns the Usage of a usage event: the stream's first storage
// for the first, which is most often the only one.
func (s *stream) usage(in, out int) *core.Usage {
	u := &s.first.usage
	if s.first.hasUsage {
		u = new(core.Usage)
	}
	s.first.hasUsage = true
	*u = core.Usage{InputTokens: in, OutputTokens: out}
	return u
}

// maxTracked bounds the argument text the stream keeps to recognise
// consolidated copies (B02); past it, copies are passed on as deltas.
const maxTracked = 1 << 20

// copyTracker keeps the argument text streamed so far per call, keyed by id
// (an index-only continuation belongs to the id last seen at its index),
// for one purpose: to recognise a final consolidated copy (B02), an entry
// that repeats a seen id and the name with arguments equal, as JSON, to
// everything streamed for that id so far. Such an entry is emitted with
// Chunk.Args (a replacement by the same text, harmless) instead of as a
// delta, which the Buffer would have to repair. It routes nothing else.
// The first call's text and the first index's id are kept in place, so
// that a stream of one call needs no map.
type copyTracker struct {
	first     trackKey
	firstText trackedText
	hasFirst  bool
	// few holds the next calls' texts, up to maxFew, searched in
	// order; others the rest.
	few    []keyedText
	others map[trackKey]*trackedText

	firstIndex   int
	firstIndexID string
	hasIndex     bool
	idFew        []indexID      // the next indexes, up to maxFew
	idAt         map[int]string // the rest

	last  trackKey
	total int
	full  bool
	// arena is the stream's arena when the stream reuses the storage of
	// its argument deltas (ReuseEventText): every piece tracked is then
	// copied, the first of a call into the arena.
	arena *jsonscan.Arena
	// spare holds the blocks of trackBlock bytes the texts give back, for
	// the next long text: taken from spareTrackBlocks when a text first
	// needs such a block, put back there at the end of the stream.
	spare *trackSpare
}

// spareTrackBlocks holds the spare blocks (*trackSpare) of the copy
// trackers of streams that have ended (copyTracker.release), for the long
// calls of later streams: their text is then tracked in blocks the stream
// does not allocate. sync.Pool drops them when no stream takes them.
var spareTrackBlocks sync.Pool

// trackSpare is a copy tracker's spare blocks, at most maxSpareTrack.
type trackSpare struct{ blocks [][]byte }

// maxSpareTrack bounds a tracker's spare blocks: as many as maxTracked
// bytes fill, and one.
const maxSpareTrack = maxTracked/trackBlock + 1

// block returns an empty block of trackBlock bytes, a spare one if there
// is one.
func (t *copyTracker) block() []byte {
	if t.spare == nil {
		t.spare, _ = spareTrackBlocks.Get().(*trackSpare)
		if t.spare == nil {
			t.spare = new(trackSpare)
		}
	}
	if n := len(t.spare.blocks); n > 0 {
		b := t.spare.blocks[n-1]
		t.spare.blocks[n-1] = nil
		t.spare.blocks = t.spare.blocks[:n-1]
		return b[:0]
	}
	return make([]byte, 0, trackBlock)
}

// drop forgets every text kept, its blocks of trackBlock bytes becoming
// spare blocks: no text is ever read again once dropped.
func (t *copyTracker) drop() {
	t.spareBlocks(&t.firstText)
	for _, e := range t.few {
		t.spareBlocks(e.t)
	}
	for _, v := range t.others {
		t.spareBlocks(v)
	}
	t.first, t.firstText, t.hasFirst, t.few, t.others = trackKey{}, trackedText{}, false, nil, nil
}

// spareBlocks makes the blocks of trackBlock bytes of a text being
// dropped spare blocks, up to maxSpareTrack.
func (t *copyTracker) spareBlocks(tt *trackedText) {
	for _, b := range tt.blocks {
		if cap(b) == trackBlock && t.spare != nil && len(t.spare.blocks) < maxSpareTrack {
			t.spare.blocks = append(t.spare.blocks, b)
		}
	}
}

// release ends the tracker at the end of its stream: its texts are
// dropped and its spare blocks go to spareTrackBlocks. Nothing is tracked
// after it.
func (t *copyTracker) release() {
	t.drop()
	t.full = true
	if t.spare != nil {
		spareTrackBlocks.Put(t.spare)
		t.spare = nil
	}
}

// maxFew is how many calls, and indexes, the copy tracker finds by a
// search in a short list before a map: as many as a stream that runs
// calls in parallel interleaves.
const maxFew = 8

// keyedText is a call's key and text.
type keyedText struct {
	k trackKey
	t *trackedText
}

// indexID is the id seen at an index.
type indexID struct {
	index int
	id    string
}

// trackKey names the call of an entry: by id, by an index whose id is not
// known, or neither (the zero key, which an entry without either shares
// with the entry before it).
type trackKey struct {
	by    byte // 'd' for id, 'x' for index, 0 for neither
	id    string
	index int
}

// size is the key's share of maxTracked: the length of "id:<id>" or
// "ix:<index>".
func (k trackKey) size() int {
	switch k.by {
	case 'd':
		return 3 + len(k.id)
	case 'x':
		n, u := 4, uint(k.index)
		if k.index < 0 {
			n, u = 5, -u
		}
		for ; u >= 10; u /= 10 {
			n++
		}
		return n
	}
	return 0
}

// idAtIndex returns the id last seen at an index.
func (t *copyTracker) idAtIndex(index int) (string, bool) {
	if t.hasIndex && t.firstIndex == index {
		return t.firstIndexID, true
	}
	for _, e := range t.idFew {
		if e.index == index {
			return e.id, true
		}
	}
	id, ok := t.idAt[index]
	return id, ok
}

// setID notes the id seen at an index.
func (t *copyTracker) setID(index int, id string) {
	if !t.hasIndex || t.firstIndex == index {
		t.firstIndex, t.firstIndexID, t.hasIndex = index, id, true
		return
	}
	for i := range t.idFew {
		if t.idFew[i].index == index {
			t.idFew[i].id = id
			return
		}
	}
	if _, ok := t.idAt[index]; !ok && len(t.idFew) < maxFew {
		t.idFew = append(t.idFew, indexID{index, id})
		return
	}
	if t.idAt == nil {
		t.idAt = map[int]string{}
	}
	t.idAt[index] = id
}

// trackedText is the argument text streamed for one call: the first piece
// as it came when the stream's strings are immutable, or else copied into
// the stream's arena, and copied into blocks only when a second piece
// comes, so that a call sent in one piece costs no copy, or no allocation
// of its own. The blocks double up to trackBlock bytes and are joined only
// when a copy is compared with the text (String), so that n bytes tracked
// cost about n bytes, where a builder's growth costs up to five times that.
type trackedText struct {
	s      string
	blocks [][]byte
}

// trackBlock is the size the blocks of a trackedText double up to.
const trackBlock = 64 << 10

// add appends a piece, with the arena and the blocks of tracker tr. When
// tr.arena is not nil the piece's storage may be reused after the call
// (ReuseEventText), and the first piece is copied into the arena, which
// holds small strings without an allocation each.
func (t *trackedText) add(piece string, tr *copyTracker) {
	if piece == "" {
		return
	}
	if t.s == "" && len(t.blocks) == 0 {
		t.s = piece
		if tr.arena != nil {
			t.s = tr.arena.String(unsafe.Slice(unsafe.StringData(piece), len(piece)))
		}
		return
	}
	if t.s != "" {
		first := t.s
		t.s = ""
		t.write(first, tr)
	}
	t.write(piece, tr)
}

// write appends p to the blocks, filling the last block before it starts
// a new one; a block of trackBlock bytes comes from tr (copyTracker.block).
func (t *trackedText) write(p string, tr *copyTracker) {
	if n := len(t.blocks); n > 0 {
		last := t.blocks[n-1]
		k := min(cap(last)-len(last), len(p))
		t.blocks[n-1], p = append(last, p[:k]...), p[k:]
	}
	if p == "" {
		return
	}
	size := 64
	if n := len(t.blocks); n > 0 {
		size = min(2*cap(t.blocks[n-1]), trackBlock)
	}
	var blk []byte
	if size == trackBlock && len(p) <= trackBlock {
		blk = tr.block()
	} else {
		blk = make([]byte, 0, max(size, len(p)))
	}
	t.blocks = append(t.blocks, append(blk, p...))
}

// text returns the text. Blocks are joined into one, of the text's size,
// which then stands for them and is never written again (the next piece
// starts a new block); they become spare blocks of tracker tr.
func (t *trackedText) text(tr *copyTracker) string {
	switch len(t.blocks) {
	case 0:
		return t.s
	case 1:
	default:
		n := 0
		for _, b := range t.blocks {
			n += len(b)
		}
		joined := make([]byte, 0, n)
		for _, b := range t.blocks {
			joined = append(joined, b...)
		}
		tr.spareBlocks(t)
		clear(t.blocks)
		t.blocks = append(t.blocks[:0], joined)
	}
	b := t.blocks[0]
	t.blocks[0] = b[:len(b):len(b)]
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// seen returns the text kept for a key, if it was seen.
func (t *copyTracker) seen(k trackKey) (*trackedText, bool) {
	if t.hasFirst && k == t.first {
		return &t.firstText, true
	}
	for _, e := range t.few {
		if e.k == k {
			return e.t, true
		}
	}
	acc, ok := t.others[k]
	return acc, ok
}

// text returns the text kept for a key, made empty if the key is new.
func (t *copyTracker) text(k trackKey) *trackedText {
	if acc, ok := t.seen(k); ok {
		return acc
	}
	if !t.hasFirst {
		t.first, t.hasFirst = k, true
		return &t.firstText
	}
	acc := &trackedText{}
	if len(t.few) < maxFew {
		t.few = append(t.few, keyedText{k, acc})
		return acc
	}
	if t.others == nil {
		t.others = map[trackKey]*trackedText{}
	}
	t.others[k] = acc
	return acc
}

// observe records one entry and reports whether its arguments are a
// consolidated copy.
func (t *copyTracker) observe(c *core.Chunk, args string, hasArgs bool) bool {
	if t.full {
		return false
	}
	key := t.last
	switch {
	case c.ID != "":
		key = trackKey{by: 'd', id: c.ID}
		if c.HasIndex {
			t.setID(c.Index, c.ID)
		}
	case c.HasIndex:
		if id, ok := t.idAtIndex(c.Index); ok {
			key = trackKey{by: 'd', id: id}
		} else {
			key = trackKey{by: 'x', index: c.Index}
		}
	}
	t.last = key
	if c.ID != "" && c.Name != "" && hasArgs {
		if acc, ok := t.seen(key); ok && isCopy(acc.text(t), args) {
			return true
		}
	}
	acc := t.text(key)
	if t.total += len(args) + key.size(); t.total > maxTracked {
		t.full = true
		t.drop()
		t.firstIndexID, t.hasIndex, t.idFew, t.idAt = "", false, nil, nil
		return false
	}
	acc.add(args, t)
	return false
}

// isCopy reports whether args is a complete JSON object equal, as JSON, to
// the text streamed before it.
func isCopy(before, args string) bool {
	a := strings.TrimSpace(args)
	return len(a) > 0 && a[0] == '{' && jsonvalue.EqualText([]byte(a), []byte(before))
}

// Next returns the next event, io.EOF after the last, or a *DecodeError.
func (s *stream) Next() (core.Event, error) { return streamdec.Pull(&s.q, &s.err, s.pull) }

// pull is pullEvent, with the storage of the events before given back
// first (ReuseEventText) and, when the stream ends, the copy tracker
// released.
func (s *stream) pull() error {
	if s.reuse {
		s.release()
	}
	err := s.pullEvent()
	if err != nil {
		// The stream ends: the copy tracker is done with.
		s.copies.release()
	}
	return err
}

// pullEvent decodes the next SSE event into the queue, or returns the
// error that ends the stream.
func (s *stream) pullEvent() error {
	if s.done {
		return io.EOF
	}
	ev, err := s.dec.NextRaw()
	if err == io.EOF {
		return s.atEOF()
	}
	if err != nil {
		off := int64(-1)
		var se *sse.Error
		if errors.As(err, &se) {
			off = se.Offset
		}
		return wire.Placed(s.op, off, "", err)
	}
	return s.handle(ev)
}

// release gives back, before the next input chunk is decoded, the text and
// the chunks of the events of the last one, which the caller has copied
// (see ReuseEventText).
func (s *stream) release() {
	if s.poison {
		for i := range s.text {
			s.text[i] = '!'
		}
		for i := range s.used {
			s.reusable[i] = core.Chunk{ID: "poisoned", Name: "poisoned", ArgsDelta: "poisoned", Index: -7, HasIndex: true}
		}
	}
	s.text, s.used = s.text[:0], 0
}

// atEOF gives the error that ends the stream at the end of its input:
// io.EOF, or a *DecodeError wrapping core.ErrNotStream for input that is not
// blank but held no event of the protocol.
func (s *stream) atEOF() error {
	off, n, ok := s.in.NotStream()
	if !ok {
		return io.EOF
	}
	return wire.Placed(s.op, off, "", fmt.Errorf("no %s event in %d bytes: %w", s.c.cfg.Name, n, core.ErrNotStream))
}

// unknown notes an event that is not one of the protocol's, the first of
// which is the place named by the error of a body that is no stream.
func (s *stream) unknown() {
	s.in.Unknown(s.dec.Offset())
}

// classify marks the stream as one of the protocol once an event's data
// is a chunk (it has choices or usage, or names a chat.completion object)
// or an error; until then, other JSON objects are unknown events. Data
// that is not such an object is left to the decoding that follows, which
// reports it.
func (s *stream) classify(ev sse.RawEvent, data []byte) {
	if ev.Type == "error" {
		s.in.Known()
		return
	}
	var w struct {
		Object  string          `json:"object"`
		Choices json.RawMessage `json:"choices"`
		Usage   json.RawMessage `json:"usage"`
		Error   json.RawMessage `json:"error"`
	}
	if data[0] != '{' || json.Unmarshal(data, &w) != nil {
		return
	}
	switch {
	case w.Choices != nil, w.Usage != nil, w.Error != nil,
		strings.HasPrefix(w.Object, "chat.completion"), w.Object == "error":
		s.in.Known()
	default:
		s.unknown()
	}
}

// handle turns one SSE event into canonical events on the queue.
func (s *stream) handle(ev sse.RawEvent) error {
	data := bytes.Trim(ev.Data, jsonSpace) // padded data lines
	switch ev.Type {
	case "", "message", "chunk", "error":
	default:
		s.unknown()
		return nil // unknown event types are ignored
	}
	if len(data) == 0 {
		s.unknown()
		return nil // an empty data line carries nothing
	}
	if string(data) == "[DONE]" {
		s.in.Known()
		s.done = true
		s.dec.Release() // nothing after [DONE] is read
		if !s.finished {
			// The stream ended normally but never said why: a finish
			// with no provider reason, so that calls still open are
			// complete (a stream cut before [DONE] gets none, B09-B11).
			s.q.Push(core.Event{Kind: core.EventFinish, Finish: core.FinishOther})
			s.endChunk()
		}
		return nil
	}
	if ev.Type != "error" && !s.noFast && s.fast(data) {
		return nil
	}
	if !s.in.IsKnown() {
		s.classify(ev, data)
	}
	off := s.dec.Offset()
	var w wireResponse
	if err := json.Unmarshal(data, &w); err != nil {
		// json counts bytes read, so the fault is the byte before its
		// offset; lead is the whitespace trimmed off the data.
		lead := len(ev.Data) - len(bytes.TrimLeft(ev.Data, jsonSpace))
		at := func(n int64) int64 { return s.dec.DataOffset(lead + max(int(n)-1, 0)) }
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return wire.Placed(s.op, at(se.Offset), "", fmt.Errorf("%w: %v (event at byte %d)", core.ErrMalformed, err, off))
		case errors.As(err, &te):
			return wire.Placed(s.op, at(te.Offset), te.Field, fmt.Errorf("%w: %s cannot hold JSON %s (event at byte %d)", core.ErrMalformed, te.Type, te.Value, off))
		}
		return wire.Placed(s.op, off, "", fmt.Errorf("%w: %v", core.ErrMalformed, err))
	}
	s.setMeta(w.ID, w.Model)
	if pe := providerError(w.Error); pe != nil {
		s.q.Push(core.Event{Kind: core.EventError, Error: pe})
	} else if w.Object == "error" || ev.Type == "error" {
		pe := &core.ProviderError{Type: scalarText(w.Type), Code: scalarText(w.Code), Message: scalarText(w.Message)}
		s.q.Push(core.Event{Kind: core.EventError, Error: pe})
	}
	for i := range w.Choices {
		ch := &w.Choices[i]
		if ch.Index != nil && *ch.Index != 0 {
			continue // A13: events carry choice 0 only
		}
		if err := s.choice(ch, off, i); err != nil {
			return err
		}
	}
	if w.Usage != nil {
		s.q.Push(core.Event{Kind: core.EventUsage, Usage: s.usage(w.Usage.PromptTokens, w.Usage.CompletionTokens)})
	}
	s.endChunk()
	return nil
}

// setMeta notes the response id and model a chunk names, until the first
// event has been queued: the queue puts them on that event (the first
// id and model seen before it, not later ones).
func (s *stream) setMeta(id, model string) {
	if s.metaSent {
		return
	}
	if s.id == "" {
		s.id = id
	}
	if s.model == "" {
		s.model = model
	}
	s.q.ID, s.q.Model = s.id, s.model
}

// endChunk ends the decoding of one chunk: once it has queued an event,
// the response id and model are settled.
func (s *stream) endChunk() {
	if s.q.Len() > 0 {
		s.metaSent = true
	}
}

// deltaContent is decodeContent for a stream delta: a string is unquoted
// with its bytes kept (jsonstr.UnquoteRaw), so that a character split between
// deltas comes out whole (B05) and one that is not UTF-8 is refused by
// jsonstr.CheckText instead of being replaced by U+FFFD.
func deltaContent(op string, raw json.RawMessage, path string) ([]core.Part, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '"' {
		return decodeContent(op, raw, path)
	}
	text, err := jsonstr.UnquoteRaw(t)
	if err != nil {
		return nil, fieldError(op, path, fmt.Errorf("%w: %v", core.ErrMalformed, err))
	}
	if text == "" {
		return nil, nil
	}
	return []core.Part{core.TextPart(text)}, nil
}

func (s *stream) choice(ch *wireChoice, off int64, i int) error {
	if d := ch.Delta; d != nil {
		if t := s.c.thinking(*d); t != "" {
			s.q.Push(core.Event{Kind: core.EventThinking, Text: t})
		}
		parts, err := deltaContent(s.op, d.Content, pathf("choices[%d].delta.content", i))
		if err != nil {
			var ce *DecodeError
			if errors.As(err, &ce) {
				ce.Offset = off
			}
			return err
		}
		for _, p := range parts {
			if p.Text == "" {
				continue
			}
			kind := core.EventText
			if p.Kind == core.PartThinking {
				kind = core.EventThinking
			}
			s.q.Push(core.Event{Kind: kind, Text: p.Text})
		}
		for j, tc := range d.ToolCalls {
			if tc.Type != "" && tc.Type != "function" {
				continue
			}
			chunk := s.chunk()
			if tc.Index != nil {
				chunk.Index, chunk.HasIndex = *tc.Index, true
			}
			if tc.ID != nil {
				chunk.ID = s.c.fromWire(*tc.ID)
			}
			if tc.Function.Name != nil {
				chunk.Name = *tc.Function.Name
			}
			chunk.Signature = s.c.signature(&tc)
			hasArgs := false
			if raw := bytes.TrimSpace(tc.Function.Arguments); len(raw) > 0 && string(raw) != "null" {
				hasArgs = true
				if raw[0] == '"' {
					// Bytes that are not UTF-8 are kept, so that a
					// character split between deltas comes out whole
					// (B05) and one that is invalid is refused
					// (jsonstr.CheckText), not replaced by U+FFFD.
					d, err := jsonstr.UnquoteRaw(raw)
					chunk.ArgsDelta = d
					if err != nil {
						return wire.Placed(s.op, off, pathf("choices[%d].delta.tool_calls[%d].function.arguments", i, j), fmt.Errorf("%w: %v", core.ErrMalformed, err))
					}
				} else {
					chunk.ArgsDelta = scalarText(raw) // C04: an object, as its JSON text
				}
			}
			s.pushCall(chunk, hasArgs)
		}
	}
	if d := ch.Delta; d != nil && d.FunctionCall != nil {
		if err := s.legacyDelta(d.FunctionCall, off, i); err != nil {
			return err
		}
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		s.q.Push(core.Event{Kind: core.EventFinish, Finish: FinishReason(*ch.FinishReason), ProviderFinish: *ch.FinishReason})
		s.finished = true
	}
	return nil
}

// wireChunk is a chunk as EncodeStream writes it: id, object, created and
// model on every chunk, as every recorded chunk carries them.
type wireChunk struct {
	ID      string           `json:"id,omitempty"`
	Object  string           `json:"object"`
	Created int64            `json:"created"`
	Model   string           `json:"model"`
	Choices []wireChunkChoce `json:"choices"`
	Usage   *wireUsage       `json:"usage,omitempty"`
	Error   json.RawMessage  `json:"error,omitempty"`
}

type wireChunkChoce struct {
	Index        int             `json:"index"`
	Delta        wireMessage     `json:"delta"`
	FinishReason *string         `json:"finish_reason"`
	Logprobs     json.RawMessage `json:"logprobs,omitempty"`
}

// EncodeStream writes events as a Chat Completions stream: one chunk per
// event, the first delta naming the role "assistant", then "data: [DONE]"
// when the events hold a finish (a finish "other" without a provider reason
// is [DONE] alone). What the wire cannot carry is normalised: a chunk's
// Turn, ItemID, Signature and Done and an event's Signature, Data and ItemID
// are dropped; an EventCallEnd without content writes nothing; Chunk.Args is
// written as argument text; a call event reads back as a start exactly when
// it has an id or a name. Argument patches are refused with
// core.ErrUnsupported, and so is a plan, which the wire has no place for
// (written as reasoning it would come back as thinking), before anything is
// written (streamenc.CheckKinds).
func (c *Codec) EncodeStream(w io.Writer, events []core.Event) error {
	if err := streamenc.CheckKinds(c.op("encode stream"), events, false); err != nil {
		return err
	}
	return c.encodeStream(w, streamenc.Events(events))
}

// EncodeLiveStream writes the events of s as EncodeStream writes a list,
// each as it arrives (one chunk per event: nothing is held back); an
// event EncodeStream would refuse before writing is refused when it comes.
func (c *Codec) EncodeLiveStream(w io.Writer, s core.EventStream) error {
	return c.encodeStream(w, streamenc.Live(s))
}

func (c *Codec) encodeStream(w io.Writer, src *streamenc.Source) error {
	op := c.op("encode stream")
	enc := sse.NewEncoder(w)
	var id, model string
	hasFinish, roleSent := false, false
	for {
		ev, i, ok := src.Next()
		if !ok {
			break
		}
		if src.IsLive() {
			if err := streamenc.CheckKind(op, i, ev, false); err != nil {
				return err
			}
		}
		if ev.ID != "" {
			id = ev.ID
		}
		if ev.Model != "" {
			model = ev.Model
		}
		ch := wireChunk{ID: id, Object: "chat.completion.chunk", Model: model, Choices: []wireChunkChoce{}}
		choice := wireChunkChoce{Delta: wireMessage{}}
		switch ev.Kind {
		case core.EventText:
			choice.Delta.Content = jsonString(ev.Text)
		case core.EventThinking, core.EventPlan:
			if c.cfg.ThinkingInContent {
				choice.Delta.Content = thinkingContent(ev.Text, nil)
			} else if c.cfg.ReasoningField == "reasoning" {
				choice.Delta.Reasoning = jsonString(ev.Text)
			} else {
				choice.Delta.ReasoningContent = jsonString(ev.Text)
			}
		case core.EventCallStart, core.EventCallDelta, core.EventCallEnd:
			k := ev.Chunk
			if k == nil {
				return wire.Placed(op, -1, pathf("events[%d].chunk", i), fmt.Errorf("%w: call event without a chunk", core.ErrMalformed))
			}
			if len(k.Patch) > 0 {
				return wire.Placed(op, -1, pathf("events[%d].chunk.patch", i), fmt.Errorf("%w: argument patches", core.ErrUnsupported))
			}
			if ev.Kind == core.EventCallEnd && k.ID == "" && k.Name == "" && k.ArgsDelta == "" && k.Args == nil {
				continue // an end has no wire form of its own
			}
			tc := wireToolCall{}
			if k.HasIndex {
				n := k.Index
				tc.Index = &n
			}
			if k.ID != "" {
				wid, err := c.toWire(k.ID)
				if err != nil {
					return wire.Placed(op, -1, pathf("events[%d].chunk.id", i), err)
				}
				tc.ID, tc.Type = &wid, "function"
			}
			if k.Name != "" || c.cfg.FullDeltas {
				name := k.Name
				tc.Function.Name = &name
				if c.cfg.FullDeltas {
					tc.Type = "function"
				}
			}
			args := k.ArgsDelta
			if k.Args != nil {
				args = *k.Args
			}
			tc.Function.Arguments = jsonString(args)
			choice.Delta.ToolCalls = []wireToolCall{tc}
		case core.EventUsage:
			if ev.Usage == nil {
				return wire.Placed(op, -1, pathf("events[%d].usage", i), fmt.Errorf("%w: usage event without usage", core.ErrMalformed))
			}
			ch.Usage = &wireUsage{PromptTokens: ev.Usage.InputTokens, CompletionTokens: ev.Usage.OutputTokens, TotalTokens: ev.Usage.InputTokens + ev.Usage.OutputTokens}
		case core.EventFinish:
			hasFinish = true
			f := wireFinish(ev.Finish, ev.ProviderFinish)
			if f == "" || ev.Finish == core.FinishOther && ev.ProviderFinish == "" {
				continue // no reason: [DONE] alone says the stream ended
			}
			choice.FinishReason = &f
			choice.Delta = wireMessage{}
		case core.EventError:
			pe := ev.Error
			if pe == nil {
				pe = &core.ProviderError{Message: "unknown error"}
			}
			ch.Error = encodeError(pe)
		default:
			return wire.Placed(op, -1, pathf("events[%d].kind", i), fmt.Errorf("%w: unknown event kind %q", core.ErrMalformed, ev.Kind))
		}
		if ev.Kind != core.EventUsage && ev.Kind != core.EventError {
			if c.cfg.FullDeltas {
				choice.Logprobs = json.RawMessage("null")
				if choice.Delta.Content == nil {
					choice.Delta.Content = json.RawMessage(`""`)
				}
			}
			if !roleSent {
				// Real streams name the role in the first delta, and SDKs
				// (openai-node) refuse a stream whose first delta lacks it.
				choice.Delta.Role = "assistant"
				roleSent = true
			}
			ch.Choices = append(ch.Choices, choice)
		}
		b, err := json.Marshal(ch)
		if err != nil {
			return wire.Placed(op, -1, pathf("events[%d]", i), err)
		}
		if err := enc.Encode(sse.Event{Data: string(b)}); err != nil {
			return wire.Placed(op, -1, pathf("events[%d]", i), err)
		}
	}
	if err := src.Err(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if !hasFinish {
		return nil // a stream without a finish ends as a cut stream does
	}
	if err := enc.Encode(sse.Event{Data: "[DONE]"}); err != nil {
		return wire.Placed(op, -1, "", err)
	}
	return nil
}

// legacyDelta queues a piece of a streamed legacy function_call. A message
// has at most one, so every piece is routed to index 0; the piece that
// names the function starts the call, with the id legacyResponseID gives
// the response's id (none when the stream has no id: the Buffer then
// generates one).
func (s *stream) legacyDelta(fc *wireFunctionArg, off int64, i int) error {
	if zeroFunction(fc) {
		return nil // a zero-valued function_call is an absent one
	}
	chunk := core.Chunk{HasIndex: true}
	if fc.Name != nil && *fc.Name != "" {
		chunk.Name, chunk.Start = *fc.Name, true
		if s.id != "" {
			chunk.ID = legacyResponseID(s.id, nil)
		}
	}
	if raw := bytes.TrimSpace(fc.Arguments); len(raw) > 0 && string(raw) != "null" {
		if raw[0] == '"' {
			if err := json.Unmarshal(raw, &chunk.ArgsDelta); err != nil {
				return wire.Placed(s.op, off, pathf("choices[%d].delta.function_call.arguments", i), fmt.Errorf("%w: %v", core.ErrMalformed, err))
			}
		} else {
			chunk.ArgsDelta = scalarText(raw)
		}
	}
	kind := core.EventCallDelta
	if chunk.Start {
		kind = core.EventCallStart
	}
	s.q.Push(core.Event{Kind: kind, Chunk: &chunk})
	return nil
}

// pushCall queues the event of one tool call entry, whichever path read
// it: c holds its index, id, name, signature and argument text, hasArgs
// says whether the entry had arguments. An entry that repeats a call's
// arguments whole (B02) carries them as Args; one with an id or a name
// starts a call.
func (s *stream) pushCall(c *core.Chunk, hasArgs bool) {
	if s.copies.observe(c, c.ArgsDelta, hasArgs) {
		full := c.ArgsDelta // B02: a consolidated copy replaces
		c.Args, c.ArgsDelta = &full, ""
	}
	kind := core.EventCallDelta
	if c.ID != "" || c.Name != "" {
		kind, c.Start = core.EventCallStart, true
	}
	s.q.Push(core.Event{Kind: kind, Chunk: c})
}

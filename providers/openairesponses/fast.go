package openairesponses

import (
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonscan"
)

// The kinds of event the fast path decodes.
const (
	fastNone = iota
	fastArgs
	fastText
	fastThinking
	fastIgnored
)

// fastType returns what the fast path does with an event type: decode one
// of the delta events, or recognise an event the general path ignores
// (content parts, *.done of text, built-in tool progress, keep-alives).
func fastType(typ []byte) int {
	switch string(typ) {
	case "response.function_call_arguments.delta":
		return fastArgs
	case "response.output_text.delta":
		return fastText
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return fastThinking
	case "response.content_part.added", "response.content_part.done",
		"response.output_text.done", "response.reasoning_text.done",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.added",
		"response.reasoning_summary_part.done", "response.apply_patch_call_operation_diff.delta",
		"response.apply_patch_call_operation_diff.done", "keepalive":
		return fastIgnored
	}
	return fastNone
}

// fastEvent is what the fast path reads from an event. Byte slices are
// views of the event data, still JSON-escaped where the esc flag is set.
type fastEvent struct {
	kind            int
	itemID, delta   []byte
	itemEsc, dltEsc bool
	hasItem, hasDlt bool
	hasIndex        bool
	index           int
}

// fast decodes one event of the common shapes without encoding/json and
// queues its events, exactly as handle's general path would. It reports
// false, having changed nothing, for anything else, which the general
// path then decodes: other event types, escaped or missing types, keys
// that encoding/json would match to a field the fast path does not read
// (case folded or escaped keys included), repeated keys, a delta that is
// not a string, an output_index other than a small plain integer, an
// item_id that is not a well-formed string, and any syntax error.
func (s *stream) fast(data []byte) bool {
	var f fastEvent
	p := jsonscan.New(data)
	if !event(&p, &f) || f.kind == fastNone {
		return false
	}
	var itemID string
	if f.hasItem {
		id, ok := s.itemID(f.itemID, f.itemEsc)
		if !ok {
			return false
		}
		itemID = id
	}
	var delta string
	switch {
	case !f.hasDlt || f.kind == fastIgnored:
	default:
		// As jsonstr.UnquoteRaw: bytes that are not UTF-8 pass unchanged and
		// a lone surrogate escape becomes U+FFFD.
		d, ok := s.strs.Raw(f.delta, f.dltEsc)
		if !ok {
			return false
		}
		delta = d
	}
	// Nothing can fail from here on.
	s.Known()
	s.fastHits++
	if delta == "" {
		return true
	}
	switch f.kind {
	case fastArgs:
		c := s.chunk()
		c.ItemID, c.ArgsDelta = itemID, delta
		c.Index, c.HasIndex = f.index, f.hasIndex
		s.emit(core.Event{Kind: core.EventCallDelta, Chunk: c})
	case fastText:
		s.emit(core.Event{Kind: core.EventText, Text: delta})
	case fastThinking:
		s.emit(core.Event{Kind: core.EventThinking, Text: delta, ItemID: itemID})
	}
	return true
}

// itemID returns the value of an item_id string, reusing the string made
// for the same bytes earlier in the stream, as the deltas of one item, and
// of items interleaved with it, repeat them: the last maxItemIDs ids are
// kept, a new one replacing the oldest. It reports false for invalid UTF-8
// and lone surrogate escapes, which encoding/json replaces and the general
// path must handle.
func (s *stream) itemID(raw []byte, esc bool) (string, bool) {
	for i := range s.itemIDs {
		if e := &s.itemIDs[i]; e.set && e.raw == string(raw) {
			return e.id, true
		}
	}
	v, ok := s.strs.Unescaped(raw, esc)
	if !ok {
		return "", false
	}
	id := s.strs.String(v)
	key := id
	if esc {
		key = s.strs.String(raw)
	}
	s.itemIDs[s.nextID] = itemIDString{raw: key, id: id, set: true}
	s.nextID = (s.nextID + 1) % maxItemIDs
	return id, true
}

// itemIDString is an item id as sent (raw) and as decoded (id).
type itemIDString struct {
	raw, id string
	set     bool
}

// maxItemIDs is how many item ids the stream remembers.
const maxItemIDs = 8

// chunk returns a zero Chunk from a slab (see jsonscan.Take), so that
// call events cost one allocation per jsonscan.SlabSize events.
func (s *stream) chunk() *core.Chunk { return jsonscan.Take(&s.chunks) }

// eventNames are the json names of streamEvent's fields: a key that
// matches one of them, case folded, is never skipped.
var eventNames = []string{"type", "response", "item", "item_id", "output_index", "delta", "arguments", "code", "message", "error"}

// eventKeys are the keys the fast path reads, in the order event numbers
// them: the four it decodes, then keys of every delta event that it only
// checks and skips (naming them spares their case-folded comparison with
// eventNames).
var eventKeys = []string{"type", "item_id", "output_index", "delta", "sequence_number", "content_index", "obfuscation", "logprobs"}

// event reads a whole event of the fast path's shape into f: one object
// whose keys are plain (unescaped) and appear at most once, type a plain
// string, item_id a string, output_index a small integer, delta a string,
// and any other key one that encoding/json ignores, with a value of valid
// syntax.
func event(p *jsonscan.Scanner, f *fastEvent) bool {
	var seenType bool
	ok := p.Object(eventKeys, eventNames, func(k int) bool {
		switch k {
		case 0: // type
			v, esc, ok := p.Str()
			if !ok || esc {
				return false
			}
			seenType, f.kind = true, fastType(v)
		case 1: // item_id
			f.itemID, f.itemEsc, f.hasItem = p.Str()
			return f.hasItem
		case 2: // output_index
			f.index, f.hasIndex = p.Small()
			return f.hasIndex
		case 3: // delta
			f.delta, f.dltEsc, f.hasDlt = p.Str()
			return f.hasDlt
		default: // keys the general path ignores
			return p.Skip()
		}
		return true
	})
	return ok && seenType && p.End()
}

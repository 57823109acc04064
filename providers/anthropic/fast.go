package anthropic

import (
	"bytes"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonscan"
)

// The event types the fast path decodes.
const (
	kindNone = iota
	kindBlockDelta
	kindBlockStart
	kindBlockStop
	kindMessageStart
	kindMessageDelta
	kindMessageStop
	kindPing
)

// deltaPrefix and deltaForms are the bytes of a content_block_delta as
// Anthropic sends it, before and after its index, up to the string of its
// delta: most of a stream's events begin with exactly these bytes.
const deltaPrefix = `{"type":"content_block_delta","index":`

var deltaForms = []struct {
	mid   string // the bytes after the index, up to the string
	typ   []byte // the delta's type
	field int    // the fastDelta field of the string (see deltaKeys)
}{
	{`,"delta":{"type":"input_json_delta","partial_json":`, []byte("input_json_delta"), 4},
	{`,"delta":{"type":"text_delta","text":`, []byte("text_delta"), 1},
	{`,"delta":{"type":"thinking_delta","thinking":`, []byte("thinking_delta"), 2},
}

// deltaAsSent reads a content_block_delta whose bytes are exactly those
// Anthropic sends (deltaPrefix, the index, one of deltaForms, a string,
// "}", the JSON white space Anthropic pads some events with, "}"),
// comparing bytes instead of scanning keys, and fills f as event would. It
// reports false, with f untouched, for any other bytes, which event then
// reads.
func deltaAsSent(data []byte, f *fastEvent) bool {
	if !bytes.HasPrefix(data, []byte(deltaPrefix)) {
		return false
	}
	p := jsonscan.New(data)
	p.Seek(len(deltaPrefix))
	index, ok := p.Small()
	if !ok {
		return false
	}
	for _, form := range deltaForms {
		if !bytes.HasPrefix(data[p.Pos():], []byte(form.mid)) {
			continue
		}
		p.Seek(p.Pos() + len(form.mid))
		raw, esc, ok := p.Str()
		if !ok || !p.Byte('}') || !p.Byte('}') || p.Pos() != len(data) {
			return false
		}
		f.kind, f.index, f.hasIndex, f.hasDelta = kindBlockDelta, index, true, true
		f.delta.typ = fastStr{raw: form.typ, set: true}
		*f.delta.field(form.field) = fastStr{raw: raw, esc: esc, set: true}
		return true
	}
	return false
}

// fastType returns what the fast path does with an event type.
func fastType(typ []byte) int {
	switch string(typ) {
	case "content_block_delta":
		return kindBlockDelta
	case "content_block_start":
		return kindBlockStart
	case "content_block_stop":
		return kindBlockStop
	case "message_start":
		return kindMessageStart
	case "message_delta":
		return kindMessageDelta
	case "message_stop":
		return kindMessageStop
	case "ping":
		return kindPing
	}
	return kindNone
}

// fastStr is a string value the fast path read: the bytes between its
// quotes, a view of the event data, still JSON-escaped when esc is set.
// A null or missing value is the zero fastStr, as encoding/json leaves a
// field it does not set.
type fastStr struct {
	raw []byte
	esc bool
	set bool
}

// str reads a string or null into v.
func str(p *jsonscan.Scanner, v *fastStr) bool {
	if p.Null() {
		*v = fastStr{}
		return true
	}
	v.raw, v.esc, v.set = p.Str()
	return v.set
}

// fastUsage is a usage object; a count is -1 when absent or null.
type fastUsage struct {
	set           bool
	input, output int
}

// fastDelta is the delta object of content_block_delta and message_delta.
type fastDelta struct {
	typ, text, thinking, signature, partialJSON, stopReason fastStr
}

// field returns the field that deltaKeys[k] names.
func (d *fastDelta) field(k int) *fastStr {
	switch k {
	case 0:
		return &d.typ
	case 1:
		return &d.text
	case 2:
		return &d.thinking
	case 3:
		return &d.signature
	case 4:
		return &d.partialJSON
	}
	return &d.stopReason
}

// fastBlock is the content_block of content_block_start; input is its raw
// input value, nil when absent.
type fastBlock struct {
	typ, text, thinking, signature, data, id, name fastStr
	input                                          []byte
}

// field returns the string field that blockKeys[k] names (k < 7).
func (b *fastBlock) field(k int) *fastStr {
	switch k {
	case 0:
		return &b.typ
	case 1:
		return &b.text
	case 2:
		return &b.thinking
	case 3:
		return &b.signature
	case 4:
		return &b.data
	case 5:
		return &b.id
	}
	return &b.name
}

// fastMessage is the message of message_start.
type fastMessage struct {
	id, model fastStr
	usage     fastUsage
}

// fastEvent is what the fast path reads from an event.
type fastEvent struct {
	kind       int
	index      int
	hasIndex   bool
	hasDelta   bool
	delta      fastDelta
	hasBlock   bool
	block      fastBlock
	hasMessage bool
	message    fastMessage
	usage      fastUsage // of message_delta
}

// The json names of the general path's structs, in the order the fast
// path numbers them: a key that matches one of them, case folded, is never
// skipped. streamEvent's "error" is a name the fast path does not read, so
// an event with one takes the general path.
var (
	eventKeys   = []string{"type", "index", "delta", "content_block", "message", "usage"}
	eventNames  = []string{"type", "index", "message", "content_block", "delta", "usage", "error"}
	deltaKeys   = []string{"type", "text", "thinking", "signature", "partial_json", "stop_reason"}
	blockKeys   = []string{"type", "text", "thinking", "signature", "data", "id", "name", "input"}
	blockNames  = []string{"type", "text", "thinking", "signature", "data", "id", "name", "input", "tool_use_id", "content", "is_error"}
	messageKeys = []string{"id", "model", "usage"}
	usageKeys   = []string{"input_tokens", "output_tokens"}
)

// event reads a whole event of the fast path's shape into f: one object
// whose keys are plain (unescaped), appear at most once and are either
// read or ignored by encoding/json, with string values where the general
// path decodes strings, small plain integers where it decodes ints, and
// values of valid syntax elsewhere.
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
			return true
		case 1: // index
			f.index, f.hasIndex = p.Small()
			return f.hasIndex
		case 2: // delta
			f.hasDelta = true
			d := &f.delta
			return p.Object(deltaKeys, deltaKeys, func(k int) bool { return str(p, d.field(k)) })
		case 3: // content_block
			f.hasBlock = true
			b := &f.block
			return p.Object(blockKeys, blockNames, func(k int) bool {
				if k == 7 { // input
					v, ok := p.Value()
					b.input = v
					return ok
				}
				return str(p, b.field(k))
			})
		case 4: // message
			f.hasMessage = true
			m := &f.message
			return p.Object(messageKeys, messageKeys, func(k int) bool {
				if k == 2 {
					return usage(p, &m.usage)
				}
				if k == 0 {
					return str(p, &m.id)
				}
				return str(p, &m.model)
			})
		default: // usage
			return usage(p, &f.usage)
		}
	})
	return ok && seenType && f.kind != kindNone && p.End()
}

// usage reads a usage object or null into u.
func usage(p *jsonscan.Scanner, u *fastUsage) bool {
	*u = fastUsage{input: -1, output: -1}
	if p.Null() {
		return true
	}
	u.set = true
	return p.Object(usageKeys, usageKeys, func(k int) bool {
		if p.Null() {
			return true
		}
		n, ok := p.Small()
		if k == 0 {
			u.input = n
		} else {
			u.output = n
		}
		return ok
	})
}

// fast decodes one event of the common shapes without encoding/json and
// queues its events, exactly as handle's general path would. It reports
// false, having changed nothing, for anything else, which the general
// path then decodes: error and unknown events, delta and block types it
// does not know, escaped or missing types, keys that encoding/json would
// match to a field the fast path does not read (case folded or escaped
// keys included), repeated keys, values of another type than the fast
// path expects, strings encoding/json would change (invalid UTF-8, lone
// surrogate escapes) where the general path decodes a Go string, any
// syntax error, and every event the general path would refuse or that
// would need the A18 check.
func (s *stream) fast(data []byte) bool {
	var f fastEvent
	if !deltaAsSent(data, &f) {
		p := jsonscan.New(data)
		if !event(&p, &f) {
			return false
		}
	}
	var ok bool
	switch f.kind {
	case kindBlockDelta:
		ok = s.fastBlockDelta(&f)
	case kindBlockStart:
		ok = s.fastBlockStart(&f)
	case kindBlockStop:
		ok = s.fastBlockStop(&f)
	case kindMessageStart:
		ok = s.fastMessageStart(&f)
	case kindMessageDelta:
		ok = s.fastMessageDelta(&f)
	case kindMessageStop:
		s.flush()
		s.stopped, ok = true, true
	default: // ping
		ok = true
	}
	if ok {
		s.Known()
		s.fastHits++
	}
	return ok
}

// text returns a string value as encoding/json decodes it into a Go
// string, "" for a null or missing one, or false when encoding/json would
// change it (see jsonscan.Strings.Text).
func (s *stream) text(v fastStr) (string, bool) {
	if !v.set {
		return "", true
	}
	return s.strs.Text(v.raw, v.esc)
}

// fastBlockDelta is content_block_delta.
func (s *stream) fastBlockDelta(f *fastEvent) bool {
	if !f.hasIndex || !f.hasDelta || f.delta.typ.esc {
		return false
	}
	b := s.blocks.get(f.index)
	if b == nil || !b.open {
		return false
	}
	d := &f.delta
	var v fastStr
	var want string // the block type the delta applies to
	switch string(d.typ.raw) {
	case "text_delta":
		v, want = d.text, "text"
	case "thinking_delta":
		v, want = d.thinking, "thinking"
	case "input_json_delta":
		v, want = d.partialJSON, "tool_use"
	case "signature_delta":
		sig, ok := s.text(d.signature)
		if !ok {
			return false
		}
		s.flush()
		if sig != "" && b.typ == "thinking" {
			s.emit(core.Event{Kind: core.EventThinking, Signature: sig})
		}
		return true
	default:
		return false
	}
	// As jsonstr.UnquoteRaw: bytes that are not UTF-8 pass unchanged and a
	// lone surrogate escape becomes U+FFFD.
	var t string
	if v.set {
		var ok bool
		if t, ok = s.strs.Raw(v.raw, v.esc); !ok {
			return false
		}
	}
	if t != "" && b.typ == "tool_use" && b.startInput != "" && len(b.streamed)+len(t) > s.a.maxEvent {
		return false // the general path reports the bound
	}
	// Nothing can fail from here on.
	s.flush()
	if t == "" || b.typ != want {
		return true
	}
	switch want {
	case "text":
		s.emit(core.Event{Kind: core.EventText, Text: t})
	case "thinking":
		s.emit(core.Event{Kind: core.EventThinking, Text: t})
	default:
		s.callDelta(f.index, b, t)
	}
	return true
}

// fastBlockStart is content_block_start.
func (s *stream) fastBlockStart(f *fastEvent) bool {
	if !f.hasIndex || !f.hasBlock || f.block.typ.esc {
		return false
	}
	i, cb := f.index, &f.block
	if b := s.blocks.get(i); b != nil && b.open || s.blocks.n >= s.a.maxBlocks {
		return false
	}
	b := blockState{open: true}
	var text, sig string
	var ok bool
	switch string(cb.typ.raw) {
	case "text":
		b.typ = "text"
		text, ok = s.text(cb.text)
	case "thinking":
		b.typ = "thinking"
		if text, ok = s.text(cb.thinking); ok {
			sig, ok = s.text(cb.signature)
		}
	case "redacted_thinking":
		b.typ = "redacted_thinking"
		text, ok = s.text(cb.data)
	case "tool_use":
		b.typ = "tool_use"
		var name string
		if b.id, ok = s.text(cb.id); ok {
			name, ok = s.text(cb.name)
		}
		if !ok || b.id != "" && s.ids.Get(b.id) != nil {
			return false
		}
		if in := cb.input; len(in) > 0 && string(in) != "null" && string(in) != "{}" {
			b.startInput = string(in)
		}
		s.started = true
		s.flush()
		if b.id != "" {
			s.ids.Put(b.id, struct{}{})
		}
		s.addBlock(i, b)
		c := s.chunk()
		c.Index, c.HasIndex, c.ID, c.Name, c.Start = i, true, b.id, name, true
		s.emit(core.Event{Kind: core.EventCallStart, Chunk: c})
		return true
	default:
		// Provider-run tools and unknown blocks are ignored, as their
		// deltas; a set type that is none of the above counts too.
		ok = cb.typ.set
	}
	if !ok {
		return false
	}
	s.started = true
	s.flush()
	s.addBlock(i, b)
	switch {
	case text == "":
	case b.typ == "text":
		s.emit(core.Event{Kind: core.EventText, Text: text})
	case b.typ == "thinking":
		s.emit(core.Event{Kind: core.EventThinking, Text: text})
	default: // redacted_thinking
		s.emit(core.Event{Kind: core.EventThinking, Data: text})
	}
	if sig != "" {
		s.emit(core.Event{Kind: core.EventThinking, Signature: sig})
	}
	return true
}

// fastBlockStop is content_block_stop.
func (s *stream) fastBlockStop(f *fastEvent) bool {
	if !f.hasIndex {
		return false
	}
	b := s.blocks.get(f.index)
	if b == nil || !b.open || b.startInput != "" && b.sawDelta {
		return false // the general path reports it, or checks A18
	}
	s.flush()
	s.stop(f.index, b)
	return true
}

// fastMessageStart is message_start.
func (s *stream) fastMessageStart(f *fastEvent) bool {
	id, ok := s.text(f.message.id)
	if !ok {
		return false
	}
	model, ok := s.text(f.message.model)
	if !ok {
		return false
	}
	s.started = true
	s.Q.ID, s.Q.Model = id, model
	if u := f.message.usage; f.hasMessage && u.set && u.input >= 0 {
		s.input, s.hasInput = u.input, true
	}
	return true
}

// fastMessageDelta is message_delta.
func (s *stream) fastMessageDelta(f *fastEvent) bool {
	stop, ok := s.text(f.delta.stopReason)
	if !ok {
		return false
	}
	var u *core.Usage
	if f.usage.set {
		u = s.newUsage(core.Usage{InputTokens: max(f.usage.input, 0), OutputTokens: max(f.usage.output, 0)}, f.usage.input >= 0)
	}
	s.messageDelta(stop, u)
	return true
}

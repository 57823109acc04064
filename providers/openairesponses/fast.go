package openairesponses

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/sse"
	"github.com/toolconform/conform/providers/internal/wire"
)

// sseInput reads a stream's SSE events with the shared decoder's NextRaw,
// so that an event's data is a view of the decoder's buffer rather than a
// copy (wire.SSEReader copies it twice). Its offsets, limits and errors are
// those of wire.SSEReader.
type sseInput struct {
	in *countingReader
	d  *sse.Decoder
}

func newSSEInput(r io.Reader, max int) *sseInput {
	in := &countingReader{r: r}
	return &sseInput{in: in, d: sse.NewDecoder(in, sse.FlushAtEOF(), sse.MaxEventSize(max))}
}

// countingReader counts the bytes read and notes whether any of them was
// more than ASCII white space (space, tab, CR, LF: the only white space SSE
// framing knows), as wire.SSEReader's does. Judging bytes one at a time
// keeps the verdict independent of how the body is split into reads, which
// a Unicode space split across two reads would not be.
type countingReader struct {
	r     io.Reader
	n     int64
	solid bool
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if !c.solid {
		c.solid = len(bytes.Trim(p[:n], " \t\r\n")) > 0
	}
	return n, err
}

// Offset returns the number of bytes read so far.
func (s *sseInput) Offset() int64 { return s.in.n }

// Blank reports whether the bytes read so far are all ASCII white space
// (an empty body is blank).
func (s *sseInput) Blank() bool { return !s.in.solid }

// Next returns the next event, whose Data is valid until the next call,
// or io.EOF after the last.
func (s *sseInput) Next() (wire.SSEEvent, error) {
	ev, err := s.d.NextRaw()
	if err == io.EOF {
		return wire.SSEEvent{}, io.EOF
	}
	if err != nil {
		off := int64(-1)
		var se *sse.Error
		if errors.As(err, &se) {
			off = se.Offset
		}
		if errors.Is(err, sse.ErrEventTooLarge) {
			return wire.SSEEvent{}, &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: off, Err: fmt.Errorf("%w: %v", ErrTooLarge, err)}
		}
		return wire.SSEEvent{}, &DecodeError{Protocol: protocolName, Op: "decode stream", Offset: off, Err: err}
	}
	return wire.SSEEvent{Name: ev.Type, Data: ev.Data, Offset: s.d.Offset()}, nil
}

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
	p := scanner{b: data}
	if !p.event(&f) || f.kind == fastNone {
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
	case !f.dltEsc:
		delta = s.arenaString(f.delta)
	default:
		// As wire.UnquoteRaw: bytes that are not UTF-8 pass unchanged and
		// a lone surrogate escape becomes U+FFFD.
		out, _, err := wire.AppendUnescaped(s.scratch[:0], f.delta)
		s.scratch = out
		if err != nil {
			return false
		}
		delta = s.arenaString(out)
	}
	// Nothing can fail from here on.
	s.known = true
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
// of items interleaved with it, repeat them. It reports false for invalid
// UTF-8 and lone surrogate escapes, which encoding/json replaces and the
// general path must handle.
func (s *stream) itemID(raw []byte, esc bool) (string, bool) {
	if id, ok := s.itemIDs[string(raw)]; ok {
		return id, true
	}
	if !utf8.Valid(raw) {
		return "", false
	}
	v := raw
	if esc {
		out, lone, err := wire.AppendUnescaped(s.scratch[:0], raw)
		s.scratch = out
		if err != nil || lone {
			return "", false
		}
		v = out
	}
	id := string(v)
	if s.itemIDs == nil || len(s.itemIDs) >= maxItemIDs {
		// Bounded: a stream of ever new ids costs one string each, as
		// without the cache, and keeps at most maxItemIDs of them.
		s.itemIDs = make(map[string]string)
	}
	if len(raw) <= arenaMax {
		s.itemIDs[string(raw)] = id
	}
	return id, true
}

// maxItemIDs bounds the item ids the stream remembers.
const maxItemIDs = 64

// chunkSlab is how many chunks the stream allocates at a time.
const chunkSlab = 64

// chunk returns a zero Chunk from a slab, so that call events cost one
// allocation per chunkSlab events. A caller that keeps one event keeps its
// slab.
func (s *stream) chunk() *core.Chunk {
	if len(s.chunks) == 0 {
		s.chunks = make([]core.Chunk, chunkSlab)
	}
	c := &s.chunks[0]
	s.chunks = s.chunks[1:]
	return c
}

// The string arena: small strings are copied into shared append-only
// blocks instead of allocated one by one.
const (
	arenaBlock = 8 << 10
	arenaMax   = 1 << 10 // longer strings get an allocation of their own
)

// arenaString returns b as a string. Strings of up to arenaMax bytes are appended
// to the current arena block and returned as a view of it; a block is
// never written again where a string points, so the strings are immutable
// as Go requires, and a block is freed when no string points into it.
func (s *stream) arenaString(b []byte) string {
	switch {
	case len(b) == 0:
		return ""
	case len(b) > arenaMax:
		return string(b)
	}
	if cap(s.arena)-len(s.arena) < len(b) {
		s.arena = make([]byte, 0, arenaBlock)
	}
	start := len(s.arena)
	s.arena = append(s.arena, b...)
	return unsafe.String(&s.arena[start], len(b))
}

// scanner reads the fast path's subset of JSON from b. Every method
// reports false on anything outside that subset, syntax errors included.
type scanner struct {
	b []byte
	i int
}

func (p *scanner) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// byte consumes c after optional whitespace.
func (p *scanner) byte(c byte) bool {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str consumes a string after optional whitespace and returns its content
// between the quotes, and whether it holds escapes. Control characters and
// malformed escapes are refused, as encoding/json refuses them.
func (p *scanner) str() (content []byte, esc, ok bool) {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil, false, false
	}
	start := p.i + 1
	for i := start; i < len(p.b); i++ {
		switch c := p.b[i]; {
		case c == '"':
			p.i = i + 1
			return p.b[start:i], esc, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			esc = true
			i++
			if i >= len(p.b) {
				return nil, false, false
			}
			switch p.b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(p.b) || !isHex(p.b[i+1]) || !isHex(p.b[i+2]) || !isHex(p.b[i+3]) || !isHex(p.b[i+4]) {
					return nil, false, false
				}
				i += 4
			default:
				return nil, false, false
			}
		}
	}
	return nil, false, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// small consumes a non-negative integer of at most 9 digits with no
// fraction or exponent, the only output_index the fast path takes.
func (p *scanner) small() (int, bool) {
	p.ws()
	start, n := p.i, 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		n = n*10 + int(p.b[p.i]-'0')
		p.i++
	}
	digits := p.i - start
	if digits == 0 || digits > 9 || (digits > 1 && p.b[start] == '0') {
		return 0, false
	}
	if p.i < len(p.b) {
		switch p.b[p.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	return n, true
}

// number consumes a JSON number of any size.
func (p *scanner) number() bool {
	p.ws()
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	intStart := p.i
	n := digits()
	if n == 0 || (n > 1 && p.b[intStart] == '0') {
		return false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return p.i > start
}

// lit consumes a literal.
func (p *scanner) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// maxSkipDepth bounds the nesting of a skipped value; deeper ones are left
// to the general path.
const maxSkipDepth = 32

// skip consumes any JSON value, checking its syntax.
func (p *scanner) skip(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	p.ws()
	if p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		_, _, ok := p.str()
		return ok
	case c == '{':
		p.i++
		if p.byte('}') {
			return true
		}
		for {
			if _, _, ok := p.str(); !ok || !p.byte(':') || !p.skip(depth+1) {
				return false
			}
			if p.byte(',') {
				continue
			}
			return p.byte('}')
		}
	case c == '[':
		p.i++
		if p.byte(']') {
			return true
		}
		for {
			if !p.skip(depth + 1) {
				return false
			}
			if p.byte(',') {
				continue
			}
			return p.byte(']')
		}
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	default:
		return p.number()
	}
}

// eventNames are the json names of streamEvent's fields: a key that
// matches one of them, case folded, is never skipped.
var eventNames = []string{"type", "response", "item", "item_id", "output_index", "delta", "arguments", "code", "message", "error"}

// ignored reports whether encoding/json would ignore key when decoding a
// streamEvent: an ASCII key that matches none of eventNames, case folded.
func ignored(key []byte) bool {
	for _, c := range key {
		if c >= 0x80 {
			return false
		}
	}
	for _, name := range eventNames {
		if strings.EqualFold(string(key), name) {
			return false
		}
	}
	return true
}

// event reads a whole event of the fast path's shape into f: one object
// whose keys are plain (unescaped) and appear at most once, type a plain
// string, item_id a string, output_index a small integer, delta a string,
// and any other key one that encoding/json ignores, with a value of valid
// syntax.
func (p *scanner) event(f *fastEvent) bool {
	if !p.byte('{') {
		return false
	}
	var seenType, seenIndex bool
	for {
		key, esc, ok := p.str()
		if !ok || esc || !p.byte(':') {
			return false
		}
		switch string(key) {
		case "type":
			v, esc, ok := p.str()
			if !ok || esc || seenType {
				return false
			}
			seenType, f.kind = true, fastType(v)
		case "item_id":
			if f.hasItem {
				return false
			}
			f.itemID, f.itemEsc, f.hasItem = p.str()
			if !f.hasItem {
				return false
			}
		case "output_index":
			if seenIndex {
				return false
			}
			seenIndex = true
			if f.index, f.hasIndex = p.small(); !f.hasIndex {
				return false
			}
		case "delta":
			if f.hasDlt {
				return false
			}
			f.delta, f.dltEsc, f.hasDlt = p.str()
			if !f.hasDlt {
				return false
			}
		default:
			if !ignored(key) || !p.skip(0) {
				return false
			}
		}
		if p.byte(',') {
			continue
		}
		if !p.byte('}') {
			return false
		}
		p.ws()
		return seenType && p.i == len(p.b)
	}
}

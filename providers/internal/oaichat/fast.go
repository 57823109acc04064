package oaichat

import (
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/wire"
)

// fastChunk is what the fast path reads from the common chunk shape: a
// text delta or one argument delta of one call, and the response id and
// model. Byte slices are views of the event data, still JSON-escaped where
// the matching esc flag is set.
type fastChunk struct {
	id, model       []byte
	idEsc, modelEsc bool
	hasID, hasModel bool

	text    []byte
	textEsc bool
	hasText bool

	// reasoning_content and reasoning, when strings.
	rc, r       []byte
	rcEsc, rEsc bool
	hasRC, hasR bool

	call     bool
	hasIndex bool
	index    int
	args     []byte
	argsEsc  bool
	hasArgs  bool
}

// fast decodes one chunk of the common shape without encoding/json and
// queues its events, exactly as handle's general path would. It reports
// false, having changed nothing, for anything else, which the general path
// then decodes: start chunks (id, type, name), finish reasons, usage,
// errors, reasoning fields, several choices or calls, unknown or repeated
// keys, numbers other than small plain integers, \u escapes that are not
// well-formed, invalid UTF-8 and any syntax error.
func (s *stream) fast(data []byte) bool {
	var f fastChunk
	p := scanner{b: data}
	if !p.chunk(&f) {
		return false
	}
	var text, args string
	if f.hasText {
		t, ok := s.unescape(f.text, f.textEsc)
		if !ok {
			return false
		}
		text = t
	}
	if f.hasArgs {
		a, ok := s.unescape(f.args, f.argsEsc)
		if !ok {
			return false
		}
		args = a
	}
	var thinking string
	first, second := f.rcThinking()
	if s.c.cfg.ReasoningField == "reasoning" {
		first, second = second, first
	}
	for _, t := range []fastThinking{first, second} {
		if !t.ok {
			continue
		}
		v, ok := s.unescape(t.raw, t.esc)
		if !ok {
			return false
		}
		if v != "" {
			thinking = v
			break
		}
	}
	var id, model string
	if !s.metaSent && (s.id == "" && f.hasID || s.model == "" && f.hasModel) {
		var ok bool
		if id, ok = s.unescape(f.id, f.idEsc); !ok {
			return false
		}
		if model, ok = s.unescape(f.model, f.modelEsc); !ok {
			return false
		}
	}
	// Nothing can fail from here on.
	if !s.metaSent {
		if s.id == "" {
			s.id = id
		}
		if s.model == "" {
			s.model = model
		}
	}
	if thinking != "" {
		s.queue = append(s.queue, core.Event{Kind: core.EventThinking, Text: thinking})
	}
	if text != "" {
		s.queue = append(s.queue, core.Event{Kind: core.EventText, Text: text})
	}
	if f.call {
		c := s.chunk()
		c.Index, c.HasIndex, c.ArgsDelta = f.index, f.hasIndex, args
		s.observeDelta(c, args)
		s.queue = append(s.queue, core.Event{Kind: core.EventCallDelta, Chunk: c})
	}
	s.meta()
	s.fastHits++
	return true
}

// observeDelta records an argument delta without id or name in the copy
// tracker exactly as copyTracker.observe does (such an entry is never a
// consolidated copy), but without building the tracker's key anew for
// every delta: the key of an index is kept while the id seen at that index
// stays the same.
func (s *stream) observeDelta(c *core.Chunk, args string) {
	t := &s.copies
	if t.full {
		return
	}
	if t.args == nil {
		t.args, t.idAt = map[string]*strings.Builder{}, map[int]string{}
	}
	key := t.last
	if c.HasIndex {
		id, ok := t.idAt[c.Index]
		k, cached := s.keys[c.Index]
		if !cached || k.id != id || k.ok != ok {
			k = trackedKey{id: id, ok: ok, key: "ix:" + strconv.Itoa(c.Index)}
			if ok {
				k.key = "id:" + id
			}
			if s.keys == nil {
				s.keys = map[int]trackedKey{}
			}
			s.keys[c.Index] = k
		}
		key = k.key
	}
	t.last = key
	acc, seen := t.args[key]
	if !seen {
		acc = &strings.Builder{}
		t.args[key] = acc
	}
	if t.total += len(args) + len(key); t.total > maxTracked {
		t.full, t.args, t.idAt = true, nil, nil
		return
	}
	acc.WriteString(args)
}

// trackedKey is the copy tracker's key for a call index, and the id seen
// at that index it was made from.
type trackedKey struct {
	id  string
	ok  bool
	key string
}

// fastThinking is a reasoning field's string, still escaped.
type fastThinking struct {
	raw     []byte
	esc, ok bool
}

// rcThinking returns the reasoning_content and reasoning strings.
func (f *fastChunk) rcThinking() (rc, r fastThinking) {
	return fastThinking{f.rc, f.rcEsc, f.hasRC}, fastThinking{f.r, f.rEsc, f.hasR}
}

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

// str returns b as a string. Strings of up to arenaMax bytes are appended
// to the current arena block and returned as a view of it; a block is
// never written again where a string points, so the strings are immutable
// as Go requires, and a block is freed when no string points into it.
func (s *stream) str(b []byte) string {
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

// unescape returns the value of a JSON string from its content between
// the quotes, which the scanner has checked, decoded by wire's
// AppendUnescaped into the reused scratch buffer. It reports false for
// invalid UTF-8 and for \u escapes of lone surrogates, which encoding/json
// replaces and the general path must handle.
func (s *stream) unescape(raw []byte, esc bool) (string, bool) {
	if !utf8.Valid(raw) {
		return "", false
	}
	if !esc {
		return s.str(raw), true
	}
	out, lone, err := wire.AppendUnescaped(s.scratch[:0], raw)
	s.scratch = out
	if err != nil || lone {
		return "", false
	}
	return s.str(out), true
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

// null consumes a null literal after optional whitespace.
func (p *scanner) null() bool {
	p.ws()
	if len(p.b)-p.i >= 4 && string(p.b[p.i:p.i+4]) == "null" {
		p.i += 4
		return true
	}
	return false
}

// str consumes a string after optional whitespace and returns its content
// between the quotes, and whether it holds escapes. Control characters and
// malformed escapes are refused.
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

// strOrNull consumes a string or null.
func (p *scanner) strOrNull() bool {
	if p.null() {
		return true
	}
	_, _, ok := p.str()
	return ok
}

// small consumes a non-negative integer of at most 9 digits with no
// fraction or exponent, the only numbers the fast path takes.
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

// object consumes an object whose values field reads, key by key. Keys
// must be plain (unescaped) and each may appear once: field gets a key
// number from keys (its position) and reports whether it read the value.
// A key that is not in keys is skipped with its value when it does not
// match, without regard to case, one of the names encoding/json would
// give the general path (known), since the general path ignores it too;
// otherwise the fast path gives up. An empty object is refused, as the
// general path handles it.
func (p *scanner) object(keys, known []string, field func(k int) bool) bool {
	if !p.byte('{') {
		return false
	}
	seen := uint32(0)
	for {
		key, esc, ok := p.str()
		if !ok || esc || !p.byte(':') {
			return false
		}
		k := -1
		for j, name := range keys {
			if string(key) == name {
				k = j
				break
			}
		}
		switch {
		case k >= 0:
			if seen&(1<<k) != 0 || !field(k) {
				return false
			}
			seen |= 1 << k
		case !ignored(key, known) || !p.skip(0):
			return false
		}
		if p.byte(',') {
			continue
		}
		return p.byte('}')
	}
}

// ignored reports whether encoding/json would ignore key for a struct whose
// field names are known: an ASCII key that matches none of them, case
// folded.
func ignored(key []byte, known []string) bool {
	for _, c := range key {
		if c >= 0x80 {
			return false
		}
	}
	for _, name := range known {
		if strings.EqualFold(string(key), name) {
			return false
		}
	}
	return true
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
		raw, _, ok := p.str()
		return ok && utf8.Valid(raw)
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
		return p.null()
	default:
		return p.number()
	}
}

// lit consumes a literal.
func (p *scanner) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// The keys the fast path knows, at each level of a chunk.
var (
	chunkKeys    = []string{"id", "object", "created", "model", "system_fingerprint", "service_tier", "obfuscation", "usage", "choices"}
	choiceKeys   = []string{"index", "delta", "logprobs", "finish_reason"}
	deltaKeys    = []string{"role", "content", "tool_calls", "refusal", "reasoning_content", "reasoning"}
	toolCallKeys = []string{"index", "function"}
	functionKeys = []string{"arguments"}

	// The json names of the wire structs the general path decodes into
	// (wireResponse, wireChoice, wireMessage, wireToolCall,
	// wireFunctionArg): keys that match one of them, case folded, are
	// never skipped.
	chunkNames    = []string{"id", "object", "model", "choices", "usage", "error", "message", "type", "code"}
	choiceNames   = []string{"index", "message", "delta", "finish_reason"}
	deltaNames    = []string{"role", "content", "reasoning_content", "reasoning", "tool_calls", "tool_call_id", "name"}
	toolCallNames = []string{"index", "id", "type", "function", "extra_content"}
	functionNames = []string{"name", "arguments"}
)

// chunk reads a whole chunk of the common shape into f.
func (p *scanner) chunk(f *fastChunk) bool {
	ok := p.object(chunkKeys, chunkNames, func(k int) bool {
		switch chunkKeys[k] {
		case "id":
			f.id, f.idEsc, f.hasID = p.str()
			return f.hasID
		case "object":
			v, esc, ok := p.str()
			return ok && !esc && string(v) == "chat.completion.chunk"
		case "created":
			return p.number()
		case "model":
			f.model, f.modelEsc, f.hasModel = p.str()
			return f.hasModel
		case "system_fingerprint", "service_tier", "obfuscation":
			return p.strOrNull()
		case "usage":
			return p.null()
		default: // choices
			if !p.byte('[') {
				return false
			}
			if p.byte(']') {
				return true
			}
			return p.choice(f) && p.byte(']')
		}
	})
	p.ws()
	return ok && p.i == len(p.b)
}

// choice reads the one choice of a chunk, which must be choice 0.
func (p *scanner) choice(f *fastChunk) bool {
	return p.object(choiceKeys, choiceNames, func(k int) bool {
		switch choiceKeys[k] {
		case "index":
			n, ok := p.small()
			return ok && n == 0
		case "delta":
			return p.delta(f)
		default: // logprobs, finish_reason
			return p.null()
		}
	})
}

// delta reads a delta holding text or one argument delta.
func (p *scanner) delta(f *fastChunk) bool {
	return p.object(deltaKeys, deltaNames, func(k int) bool {
		switch deltaKeys[k] {
		case "role":
			_, _, ok := p.str()
			return ok
		case "content":
			if p.null() {
				return true
			}
			f.text, f.textEsc, f.hasText = p.str()
			return f.hasText
		case "tool_calls":
			if !p.byte('[') {
				return false
			}
			f.call = true
			return p.object(toolCallKeys, toolCallNames, func(k int) bool {
				if toolCallKeys[k] == "index" {
					f.index, f.hasIndex = p.small()
					return f.hasIndex
				}
				return p.object(functionKeys, functionNames, func(int) bool {
					f.args, f.argsEsc, f.hasArgs = p.str()
					return f.hasArgs
				})
			}) && p.byte(']')
		case "reasoning_content":
			if p.null() {
				return true
			}
			f.rc, f.rcEsc, f.hasRC = p.str()
			return f.hasRC
		case "reasoning":
			if p.null() {
				return true
			}
			f.r, f.rEsc, f.hasR = p.str()
			return f.hasR
		default: // refusal
			return p.null()
		}
	})
}

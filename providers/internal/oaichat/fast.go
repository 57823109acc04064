package oaichat

import (
	"unicode/utf8"
	"unsafe"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonscan"
	"github.com/toolconform/conform/providers/internal/jsonstr"
)

// fastChunk is what the fast path reads from a chunk of the common shape:
// the response id and model, and of choice 0 the text, reasoning, one tool
// call entry and the finish reason, and the usage. Byte slices are views
// of the event data, still JSON-escaped where the matching esc flag is set.
type fastChunk struct {
	id, model       []byte
	idEsc, modelEsc bool
	hasID, hasModel bool
	// idAt and modelAt are the offsets of id and model in the data.
	idAt, modelAt int
	// known is set by a key that makes the chunk one of the protocol's
	// (choices, usage, object), as classify judges it.
	known bool

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
	// indexAt and indexEnd bound the index's digits in the data, argsAt
	// is the offset of the arguments' content.
	indexAt, indexEnd, argsAt int
	callID, name              []byte
	callIDEsc                 bool
	nameEsc                   bool
	hasCallID                 bool
	hasName                   bool
	args                      []byte
	argsEsc, hasArgs          bool

	finish    []byte
	finishEsc bool

	usage              bool
	prompt, completion int
}

// envelope is the state of the scan of a chunk just before its "choices"
// key: the bytes before it (id, object, created, model, fingerprint and
// the like, which every chunk of a stream repeats), the keys seen and what
// they set. A chunk that begins with the same bytes is scanned from there,
// with that state: the scan of a prefix depends on its bytes alone, so a
// chunk whose envelope differs in any byte is scanned whole.
type envelope struct {
	prefix []byte
	seen   uint64
	f      fastChunk
}

// deltaShape is the shape of the last argument delta chunk the fast path
// scanned whole: the bytes between its envelope and the digits of its
// tool call index (before), between those and its arguments' content
// (between, up to the opening quote) and after that content (after, from
// the closing quote on), and what the scan read. A chunk with the same
// envelope and the same bytes around an index and an arguments string
// scans as that chunk did, with that index and those arguments: the
// scanner reads every other byte alike, and a number or a string in
// place of another of its kind changes nothing around it. So it is read
// by comparing those bytes, reading the digits and scanning the string;
// a chunk that differs anywhere else is scanned whole.
type deltaShape struct {
	ok                     bool
	before, between, after []byte
	buf                    []byte // holds before, between and after
	f                      fastChunk
	// hits counts the chunks read by their shape, for tests.
	hits int
}

// matchDelta reads data into f if it is an argument delta of the shape
// of the last one, with the envelope of s.env.
func (s *stream) matchDelta(data []byte, f *fastChunk) bool {
	t := &s.shape
	n := len(s.env.prefix)
	if !t.ok || len(data) < n+len(t.before)+len(t.between)+len(t.after) ||
		string(data[:n]) != string(s.env.prefix) || string(data[n:n+len(t.before)]) != string(t.before) {
		return false
	}
	// The index's digits, as jsonscan's Small reads them; the byte after
	// them is between's first, as it was in the chunk of the shape.
	start, i, index := n+len(t.before), n+len(t.before), 0
	for ; i < len(data) && data[i] >= '0' && data[i] <= '9'; i++ {
		index = index*10 + int(data[i]-'0')
	}
	if digits := i - start; digits == 0 || digits > 9 || digits > 1 && data[start] == '0' ||
		len(data)-i < len(t.between) || string(data[i:i+len(t.between)]) != string(t.between) {
		return false
	}
	p := jsonscan.New(data)
	p.Seek(i + len(t.between) - 1) // the opening quote
	args, esc, ok := p.Str()
	if !ok || string(data[p.Pos()-1:]) != string(t.after) {
		return false
	}
	*f = t.f
	f.id, f.model = data[f.idAt:f.idAt+len(f.id)], data[f.modelAt:f.modelAt+len(f.model)]
	f.index, f.args, f.argsEsc = index, args, esc
	t.hits++
	return true
}

// keepDelta keeps the shape of an argument delta chunk the fast path has
// scanned whole (see deltaShape).
func (s *stream) keepDelta(data []byte, f *fastChunk) {
	t := &s.shape
	n := len(s.env.prefix)
	argsEnd := f.argsAt + len(f.args)
	if !f.call || !f.hasIndex || !f.hasArgs || f.hasCallID || f.hasName || f.hasText || f.hasRC || f.hasR || f.finish != nil || f.usage ||
		n == 0 || n > f.indexAt || f.indexEnd >= f.argsAt || argsEnd >= len(data) || data[f.argsAt-1] != '"' || data[argsEnd] != '"' ||
		string(data[:n]) != string(s.env.prefix) {
		return
	}
	buf := append(t.buf[:0], data[n:f.indexAt]...)
	buf = append(buf, data[f.indexEnd:f.argsAt]...)
	buf = append(buf, data[argsEnd:]...)
	a, b := f.indexAt-n, f.indexAt-n+f.argsAt-f.indexEnd
	t.buf, t.before, t.between, t.after = buf, buf[:a:a], buf[a:b:b], buf[b:]
	t.f, t.ok = *f, true
}

// fast decodes one chunk of the common shape without encoding/json and
// queues its events, exactly as handle's general path would. It reports
// false, having changed nothing, for anything else, which the general path
// then decodes: errors, several choices or tool call entries, a choice
// other than 0, null where the general path takes a default, extra_content,
// unknown or repeated keys the general path would read, numbers other than
// small plain integers, \u escapes that are not well-formed, invalid UTF-8
// and any syntax error.
func (s *stream) fast(data []byte) bool {
	var f fastChunk
	if !s.matchDelta(data, &f) {
		p := jsonscan.New(data)
		if !s.scanChunk(&p, &f, data) {
			return false
		}
		s.keepDelta(data, &f)
	}
	var text, args, id, name, finish string
	var ok bool
	if f.hasText {
		if text, ok = s.eventText(f.text, f.textEsc); !ok {
			return false
		}
	}
	if f.hasArgs {
		if args, ok = s.eventText(f.args, f.argsEsc); !ok {
			return false
		}
	}
	if f.hasCallID {
		if id, ok = s.unescape(f.callID, f.callIDEsc); !ok {
			return false
		}
	}
	if f.hasName {
		if name, ok = s.unescape(f.name, f.nameEsc); !ok {
			return false
		}
	}
	if f.finish != nil {
		if finish, ok = s.finishReason(f.finish, f.finishEsc); !ok {
			return false
		}
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
		v, ok := s.eventText(t.raw, t.esc)
		if !ok {
			return false
		}
		if v != "" {
			thinking = v
			break
		}
	}
	var respID, model string
	if !s.metaSent && (s.id == "" && f.hasID || s.model == "" && f.hasModel) {
		if respID, ok = s.unescape(f.id, f.idEsc); !ok {
			return false
		}
		if model, ok = s.unescape(f.model, f.modelEsc); !ok {
			return false
		}
	}
	// Nothing can fail from here on.
	if !s.in.IsKnown() {
		if f.known {
			s.in.Known()
		} else {
			s.unknown()
		}
	}
	s.setMeta(respID, model)
	if thinking != "" {
		s.q.Push(core.Event{Kind: core.EventThinking, Text: thinking})
	}
	if text != "" {
		s.q.Push(core.Event{Kind: core.EventText, Text: text})
	}
	if f.call {
		c := s.chunk()
		c.Index, c.HasIndex, c.ArgsDelta, c.Name = f.index, f.hasIndex, args, name
		if f.hasCallID {
			c.ID = s.c.fromWire(id)
		}
		s.pushCall(c, f.hasArgs)
	}
	if finish != "" {
		s.q.Push(core.Event{Kind: core.EventFinish, Finish: FinishReason(finish), ProviderFinish: finish})
		s.finished = true
	}
	if f.usage {
		s.q.Push(core.Event{Kind: core.EventUsage, Usage: s.usage(f.prompt, f.completion)})
	}
	s.endChunk()
	s.fastHits++
	return true
}

// finishReason returns a finish_reason's value, without allocating for
// the values the API sends.
func (s *stream) finishReason(raw []byte, esc bool) (string, bool) {
	if !esc {
		for _, r := range finishReasons {
			if string(raw) == r {
				return r, true
			}
		}
	}
	return s.unescape(raw, esc)
}

// finishReasons are the finish_reason values the providers send.
var finishReasons = []string{"tool_calls", "stop", "length", "content_filter", "function_call"}

// fastThinking is a reasoning field's string, still escaped.
type fastThinking struct {
	raw     []byte
	esc, ok bool
}

// rcThinking returns the reasoning_content and reasoning strings.
func (f *fastChunk) rcThinking() (rc, r fastThinking) {
	return fastThinking{f.rc, f.rcEsc, f.hasRC}, fastThinking{f.r, f.rEsc, f.hasR}
}

// chunk returns a zero Chunk from a slab that grows from one chunk (see
// jsonscan.Slab), so that a stream of one call pays for one chunk and a
// long one for one allocation per jsonscan.SlabSize chunks; with
// ReuseEventText, from the chunks given back by release, so that a stream
// pays for as many chunks as one input chunk needs.
func (s *stream) chunk() *core.Chunk {
	if !s.reuse {
		return s.chunks.Take()
	}
	if s.used == len(s.reusable) {
		// The chunks taken so far stay where they are, in the storage
		// this replaces, which is never written again.
		s.reusable, s.used = make([]core.Chunk, max(2*len(s.reusable), 2)), 0
	}
	c := &s.reusable[s.used]
	*c = core.Chunk{}
	s.used++
	return c
}

// eventText is unescape for the text, thinking and argument deltas of
// events: with ReuseEventText, the value is a view of the data when it
// has no escapes, and is unescaped into s.text otherwise, both valid until
// the next input chunk is decoded (release); without it, unescape.
func (s *stream) eventText(raw []byte, esc bool) (string, bool) {
	if !s.reuse {
		return s.unescape(raw, esc)
	}
	if !utf8.Valid(raw) {
		return "", false
	}
	start := len(s.text)
	v := raw
	if esc {
		out, lone, err := jsonstr.AppendUnescaped(s.text, raw)
		if err != nil || lone {
			return "", false
		}
		s.text, v = out, out[start:]
	}
	if len(v) == 0 {
		return "", true
	}
	return unsafe.String(&v[0], len(v)), true
}

// str returns b as a string, from the stream's arena when it is small
// (see jsonscan.Arena).
func (s *stream) str(b []byte) string {
	return (*jsonscan.Arena)(&s.arena).String(b)
}

// unescape returns the value of a JSON string from its content between
// the quotes, which the scanner has checked, decoded by jsonscan.Unescape
// into the reused scratch buffer. It reports false for invalid UTF-8 and
// for \u escapes of lone surrogates, which encoding/json replaces and the
// general path must handle.
func (s *stream) unescape(raw []byte, esc bool) (string, bool) {
	v, ok := jsonscan.Unescape(&s.scratch, raw, esc)
	if !ok {
		return "", false
	}
	return s.str(v), true
}

// object is jsonscan's Object refusing an empty object, which the general
// path handles.
func object(p *jsonscan.Scanner, keys, known []string, field func(k int) bool) bool {
	at := p.Pos()
	if p.Byte('{') && p.Byte('}') {
		return false
	}
	p.Seek(at)
	return p.Object(keys, known, field)
}

// strOrNull consumes a string or null.
func strOrNull(p *jsonscan.Scanner) bool {
	if p.Null() {
		return true
	}
	_, _, ok := p.Str()
	return ok
}

// The keys the fast path knows, at each level of a chunk.
var (
	chunkKeys    = []string{"id", "object", "created", "model", "system_fingerprint", "service_tier", "obfuscation", "usage", "choices"}
	choiceKeys   = []string{"index", "delta", "logprobs", "finish_reason"}
	deltaKeys    = []string{"role", "content", "tool_calls", "refusal", "reasoning_content", "reasoning"}
	toolCallKeys = []string{"index", "id", "type", "function"}
	functionKeys = []string{"name", "arguments"}
	usageKeys    = []string{"prompt_tokens", "completion_tokens", "total_tokens"}

	// The json names of the wire structs the general path decodes into
	// (wireResponse, wireChoice, wireMessage, wireToolCall,
	// wireFunctionArg, wireUsage): keys that match one of them, case
	// folded, are never skipped.
	chunkNames    = []string{"id", "object", "model", "choices", "usage", "error", "message", "type", "code"}
	choiceNames   = []string{"index", "message", "delta", "finish_reason"}
	deltaNames    = []string{"role", "content", "reasoning_content", "reasoning", "tool_calls", "tool_call_id", "name", "function_call"}
	toolCallNames = []string{"index", "id", "type", "function", "extra_content"}
	functionNames = []string{"name", "arguments"}
	usageNames    = usageKeys
)

// choicesKey is the index of "choices" in chunkKeys.
const choicesKey = 8

// scanChunk reads a whole chunk of the common shape into f. It is
// jsonscan's Object over chunkKeys, but it keeps the state of the scan
// before the "choices" key in s.env and, for a chunk that begins with the
// same bytes, starts from that state instead of scanning them again.
func (s *stream) scanChunk(p *jsonscan.Scanner, f *fastChunk, data []byte) bool {
	var seen uint64
	resumed := -1
	if e := &s.env; len(e.prefix) > 0 && len(data) > len(e.prefix) && string(data[:len(e.prefix)]) == string(e.prefix) {
		*f = e.f
		f.id, f.model = data[f.idAt:f.idAt+len(f.id)], data[f.modelAt:f.modelAt+len(f.model)]
		seen, resumed = e.seen, len(e.prefix)
		p.Seek(resumed)
	} else if !p.Byte('{') || p.Byte('}') {
		return false // an empty object is no chunk: the general path says so
	}
	for {
		at := p.Pos()
		key, esc, ok := p.Str()
		if !ok || esc || !p.Byte(':') {
			return false
		}
		k := -1
		for j, name := range chunkKeys {
			if string(key) == name {
				k = j
				break
			}
		}
		switch {
		case k < 0:
			if !jsonscan.Ignored(key, chunkNames) || !p.Skip() {
				return false
			}
		case seen&(1<<k) != 0:
			return false
		default:
			if k == choicesKey && at != resumed {
				s.env.prefix = append(s.env.prefix[:0], data[:at]...)
				s.env.seen, s.env.f = seen, *f
				s.shape.ok = false // it followed another envelope
			}
			if !chunkField(p, f, k) {
				return false
			}
			seen |= 1 << k
		}
		if p.Byte(',') {
			continue
		}
		return p.Byte('}') && p.End()
	}
}

// chunkField reads the value of the top-level key chunkKeys[k].
func chunkField(p *jsonscan.Scanner, f *fastChunk, k int) bool {
	switch chunkKeys[k] {
	case "id":
		f.id, f.idEsc, f.hasID = p.Str()
		f.idAt = p.Pos() - 1 - len(f.id)
		return f.hasID
	case "object":
		v, esc, ok := p.Str()
		f.known = f.known || ok
		return ok && !esc && string(v) == "chat.completion.chunk"
	case "created":
		_, ok := p.Number()
		return ok
	case "model":
		f.model, f.modelEsc, f.hasModel = p.Str()
		f.modelAt = p.Pos() - 1 - len(f.model)
		return f.hasModel
	case "system_fingerprint", "service_tier", "obfuscation":
		return strOrNull(p)
	case "usage":
		f.known = true
		if p.Null() {
			return true
		}
		f.usage = true
		return p.Object(usageKeys, usageNames, func(k int) bool {
			n, ok := p.Small()
			switch k {
			case 0:
				f.prompt = n
			case 1:
				f.completion = n
			}
			return ok
		})
	default: // choices
		f.known = true
		if !p.Byte('[') {
			return false
		}
		if p.Byte(']') {
			return true
		}
		return choice(p, f) && p.Byte(']')
	}
}

// choice reads the one choice of a chunk, which must be choice 0.
func choice(p *jsonscan.Scanner, f *fastChunk) bool {
	return object(p, choiceKeys, choiceNames, func(k int) bool {
		switch choiceKeys[k] {
		case "index":
			n, ok := p.Small()
			return ok && n == 0
		case "delta":
			return p.Object(deltaKeys, deltaNames, func(k int) bool { return deltaField(p, f, k) })
		case "finish_reason":
			if p.Null() {
				return true
			}
			v, esc, ok := p.Str()
			if len(v) > 0 {
				f.finish, f.finishEsc = v, esc
			}
			return ok
		default: // logprobs
			return p.Null()
		}
	})
}

// deltaField reads the value of the delta key deltaKeys[k]: text,
// reasoning and one tool call entry.
func deltaField(p *jsonscan.Scanner, f *fastChunk, k int) bool {
	switch deltaKeys[k] {
	case "role":
		_, _, ok := p.Str()
		return ok
	case "content":
		if p.Null() {
			return true
		}
		f.text, f.textEsc, f.hasText = p.Str()
		return f.hasText
	case "tool_calls":
		if !p.Byte('[') {
			return false
		}
		f.call = true
		return p.Object(toolCallKeys, toolCallNames, func(k int) bool { return toolCallField(p, f, k) }) && p.Byte(']')
	case "reasoning_content":
		if p.Null() {
			return true
		}
		f.rc, f.rcEsc, f.hasRC = p.Str()
		return f.hasRC
	case "reasoning":
		if p.Null() {
			return true
		}
		f.r, f.rEsc, f.hasR = p.Str()
		return f.hasR
	default: // refusal
		return p.Null()
	}
}

// toolCallField reads the value of the tool call key toolCallKeys[k].
func toolCallField(p *jsonscan.Scanner, f *fastChunk, k int) bool {
	switch toolCallKeys[k] {
	case "index":
		f.index, f.hasIndex = p.Small()
		f.indexEnd = p.Pos()
		f.indexAt = f.indexEnd - decimalLen(f.index)
		return f.hasIndex
	case "id":
		f.callID, f.callIDEsc, f.hasCallID = p.Str()
		return f.hasCallID
	case "type":
		v, esc, ok := p.Str()
		return ok && !esc && (len(v) == 0 || string(v) == "function")
	default: // function
		return p.Object(functionKeys, functionNames, func(k int) bool {
			if k == 0 {
				if p.Null() {
					return true
				}
				f.name, f.nameEsc, f.hasName = p.Str()
				return f.hasName
			}
			if p.Null() {
				return true
			}
			f.args, f.argsEsc, f.hasArgs = p.Str()
			f.argsAt = p.Pos() - 1 - len(f.args)
			return f.hasArgs
		})
	}
}

// decimalLen returns the number of decimal digits of n >= 0.
func decimalLen(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

package oaichat

import (
	"strconv"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonscan"
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
	p := jsonscan.New(data)
	if !chunk(&p, &f) {
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

// chunk returns a zero Chunk from a slab (see jsonscan.Take), so that
// call events cost one allocation per jsonscan.SlabSize events.
func (s *stream) chunk() *core.Chunk { return jsonscan.Take(&s.chunks) }

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
	toolCallKeys = []string{"index", "function"}
	functionKeys = []string{"arguments"}

	// The json names of the wire structs the general path decodes into
	// (wireResponse, wireChoice, wireMessage, wireToolCall,
	// wireFunctionArg): keys that match one of them, case folded, are
	// never skipped.
	chunkNames    = []string{"id", "object", "model", "choices", "usage", "error", "message", "type", "code"}
	choiceNames   = []string{"index", "message", "delta", "finish_reason"}
	deltaNames    = []string{"role", "content", "reasoning_content", "reasoning", "tool_calls", "tool_call_id", "name", "function_call"}
	toolCallNames = []string{"index", "id", "type", "function", "extra_content"}
	functionNames = []string{"name", "arguments"}
)

// chunk reads a whole chunk of the common shape into f.
func chunk(p *jsonscan.Scanner, f *fastChunk) bool {
	ok := object(p, chunkKeys, chunkNames, func(k int) bool {
		switch chunkKeys[k] {
		case "id":
			f.id, f.idEsc, f.hasID = p.Str()
			return f.hasID
		case "object":
			v, esc, ok := p.Str()
			return ok && !esc && string(v) == "chat.completion.chunk"
		case "created":
			_, ok := p.Number()
			return ok
		case "model":
			f.model, f.modelEsc, f.hasModel = p.Str()
			return f.hasModel
		case "system_fingerprint", "service_tier", "obfuscation":
			return strOrNull(p)
		case "usage":
			return p.Null()
		default: // choices
			if !p.Byte('[') {
				return false
			}
			if p.Byte(']') {
				return true
			}
			return choice(p, f) && p.Byte(']')
		}
	})
	return ok && p.End()
}

// choice reads the one choice of a chunk, which must be choice 0.
func choice(p *jsonscan.Scanner, f *fastChunk) bool {
	return object(p, choiceKeys, choiceNames, func(k int) bool {
		switch choiceKeys[k] {
		case "index":
			n, ok := p.Small()
			return ok && n == 0
		case "delta":
			return delta(p, f)
		default: // logprobs, finish_reason
			return p.Null()
		}
	})
}

// delta reads a delta holding text or one argument delta.
func delta(p *jsonscan.Scanner, f *fastChunk) bool {
	return object(p, deltaKeys, deltaNames, func(k int) bool {
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
			return object(p, toolCallKeys, toolCallNames, func(k int) bool {
				if toolCallKeys[k] == "index" {
					f.index, f.hasIndex = p.Small()
					return f.hasIndex
				}
				return object(p, functionKeys, functionNames, func(int) bool {
					f.args, f.argsEsc, f.hasArgs = p.Str()
					return f.hasArgs
				})
			}) && p.Byte(']')
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
	})
}

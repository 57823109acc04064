package gemini

import (
	"bytes"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/toolconform/conform/providers/internal/wire"
)

// fastStore is the reused storage of the stream's fast path: the one
// wireResponse it fills, its candidate, content and parts, and the
// strings of its values.
type fastStore struct {
	resp    wireResponse
	cand    [1]wireCandidate
	content wireContent
	usage   wireUsage
	// parts, calls, pargs, texts and bools hold the values of one chunk;
	// a pointer or slice taken into them stays valid when they grow, as
	// the old array keeps its values, and is used only until the next
	// chunk overwrites them.
	parts []wirePart
	calls []wireFunctionCall
	pargs []wirePartialArg
	texts []string
	bools []bool
	// The first arrays of parts, calls, pargs, texts and bools, which a
	// stream of ordinary chunks never outgrows: they cost no allocation
	// of their own.
	partsBuf [2]wirePart
	callsBuf [1]wireFunctionCall
	pargsBuf [2]wirePartialArg
	textsBuf [4]string
	boolsBuf [2]bool
	// arena holds the bytes of small strings (see fastString); scratch is
	// the buffer strings are unescaped into.
	arena, scratch []byte
	// model and respID are the strings of the last modelVersion and
	// responseId, kept while the raw bytes stay the same, as they do for
	// every chunk of a response.
	model, respID       string
	modelRaw, respIDRaw []byte
	// hits counts the chunks the fast path decoded; off turns it off, for
	// tests that compare it with the general path.
	hits int
	off  bool
}

// fastResponse decodes a chunk of the common shape without encoding/json,
// into storage the stream reuses, and returns exactly what json.Unmarshal
// into a wireResponse would give. It reports false for anything else,
// which the general path then decodes: errors and promptFeedback, other
// than one candidate, parts with partialArgs, functionResponse or
// snake_case keys, args other than an object, values of other types
// (null included), numbers other than small plain integers, finish
// reasons that are escaped or numbers, keys that encoding/json would match
// to a field the fast path does not read (case folded or escaped keys
// included), repeated keys, strings that are not well-formed UTF-8 or hold
// lone surrogate escapes, and any syntax error. The result is valid until
// the next call.
func (s *stream) fastResponse(data []byte) (*wireResponse, bool) {
	f := &s.fast
	if f.off {
		return nil, false
	}
	f.resp = wireResponse{}
	if f.parts == nil {
		f.parts, f.calls, f.pargs = f.partsBuf[:0], f.callsBuf[:0], f.pargsBuf[:0]
		f.texts, f.bools = f.textsBuf[:0], f.boolsBuf[:0]
	}
	f.parts, f.calls, f.pargs = f.parts[:0], f.calls[:0], f.pargs[:0]
	f.texts, f.bools = f.texts[:0], f.bools[:0]
	p := fastScanner{b: data}
	if !f.response(&p) {
		return nil, false
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, false
	}
	if f.resp.Candidates != nil {
		f.content.Parts = f.parts
	}
	f.hits++
	return &f.resp, true
}

// The json names of the wire structs json.Unmarshal fills, at each level:
// a key that matches one of them, case folded, is never skipped.
var (
	fastResponseNames = []string{"candidates", "promptFeedback", "usageMetadata", "modelVersion", "responseId", "error"}
	fastCandNames     = []string{"content", "finishReason", "index"}
	fastContentNames  = []string{"role", "parts"}
	fastPartNames     = []string{"text", "thought", "thoughtSignature", "functionCall", "functionResponse", "function_call", "function_response", "thought_signature"}
	fastCallNames     = []string{"id", "name", "args", "partialArgs", "willContinue"}
	fastPartialNames  = []string{"jsonPath", "stringValue", "numberValue", "boolValue", "nullValue", "willContinue"}
	fastUsageNames    = []string{"promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount", "totalTokenCount"}
)

// response reads a whole GenerateContentResponse.
func (f *fastStore) response(p *fastScanner) bool {
	return p.object(fastResponseNames, func(key string) int {
		switch key {
		case "candidates":
			if !p.byte('[') {
				return fastFail
			}
			f.cand[0] = wireCandidate{}
			f.content = wireContent{}
			if !f.candidate(p) || !p.byte(']') {
				return fastFail
			}
			f.resp.Candidates = f.cand[:]
		case "usageMetadata":
			f.usage = wireUsage{}
			if !f.usageMetadata(p) {
				return fastFail
			}
			f.resp.UsageMetadata = &f.usage
		case "modelVersion":
			v, ok := f.cached(p, &f.model, &f.modelRaw)
			if !ok {
				return fastFail
			}
			f.resp.ModelVersion = v
		case "responseId":
			v, ok := f.cached(p, &f.respID, &f.respIDRaw)
			if !ok {
				return fastFail
			}
			f.resp.ResponseID = v
		default:
			return fastSkip
		}
		return fastRead
	})
}

// candidate reads the one candidate.
func (f *fastStore) candidate(p *fastScanner) bool {
	c := &f.cand[0]
	return p.object(fastCandNames, func(key string) int {
		switch key {
		case "content":
			if !f.contentObject(p) {
				return fastFail
			}
			c.Content = &f.content
		case "finishReason":
			v, esc, ok := p.str()
			if !ok || esc || !utf8.Valid(v) {
				return fastFail
			}
			c.FinishReason = finishReason(f.fastString(v))
		case "index":
			n, ok := p.small()
			if !ok {
				return fastFail
			}
			c.Index = n
		default:
			return fastSkip
		}
		return fastRead
	})
}

// contentObject reads a candidate's content.
func (f *fastStore) contentObject(p *fastScanner) bool {
	return p.object(fastContentNames, func(key string) int {
		switch key {
		case "role":
			v, ok := f.text(p)
			if !ok {
				return fastFail
			}
			f.content.Role = v
		case "parts":
			if !p.byte('[') {
				return fastFail
			}
			if p.byte(']') {
				return fastRead
			}
			for {
				if !f.part(p) {
					return fastFail
				}
				if p.byte(',') {
					continue
				}
				if !p.byte(']') {
					return fastFail
				}
				return fastRead
			}
		default:
			return fastSkip
		}
		return fastRead
	})
}

// part reads one part.
func (f *fastStore) part(p *fastScanner) bool {
	var pt wirePart
	ok := p.object(fastPartNames, func(key string) int {
		switch key {
		case "text":
			v, ok := f.text(p)
			if !ok {
				return fastFail
			}
			pt.Text = f.keep(v)
		case "thought":
			v, ok := p.boolean()
			if !ok {
				return fastFail
			}
			pt.Thought = v
		case "thoughtSignature":
			v, ok := f.text(p)
			if !ok {
				return fastFail
			}
			pt.ThoughtSignature = v
		case "functionCall":
			var fc wireFunctionCall
			if !f.functionCall(p, &fc) {
				return fastFail
			}
			f.calls = append(f.calls, fc)
			pt.FunctionCall = &f.calls[len(f.calls)-1]
		default:
			return fastSkip
		}
		return fastRead
	})
	if ok {
		f.parts = append(f.parts, pt)
	}
	return ok
}

// functionCall reads a functionCall; args, when present, is an object
// and stays a view of the chunk's bytes, as do the numbers of partialArgs.
func (f *fastStore) functionCall(p *fastScanner, fc *wireFunctionCall) bool {
	return p.object(fastCallNames, func(key string) int {
		switch key {
		case "id":
			v, ok := f.text(p)
			if !ok {
				return fastFail
			}
			fc.ID = v
		case "name":
			v, ok := f.text(p)
			if !ok {
				return fastFail
			}
			fc.Name = v
		case "args":
			p.ws()
			start := p.i
			if p.i >= len(p.b) || p.b[p.i] != '{' || !p.skip(0) {
				return fastFail
			}
			fc.Args = p.b[start:p.i:p.i]
		case "partialArgs":
			if !p.byte('[') {
				return fastFail
			}
			from := len(f.pargs)
			if !p.byte(']') {
				for {
					if !f.partialArg(p) {
						return fastFail
					}
					if p.byte(',') {
						continue
					}
					if !p.byte(']') {
						return fastFail
					}
					break
				}
			}
			fc.PartialArgs = f.pargs[from:len(f.pargs):len(f.pargs)]
		case "willContinue":
			v, ok := p.boolean()
			if !ok {
				return fastFail
			}
			fc.WillContinue = v
		default:
			return fastSkip
		}
		return fastRead
	})
}

// partialArg reads one piece of partialArgs with a string, number or
// boolean value; nullValue is left to the general path.
func (f *fastStore) partialArg(p *fastScanner) bool {
	var pa wirePartialArg
	ok := p.object(fastPartialNames, func(key string) int {
		switch key {
		case "jsonPath":
			v, ok := f.text(p)
			if !ok {
				return fastFail
			}
			pa.JSONPath = v
		case "stringValue":
			v, ok := f.text(p)
			if !ok {
				return fastFail
			}
			pa.StringValue = f.keep(v)
		case "numberValue":
			p.ws()
			start := p.i
			if !p.number() {
				return fastFail
			}
			pa.NumberValue = p.b[start:p.i:p.i]
		case "boolValue":
			v, ok := p.boolean()
			if !ok {
				return fastFail
			}
			f.bools = append(f.bools, v)
			pa.BoolValue = &f.bools[len(f.bools)-1]
		case "willContinue":
			v, ok := p.boolean()
			if !ok {
				return fastFail
			}
			pa.WillContinue = v
		default:
			return fastSkip
		}
		return fastRead
	})
	if ok {
		f.pargs = append(f.pargs, pa)
	}
	return ok
}

// keep returns a pointer to a copy of v in the chunk's storage.
func (f *fastStore) keep(v string) *string {
	f.texts = append(f.texts, v)
	return &f.texts[len(f.texts)-1]
}

// usageMetadata reads the token counts.
func (f *fastStore) usageMetadata(p *fastScanner) bool {
	u := &f.usage
	return p.object(fastUsageNames, func(key string) int {
		var dst *int
		switch key {
		case "promptTokenCount":
			dst = &u.PromptTokenCount
		case "candidatesTokenCount":
			dst = &u.CandidatesTokenCount
		case "thoughtsTokenCount":
			dst = &u.ThoughtsTokenCount
		case "totalTokenCount":
			dst = &u.TotalTokenCount
		default:
			return fastSkip
		}
		n, ok := p.small()
		if !ok {
			return fastFail
		}
		*dst = n
		return fastRead
	})
}

// text reads a string value as encoding/json would decode it, refusing
// invalid UTF-8 and lone surrogate escapes, which it replaces.
func (f *fastStore) text(p *fastScanner) (string, bool) {
	raw, esc, ok := p.str()
	if !ok || !utf8.Valid(raw) {
		return "", false
	}
	if !esc {
		return f.fastString(raw), true
	}
	out, lone, err := wire.AppendUnescaped(f.scratch[:0], raw)
	f.scratch = out
	if err != nil || lone {
		return "", false
	}
	return f.fastString(out), true
}

// cached reads a string value, reusing *s while its raw bytes are those
// of the last call.
func (f *fastStore) cached(p *fastScanner, s *string, raw *[]byte) (string, bool) {
	p.ws()
	at := p.i
	v, _, ok := p.str()
	if !ok {
		return "", false
	}
	if *raw != nil && bytes.Equal(v, *raw) {
		return *s, true
	}
	p.i = at
	str, ok := f.text(p)
	if !ok {
		return "", false
	}
	*s, *raw = str, append((*raw)[:0], v...)
	if *raw == nil {
		*raw = []byte{}
	}
	return str, true
}

// The string arena: small strings are copied into shared append-only
// blocks instead of allocated one by one.
const (
	fastArenaBlock = 8 << 10
	fastArenaMax   = 1 << 10 // longer strings get an allocation of their own
)

// fastString returns b as a string. Strings of up to fastArenaMax bytes
// are appended to the current arena block and returned as a view of it; a
// block is never written again where a string points, so the strings are
// immutable as Go requires, and a block is freed when no string points
// into it.
func (f *fastStore) fastString(b []byte) string {
	switch {
	case len(b) == 0:
		return ""
	case len(b) > fastArenaMax:
		return string(b)
	}
	if cap(f.arena)-len(f.arena) < len(b) {
		f.arena = make([]byte, 0, fastArenaBlock)
	}
	start := len(f.arena)
	f.arena = append(f.arena, b...)
	return unsafe.String(&f.arena[start], len(b))
}

// What an object's field function did with a key.
const (
	fastFail = iota // the value is outside the subset
	fastRead        // the value was read
	fastSkip        // the key is not one the caller reads
)

// fastScanner reads the fast path's subset of JSON from b. Every method
// reports false on anything outside that subset, syntax errors included.
type fastScanner struct {
	b []byte
	i int
}

func (p *fastScanner) ws() {
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
func (p *fastScanner) byte(c byte) bool {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// object consumes an object, handing each key to field, which reads its
// value (fastRead), refuses it (fastFail) or leaves it (fastSkip). A key
// field leaves is skipped with its value only when encoding/json would
// ignore it too: it matches none of names, case folded. Keys must be
// plain (unescaped) ASCII, and a key field reads may not repeat.
func (p *fastScanner) object(names []string, field func(key string) int) bool {
	if !p.byte('{') {
		return false
	}
	if p.byte('}') {
		return true
	}
	var seen uint32
	for {
		key, esc, ok := p.str()
		if !ok || esc || !p.byte(':') {
			return false
		}
		for _, c := range key {
			if c >= 0x80 {
				return false
			}
		}
		k := -1
		for j, name := range names {
			if strings.EqualFold(string(key), name) {
				k = j
				break
			}
		}
		switch {
		case k >= 0:
			// A key read must be exact and appear once; a case-folded
			// match of a field is left to encoding/json.
			if string(key) != names[k] || seen&(1<<k) != 0 {
				return false
			}
			seen |= 1 << k
			switch field(names[k]) {
			case fastRead:
			default:
				return false
			}
		case !p.skip(0):
			return false
		}
		if p.byte(',') {
			continue
		}
		return p.byte('}')
	}
}

// str consumes a string after optional whitespace and returns its content
// between the quotes, and whether it holds escapes. Control characters and
// malformed escapes are refused, as encoding/json refuses them.
func (p *fastScanner) str() (content []byte, esc, ok bool) {
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
				if i+4 >= len(p.b) || !fastHex(p.b[i+1]) || !fastHex(p.b[i+2]) || !fastHex(p.b[i+3]) || !fastHex(p.b[i+4]) {
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

func fastHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// small consumes a non-negative integer of at most 9 digits with no
// fraction or exponent.
func (p *fastScanner) small() (int, bool) {
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

// boolean consumes true or false.
func (p *fastScanner) boolean() (v, ok bool) {
	p.ws()
	switch {
	case p.lit("true"):
		return true, true
	case p.lit("false"):
		return false, true
	}
	return false, false
}

// number consumes a JSON number of any size.
func (p *fastScanner) number() bool {
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
func (p *fastScanner) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// fastMaxDepth bounds the nesting of a skipped value or of args; deeper
// ones are left to the general path.
const fastMaxDepth = 32

// skip consumes any JSON value, checking its syntax.
func (p *fastScanner) skip(depth int) bool {
	if depth > fastMaxDepth {
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

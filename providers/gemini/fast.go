package gemini

import (
	"unicode/utf8"
	"unsafe"

	"github.com/toolconform/conform/providers/internal/jsonscan"
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
	partsBuf [4]wirePart
	callsBuf [4]wireFunctionCall
	pargsBuf [2]wirePartialArg
	textsBuf [4]string
	boolsBuf [2]bool
	// pieces holds the unescaped paths and string values of the chunk's
	// partialArgs pieces that hold escapes (see pieceText).
	pieces []byte
	// strs holds the bytes of small strings and the buffer strings are
	// unescaped into, first in the stream's keep and in scratch.
	strs    jsonscan.Strings
	scratch [256]byte
	// model and respID are the last modelVersion and responseId.
	model, respID string
	// view, set in reuse mode (stream.ReuseEventText), is the buffer
	// the text of a part is unescaped into when it must be: its text is
	// then a view of the chunk's bytes or of view, valid until the next
	// input chunk, instead of a string of the arena.
	view *[]byte
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
// reasons that are escaped, or numbers finishReasonNames does not list,
// keys that encoding/json would match to a field the fast path does not
// read (case folded or escaped keys included), repeated keys, strings
// that are not well-formed UTF-8 or hold lone surrogate escapes, and any
// syntax error. The result is valid until the next call.
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
	f.texts, f.bools, f.pieces = f.texts[:0], f.bools[:0], f.pieces[:0]
	p := jsonscan.New(data)
	if !f.response(&p) || !p.End() {
		return nil, false
	}
	if f.resp.Candidates != nil {
		f.content.Parts = f.parts
	}
	f.hits++
	return &f.resp, true
}

// The json names of the wire structs json.Unmarshal fills, at each level:
// a key that matches one of them, case folded, is never skipped. The keys
// the fast path reads at each level are the first of them, in the order
// its field functions number them; a key of the others is refused.
var (
	fastResponseNames = []string{"candidates", "usageMetadata", "modelVersion", "responseId", "promptFeedback", "error"}
	fastCandNames     = []string{"content", "finishReason", "index"}
	fastContentNames  = []string{"role", "parts"}
	fastPartNames     = []string{"text", "thought", "thoughtSignature", "functionCall", "functionResponse", "function_call", "function_response", "thought_signature"}
	fastCallNames     = []string{"id", "name", "args", "partialArgs", "willContinue"}
	fastPartialNames  = []string{"jsonPath", "stringValue", "numberValue", "boolValue", "willContinue", "nullValue"}
	fastUsageNames    = []string{"promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount", "totalTokenCount"}
)

// response reads a whole GenerateContentResponse.
func (f *fastStore) response(p *jsonscan.Scanner) bool {
	return p.Object(fastResponseNames[:4], fastResponseNames, func(k int) bool {
		switch k {
		case 0: // candidates
			if !p.Byte('[') {
				return false
			}
			f.cand[0] = wireCandidate{}
			f.content = wireContent{}
			if !f.candidate(p) || !p.Byte(']') {
				return false
			}
			f.resp.Candidates = f.cand[:]
		case 1: // usageMetadata
			f.usage = wireUsage{}
			if !f.usageMetadata(p) {
				return false
			}
			f.resp.UsageMetadata = &f.usage
		case 2: // modelVersion
			v, ok := f.cached(p, &f.model)
			if !ok {
				return false
			}
			f.resp.ModelVersion = v
		default: // responseId
			v, ok := f.cached(p, &f.respID)
			if !ok {
				return false
			}
			f.resp.ResponseID = v
		}
		return true
	})
}

// candidate reads the one candidate.
func (f *fastStore) candidate(p *jsonscan.Scanner) bool {
	c := &f.cand[0]
	return p.Object(fastCandNames, fastCandNames, func(k int) bool {
		switch k {
		case 0: // content
			if !f.contentObject(p) {
				return false
			}
			c.Content = &f.content
		case 1: // finishReason: a name, or a number of the v1beta enum
			at := p.Pos()
			if n, ok := p.Small(); ok {
				if n >= len(finishReasonNames) {
					return false
				}
				c.FinishReason = finishReason(finishReasonNames[n])
				return true
			}
			p.Seek(at)
			v, esc, ok := p.Str()
			if !ok || esc || !utf8.Valid(v) {
				return false
			}
			c.FinishReason = finishReason(f.reason(v))
		default: // index
			n, ok := p.Small()
			if !ok {
				return false
			}
			c.Index = n
		}
		return true
	})
}

// contentObject reads a candidate's content.
func (f *fastStore) contentObject(p *jsonscan.Scanner) bool {
	return p.Object(fastContentNames, fastContentNames, func(k int) bool {
		if k == 0 { // role
			v, ok := f.text(p)
			f.content.Role = v
			return ok
		}
		return p.Array(func() bool { return f.part(p) }) // parts
	})
}

// part reads one part.
func (f *fastStore) part(p *jsonscan.Scanner) bool {
	var pt wirePart
	ok := p.Object(fastPartNames[:4], fastPartNames, func(k int) bool {
		switch k {
		case 0: // text
			v, ok := f.partText(p)
			if !ok {
				return false
			}
			pt.Text = f.keep(v)
		case 1: // thought
			v, ok := p.Bool()
			if !ok {
				return false
			}
			pt.Thought = v
		case 2: // thoughtSignature
			v, ok := f.text(p)
			if !ok {
				return false
			}
			pt.ThoughtSignature = v
		default: // functionCall
			var fc wireFunctionCall
			if !f.functionCall(p, &fc) {
				return false
			}
			f.calls = append(f.calls, fc)
			pt.FunctionCall = &f.calls[len(f.calls)-1]
		}
		return true
	})
	if ok {
		f.parts = append(f.parts, pt)
	}
	return ok
}

// functionCall reads a functionCall; args, when present, is an object
// and stays a view of the chunk's bytes, as do the numbers of partialArgs.
func (f *fastStore) functionCall(p *jsonscan.Scanner, fc *wireFunctionCall) bool {
	return p.Object(fastCallNames, fastCallNames, func(k int) bool {
		switch k {
		case 0: // id
			v, ok := f.text(p)
			if !ok {
				return false
			}
			fc.ID = v
		case 1: // name
			v, ok := f.text(p)
			if !ok {
				return false
			}
			fc.Name = v
		case 2: // args
			v, compact, ok := p.CompactValue()
			if !ok || v[0] != '{' {
				return false
			}
			fc.Args, fc.compact = v, compact
		case 3: // partialArgs
			from := len(f.pargs)
			if !p.Array(func() bool { return f.partialArg(p) }) {
				return false
			}
			fc.PartialArgs = f.pargs[from:len(f.pargs):len(f.pargs)]
		default: // willContinue
			v, ok := p.Bool()
			if !ok {
				return false
			}
			fc.WillContinue = v
		}
		return true
	})
}

// partialArg reads one piece of partialArgs with a string, number or
// boolean value; nullValue is left to the general path.
func (f *fastStore) partialArg(p *jsonscan.Scanner) bool {
	var pa wirePartialArg
	ok := p.Object(fastPartialNames[:5], fastPartialNames, func(k int) bool {
		switch k {
		case 0: // jsonPath
			v, ok := f.pieceText(p)
			if !ok {
				return false
			}
			pa.JSONPath = v
		case 1: // stringValue
			v, ok := f.pieceText(p)
			if !ok {
				return false
			}
			pa.StringValue = f.keep(v)
		case 2: // numberValue
			v, ok := p.Number()
			if !ok {
				return false
			}
			pa.NumberValue = v
		case 3: // boolValue
			v, ok := p.Bool()
			if !ok {
				return false
			}
			f.bools = append(f.bools, v)
			pa.BoolValue = &f.bools[len(f.bools)-1]
		default: // willContinue
			v, ok := p.Bool()
			if !ok {
				return false
			}
			pa.WillContinue = v
		}
		return true
	})
	if ok {
		f.pargs = append(f.pargs, pa)
	}
	return ok
}

// pieceText is text for the path and string value of a partialArgs
// piece, which the call's argTree copies what it keeps of: a view of the
// chunk's bytes or, when it holds escapes, of its value unescaped into
// pieces, valid until the next chunk.
func (f *fastStore) pieceText(p *jsonscan.Scanner) (string, bool) {
	return f.viewText(p, &f.pieces)
}

// viewText reads a string value as a view of the chunk's bytes or, when
// it holds escapes, of its value unescaped and appended to *buf.
func (f *fastStore) viewText(p *jsonscan.Scanner, buf *[]byte) (string, bool) {
	raw, esc, ok := p.Str()
	if !ok {
		return "", false
	}
	v, ok := f.strs.Unescaped(raw, esc)
	if !ok {
		return "", false
	}
	if esc {
		n := len(*buf)
		*buf = append(*buf, v...)
		v = (*buf)[n:]
	}
	return unsafe.String(unsafe.SliceData(v), len(v)), true
}

// keep returns a pointer to a copy of v in the chunk's storage.
func (f *fastStore) keep(v string) *string {
	f.texts = append(f.texts, v)
	return &f.texts[len(f.texts)-1]
}

// usageMetadata reads the token counts.
func (f *fastStore) usageMetadata(p *jsonscan.Scanner) bool {
	u := &f.usage
	dsts := [...]*int{&u.PromptTokenCount, &u.CandidatesTokenCount, &u.ThoughtsTokenCount, &u.TotalTokenCount}
	return p.Object(fastUsageNames, fastUsageNames, func(k int) bool {
		n, ok := p.Small()
		*dsts[k] = n
		return ok
	})
}

// text reads a string value as encoding/json would decode it, refusing
// invalid UTF-8 and lone surrogate escapes, which it replaces.
func (f *fastStore) text(p *jsonscan.Scanner) (string, bool) {
	raw, esc, ok := p.Str()
	if !ok {
		return "", false
	}
	return f.strs.Text(raw, esc)
}

// reason returns v as a string: the enum's own name for a finish reason
// finishReasonNames lists, a copy in the arena otherwise.
func (f *fastStore) reason(v []byte) string {
	for _, name := range finishReasonNames {
		if string(v) == name {
			return name
		}
	}
	return f.strs.String(v)
}

// partText is text for the text of a part, which in reuse mode is a view
// (see fastStore.view).
func (f *fastStore) partText(p *jsonscan.Scanner) (string, bool) {
	if f.view == nil {
		return f.text(p)
	}
	return f.viewText(p, f.view)
}

// cached reads a string value, reusing *s while the value is that of the
// last call, as modelVersion and responseId are in every chunk of a
// response.
func (f *fastStore) cached(p *jsonscan.Scanner, s *string) (string, bool) {
	v, esc, ok := p.Str()
	if !ok {
		return "", false
	}
	if !esc && len(v) > 0 && string(v) == *s {
		return *s, true
	}
	str, ok := f.strs.Text(v, esc)
	if !ok {
		return "", false
	}
	*s = str
	return str, true
}

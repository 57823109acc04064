package bedrock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"

	"github.com/toolconform/conform/providers/internal/jsonscan"
)

// fastStore is the reused storage of the stream's fast path: the one
// cvStreamEvent and anStreamEvent it fills, with the values their pointers
// point to. What it returns is valid until its next call.
type fastStore struct {
	cv        cvStreamEvent
	cvIndex   int
	cvStart   cvStreamStart
	cvTool    cvStreamToolStart
	cvDelta   cvStreamDelta
	cvInput   cvStreamToolDelta
	cvReason  cvStreamReasoning
	cvUsage   cvUsage
	cvStrings [3]string // stopReason, signature, redactedContent

	an        anStreamEvent
	anIndex   int
	anMessage anStreamMessage
	anBlock   anBlock
	anDelta   anStreamDelta
	anUsage   [2]anUsage // the event's, the message's
	anStrings [3]string  // content_block text and thinking, stop_reason

	// hits and anHits count the Converse payloads and the Anthropic
	// events the fast path decoded; off turns it off, for tests that
	// compare it with the general path.
	hits, anHits int
	off          bool
}

// The json names of the structs json.Unmarshal fills, at each level: a key
// that matches one of them, case folded, is never skipped. The keys the
// fast path reads at each level are the first of them, in the order its
// field functions number them; a key of the others is refused.
var (
	cvEventNames     = []string{"contentBlockIndex", "start", "delta", "stopReason", "usage", "bytes", "message"}
	cvStartNames     = []string{"toolUse"}
	cvToolStartNames = []string{"toolUseId", "name", "type"}
	cvDeltaNames     = []string{"text", "toolUse", "reasoningContent"}
	cvToolDeltaNames = []string{"input"}
	cvReasonNames    = []string{"text", "signature", "redactedContent"}
	cvUsageNames     = []string{"inputTokens", "outputTokens", "totalTokens"}

	anEventNames   = []string{"type", "index", "message", "content_block", "delta", "usage", "error"}
	anMessageNames = []string{"id", "model", "usage"}
	anBlockNames   = []string{"type", "text", "id", "name", "input", "thinking", "signature", "data", "tool_use_id", "content", "is_error"}
	anDeltaNames   = []string{"type", "text", "partial_json", "thinking", "signature", "stop_reason"}
	anUsageNames   = []string{"input_tokens", "output_tokens"}
)

// converse decodes a ConverseStream payload of the common shape without
// encoding/json and returns exactly what json.Unmarshal into a
// cvStreamEvent would give, with chunk set to the bytes of Bytes. It
// reports false for anything else, which the general path then decodes:
// null and values of other types, numbers other than small plain integers
// (a negative index), escaped or non-ASCII keys, keys encoding/json would
// match to a field the fast path does not read, repeated keys, strings it
// reads that are not well-formed UTF-8 or hold lone surrogate escapes, an
// escaped "bytes", and any syntax error. Text and input deltas stay views
// of payload, as json.RawMessage. The verbatim shapes are tried first
// (converseDeltaShape, chunkShape, which decodes a chunk's base64 into
// *scratch).
func (f *fastStore) converse(payload []byte, strs *jsonscan.Strings, scratch *[]byte) (*cvStreamEvent, bool) {
	if f.off {
		return nil, false
	}
	if ev, ok := f.converseDeltaShape(payload); ok {
		f.hits++
		return ev, true
	}
	if ev, ok := f.chunkShape(payload, scratch); ok {
		f.hits++
		return ev, true
	}
	f.cv = cvStreamEvent{}
	ev := &f.cv
	p := jsonscan.New(payload)
	ok := p.Object(cvEventNames[:6], cvEventNames, func(k int) bool {
		switch k {
		case 0: // contentBlockIndex
			n, ok := p.Small()
			f.cvIndex, ev.ContentBlockIndex = n, &f.cvIndex
			return ok
		case 1: // start
			f.cvStart = cvStreamStart{}
			ev.Start = &f.cvStart
			return p.Object(cvStartNames, cvStartNames, func(int) bool {
				f.cvTool = cvStreamToolStart{}
				f.cvStart.ToolUse = &f.cvTool
				dsts := [...]*string{&f.cvTool.ToolUseID, &f.cvTool.Name, &f.cvTool.Type}
				return p.Object(cvToolStartNames, cvToolStartNames, func(k int) bool {
					return text(&p, strs, dsts[k])
				})
			})
		case 2: // delta
			f.cvDelta = cvStreamDelta{}
			ev.Delta = &f.cvDelta
			return f.converseDelta(&p, strs)
		case 3: // stopReason
			ev.StopReason = &f.cvStrings[0]
			return text(&p, strs, ev.StopReason)
		case 4: // usage
			f.cvUsage = cvUsage{}
			ev.Usage = &f.cvUsage
			dsts := [...]*int{&f.cvUsage.InputTokens, &f.cvUsage.OutputTokens, &f.cvUsage.TotalTokens}
			return p.Object(cvUsageNames, cvUsageNames, func(k int) bool {
				n, ok := p.Small()
				*dsts[k] = n
				return ok
			})
		default: // bytes: base64, which needs no escape
			v, esc, ok := p.Str()
			ev.chunk = v
			return ok && !esc && utf8.Valid(v)
		}
	})
	if !ok || !p.End() {
		return nil, false
	}
	f.hits++
	return ev, true
}

// The bytes that open the commonest payloads, a contentBlockDelta of tool
// input or text as Bedrock writes it, which converseDeltaShape matches
// verbatim rather than key by key.
const (
	shapeIndex = `{"contentBlockIndex":`
	shapeInput = `,"delta":{"toolUse":{"input":`
	shapeText  = `,"delta":{"text":`
	shapePad   = `,"p":`
)

// converseDeltaShape decodes a contentBlockDelta of tool input or text in
// the exact byte shape Bedrock writes, {"contentBlockIndex":N,"delta":
// {"toolUse":{"input":"…"}},"p":"…"} or {"contentBlockIndex":N,"delta":
// {"text":"…"},"p":"…"}, with no white space and the padding optional, as
// the general path would: the string is held as sent (json.RawMessage),
// the padding, which encoding/json ignores, must be a valid string. Any
// other payload gets false and goes through converse's key by key path.
func (f *fastStore) converseDeltaShape(payload []byte) (*cvStreamEvent, bool) {
	if len(payload) < len(shapeIndex) || string(payload[:len(shapeIndex)]) != shapeIndex {
		return nil, false
	}
	p := jsonscan.New(payload)
	p.Seek(len(shapeIndex))
	n, ok := p.Small()
	if !ok {
		return nil, false
	}
	rest := payload[p.Pos():]
	f.cv = cvStreamEvent{ContentBlockIndex: &f.cvIndex, Delta: &f.cvDelta}
	f.cvIndex, f.cvDelta = n, cvStreamDelta{}
	var dst *json.RawMessage
	var closing int
	switch {
	case len(rest) > len(shapeInput) && string(rest[:len(shapeInput)]) == shapeInput:
		f.cvInput = cvStreamToolDelta{}
		f.cvDelta.ToolUse = &f.cvInput
		dst, closing = &f.cvInput.Input, 2
		p.Seek(p.Pos() + len(shapeInput))
	case len(rest) > len(shapeText) && string(rest[:len(shapeText)]) == shapeText:
		dst, closing = &f.cvDelta.Text, 1
		p.Seek(p.Pos() + len(shapeText))
	default:
		return nil, false
	}
	start := p.Pos()
	if _, _, ok := p.Str(); !ok || start >= p.Pos() || payload[start] != '"' {
		return nil, false
	}
	*dst = payload[start:p.Pos():p.Pos()]
	for range closing {
		if p.Pos() >= len(payload) || payload[p.Pos()] != '}' {
			return nil, false
		}
		p.Seek(p.Pos() + 1)
	}
	if rest := payload[p.Pos():]; len(rest) > len(shapePad) && string(rest[:len(shapePad)]) == shapePad {
		p.Seek(p.Pos() + len(shapePad))
		if pad, _, ok := p.Str(); !ok || !utf8.Valid(pad) {
			return nil, false
		}
	}
	if p.Pos() != len(payload)-1 || payload[p.Pos()] != '}' {
		return nil, false
	}
	return &f.cv, true
}

// shapeBytes opens an InvokeModel chunk frame's payload as Bedrock writes
// it.
const shapeBytes = `{"bytes":"`

// chunkShape decodes an InvokeModel chunk payload in the byte shape
// Bedrock writes, {"bytes":"…","p":"…"} with the padding optional and no
// white space, and the base64 in it, into *scratch. Base64 that decodes
// holds no escape, control character or byte that is not UTF-8 (line
// breaks, which the decoder skips, are refused first), so it is the string
// encoding/json would give. Any other payload, or base64 that does not
// decode, gets false and goes through converse's key by key path, which
// gives the decoding error.
func (f *fastStore) chunkShape(payload []byte, scratch *[]byte) (*cvStreamEvent, bool) {
	if len(payload) < len(shapeBytes) || string(payload[:len(shapeBytes)]) != shapeBytes {
		return nil, false
	}
	rest := payload[len(shapeBytes):]
	q := bytes.IndexByte(rest, '"')
	if q < 0 {
		return nil, false
	}
	content, tail := rest[:q:q], rest[q+1:]
	if bytes.IndexByte(content, '\n') >= 0 || bytes.IndexByte(content, '\r') >= 0 {
		return nil, false
	}
	if len(tail) > len(shapePad) && string(tail[:len(shapePad)]) == shapePad {
		p := jsonscan.New(tail)
		p.Seek(len(shapePad))
		if pad, _, ok := p.Str(); !ok || !utf8.Valid(pad) {
			return nil, false
		}
		tail = tail[p.Pos():]
	}
	if len(tail) != 1 || tail[0] != '}' {
		return nil, false
	}
	n := base64.StdEncoding.DecodedLen(len(content))
	if cap(*scratch) < n {
		*scratch = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode((*scratch)[:n], content)
	if err != nil {
		return nil, false
	}
	f.cv = cvStreamEvent{chunk: content, decoded: (*scratch)[:n], isDecoded: true}
	return &f.cv, true
}

// converseDelta reads a contentBlockDelta's delta.
func (f *fastStore) converseDelta(p *jsonscan.Scanner, strs *jsonscan.Strings) bool {
	d := &f.cvDelta
	return p.Object(cvDeltaNames, cvDeltaNames, func(k int) bool {
		switch k {
		case 0: // text
			return rawValue(p, &d.Text)
		case 1: // toolUse
			f.cvInput = cvStreamToolDelta{}
			d.ToolUse = &f.cvInput
			return p.Object(cvToolDeltaNames, cvToolDeltaNames, func(int) bool {
				return rawValue(p, &f.cvInput.Input)
			})
		default: // reasoningContent
			f.cvReason = cvStreamReasoning{}
			d.ReasoningContent = &f.cvReason
			r := &f.cvReason
			return p.Object(cvReasonNames, cvReasonNames, func(k int) bool {
				switch k {
				case 0: // text
					return rawValue(p, &r.Text)
				case 1: // signature
					r.Signature = &f.cvStrings[1]
					return text(p, strs, r.Signature)
				default: // redactedContent
					r.RedactedContent = &f.cvStrings[2]
					return text(p, strs, r.RedactedContent)
				}
			})
		}
	})
}

// anthropic decodes an Anthropic stream event of the common shape (the
// InvokeModel chunk's decoded bytes) as converse decodes a Converse
// payload: exactly what json.Unmarshal into an anStreamEvent would give,
// or false. Errors, tool results and nulls other than a stop reason's are
// left to the general path.
func (f *fastStore) anthropic(data []byte, strs *jsonscan.Strings) (*anStreamEvent, bool) {
	if f.off {
		return nil, false
	}
	if ev, ok := f.anthropicDeltaShape(data, strs); ok {
		f.anHits++
		return ev, true
	}
	f.an = anStreamEvent{}
	ev := &f.an
	p := jsonscan.New(data)
	ok := p.Object(anEventNames[:6], anEventNames, func(k int) bool {
		switch k {
		case 0: // type
			return text(&p, strs, &ev.Type)
		case 1: // index
			n, ok := p.Small()
			f.anIndex, ev.Index = n, &f.anIndex
			return ok
		case 2: // message
			f.anMessage = anStreamMessage{}
			ev.Message = &f.anMessage
			m := &f.anMessage
			return p.Object(anMessageNames, anMessageNames, func(k int) bool {
				switch k {
				case 0:
					return text(&p, strs, &m.ID)
				case 1:
					return text(&p, strs, &m.Model)
				default:
					m.Usage = &f.anUsage[1]
					return f.usage(&p, m.Usage)
				}
			})
		case 3: // content_block
			f.anBlock = anBlock{}
			ev.ContentBlock = &f.anBlock
			return f.block(&p, strs)
		case 4: // delta
			f.anDelta = anStreamDelta{}
			ev.Delta = &f.anDelta
			d := &f.anDelta
			dsts := [...]*string{&d.Type, &d.Text, &d.PartialJSON, &d.Thinking, &d.Signature}
			return p.Object(anDeltaNames, anDeltaNames, func(k int) bool {
				if k < len(dsts) {
					return text(&p, strs, dsts[k])
				}
				if p.Null() { // stop_reason
					return true
				}
				d.StopReason = &f.anStrings[2]
				return text(&p, strs, d.StopReason)
			})
		default: // usage
			ev.Usage = &f.anUsage[0]
			return f.usage(&p, ev.Usage)
		}
	})
	if !ok || !p.End() {
		return nil, false
	}
	f.anHits++
	return ev, true
}

// The bytes of the commonest Anthropic event, a content_block_delta of
// input JSON or text, which anthropicDeltaShape matches verbatim.
const (
	shapeAnDelta = `{"type":"content_block_delta","index":`
	shapeAnInput = `,"delta":{"type":"input_json_delta","partial_json":`
	shapeAnText  = `,"delta":{"type":"text_delta","text":`
)

// anthropicDeltaShape decodes a content_block_delta of input JSON or text
// in the exact byte shape Anthropic writes, {"type":"content_block_delta",
// "index":N,"delta":{"type":"input_json_delta","partial_json":"…"}} or
// the same with "text_delta" and "text", with no white space, as
// encoding/json would: the string is refused when it is not UTF-8 or holds
// a lone surrogate escape, which encoding/json replaces. Any other event
// gets false and goes through anthropic's key by key path.
func (f *fastStore) anthropicDeltaShape(data []byte, strs *jsonscan.Strings) (*anStreamEvent, bool) {
	if len(data) < len(shapeAnDelta) || string(data[:len(shapeAnDelta)]) != shapeAnDelta {
		return nil, false
	}
	p := jsonscan.New(data)
	p.Seek(len(shapeAnDelta))
	n, ok := p.Small()
	if !ok {
		return nil, false
	}
	f.an = anStreamEvent{Type: "content_block_delta", Index: &f.anIndex, Delta: &f.anDelta}
	f.anIndex, f.anDelta = n, anStreamDelta{}
	rest := data[p.Pos():]
	var dst *string
	switch {
	case len(rest) > len(shapeAnInput) && string(rest[:len(shapeAnInput)]) == shapeAnInput:
		f.anDelta.Type, dst = "input_json_delta", &f.anDelta.PartialJSON
		p.Seek(p.Pos() + len(shapeAnInput))
	case len(rest) > len(shapeAnText) && string(rest[:len(shapeAnText)]) == shapeAnText:
		f.anDelta.Type, dst = "text_delta", &f.anDelta.Text
		p.Seek(p.Pos() + len(shapeAnText))
	default:
		return nil, false
	}
	if p.Pos() >= len(data) || data[p.Pos()] != '"' || !text(&p, strs, dst) {
		return nil, false
	}
	if rest := data[p.Pos():]; len(rest) != 2 || rest[0] != '}' || rest[1] != '}' {
		return nil, false
	}
	return &f.an, true
}

// block reads a content_block.
func (f *fastStore) block(p *jsonscan.Scanner, strs *jsonscan.Strings) bool {
	b := &f.anBlock
	return p.Object(anBlockNames[:8], anBlockNames, func(k int) bool {
		switch k {
		case 0:
			return text(p, strs, &b.Type)
		case 1:
			b.Text = &f.anStrings[0]
			return text(p, strs, b.Text)
		case 2:
			return text(p, strs, &b.ID)
		case 3:
			return text(p, strs, &b.Name)
		case 4:
			return rawValue(p, &b.Input)
		case 5:
			b.Thinking = &f.anStrings[1]
			return text(p, strs, b.Thinking)
		case 6:
			return text(p, strs, &b.Signature)
		default:
			return text(p, strs, &b.Data)
		}
	})
}

// usage reads Anthropic token counts into u.
func (f *fastStore) usage(p *jsonscan.Scanner, u *anUsage) bool {
	*u = anUsage{}
	return p.Object(anUsageNames, anUsageNames, func(k int) bool {
		n, ok := p.Small()
		if k == 0 {
			u.InputTokens = n
		} else {
			u.OutputTokens = n
		}
		return ok
	})
}

// text reads a string value into *dst as encoding/json would decode it,
// refusing invalid UTF-8 and lone surrogate escapes, which it replaces.
func text(p *jsonscan.Scanner, strs *jsonscan.Strings, dst *string) bool {
	raw, esc, ok := p.Str()
	if !ok {
		return false
	}
	*dst, ok = strs.Text(raw, esc)
	return ok
}

// rawValue reads any value into *dst as json.RawMessage would hold it: a
// view of its bytes.
func rawValue(p *jsonscan.Scanner, dst *json.RawMessage) bool {
	v, ok := p.Value()
	*dst = v
	return ok
}

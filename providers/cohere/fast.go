package cohere

import (
	"bytes"

	"github.com/toolconform/conform/providers/internal/jsonscan"
)

// fastDecoder is the stream's fast path: it reads the common v2 events
// (message-start and -end, content and tool-plan deltas, tool-call start,
// delta and end) without encoding/json, into storage the stream reuses.
type fastDecoder struct {
	// strs holds the strings of the events' values.
	strs jsonscan.Strings
	// usage and tokens are the usage a message-end points to, valid until
	// the next event.
	usage  usage
	tokens [2]tokens
	// hits counts the events the fast path decoded; off turns it off, for
	// tests that compare it with the general path.
	hits int
	off  bool
}

// The json names of the structs the general path fills, at each level: a
// key that matches one of them, case folded, is never skipped. The keys
// the fast path reads are all of them, in the order its field functions
// number them.
var (
	fastEventNames    = []string{"type", "id", "index", "delta"}
	fastDeltaNames    = []string{"message", "finish_reason", "usage", "error"}
	fastMessageNames  = []string{"content", "tool_plan", "tool_calls"}
	fastContentNames  = []string{"text", "thinking", "type"}
	fastCallNames     = []string{"id", "function"}
	fastFunctionNames = []string{"name", "arguments"}
	fastUsageNames    = []string{"tokens", "billed_units"}
	fastTokensNames   = []string{"input_tokens", "output_tokens"}
)

// fastTypes are the event types the fast path reads, as the strings it
// gives them.
var fastTypes = []string{
	"tool-call-delta", "tool-plan-delta", "content-delta", "tool-call-start", "tool-call-end",
	"content-start", "content-end", "message-start", "message-end", "citation-start", "citation-end",
}

// decode reads an event's data (trimmed, not empty) into ev exactly as
// general would, and reports whether it could. It gives up, leaving the
// event to the general path, on anything outside the subset it reads:
// an absent, escaped or unknown type; values of other types, null
// included; a negative, large or fractional index or token count; keys
// encoding/json would match to a field case folded or escaped, or that
// repeat; deeper values than jsonscan.MaxDepth; an id, name, finish reason
// or error that is not well-formed UTF-8 or holds a lone surrogate escape
// (encoding/json replaces those); and any syntax error. Text, plan and
// argument strings are decoded as jsonstr.RawString decodes them, keeping
// bytes that are not UTF-8 for jsonstr.CheckText to refuse.
func (f *fastDecoder) decode(data []byte, ev *v2Event) bool {
	if f.off {
		return false
	}
	if f.exact(data, ev) {
		f.hits++
		return true
	}
	*ev = v2Event{}
	p := jsonscan.New(data)
	var id []byte
	var idEsc bool
	ok := p.Object(fastEventNames, fastEventNames, func(k int) bool {
		switch k {
		case 0: // type
			raw, esc, ok := p.Str()
			if !ok || esc {
				return false
			}
			for _, t := range fastTypes {
				if string(raw) == t {
					ev.typ = t
					return true
				}
			}
			return false
		case 1: // id
			var ok bool
			id, idEsc, ok = p.Str()
			return ok
		case 2: // index
			n, ok := p.Small()
			ev.index, ev.hasIndex = n, ok
			return ok
		default: // delta
			ev.hasDelta = true
			return f.delta(&p, ev)
		}
	})
	if !ok || ev.typ == "" || !p.End() {
		return false
	}
	// The id is read where the decoder uses it; elsewhere any string
	// will do, as it does for encoding/json.
	if id != nil && ev.typ == "message-start" {
		if ev.id, ok = f.strs.Text(id, idEsc); !ok {
			return false
		}
	}
	f.hits++
	return true
}

// delta reads an event's delta object.
func (f *fastDecoder) delta(p *jsonscan.Scanner, ev *v2Event) bool {
	return p.Object(fastDeltaNames, fastDeltaNames, func(k int) bool {
		switch k {
		case 0: // message
			return f.message(p, ev)
		case 1: // finish_reason
			return f.text(p, &ev.finish)
		case 2: // usage
			f.usage = usage{}
			if !p.Object(fastUsageNames, fastUsageNames, func(k int) bool {
				t := &f.tokens[k]
				*t = tokens{}
				if k == 0 {
					f.usage.Tokens = t
				} else {
					f.usage.BilledUnits = t
				}
				return p.Object(fastTokensNames, fastTokensNames, func(k int) bool {
					n, ok := p.Small()
					if k == 0 {
						t.InputTokens = float64(n)
					} else {
						t.OutputTokens = float64(n)
					}
					return ok
				})
			}) {
				return false
			}
			ev.usage = &f.usage
			return true
		default: // error
			return f.text(p, &ev.errMsg)
		}
	})
}

// message reads a delta's message: content and tool_calls are read when
// they are objects and skipped otherwise, as general does.
func (f *fastDecoder) message(p *jsonscan.Scanner, ev *v2Event) bool {
	return p.Object(fastMessageNames, fastMessageNames, func(k int) bool {
		switch k {
		case 1: // tool_plan
			return f.raw(p, &ev.plan)
		}
		at := p.Pos()
		if !p.Byte('{') {
			return p.Skip()
		}
		p.Seek(at)
		if k == 0 { // content
			return p.Object(fastContentNames, fastContentNames, func(k int) bool {
				switch k {
				case 0:
					return f.raw(p, &ev.text)
				case 1:
					return f.raw(p, &ev.thinking)
				}
				_, _, ok := p.Str() // type, not used
				return ok
			})
		}
		return p.Object(fastCallNames, fastCallNames, func(k int) bool { // tool_calls
			if k == 0 {
				return f.text(p, &ev.callID)
			}
			return p.Object(fastFunctionNames, fastFunctionNames, func(k int) bool {
				if k == 0 {
					return f.text(p, &ev.name)
				}
				ev.hasArgs = true
				return f.raw(p, &ev.args)
			})
		})
	})
}

// text reads a string as encoding/json decodes it into *dst, refusing
// what jsonscan.Strings.Text refuses.
func (f *fastDecoder) text(p *jsonscan.Scanner, dst *string) bool {
	raw, esc, ok := p.Str()
	if !ok {
		return false
	}
	*dst, ok = f.strs.Text(raw, esc)
	return ok
}

// raw reads a string as jsonstr.RawString decodes it into *dst.
func (f *fastDecoder) raw(p *jsonscan.Scanner, dst *string) bool {
	raw, esc, ok := p.Str()
	if !ok {
		return false
	}
	*dst, ok = f.strs.Raw(raw, esc)
	return ok
}

// The bytes api.cohere.com sends around the values of its commonest
// events, in this order and without white space: exact matches them and
// reads only the index and the string, where decode would read every key.
var (
	callDeltaHead = []byte(`{"type":"tool-call-delta","index":`)
	callDeltaMid  = []byte(`,"delta":{"message":{"tool_calls":{"function":{"arguments":`)
	textDeltaHead = []byte(`{"type":"content-delta","index":`)
	textDeltaMid  = []byte(`,"delta":{"message":{"content":{"text":`)
	planDeltaHead = []byte(`{"type":"tool-plan-delta","delta":{"message":{"tool_plan":`)
)

// exact reads a tool-call, content or tool-plan delta sent in exactly the
// bytes api.cohere.com sends (callDeltaHead and the others) into ev, as
// decode would, and reports whether it could; anything else is left to
// decode.
func (f *fastDecoder) exact(data []byte, ev *v2Event) bool {
	var head, mid []byte
	var dst *string
	var tail string
	switch {
	case bytes.HasPrefix(data, callDeltaHead):
		ev.typ, head, mid, dst, tail = "tool-call-delta", callDeltaHead, callDeltaMid, &ev.args, "}}}}}"
		ev.hasArgs = true
	case bytes.HasPrefix(data, textDeltaHead):
		ev.typ, head, mid, dst, tail = "content-delta", textDeltaHead, textDeltaMid, &ev.text, "}}}}"
	case bytes.HasPrefix(data, planDeltaHead):
		ev.typ, head, dst, tail = "tool-plan-delta", planDeltaHead, &ev.plan, "}}}"
	default:
		return false
	}
	ev.hasDelta = true
	p := jsonscan.New(data)
	p.Seek(len(head))
	if mid != nil {
		n, ok := p.Small()
		if !ok || !bytes.HasPrefix(data[p.Pos():], mid) {
			return false
		}
		ev.index, ev.hasIndex = n, true
		p.Seek(p.Pos() + len(mid))
	}
	raw, esc, ok := p.Str()
	if !ok || string(data[p.Pos():]) != tail {
		return false
	}
	*dst, ok = f.strs.Raw(raw, esc)
	return ok
}

package ollama

import (
	"github.com/toolconform/conform/providers/internal/jsonscan"
)

// fastStore is the reused storage of the stream's fast path: the one
// wireResponse it fills, its message and the values behind its pointers.
type fastStore struct {
	resp    wireResponse
	msg     wireMessage
	counts  [2]int
	calls   []wireToolCall
	indexes []int
	// The first arrays of calls and indexes, which a line of one or two
	// calls does not outgrow.
	callsBuf   [2]wireToolCall
	indexesBuf [2]int
	// strs holds the bytes of small strings and the buffer strings are
	// unescaped into, first in the stream's keep and in scratch.
	strs    jsonscan.Strings
	scratch [256]byte
	// model, role and reason are the last model, message.role and
	// done_reason, the same on every line of a stream.
	model, role, reason string
	// hits counts the lines the fast path decoded; off turns it off, for
	// tests that compare it with the general path.
	hits int
	off  bool
}

// createdAtSeen stands for the value of created_at, which the stream reads
// only for being there: the fast path does not copy a timestamp that
// changes on every line.
const createdAtSeen = "(created_at)"

// The json names of the wire structs json.Unmarshal fills, at each level;
// the keys the fast path reads are the first of them, in the order its
// field functions number them, and a key of the others is refused.
var (
	fastResponseNames = []string{"model", "created_at", "message", "done", "done_reason", "prompt_eval_count", "eval_count", "error"}
	fastMessageNames  = []string{"role", "content", "thinking", "tool_calls", "tool_name", "tool_call_id"}
	fastCallNames     = []string{"id", "function"}
	fastFunctionNames = []string{"index", "name", "arguments"}
)

// fastLine decodes a line of the common shape without encoding/json, into
// storage the stream reuses, and returns what json.Unmarshal into a
// wireResponse would give, but for created_at (see createdAtSeen). It
// reports false for anything else, which the general path then decodes:
// error lines, tool_name and tool_call_id, values of other types (null
// included), arguments that are not an object, numbers other than small
// plain integers, keys that encoding/json would match to a field the fast
// path does not read, repeated keys, strings that are not well-formed
// UTF-8 or hold lone surrogate escapes, and any syntax error. A line it
// accepts is valid UTF-8 throughout. The result is valid until the next
// call.
func (f *fastStore) fastLine(line []byte) (*wireResponse, bool) {
	if f.off {
		return nil, false
	}
	f.resp = wireResponse{}
	if f.calls == nil {
		f.calls, f.indexes = f.callsBuf[:0], f.indexesBuf[:0]
	}
	f.calls, f.indexes = f.calls[:0], f.indexes[:0]
	p := jsonscan.New(line)
	if !f.response(&p) || !p.End() {
		return nil, false
	}
	f.hits++
	return &f.resp, true
}

// response reads a whole /api/chat line.
func (f *fastStore) response(p *jsonscan.Scanner) bool {
	return p.Object(fastResponseNames[:7], fastResponseNames, func(k int) bool {
		r := &f.resp
		var ok bool
		switch k {
		case 0: // model
			r.Model, ok = f.cached(p, &f.model)
		case 1: // created_at
			var v []byte
			if v, ok = f.text(p); ok && len(v) > 0 {
				r.CreatedAt = createdAtSeen
			}
		case 2: // message
			f.msg = wireMessage{}
			if ok = f.message(p); ok {
				r.Message = &f.msg
			}
		case 3: // done
			r.Done, ok = p.Bool()
		case 4: // done_reason
			r.DoneReason, ok = f.cached(p, &f.reason)
		case 5: // prompt_eval_count
			f.counts[0], ok = p.Small()
			r.PromptEvalCount = &f.counts[0]
		default: // eval_count
			f.counts[1], ok = p.Small()
			r.EvalCount = &f.counts[1]
		}
		return ok
	})
}

// message reads the message of a line.
func (f *fastStore) message(p *jsonscan.Scanner) bool {
	m := &f.msg
	return p.Object(fastMessageNames[:4], fastMessageNames, func(k int) bool {
		var ok bool
		switch k {
		case 0: // role
			m.Role, ok = f.cached(p, &f.role)
		case 1: // content
			m.Content, ok = f.str(p)
		case 2: // thinking
			m.Thinking, ok = f.str(p)
		default: // tool_calls
			ok = p.Array(func() bool { return f.toolCall(p) })
			m.ToolCalls = f.calls
		}
		return ok
	})
}

// toolCall reads one tool call, whose arguments, an object, stay a view
// of the line.
func (f *fastStore) toolCall(p *jsonscan.Scanner) bool {
	var tc wireToolCall
	ok := p.Object(fastCallNames, fastCallNames, func(k int) bool {
		if k == 0 { // id
			var ok bool
			tc.ID, ok = f.str(p)
			return ok
		}
		fn := &tc.Function
		return p.Object(fastFunctionNames, fastFunctionNames, func(k int) bool {
			switch k {
			case 0: // index
				n, ok := p.Small()
				f.indexes = append(f.indexes, n)
				fn.Index = &f.indexes[len(f.indexes)-1]
				return ok
			case 1: // name
				var ok bool
				fn.Name, ok = f.str(p)
				return ok
			default: // arguments
				v, compact, ok := p.CompactValue()
				if !ok || v[0] != '{' {
					return false
				}
				fn.Arguments, fn.compact = v, compact
				return true
			}
		})
	})
	if ok {
		f.calls = append(f.calls, tc)
	}
	return ok
}

// text reads a string value as encoding/json would decode it, a view
// valid until the next, refusing invalid UTF-8 and lone surrogate escapes.
func (f *fastStore) text(p *jsonscan.Scanner) ([]byte, bool) {
	raw, esc, ok := p.Str()
	if !ok {
		return nil, false
	}
	return f.strs.Unescaped(raw, esc)
}

// str is text as a string of the stream's own.
func (f *fastStore) str(p *jsonscan.Scanner) (string, bool) {
	v, ok := f.text(p)
	if !ok {
		return "", false
	}
	return f.strs.String(v), true
}

// cached is str reusing *s while the value is that of the last call.
func (f *fastStore) cached(p *jsonscan.Scanner, s *string) (string, bool) {
	v, ok := f.text(p)
	if !ok {
		return "", false
	}
	if string(v) != *s {
		*s = f.strs.String(v)
	}
	return *s, true
}

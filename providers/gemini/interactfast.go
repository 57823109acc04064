package gemini

import (
	"github.com/toolconform/conform/providers/internal/jsonscan"
)

// interactFast is the reused storage of the Interactions stream's fast
// path: the one wireInteractionEvent it fills and the values behind its
// pointers.
type interactFast struct {
	ev    wireInteractionEvent
	inter wireInteraction
	usage wireInteractUsage
	step  wireStep
	delta wireStepDelta
	index int
	// strs holds the bytes of small strings and the buffer strings are
	// unescaped into, first in arena and scratch.
	strs    jsonscan.Strings
	arena   [512]byte
	scratch [256]byte
	// hits counts the events the fast path decoded; off turns it off, for
	// tests that compare it with the general path.
	hits int
	off  bool
}

// The json names of the wire structs json.Unmarshal fills, at each level;
// the keys the fast path reads are the first of them, in the order its
// field functions number them, and a key of the others is refused.
var (
	fastEventNames       = []string{"event_type", "index", "delta", "step", "interaction", "error"}
	fastDeltaNames       = []string{"type", "text", "signature", "arguments"}
	fastStepNames        = []string{"type", "id", "name", "signature", "text", "arguments", "content"}
	fastInteractionNames = []string{"id", "status", "model", "usage", "steps", "error"}
	fastInteractUsage    = []string{"total_input_tokens", "total_output_tokens", "total_thought_tokens"}
)

// The strings of the protocol's event, step and delta types, which the
// fast path returns instead of copies.
var interactWords = []string{
	"step.delta", "step.start", "step.stop", "interaction.created", "interaction.completed", "interaction.status_update",
	"text", "thought_signature", "arguments_delta", "function_call", "thought", "model_output",
	"in_progress", "requires_action", "completed", "incomplete", "failed",
}

// event decodes an Interactions stream event of the common shape without
// encoding/json, into storage the stream reuses, and returns exactly what
// json.Unmarshal into a wireInteractionEvent would give. It reports false
// for anything else, which the general path then decodes: errors, an
// interaction's steps, a step's content, step arguments other than an
// object, values of other types (null included), numbers other than small
// plain integers, keys that encoding/json would match to a field the fast
// path does not read, repeated keys, strings that are not well-formed
// UTF-8 or hold lone surrogate escapes, and any syntax error. The result
// is valid until the next call, but for the step's arguments, which are
// copied: the stream keeps them until the step stops.
func (f *interactFast) event(data []byte) (*wireInteractionEvent, bool) {
	if f.off {
		return nil, false
	}
	f.ev = wireInteractionEvent{}
	p := jsonscan.New(data)
	if !f.object(&p) || !p.End() {
		return nil, false
	}
	f.hits++
	return &f.ev, true
}

func (f *interactFast) object(p *jsonscan.Scanner) bool {
	ev := &f.ev
	return p.Object(fastEventNames[:5], fastEventNames, func(k int) bool {
		var ok bool
		switch k {
		case 0: // event_type
			ev.EventType, ok = f.word(p)
		case 1: // index
			if f.index, ok = p.Small(); ok {
				ev.Index = &f.index
			}
		case 2: // delta
			f.delta = wireStepDelta{}
			if ok = f.stepDelta(p); ok {
				ev.Delta = &f.delta
			}
		case 3: // step
			f.step = wireStep{}
			if ok = f.stepObject(p); ok {
				ev.Step = &f.step
			}
		default: // interaction
			f.inter = wireInteraction{}
			if ok = f.interaction(p); ok {
				ev.Interaction = &f.inter
			}
		}
		return ok
	})
}

func (f *interactFast) stepDelta(p *jsonscan.Scanner) bool {
	d := &f.delta
	return p.Object(fastDeltaNames, fastDeltaNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			d.Type, ok = f.word(p)
		case 1:
			d.Text, ok = f.text(p)
		case 2:
			d.Signature, ok = f.text(p)
		default:
			d.Arguments, ok = f.text(p)
		}
		return ok
	})
}

func (f *interactFast) stepObject(p *jsonscan.Scanner) bool {
	st := &f.step
	return p.Object(fastStepNames[:6], fastStepNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			st.Type, ok = f.word(p)
		case 1:
			st.ID, ok = f.text(p)
		case 2:
			st.Name, ok = f.text(p)
		case 3:
			st.Signature, ok = f.text(p)
		case 4:
			st.Text, ok = f.text(p)
		default: // arguments
			var v []byte
			if v, ok = p.Value(); ok && v[0] == '{' {
				st.Arguments = append([]byte(nil), v...)
			} else {
				ok = false
			}
		}
		return ok
	})
}

func (f *interactFast) interaction(p *jsonscan.Scanner) bool {
	in := &f.inter
	return p.Object(fastInteractionNames[:4], fastInteractionNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			in.ID, ok = f.text(p)
		case 1:
			in.Status, ok = f.word(p)
		case 2:
			in.Model, ok = f.text(p)
		default: // usage
			f.usage = wireInteractUsage{}
			u := &f.usage
			dsts := [...]*int{&u.TotalInputTokens, &u.TotalOutputTokens, &u.TotalThoughtTokens}
			ok = p.Object(fastInteractUsage, fastInteractUsage, func(k int) bool {
				n, ok := p.Small()
				*dsts[k] = n
				return ok
			})
			in.Usage = u
		}
		return ok
	})
}

// text reads a string value as encoding/json would decode it, refusing
// invalid UTF-8 and lone surrogate escapes.
func (f *interactFast) text(p *jsonscan.Scanner) (string, bool) {
	raw, esc, ok := p.Str()
	if !ok {
		return "", false
	}
	return f.strs.Text(raw, esc)
}

// word is text returning the protocol's own string for a type or status
// it names, a copy otherwise.
func (f *interactFast) word(p *jsonscan.Scanner) (string, bool) {
	raw, esc, ok := p.Str()
	if !ok {
		return "", false
	}
	if !esc {
		for _, w := range interactWords {
			if string(raw) == w {
				return w, true
			}
		}
	}
	return f.strs.Text(raw, esc)
}

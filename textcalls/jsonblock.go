package textcalls

import (
	"strings"
)

// jsonBlock is a block that is JSON calls with no closing marker: the
// block ends where the JSON value does (Mistral v3's [TOOL_CALLS],
// Granite, Phi-4-mini, Llama 3's JSON, Ollama's template-derived JSON).
type jsonBlock struct {
	what  string
	calls *jsonCalls
	sep   byte // a separator that may join another value (';')
	after bool // a value ended: look for sep
	// bare: no marker opened the block, only JSON at the start of the
	// text: a value that is no call is text.
	bare bool
	keys callKeys
	list bool
	// close is a marker that may follow the value and ends the block
	// (Mistral's [/TOOL_CALLS]).
	close string
}

func newJSONBlock(what string, keys callKeys, list bool, sep byte, bare bool) *jsonBlock {
	b := &jsonBlock{what: what, sep: sep, bare: bare, keys: keys, list: list}
	b.next()
	return b
}

func (b *jsonBlock) next() {
	b.calls = newJSONCalls(b.keys, b.list, 0)
	b.calls.tentative = b.bare
}

func (b *jsonBlock) step(m *machine) bool {
	for !m.dead {
		if b.after {
			t := strings.TrimLeft(m.pend, " \t\r\n")
			switch {
			case !m.final && len(m.pend) <= maxLeadingSpace && (t == "" || b.close != "" && len(t) < len(b.close) && strings.HasPrefix(b.close, t)):
				return false
			case b.sep != 0 && t != "" && t[0] == b.sep:
				m.consume(len(m.pend) - len(t) + 1)
				b.after = false
				b.next()
				continue
			case b.sep == ';' && t != "" && t[0] == '{':
				// Llama 3 also writes one call a line.
				m.consume(len(m.pend) - len(t))
				b.after = false
				b.next()
				continue
			case b.close != "" && strings.HasPrefix(t, b.close):
				m.consume(len(m.pend) - len(t) + len(b.close))
			}
			return true
		}
		t := strings.TrimLeft(m.pend, " \t\r\n")
		if b.calls.pos == 0 && t == "" && !m.final {
			return false
		}
		used, done := b.calls.feedValue(m, m.pend)
		m.consume(used)
		if !done {
			return false
		}
		j := b.calls
		if j.bad && b.bare && !j.committed {
			// Not a call after all: what was read is text.
			m.text(string(j.buf))
			return true
		}
		if j.bad && !j.committed && j.objDepth < 0 {
			// No JSON after the marker: reported, and the text stays.
			m.failAt(j.base+j.badAt, "%s: no JSON call after the marker", b.what)
			m.text(string(j.buf))
			return true
		}
		if j.bad {
			j.finish(m, b.what)
			return true
		}
		b.after = true
	}
	return true
}

func (b *jsonBlock) cut(m *machine) {
	j := b.calls
	if b.bare && !j.committed {
		m.text(string(j.buf))
		return
	}
	if !b.after && j.pos > 0 {
		j.cut(m)
	}
}

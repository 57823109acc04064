package textcalls

import (
	"fmt"
	"strings"
)

// pyCalls reads pythonic calls, name(key=value, ...), each value a Python
// literal: in a list [f(a=1), g()] (pythonic, Llama 4, LFM2), or one a
// line (OLMo 3), up to close, or, for a bare list, to its ']'.
type pyCalls struct {
	what  string
	list  bool
	close string
	// tentative: a bare list at the start of the text is calls only
	// once "[name(" is seen; until then it is held, and then text.
	tentative bool
	held      strings.Builder

	st       pyState
	listOpen bool
	acc      strings.Builder
	name     string
	params   int
	bad      string // why the open call is malformed
	span     pySpan
	made     int
}

type pyState int

const (
	pWant pyState = iota
	pName
	pKey
	pValue
	pAfterList
	pSkip
)

func (p *pyCalls) step(m *machine) bool {
	for !m.dead {
		switch p.st {
		case pWant, pAfterList:
			if p.tentative && p.held.Len() > maxHeader {
				return p.giveUp(m) // no call named yet: text, held no longer
			}
			if !p.space(m) {
				return false
			}
			if p.close != "" {
				if strings.HasPrefix(m.pend, p.close) {
					m.consume(len(p.close))
					p.endBlock(m)
					return true
				}
				if !m.final && strings.HasPrefix(p.close, m.pend) {
					return false
				}
			}
			if m.pend == "" {
				return false
			}
			c := m.pend[0]
			switch {
			case p.st == pAfterList:
				if p.close == "" {
					return true
				}
				p.malformed(m, "text after the list of calls")
			case p.list && !p.listOpen && c == '[':
				p.take(m, 1)
				p.listOpen = true
			case p.list && !p.listOpen:
				if p.tentative {
					return p.giveUp(m)
				}
				p.malformed(m, "no list of calls")
			case p.listOpen && c == ']':
				p.take(m, 1)
				p.listOpen = false
				p.st = pAfterList
				if p.close == "" {
					return true
				}
			case c == ',' && p.made > 0:
				p.take(m, 1)
			case isWordByte(c):
				p.st = pName
			default:
				if p.tentative {
					return p.giveUp(m)
				}
				p.malformed(m, "text where a call belongs")
			}
		case pName:
			i, limit := 0, maxHeader+1-p.acc.Len()
			for i < len(m.pend) && i < limit && (isWordByte(m.pend[i]) || m.pend[i] == '.' || m.pend[i] == '-') {
				i++
			}
			p.acc.WriteString(m.pend[:i])
			p.take(m, i)
			if p.acc.Len() > maxHeader {
				p.malformed(m, "a name that does not end")
				continue
			}
			if m.pend == "" {
				if m.final && p.tentative {
					return p.giveUp(m)
				}
				return false
			}
			if m.pend[0] != '(' {
				if p.tentative {
					return p.giveUp(m)
				}
				p.malformed(m, "a call name not followed by (")
				continue
			}
			p.take(m, 1)
			p.tentative = false
			p.held.Reset()
			p.name, p.params, p.bad = p.acc.String(), 0, ""
			p.acc.Reset()
			m.start(p.name, "")
			p.st = pKey
		case pKey:
			if !p.space(m) {
				return false
			}
			if m.pend == "" {
				return false
			}
			c := m.pend[0]
			if c == ')' {
				m.consume(1)
				p.endCall(m)
				continue
			}
			if c == ',' && p.params > 0 && p.acc.Len() == 0 {
				m.consume(1)
				continue
			}
			eq := strings.IndexByte(m.pend, '=')
			if eq < 0 {
				if len(m.pend) > maxHeader || m.final {
					p.malformed(m, "an argument with no =")
					continue
				}
				return false
			}
			key := strings.TrimSpace(m.pend[:eq])
			if key == "" || strings.ContainsAny(key, "(),[]{}'\" \n") {
				p.malformed(m, "an argument that is not key=value")
				continue
			}
			m.consume(eq + 1)
			p.openArg(m, key)
		case pValue:
			used, done, err := p.span.scan(m.pend)
			p.acc.WriteString(m.pend[:used])
			m.consume(used)
			if err != nil {
				p.malformed(m, err.Error())
				continue
			}
			if p.acc.Len() > m.opts.MaxBody {
				p.malformed(m, "an argument too large")
				continue
			}
			if !done {
				return false
			}
			p.closeArg(m)
		case pSkip:
			if p.close == "" {
				return true
			}
			_, w := m.cut(p.close)
			if w < 0 {
				return false
			}
			return true
		}
	}
	return true
}

// space consumes white space; false says more input is needed to see
// past it.
func (p *pyCalls) space(m *machine) bool {
	t := strings.TrimLeft(m.pend, " \t\r\n")
	p.take(m, len(m.pend)-len(t))
	return t != "" || m.final
}

// take consumes n bytes, held while the block is tentative.
func (p *pyCalls) take(m *machine, n int) {
	if p.tentative {
		p.held.WriteString(m.pend[:n])
	}
	m.consume(n)
}

// giveUp ends a tentative block that is no call: what it held is text.
func (p *pyCalls) giveUp(m *machine) bool {
	m.text(p.held.String() + p.acc.String())
	p.held.Reset()
	p.acc.Reset()
	return true
}

func (p *pyCalls) openArg(m *machine, key string) {
	if p.bad == "" {
		sep := ","
		if p.params == 0 {
			sep = "{"
		}
		m.args(sep + string(jsonString(key)) + ":")
	}
	p.params++
	p.acc.Reset()
	p.span = pySpan{}
	p.st = pValue
}

func (p *pyCalls) closeArg(m *machine) {
	raw := p.acc.String()
	p.acc.Reset()
	p.st = pKey
	if p.bad != "" {
		return
	}
	v, err := pyLiteral(raw)
	if err != nil {
		// The call is malformed, but its end is still found.
		p.bad = err.Error()
		return
	}
	m.args(string(v))
}

func (p *pyCalls) endCall(m *machine) {
	p.made++
	p.st = pWant
	if p.bad != "" {
		m.abandon(p.name, "", "%s: call %q: %s", p.what, p.name, p.bad)
		return
	}
	if p.params > 0 {
		m.args("}")
	}
	m.end()
}

func (p *pyCalls) endBlock(m *machine) {
	if p.made == 0 {
		m.abandon("", "", "%s: no call in the block", p.what)
	}
}

// malformed gives up on the block: the open call is reported, and the
// rest of the block passed over (up to close) or left as text (a bare
// list).
func (p *pyCalls) malformed(m *machine, why string) {
	m.abandon(p.name, "", "%s: malformed call: %s", p.what, why)
	p.made++
	p.st = pSkip
}

func (p *pyCalls) cut(m *machine) {
	if p.tentative {
		p.giveUp(m)
		return
	}
	m.cur, m.id = -1, ""
}

func newPythonic(list bool, close string, tentative bool, what string) *pyCalls {
	return &pyCalls{what: what, list: list, close: close, tentative: tentative}
}

// renderPythonic writes calls as a pythonic list.
func renderPythonic(t Turn, open, close string, list bool, sep string) (string, error) {
	var b strings.Builder
	renderThink(&b, think, t.Thinking)
	b.WriteString(t.Text)
	if len(t.Calls) == 0 {
		return b.String(), nil
	}
	b.WriteString(open)
	if list {
		b.WriteString("[")
	}
	for i, c := range t.Calls {
		params, err := rawParams(c)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(c.Name + "(")
		for k, pr := range params {
			if k > 0 {
				b.WriteString(", ")
			}
			// JSON's literals and strings read as Python's here:
			// pyLiteral takes true, false and null too.
			b.WriteString(pr.key + "=" + pr.raw)
		}
		b.WriteString(")")
	}
	if list {
		b.WriteString("]")
	}
	b.WriteString(close)
	return b.String(), nil
}

var pythonic = &Format{
	Name:    "pythonic",
	Aliases: Aliases{VLLM: []string{"pythonic"}, SGLang: []string{"pythonic"}},
	Grammar: "[f(a=1, b='x'), g()] at the start of the text, values Python literals",
	New: func(o Options) Parser {
		return newRegionParser(&grammar{
			startWith: []string{"["},
			startBody: func(*machine) body { return newPythonic(true, "", true, "pythonic") },
		}, o)
	},
	Render: func(t Turn) (string, error) {
		if err := plain("pythonic", t); err != nil {
			return "", err
		}
		if t.Text != "" && len(t.Calls) > 0 {
			return "", fmt.Errorf("pythonic: %w: text beside calls", ErrCannotRender)
		}
		return renderPythonic(t, "", "", true, ", ")
	},
}

var llama4Pythonic = &Format{
	Name:    "llama4-pythonic",
	Aliases: Aliases{VLLM: []string{"llama4_pythonic"}, SGLang: []string{"pythonic"}},
	Grammar: "[<|python_start|>][f(a=1), g()][<|python_end|>]",
	New: func(o Options) Parser {
		return newRegionParser(&grammar{
			open:      []string{"<|python_start|>"},
			body:      func(*machine, int) body { return newPythonic(true, "<|python_end|>", false, "<|python_start|>") },
			startWith: []string{"["},
			startBody: func(*machine) body { return newPythonic(true, "", true, "pythonic") },
		}, o)
	},
	Render: func(t Turn) (string, error) {
		if err := plain("llama4-pythonic", t); err != nil {
			return "", err
		}
		return renderPythonic(t, "<|python_start|>", "<|python_end|>", true, ", ")
	},
}

var lfm2 = &Format{
	Name:    "lfm2",
	Aliases: Aliases{LlamaCpp: []string{"LFM2-8B-A1B", "LFM2.5-*"}, Ollama: []string{"lfm2", "lfm2-thinking"}},
	Grammar: "<|tool_call_start|>[f(a=1), g()]<|tool_call_end|>; <think>…</think>",
	New: func(o Options) Parser {
		return newRegionParser(&grammar{
			think: think,
			open:  []string{"<|tool_call_start|>"},
			body:  func(*machine, int) body { return newPythonic(true, "<|tool_call_end|>", false, "<|tool_call_start|>") },
		}, o)
	},
	Render: func(t Turn) (string, error) {
		return renderPythonic(t, "<|tool_call_start|>", "<|tool_call_end|>", true, ", ")
	},
}

var olmo3 = &Format{
	Name:    "olmo3",
	Aliases: Aliases{Ollama: []string{"olmo3"}},
	Grammar: "<function_calls>f(a=1)\\ng(b=2)</function_calls>, one call a line",
	New: func(o Options) Parser {
		return newRegionParser(&grammar{
			think: think,
			open:  []string{"<function_calls>"},
			body:  func(*machine, int) body { return newPythonic(false, "</function_calls>", false, "<function_calls>") },
		}, o)
	},
	Render: func(t Turn) (string, error) {
		return renderPythonic(t, "<function_calls>", "</function_calls>", false, "\n")
	},
}

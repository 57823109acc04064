package textcalls

import (
	"fmt"
	"strings"
)

// glmCalls reads one GLM call block: the name, then
// <arg_key>K</arg_key><arg_value>V</arg_value> pairs, white space between
// them, up to </tool_call>.
type glmCalls struct {
	st     glmState
	acc    strings.Builder
	name   string
	params int
	x      xmlCalls // the parameter values, as a tagged format writes them
}

type glmState int

const (
	gName glmState = iota
	gBetween
	gKey
	gWantValue
	gValue
	gSkip
)

const (
	glmClose    = "</tool_call>"
	glmKey      = "<arg_key>"
	glmKeyEnd   = "</arg_key>"
	glmValue    = "<arg_value>"
	glmValueEnd = "</arg_value>"
)

func (g *glmCalls) step(m *machine) bool {
	for !m.dead {
		switch g.st {
		case gName:
			before, w := m.cut(glmKey, glmClose, "\n", "<")
			if m.appendCapped(&g.acc, before) {
				g.skip(m, "a name that does not end")
				continue
			}
			if w < 0 {
				return false
			}
			name := strings.TrimSpace(g.acc.String())
			g.acc.Reset()
			if w == 2 && name == "" {
				continue // a line break right after <tool_call>
			}
			if w == 3 || name == "" {
				g.skip(m, "a call with no name")
				continue
			}
			g.name = name
			m.start(name, "")
			switch w {
			case 0:
				g.st = gKey
			case 1:
				g.endCall(m)
				return true
			default:
				g.st = gBetween
			}
		case gBetween:
			before, w := m.cut(glmKey, glmClose)
			if !blank(before) {
				g.skipAt(m, m.strayAt(before), "text between arguments")
				if w == 1 {
					return true // the block ended
				}
				continue
			}
			switch w {
			case 0:
				g.st = gKey
			case 1:
				g.endCall(m)
				return true
			default:
				return false
			}
		case gKey:
			before, w := m.cut(glmKeyEnd)
			if m.appendCapped(&g.acc, before) {
				g.skip(m, "an argument key that does not end")
				continue
			}
			if w < 0 {
				return false
			}
			key := strings.TrimSpace(g.acc.String())
			g.acc.Reset()
			g.x.name, g.x.params = g.name, g.params
			g.x.openParam(m, key, false)
			g.params++
			g.st = gWantValue
		case gWantValue:
			// The block's end is looked for too: a skip never passes it.
			before, w := m.cut(glmValue, glmClose)
			if !blank(before) || w == 1 {
				g.skipAt(m, m.strayAt(before), "text where <arg_value> belongs")
				if w == 1 {
					return true
				}
				continue
			}
			if w < 0 {
				return false
			}
			g.st = gValue
		case gValue:
			before, w := m.cut(glmValueEnd)
			g.x.value(m, before, w >= 0)
			if w < 0 {
				return false
			}
			g.x.closeParam(m)
			g.st = gBetween
		case gSkip:
			_, w := m.cut(glmClose)
			return w >= 0
		}
	}
	return true
}

func (g *glmCalls) endCall(m *machine) {
	if g.params > 0 {
		m.args("}")
	}
	m.end()
}

// skip gives up on the call: it is reported, and the block is passed over.
func (g *glmCalls) skip(m *machine, why string) { g.skipAt(m, m.off, why) }

func (g *glmCalls) skipAt(m *machine, off int, why string) {
	if m.cur < 0 {
		m.start(g.name, "")
	}
	m.cur, m.id = -1, ""
	m.failAt(off, "<tool_call>: malformed call: %s", why)
	g.st = gSkip
}

func (g *glmCalls) cut(m *machine) {
	if g.st == gName && m.cur < 0 {
		m.abandon(strings.TrimSpace(g.acc.String()), "", "<tool_call>: the text ended in the call's name")
	}
	m.cur, m.id = -1, ""
}

func newGLM(think *reasoning) func(Options) Parser {
	return func(o Options) Parser {
		return newRegionParser(&grammar{
			think: think,
			open:  []string{"<tool_call>"},
			body: func(*machine, int) body {
				return &glmCalls{x: xmlCalls{spec: &xmlSpec{}}}
			},
		}, o)
	}
}

// renderGLM writes calls as GLM does; sep goes between the name and each
// tag (a line break for GLM-4.5, nothing for GLM-4.7).
func renderGLM(sep string) func(Turn) (string, error) {
	return func(t Turn) (string, error) {
		var b strings.Builder
		renderThink(&b, think, t.Thinking)
		b.WriteString(t.Text)
		for _, c := range t.Calls {
			params, err := rawParams(c)
			if err != nil {
				return "", err
			}
			b.WriteString("<tool_call>" + c.Name)
			for _, p := range params {
				fmt.Fprintf(&b, "%s<arg_key>%s</arg_key>%s<arg_value>%s</arg_value>", sep, p.key, sep, p.value)
			}
			b.WriteString(sep + "</tool_call>")
		}
		return b.String(), nil
	}
}

var glm45 = &Format{
	Name:    "glm45",
	Aliases: Aliases{VLLM: []string{"glm45"}, SGLang: []string{"glm45"}, LlamaCpp: []string{"GLM-4.6"}, Ollama: []string{"GLM46Parser"}},
	Grammar: "<tool_call>NAME\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>…</tool_call>; values typed by the schema",
	New:     newGLM(think),
	Render:  renderGLM("\n"),
}

var glm47 = &Format{
	Name:    "glm47",
	Aliases: Aliases{VLLM: []string{"glm47"}, SGLang: []string{"glm47"}, LlamaCpp: []string{"GLM-4.7-Flash"}, Ollama: []string{"glm-4.7"}},
	Grammar: "<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…</tool_call>; reasoning …</think>",
	New:     newGLM(think),
	Render:  renderGLM(""),
}

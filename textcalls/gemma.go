package textcalls

import (
	"strings"
)

// gemmaCalls reads one Gemma call, call:NAME{key:value,...}, whose values
// are strings between a quote token (<|"|> for Gemma 4, <escape> for
// FunctionGemma), JSON strings, bare numbers, true, false, null, and
// nested objects and lists. The arguments are turned into JSON as they
// arrive; the call ends at its close token.
type gemmaCalls struct {
	quote string
	close string
	what  string

	st    gemmaState
	acc   strings.Builder
	name  string
	stack []byte
	// per container: a member or element was written, so the next needs
	// a comma (FunctionGemma sometimes writes none).
	wrote []bool
	esc   bool
}

type gemmaState int

const (
	gmPrefix gemmaState = iota
	gmName
	gmWant    // a key (in an object) or a value (in a list), or the container's end
	gmKey     // an unquoted key
	gmColon   // a key read, ':' next (already consumed)
	gmValue   // a value next
	gmQuoted  // inside a quote-token string
	gmJSONStr // inside a "..." string
	gmBare    // a bare word
	gmClose   // the arguments ended: the close token next
	gmSkip
)

func (g *gemmaCalls) step(m *machine) bool {
	for !m.dead {
		switch g.st {
		case gmPrefix:
			const prefix = "call:"
			if !m.final && len(m.pend) < len(prefix) && strings.HasPrefix(prefix, m.pend) {
				return false
			}
			if !m.skip(prefix) {
				return g.malformed(m, "no call: after the marker")
			}
			g.st = gmName
		case gmName:
			before, w := m.cut("{", g.close)
			if m.appendCapped(&g.acc, before) {
				return g.malformed(m, "a name that does not end")
			}
			if w < 0 {
				return false
			}
			g.name = strings.TrimSpace(g.acc.String())
			g.acc.Reset()
			if w == 1 || g.name == "" {
				m.abandon(g.name, "", "%s: call %q has no arguments", g.what, g.name)
				return true
			}
			m.start(g.name, "")
			g.open(m, '{')
		case gmWant, gmValue:
			t := strings.TrimLeft(m.pend, " \t\r\n")
			m.consume(len(m.pend) - len(t))
			if t == "" {
				return false
			}
			top := g.stack[len(g.stack)-1]
			c := t[0]
			switch {
			case g.st == gmWant && (c == '}' && top == '{' || c == ']' && top == '['):
				m.consume(1)
				g.closeContainer(m, c)
			case g.st == gmWant && c == ',':
				m.consume(1)
			case g.st == gmWant && top == '{':
				g.comma(m)
				g.st = gmKey
			default:
				if !m.final && len(m.pend) < len(g.quote) && strings.HasPrefix(g.quote, m.pend) {
					return false // a quote token may be coming
				}
				if g.st == gmWant {
					g.comma(m)
				}
				g.value(m)
			}
		case gmKey:
			before, w := m.cut(":", "}", g.close)
			if m.appendCapped(&g.acc, before) || w > 0 {
				return g.malformed(m, "a key with no :")
			}
			if w < 0 {
				return false
			}
			key := strings.TrimSpace(g.acc.String())
			g.acc.Reset()
			key = strings.Trim(strings.TrimSuffix(strings.TrimPrefix(key, g.quote), g.quote), `"`)
			m.args(string(jsonString(key)) + ":")
			g.st = gmValue
		case gmQuoted:
			before, w := m.cut(g.quote)
			m.args(string(appendEscaped(nil, before)))
			if w < 0 {
				return false
			}
			m.args(`"`)
			g.st = gmWant
		case gmJSONStr:
			i := 0
			for ; i < len(m.pend); i++ {
				c := m.pend[i]
				if g.esc {
					g.esc = false
					continue
				}
				if c == '\\' {
					g.esc = true
					continue
				}
				if c == '"' {
					break
				}
			}
			if i == len(m.pend) {
				m.args(m.pend)
				m.consume(len(m.pend))
				return false
			}
			m.args(m.pend[:i+1])
			m.consume(i + 1)
			g.st = gmWant
		case gmBare:
			i, limit := 0, maxHeader+1-g.acc.Len()
			for i < len(m.pend) && i < limit && !strings.ContainsRune(",}] \t\r\n<", rune(m.pend[i])) {
				i++
			}
			g.acc.WriteString(m.pend[:i])
			m.consume(i)
			if g.acc.Len() > maxHeader {
				return g.malformed(m, "a value that does not end")
			}
			if m.pend == "" && !m.final {
				return false
			}
			word := g.acc.String()
			g.acc.Reset()
			switch {
			case word == "true" || word == "false" || word == "null" || isJSONNumber(word):
				m.args(word)
			default:
				m.args(string(jsonString(word)))
			}
			g.st = gmWant
		case gmClose:
			before, w := m.cut(g.close)
			if !blank(before) {
				g.malformedAt(m, m.strayAt(before), "text after the arguments")
				return w >= 0 // the close token ends the block
			}
			if w < 0 {
				return false
			}
			m.end()
			return true
		case gmSkip:
			_, w := m.cut(g.close)
			return w >= 0
		}
	}
	return true
}

// value reads the start of a value.
func (g *gemmaCalls) value(m *machine) {
	switch c := m.pend[0]; {
	case strings.HasPrefix(m.pend, g.quote):
		m.consume(len(g.quote))
		m.args(`"`)
		g.st = gmQuoted
	case c == '"':
		m.consume(1)
		m.args(`"`)
		g.st = gmJSONStr
	case c == '{' || c == '[':
		m.consume(1)
		g.open(m, c)
	default:
		g.st = gmBare
	}
}

func (g *gemmaCalls) open(m *machine, c byte) {
	if len(g.stack) >= maxNesting {
		m.die(errTooDeepText)
		return
	}
	if len(g.wrote) > 0 {
		g.wrote[len(g.wrote)-1] = true
	}
	g.stack = append(g.stack, c)
	g.wrote = append(g.wrote, false)
	m.args(string(c))
	g.st = gmWant
}

// comma writes the comma before a member or element, once one was
// written in this container.
func (g *gemmaCalls) comma(m *machine) {
	n := len(g.wrote) - 1
	if g.wrote[n] {
		m.args(",")
	}
	g.wrote[n] = true
}

func (g *gemmaCalls) closeContainer(m *machine, c byte) {
	m.args(string(c))
	g.stack = g.stack[:len(g.stack)-1]
	g.wrote = g.wrote[:len(g.wrote)-1]
	g.st = gmWant
	if len(g.stack) == 0 {
		g.st = gmClose
	}
}

func (g *gemmaCalls) malformed(m *machine, why string) bool {
	return g.malformedAt(m, m.off, why)
}

func (g *gemmaCalls) malformedAt(m *machine, off int, why string) bool {
	if m.cur < 0 {
		m.start(g.name, "")
	}
	m.cur, m.id = -1, ""
	m.failAt(off, "%s: malformed call: %s", g.what, why)
	g.st = gmSkip
	return false
}

func (g *gemmaCalls) cut(m *machine) {
	if g.st <= gmName && m.cur < 0 {
		m.abandon(strings.TrimSpace(g.acc.String()), "", "%s: the text ended in a call's name", g.what)
	}
	m.cur, m.id = -1, ""
}

// renderGemma writes calls in a Gemma format.
func renderGemma(t Turn, thinkOpen, thinkClose, open, close, quote string) (string, error) {
	var b strings.Builder
	if t.Thinking != "" {
		b.WriteString(thinkOpen + t.Thinking + thinkClose)
	}
	b.WriteString(t.Text)
	for _, c := range t.Calls {
		v, err := gemmaLiteral(c.Arguments, quote)
		if err != nil {
			return "", err
		}
		b.WriteString(open + "call:" + c.Name + v + close)
	}
	return b.String(), nil
}

var gemma4 = &Format{
	Name:    "gemma4",
	Aliases: Aliases{VLLM: []string{"(gemma4)"}, SGLang: []string{"(gemma4)"}, LlamaCpp: []string{"google-gemma-4-31B-it"}, Ollama: []string{"gemma4", "gemma4-no-thinking"}},
	Grammar: `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:1,...}<tool_call|>; reasoning <|channel>thought\n…<channel|>`,
	New: func(o Options) Parser {
		return newRegionParser(&grammar{
			think: &reasoning{open: "<|channel>", close: "<channel|>", anywhere: true, lead: "thought\n"},
			open:  []string{"<|tool_call>"},
			body: func(*machine, int) body {
				return &gemmaCalls{quote: `<|"|>`, close: "<tool_call|>", what: "<|tool_call>"}
			},
			drop: []string{"<tool_call|>", "<|tool_response>"},
		}, o)
	},
	Render: func(t Turn) (string, error) {
		return renderGemma(t, "<|channel>thought\n", "<channel|>", "<|tool_call>", "<tool_call|>", `<|"|>`)
	},
}

var functionGemma = &Format{
	Name:    "functiongemma",
	Aliases: Aliases{VLLM: []string{"functiongemma"}, Ollama: []string{"functiongemma"}},
	Grammar: "<start_function_call>call:NAME{key:<escape>text<escape>,n:1}<end_function_call>",
	New: func(o Options) Parser {
		return newRegionParser(&grammar{
			open: []string{"<start_function_call>"},
			body: func(*machine, int) body {
				return &gemmaCalls{quote: "<escape>", close: "<end_function_call>", what: "<start_function_call>"}
			},
		}, o)
	},
	Render: func(t Turn) (string, error) {
		if err := plain("functiongemma", t); err != nil {
			return "", err
		}
		return renderGemma(t, "", "", "<start_function_call>", "<end_function_call>", "<escape>")
	},
}

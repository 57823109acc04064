package textcalls

import (
	"fmt"
	"strings"
)

// jsonSpan finds where one JSON value ends as its bytes arrive, without
// keeping them.
type jsonSpan struct {
	depth   int
	inStr   bool
	esc     bool
	started bool
	scalar  bool
}

// scan reads s and returns how many bytes belong to the value and
// whether it ended; bad says the text is not a JSON value start.
func (j *jsonSpan) scan(s string) (used int, done, bad bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !j.started {
			switch {
			case isSpace(c):
				continue
			case c == '{' || c == '[':
				j.started, j.depth = true, 1
				continue
			default:
				return i, false, true
			}
		}
		switch {
		case j.inStr && j.esc:
			j.esc = false
		case j.inStr && c == '\\':
			j.esc = true
		case j.inStr && c == '"':
			j.inStr = false
		case j.inStr:
		case c == '"':
			j.inStr = true
		case c == '{' || c == '[':
			j.depth++
			if j.depth > 2*maxNesting {
				return i, false, true
			}
		case c == '}' || c == ']':
			j.depth--
			if j.depth == 0 {
				return i + 1, true, false
			}
		}
	}
	return len(s), false, false
}

// maxNesting bounds the nesting jsonSpan follows (the Buffer checks
// core.MaxDepth on the arguments themselves).
const maxNesting = 1000

// mistralCalls reads one Mistral v11 call after [TOOL_CALLS]: NAME, an
// optional [CALL_ID]ID, an optional [ARGS] (detokenised text may lack
// it), then a JSON object that ends the call.
type mistralCalls struct {
	st   int // 0 name, 1 id, 2 args
	acc  strings.Builder
	name string
	span jsonSpan
}

const (
	mistralArgs   = "[ARGS]"
	mistralCallID = "[CALL_ID]"
)

func (c *mistralCalls) step(m *machine) bool {
	for !m.dead {
		switch c.st {
		case 0, 1:
			before, w := m.cut(mistralArgs, mistralCallID, "{", "[TOOL_CALLS]")
			if m.appendCapped(&c.acc, before) {
				m.abandon("", c.acc.String(), "[TOOL_CALLS]: a name that does not end")
				return true
			}
			if w < 0 {
				return false
			}
			head := strings.TrimSpace(c.acc.String())
			c.acc.Reset()
			if w == 3 {
				m.abandon(head, "", "[TOOL_CALLS]: call %q has no arguments", head)
				m.pend, m.off = "[TOOL_CALLS]"+m.pend, m.off-len("[TOOL_CALLS]")
				return true
			}
			if c.st == 0 {
				c.name = head
			}
			if c.st == 0 && w == 1 {
				c.st = 1
				continue
			}
			if c.name == "" {
				m.abandon("", "", "[TOOL_CALLS]: a call with no name")
				return true
			}
			id := ""
			if c.st == 1 {
				id = head
			}
			m.start(c.name, id)
			c.st = 2
			if w == 2 {
				// The brace opens the arguments.
				c.span.scan("{")
				m.args("{")
			}
		case 2:
			used, done, bad := c.span.scan(m.pend)
			m.args(m.pend[:used])
			m.consume(used)
			if bad {
				m.abandon(c.name, "", "[TOOL_CALLS]: arguments of %q are not JSON", c.name)
				return true
			}
			if !done {
				return false
			}
			m.end()
			return true
		}
	}
	return true
}

func (c *mistralCalls) cut(m *machine) {
	if c.st < 2 && m.cur < 0 {
		m.abandon(strings.TrimSpace(c.acc.String()), "", "[TOOL_CALLS]: the text ended before the call's arguments")
	}
	m.cur, m.id = -1, ""
}

var mistralV11 = &Format{
	Name:    "mistral-v11",
	Aliases: Aliases{VLLM: []string{"mistral (v11 tokenizer)"}, SGLang: []string{"mistral"}, LlamaCpp: []string{"Ministral-3", "Devstral", "Mistral-Small-3.2"}, Ollama: []string{"ministral"}},
	Grammar: "[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{json} per call (CALL_ID optional; [ARGS] may be detokenised away); [THINK]…[/THINK]",
	New: func(o Options) Parser {
		return newRegionParser(&grammar{
			think: &reasoning{open: "[THINK]", close: "[/THINK]", anywhere: true},
			open:  []string{"[TOOL_CALLS]"},
			body:  func(*machine, int) body { return &mistralCalls{} },
		}, o)
	},
	Render: func(t Turn) (string, error) {
		var b strings.Builder
		renderThink(&b, &reasoning{open: "[THINK]", close: "[/THINK]"}, t.Thinking)
		b.WriteString(t.Text)
		for _, c := range t.Calls {
			args := string(c.Arguments)
			if args == "" {
				args = "{}"
			}
			if strings.ContainsAny(c.Name, "[{") {
				return "", fmt.Errorf("mistral-v11: call name %q has [ or {", c.Name)
			}
			b.WriteString("[TOOL_CALLS]" + c.Name + mistralArgs + args)
		}
		return b.String(), nil
	},
}

// attrValue is the value of attribute key in a tag's attributes
// (key="value" or key=value), and whether it is there.
func attrValue(attrs, key string) (string, bool) {
	for rest := attrs; rest != ""; {
		rest = strings.TrimLeft(rest, " \t\r\n")
		eq := strings.IndexByte(rest, '=')
		if eq < 0 {
			return "", false
		}
		k := strings.TrimSpace(rest[:eq])
		rest = strings.TrimLeft(rest[eq+1:], " ")
		var v string
		if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
			end := strings.IndexByte(rest[1:], rest[0])
			if end < 0 {
				return "", false
			}
			v, rest = rest[1:1+end], rest[end+2:]
		} else {
			end := strings.IndexAny(rest, " \t")
			if end < 0 {
				end = len(rest)
			}
			v, rest = rest[:end], rest[end:]
		}
		if k == key {
			return v, true
		}
	}
	return "", false
}

var minimaxSpec = &xmlSpec{
	what:       "<minimax:tool_call>",
	blockClose: "</minimax:tool_call>",
	funcOpen:   "<invoke",
	funcClose:  "</invoke>",
	paramOpen:  "<parameter",
	paramClose: "</parameter>",
	tagEnd:     ">",
	head:       func(raw string) (string, bool) { return attrValue(raw, "name") },
	param: func(raw string) (string, bool, bool) {
		k, ok := attrValue(raw, "name")
		return k, false, ok
	},
}

var minimaxM2 = &Format{
	Name:    "minimax-m2",
	Aliases: Aliases{VLLM: []string{"minimax_m2"}, SGLang: []string{"minimax-m2"}, LlamaCpp: []string{"MiniMax-M2"}},
	Grammar: `<minimax:tool_call><invoke name="N"><parameter name="K">V</parameter>…</invoke>…</minimax:tool_call>; values typed by the schema`,
	New: func(o Options) Parser {
		return newRegionParser(&grammar{
			think: think,
			open:  []string{"<minimax:tool_call>"},
			body:  func(*machine, int) body { return newXMLCalls(minimaxSpec, false) },
		}, o)
	},
	Render: renderTagged("<minimax:tool_call>", "</minimax:tool_call>", `<invoke name="%s">`, "</invoke>", `<parameter name="%s">`, "</parameter>"),
}

const dsml = "｜DSML｜"

var dsmlSpec = &xmlSpec{
	what:       "DSML function_calls",
	blockClose: "</" + dsml + "function_calls>",
	funcOpen:   "<" + dsml + "invoke",
	funcClose:  "</" + dsml + "invoke>",
	paramOpen:  "<" + dsml + "parameter",
	paramClose: "</" + dsml + "parameter>",
	tagEnd:     ">",
	head:       func(raw string) (string, bool) { return attrValue(raw, "name") },
	param: func(raw string) (string, bool, bool) {
		k, ok := attrValue(raw, "name")
		s, _ := attrValue(raw, "string")
		return k, s == "false", ok
	},
}

var deepseekV32 = &Format{
	Name:    "deepseek-v32",
	Aliases: Aliases{VLLM: []string{"deepseek_v32"}, SGLang: []string{"deepseekv32"}, LlamaCpp: []string{"DeepSeek-V3.2", "DeepSeek-V4"}},
	Grammar: `<｜DSML｜function_calls><｜DSML｜invoke name="N"><｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>…; string="false" values are JSON`,
	New: func(o Options) Parser {
		return newRegionParser(&grammar{
			think: think,
			open:  []string{"<" + dsml + "function_calls>"},
			body:  func(*machine, int) body { return newXMLCalls(dsmlSpec, false) },
		}, o)
	},
	Render: renderTagged("<"+dsml+"function_calls>", "</"+dsml+"function_calls>", "<"+dsml+`invoke name="%s">`, "</"+dsml+"invoke>", "<"+dsml+`parameter name="%s" string="true">`, "</"+dsml+"parameter>"),
}

// renderTagged writes calls in a tagged format whose parameters are raw
// text typed by the schema.
func renderTagged(open, close, invoke, invokeEnd, param, paramEnd string) func(Turn) (string, error) {
	return func(t Turn) (string, error) {
		var b strings.Builder
		renderThink(&b, think, t.Thinking)
		b.WriteString(t.Text)
		if len(t.Calls) == 0 {
			return b.String(), nil
		}
		b.WriteString(open)
		for _, c := range t.Calls {
			params, err := rawParams(c)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, invoke, c.Name)
			for _, p := range params {
				fmt.Fprintf(&b, param, p.key)
				b.WriteString(p.value + paramEnd)
			}
			b.WriteString(invokeEnd)
		}
		b.WriteString(close)
		return b.String(), nil
	}
}

var seedSpec = &xmlSpec{
	what:       "<seed:tool_call>",
	blockClose: "</seed:tool_call>",
	funcOpen:   "<function=",
	funcClose:  "</function>",
	paramOpen:  "<parameter=",
	paramClose: "</parameter>",
	tagEnd:     ">",
	head:       func(raw string) (string, bool) { return raw, raw != "" },
	param:      func(raw string) (string, bool, bool) { return raw, false, raw != "" },
}

var seedOSS = &Format{
	Name:    "seed-oss",
	Aliases: Aliases{VLLM: []string{"seed_oss"}, LlamaCpp: []string{"ByteDance-Seed-OSS"}},
	Grammar: "<seed:tool_call>\\n<function=N>\\n<parameter=K>V</parameter>\\n</function>\\n</seed:tool_call>; <seed:think>…</seed:think>",
	New: func(o Options) Parser {
		return newRegionParser(&grammar{
			think: &reasoning{open: "<seed:think>", close: "</seed:think>"},
			open:  []string{"<seed:tool_call>"},
			body:  func(*machine, int) body { return newXMLCalls(seedSpec, false) },
		}, o)
	},
	Render: func(t Turn) (string, error) {
		var b strings.Builder
		renderThink(&b, &reasoning{open: "<seed:think>", close: "</seed:think>"}, t.Thinking)
		b.WriteString(t.Text)
		for _, c := range t.Calls {
			params, err := rawParams(c)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "<seed:tool_call>\n<function=%s>\n", c.Name)
			for _, p := range params {
				fmt.Fprintf(&b, "<parameter=%s>%s</parameter>\n", p.key, p.value)
			}
			b.WriteString("</function>\n</seed:tool_call>")
		}
		return b.String(), nil
	},
}

var cohereCommand = &Format{
	Name:    "cohere-command",
	Aliases: Aliases{LlamaCpp: []string{"command-r7b", "Cohere2MoE"}, Ollama: []string{"(cohere)"}},
	Grammar: `<|START_THINKING|>…<|END_THINKING|><|START_RESPONSE|>…<|END_RESPONSE|>; <|START_ACTION|>[{"tool_call_id": I, "tool_name": N, "parameters": {...}}]<|END_ACTION|>`,
	New: func(o Options) Parser {
		return newRegionParser(&grammar{
			think: &reasoning{open: "<|START_THINKING|>", close: "<|END_THINKING|>", anywhere: true},
			open:  []string{"<|START_ACTION|>"},
			body: func(*machine, int) body {
				return &delimited{close: "<|END_ACTION|>", what: "<|START_ACTION|>", calls: newJSONCalls(callKeys{name: []string{"tool_name"}, args: []string{"parameters"}, id: "tool_call_id"}, true, 0)}
			},
			drop: []string{"<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>"},
		}, o)
	},
	Render: func(t Turn) (string, error) {
		var b strings.Builder
		renderThink(&b, &reasoning{open: "<|START_THINKING|>", close: "<|END_THINKING|>"}, t.Thinking)
		if t.Text != "" {
			b.WriteString("<|START_RESPONSE|>" + t.Text + "<|END_RESPONSE|>")
		}
		if len(t.Calls) > 0 {
			b.WriteString("<|START_ACTION|>[")
			for i, c := range t.Calls {
				args := string(c.Arguments)
				if args == "" {
					args = "{}"
				}
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, `{"tool_call_id": %q, "tool_name": %q, "parameters": %s}`, fmt.Sprint(i), c.Name, args)
			}
			b.WriteString("]<|END_ACTION|>")
		}
		return b.String(), nil
	},
}

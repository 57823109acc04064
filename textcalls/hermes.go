package textcalls

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolconform/conform/core"
)

// think is the <think>…</think> region of Qwen3, DeepSeek R1 and their
// kin.
var think = &reasoning{open: "<think>", close: "</think>"}

// thinkRegion is think as the think format reads it: a call marker
// (Qwen3's <tool_call>) ends the region and is text.
var thinkRegion = &reasoning{open: "<think>", close: "</think>", endsAt: []string{"<tool_call>"}}

// qwenThink is think where a call marker ends the region (Qwen3).
var qwenThink = &reasoning{open: "<think>", close: "</think>", endsAtCall: true}

// delimited is a block of JSON calls between two markers.
type delimited struct {
	close string
	what  string
	calls *jsonCalls
}

func (d *delimited) step(m *machine) bool {
	before, w := m.cut(d.close)
	d.calls.feed(m, before)
	if w < 0 {
		return false
	}
	d.calls.finish(m, d.what)
	return true
}

func (d *delimited) cut(m *machine) { d.calls.cut(m) }

var hermes = &Format{
	Name: "hermes",
	Aliases: Aliases{
		VLLM:     []string{"hermes", "granite4"},
		SGLang:   []string{"hermes", "qwen25"},
		LlamaCpp: []string{"Hermes-2-Pro", "Hermes-3", "Qwen2.5", "MiMo-VL", "Reka-Edge", "granite-4.x"},
		Ollama:   []string{"qwen3", "qwen3-vl-instruct", "qwen3-vl-thinking", "tools (qwen template)"},
	},
	Grammar: `<tool_call>{"name": N, "arguments": {...}}</tool_call>, repeated; <think>…</think> reasoning`,
	New: func(o Options) Parser {
		return newRegionParser(&grammar{
			think: qwenThink,
			open:  []string{"<tool_call>"},
			body: func(*machine, int) body {
				return &delimited{close: "</tool_call>", what: "<tool_call>", calls: newJSONCalls(nameArgs, false, 0)}
			},
		}, o)
	},
	Render: func(t Turn) (string, error) {
		var b strings.Builder
		renderThink(&b, think, t.Thinking)
		b.WriteString(t.Text)
		for _, c := range t.Calls {
			obj, err := callObject(c, "arguments")
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "<tool_call>\n%s\n</tool_call>", obj)
		}
		return b.String(), nil
	},
}

var thinkOnly = &Format{
	Name: "think",
	Aliases: Aliases{
		VLLM:     []string{"deepseek_r1", "qwen3 (reasoning)"},
		SGLang:   []string{"(reasoning parsers)"},
		LlamaCpp: []string{"QwQ", "R1-Distill-Llama", "granite-3.3"},
		Ollama:   []string{"olmo3-think", "(every thinking parser)"},
	},
	Grammar: "<think>…</think> reasoning, then text; no calls",
	New: func(o Options) Parser {
		return newRegionParser(&grammar{think: thinkRegion}, o)
	},
	Render: func(t Turn) (string, error) {
		if len(t.Calls) > 0 {
			return "", fmt.Errorf("think: %w: calls", ErrCannotRender)
		}
		var b strings.Builder
		renderThink(&b, think, t.Thinking)
		b.WriteString(t.Text)
		return b.String(), nil
	},
}

// renderThink writes a reasoning region, when there is reasoning.
func renderThink(b *strings.Builder, r *reasoning, thinking string) {
	if thinking != "" {
		b.WriteString(r.open)
		b.WriteString(thinking)
		b.WriteString(r.close)
	}
}

// callObject is a call as a JSON object {"name": N, argsKey: A}.
func callObject(c core.Call, argsKey string) (string, error) {
	name, err := json.Marshal(c.Name)
	if err != nil {
		return "", err
	}
	args := c.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		return "", fmt.Errorf("call %s: arguments are not JSON", c.Name)
	}
	return fmt.Sprintf(`{"name": %s, %q: %s}`, name, argsKey, args), nil
}

var qwen3Coder = &Format{
	Name: "qwen3-coder",
	Aliases: Aliases{
		VLLM:     []string{"qwen3_coder"},
		SGLang:   []string{"qwen3_coder"},
		LlamaCpp: []string{"Qwen3-Coder", "Qwen3.5", "Nemotron-3-Nano", "StepFun3.5"},
		Ollama:   []string{"qwen3-coder", "qwen3.5", "nemotron-3-nano"},
	},
	Grammar: "<tool_call>\\n<function=NAME>\\n<parameter=KEY>\\nVALUE\\n</parameter>\\n</function>\\n</tool_call>; values typed by the schema",
	New: func(o Options) Parser {
		return newRegionParser(&grammar{
			think: qwenThink,
			open:  []string{"<tool_call>", "<function="},
			body: func(_ *machine, which int) body {
				return newXMLCalls(qwenSpec, which == 1)
			},
		}, o)
	},
	Render: func(t Turn) (string, error) {
		var b strings.Builder
		renderThink(&b, think, t.Thinking)
		b.WriteString(t.Text)
		for _, c := range t.Calls {
			params, err := rawParams(c)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "<tool_call>\n<function=%s>\n", c.Name)
			for _, p := range params {
				fmt.Fprintf(&b, "<parameter=%s>\n%s\n</parameter>\n", p.key, p.value)
			}
			b.WriteString("</function>\n</tool_call>")
		}
		return b.String(), nil
	},
}

// rawParam is one parameter as a tagged format writes it: its text (a
// string's content, any other value's JSON) and its JSON.
type rawParam struct{ key, value, raw string }

// rawParams are a call's arguments as raw-text parameters, in the order
// written: a string as its text, any other value as its JSON.
func rawParams(c core.Call) ([]rawParam, error) {
	args := c.Arguments
	if len(args) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(args)))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("call %s: arguments are not a JSON object", c.Name)
	}
	var out []rawParam
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		var s string
		value := string(v)
		if json.Unmarshal(v, &s) == nil {
			value = s
		}
		out = append(out, rawParam{key: k.(string), value: value, raw: string(v)})
	}
	return out, nil
}

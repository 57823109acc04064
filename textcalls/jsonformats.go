package textcalls

import (
	"fmt"
	"strings"
)

// renderJSONList writes calls as a JSON list of call objects after
// prefix, with argsKey naming the arguments.
func renderJSONList(t Turn, prefix, argsKey, suffix string) (string, error) {
	if err := plain(prefix, t); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(t.Text)
	if len(t.Calls) == 0 {
		return b.String(), nil
	}
	b.WriteString(prefix + "[")
	for i, c := range t.Calls {
		obj, err := callObject(c, argsKey)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(obj)
	}
	b.WriteString("]" + suffix)
	return b.String(), nil
}

// markedJSON is a format whose calls follow a marker as JSON.
func markedJSON(what string, markers []string, keys callKeys, list bool, close string) func(Options) Parser {
	return func(o Options) Parser {
		return newRegionParser(&grammar{
			open: markers,
			body: func(*machine, int) body {
				b := newJSONBlock(what, keys, list, 0, false)
				b.close = close
				return b
			},
		}, o)
	}
}

var mistralV3 = &Format{
	Name:    "mistral-v3",
	Aliases: Aliases{VLLM: []string{"mistral (pre-v11 tokenizer)"}, SGLang: []string{"mistral"}, LlamaCpp: []string{"Mistral-Nemo"}, Ollama: []string{"tools (mistral template)"}},
	Grammar: `[TOOL_CALLS][{"name": N, "arguments": {...}}, ...]`,
	New:     markedJSON("[TOOL_CALLS]", []string{"[TOOL_CALLS]"}, callKeys{name: []string{"name"}, args: []string{"arguments", "parameters"}, id: "id"}, true, "[/TOOL_CALLS]"),
	Render:  func(t Turn) (string, error) { return renderJSONList(t, "[TOOL_CALLS]", "arguments", "") },
}

var granite = &Format{
	Name:    "granite",
	Aliases: Aliases{VLLM: []string{"granite"}},
	Grammar: `<|tool_call|> (Granite 3.0) or <tool_call> (3.1) then [{"name": N, "arguments": {...}}, ...]`,
	New:     markedJSON("<|tool_call|>", []string{"<|tool_call|>", "<tool_call>"}, nameArgs, true, ""),
	Render:  func(t Turn) (string, error) { return renderJSONList(t, "<|tool_call|>", "arguments", "") },
}

var phi4Mini = &Format{
	Name:    "phi4-mini",
	Aliases: Aliases{VLLM: []string{"phi4_mini_json"}},
	Grammar: `functools[{"name": N, "arguments": {...}}, ...]`,
	New: func(o Options) Parser {
		return newRegionParser(&grammar{
			open: []string{"functools["},
			body: func(m *machine, _ int) body {
				// The marker's bracket opens the list.
				b := newJSONBlock("functools", nameArgs, true, 0, false)
				b.calls.feedValue(m, "[")
				return b
			},
		}, o)
	},
	Render: func(t Turn) (string, error) { return renderJSONList(t, "functools", "arguments", "") },
}

// bareJSON is a format whose calls are JSON at the start of the text; a
// JSON value that is no call, or JSON in prose, is text.
func bareJSON(what string, start []string, keys callKeys, list bool, sep byte, markers ...string) func(Options) Parser {
	return func(o Options) Parser {
		return newRegionParser(&grammar{
			open:      markers,
			body:      func(*machine, int) body { return newJSONBlock(what, keys, list, sep, false) },
			startWith: start,
			startBody: func(*machine) body { return newJSONBlock(what, keys, list, sep, true) },
		}, o)
	}
}

var llama3JSON = &Format{
	Name:    "llama3-json",
	Aliases: Aliases{VLLM: []string{"llama3_json"}, SGLang: []string{"llama3"}, LlamaCpp: []string{"Llama 3.1/3.2"}, Ollama: []string{"tools (json template)"}},
	Grammar: `[<|python_tag|>]{"name": N, "parameters": {...}}[; {...}] at the start of the text`,
	New:     bareJSON("<|python_tag|>", []string{"{"}, nameArgs, false, ';', "<|python_tag|>"),
	Render: func(t Turn) (string, error) {
		if err := plain("llama3-json", t); err != nil {
			return "", err
		}
		var b strings.Builder
		b.WriteString(t.Text)
		for i, c := range t.Calls {
			obj, err := callObject(c, "parameters")
			if err != nil {
				return "", err
			}
			if i == 0 {
				if t.Text != "" {
					b.WriteString("<|python_tag|>")
				}
			} else {
				b.WriteString("; ")
			}
			b.WriteString(obj)
		}
		return b.String(), nil
	},
}

var bareJSONFormat = &Format{
	Name:    "bare-json",
	Aliases: Aliases{Ollama: []string{"tools (template-derived, json)"}},
	Grammar: `{"name": N, "arguments": {...}} at the start of the text`,
	New:     bareJSON("JSON", []string{"{"}, nameArgs, false, 0),
	Render: func(t Turn) (string, error) {
		if err := plain("bare-json", t); err != nil {
			return "", err
		}
		if len(t.Calls) > 1 || len(t.Calls) == 1 && t.Text != "" {
			return "", fmt.Errorf("bare-json: %w: more than one call, or text beside a call", ErrCannotRender)
		}
		if len(t.Calls) == 0 {
			return t.Text, nil
		}
		return callObject(t.Calls[0], "arguments")
	},
}

var jsonList = &Format{
	Name:    "json-list",
	Aliases: Aliases{Ollama: []string{"tools (template-derived, list)"}},
	Grammar: `[{"name": N, "arguments": {...}}, ...] at the start of the text`,
	New:     bareJSON("JSON list", []string{"["}, nameArgs, true, 0),
	Render: func(t Turn) (string, error) {
		if len(t.Calls) > 0 && t.Text != "" {
			return "", fmt.Errorf("json-list: %w: text beside calls", ErrCannotRender)
		}
		return renderJSONList(t, "", "arguments", "")
	},
}

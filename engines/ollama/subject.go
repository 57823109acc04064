package ollama

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/harmony"
	"github.com/ollama/ollama/model/parsers"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/textcalls"
	"github.com/toolconform/conform/textcalls/textcallstest"
)

// Engine is one of Ollama's parsers as graded for a conform format.
type Engine struct {
	// Format is conform's name of the format.
	Format string
	// Name is the parser's name in Ollama (parsers.ParserForName, or its
	// type where no name constructs it).
	Name string
	// New returns the parser; thinking says whether the prompt opened the
	// reasoning region (Init's think value).
	New func(thinking bool) parsers.Parser
	// Stops are the model's end-of-sequence tokens that Ollama's runner
	// stops at before the parser sees them: the text ends at the first.
	Stops []string
}

func named(name string) func(bool) parsers.Parser {
	return func(bool) parsers.Parser { return parsers.ParserForName(name) }
}

// Engines are the formats both conform and Ollama parse. gemma4 (Ollama's
// gemma4 parser is newer than the pinned version) and the template-derived
// formats of Ollama's tools package (bare-json, json-list, llama3-json,
// mistral-v3: a parser built from a chat template) are not graded.
var Engines = []Engine{
	{Format: "hermes", Name: "qwen3-vl-instruct / qwen3-vl-thinking", New: func(thinking bool) parsers.Parser {
		if thinking {
			return parsers.ParserForName("qwen3-vl-thinking")
		}
		return parsers.ParserForName("qwen3-vl-instruct")
	}},
	{Format: "qwen3-coder", Name: "qwen3-coder", New: named("qwen3-coder")},
	{Format: "deepseek-v3", Name: "cogito", New: named("cogito")},
	{Format: "deepseek-v31", Name: "deepseek3", New: named("deepseek3")},
	{Format: "functiongemma", Name: "functiongemma", New: named("functiongemma")},
	{Format: "glm45", Name: "GLM46Parser", New: func(bool) parsers.Parser { return &parsers.GLM46Parser{} }},
	{Format: "glm47", Name: "glm-4.7", New: named("glm-4.7")},
	// The end-of-sequence tokens of gpt-oss (convert/convert_gptoss.go).
	{Format: "gpt-oss-harmony", Name: "harmony", New: func(bool) parsers.Parser { return harmony.NewHarmonyMessageHandler() },
		Stops: []string{"<|endoftext|>", "<|return|>", "<|call|>"}},
	{Format: "lfm2", Name: "lfm2 / lfm2-thinking", New: func(thinking bool) parsers.Parser {
		if thinking {
			return parsers.ParserForName("lfm2-thinking")
		}
		return parsers.ParserForName("lfm2")
	}},
	{Format: "mistral-v11", Name: "ministral", New: named("ministral")},
	{Format: "olmo3", Name: "olmo3", New: named("olmo3")},
	{Format: "think", Name: "olmo3-think", New: named("olmo3-think")},
}

// Subject is e as a textcallstest.Subject.
func (e Engine) Subject() textcallstest.Subject {
	return func(v *textcallstest.Vector, deltas []string) textcallstest.Result {
		deltas = e.stopped(deltas)
		resp, err := core.Collect(textcalls.NewStream(e.Parser(v.Options()), textcalls.Deltas(deltas...)))
		return textcallstest.ResultOf(resp, err)
	}
}

// stopped are deltas up to the first of e.Stops in their text, wherever
// the deltas cut it.
func (e Engine) stopped(deltas []string) []string {
	text := strings.Join(deltas, "")
	end := len(text)
	for _, s := range e.Stops {
		if i := strings.Index(text, s); i >= 0 && i < end {
			end = i
		}
	}
	if end == len(text) {
		return deltas
	}
	var out []string
	for _, d := range deltas {
		if end == 0 {
			break
		}
		d = d[:min(len(d), end)]
		end -= len(d)
		out = append(out, d)
	}
	return out
}

// Parser is e as a textcalls.Parser: each delta goes to Add(delta, false)
// and the end of the text is Add("", true), as Ollama's server feeds a
// parser the content of each response and then the final one. What Add
// returns becomes events: reasoning, then text, then each call whole
// (Ollama's parsers return calls complete or not at all); an error is an
// error event.
func (e Engine) Parser(o textcalls.Options) textcalls.Parser {
	thinking := o.ThinkingOpen && !o.NoThinking
	p := e.New(thinking)
	p.Init(apiTools(o.Tools), nil, &api.ThinkValue{Value: thinking})
	return &adapter{p: p}
}

type adapter struct {
	p     parsers.Parser
	calls int
	err   bool
}

func (a *adapter) Feed(dst []core.Event, delta string) []core.Event { return a.add(dst, delta, false) }

func (a *adapter) Close(dst []core.Event) []core.Event { return a.add(dst, "", true) }

func (a *adapter) add(dst []core.Event, s string, done bool) []core.Event {
	if a.err {
		return dst
	}
	content, thinking, calls, err := a.p.Add(s, done)
	if thinking != "" {
		dst = append(dst, core.Event{Kind: core.EventThinking, Text: thinking})
	}
	if content != "" {
		dst = append(dst, core.Event{Kind: core.EventText, Text: content})
	}
	for _, c := range calls {
		args, merr := json.Marshal(c.Function.Arguments)
		if merr != nil {
			err = fmt.Errorf("arguments of %s: %w", c.Function.Name, merr)
			break
		}
		ch := core.Chunk{Index: a.calls, HasIndex: true}
		start := ch
		start.ID, start.Name, start.ArgsDelta = c.ID, c.Function.Name, string(args)
		dst = append(dst, core.Event{Kind: core.EventCallStart, Chunk: &start}, core.Event{Kind: core.EventCallEnd, Chunk: &ch})
		a.calls++
	}
	if err != nil {
		a.err = true
		dst = append(dst, core.Event{Kind: core.EventError, Error: &core.ProviderError{Type: textcalls.ErrorType, Message: err.Error()}})
	}
	return dst
}

// apiTools are the declared tools as Ollama's API types them.
func apiTools(tools []textcalls.Tool) []api.Tool {
	out := make([]api.Tool, 0, len(tools))
	for _, t := range tools {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		body, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]any{"name": t.Name, "parameters": params}})
		var at api.Tool
		if err := json.Unmarshal(body, &at); err != nil {
			// A schema Ollama's types cannot hold: the tool is declared
			// by name alone.
			at = api.Tool{Type: "function", Function: api.ToolFunction{Name: t.Name}}
		}
		out = append(out, at)
	}
	return out
}

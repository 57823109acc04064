package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolconform/conform/agent"
	"github.com/toolconform/conform/agent/fakeprovider"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/textcalls"
)

// TestLoopTextFormat runs the loop against a model served without native
// tools that writes its calls in a text format: the invalid call gets an
// error result and never runs, the valid one runs once, the history sent
// back writes the calls in the format, and the answer is the last text.
func TestLoopTextFormat(t *testing.T) {
	for _, name := range []string{"hermes", "qwen3-coder", "mistral-v11", "kimi-k2", "gpt-oss-harmony", "pythonic"} {
		t.Run(name, func(t *testing.T) {
			format, err := textcalls.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			adapter, err := providers.Lookup("openai-chat")
			if err != nil {
				t.Fatal(err)
			}
			f := newFixture(t)
			say := func(tu textcalls.Turn) core.Response {
				text, err := format.Render(tu)
				if err != nil {
					t.Fatal(err)
				}
				return core.Response{Model: "fake-model", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart(text)}}, Finish: core.FinishStop}
			}
			srv := fakeprovider.New(adapter,
				say(textcalls.Turn{Calls: []core.Call{{Name: "get_weather", Arguments: json.RawMessage(`{"town":"Paris"}`)}}}),
				say(textcalls.Turn{Calls: []core.Call{{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}}),
				say(textcalls.Turn{Text: "It is 21 C in Paris."}),
			)
			defer srv.Close()
			loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL, Client: srv.Client()},
				Registry: f.reg, Model: "fake-model", Mode: agent.ModeValidated, TextFormat: format}
			out, err := loop.Run(context.Background(), []core.Message{user("Weather in Paris?")})
			if err != nil {
				var b strings.Builder
				out.Trace.Write(&b)
				t.Fatalf("Run: %v\ntrace:\n%s", err, b.String())
			}
			if out.Answer != "It is 21 C in Paris." {
				t.Errorf("answer = %q", out.Answer)
			}
			if got := f.weather.Load(); got != 1 {
				t.Errorf("get_weather ran %d times, want 1 (the invalid call must not run)", got)
			}
			got := srv.Received()
			if len(got) != 3 {
				t.Fatalf("provider received %d requests, want 3", len(got))
			}
			if len(got[0].Request.Tools) != 0 {
				t.Errorf("request 1 offers %d native tools, want none", len(got[0].Request.Tools))
			}
			example, _ := format.Render(textcalls.Turn{Calls: []core.Call{{Name: f.reg.Specs()[0].Name, Arguments: json.RawMessage("{}")}}})
			if sys := got[0].Request.Messages[0].Text(); !strings.Contains(sys, example) {
				t.Errorf("request 1: the system prompt does not show a call in %s:\n%s", name, sys)
			}
			// The history sent back writes the valid call in the format.
			hist := ""
			for _, m := range got[2].Request.Messages {
				if m.Role == core.RoleAssistant {
					hist += m.Text()
				}
			}
			if !strings.Contains(hist, "Paris") || !strings.Contains(hist, "get_weather") {
				t.Errorf("request 3: assistant history %q does not carry the calls", hist)
			}
			_, results := lastResults(t, agent.ModeValidated, got[1].Request)
			if len(results) != 1 || !strings.Contains(results[0].Text(), "/city: missing") {
				t.Errorf("request 2: want one error result naming the missing city, got %+v", results)
			}
		})
	}
}

// TestTextFormatExtract checks what the format strategy reads: text
// around the calls, ids only where the model wrote them, a cut or
// malformed call reported and never a call.
func TestTextFormatExtract(t *testing.T) {
	req := &core.Request{Tools: []core.ToolSpec{{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}}}`)}}}
	resp := func(s string) *core.Response {
		return &core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart(s)}}}
	}
	for _, tc := range []struct {
		format, text string
		calls        []core.Call
		malformed    int
		answer       bool
	}{
		{format: "hermes", text: `Sure. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`,
			calls: []core.Call{{Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris"}`)}}},
		{format: "hermes", text: `<tool_call>{"name": "get_weather", "arguments": {"city": "Pa`, malformed: 1},
		{format: "hermes", text: `<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}</tool_call>`, malformed: 1},
		{format: "hermes", text: `No call: {"name": "get_weather"}`, answer: true},
		{format: "qwen3-coder", text: "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
			calls: []core.Call{{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris","days":3}`)}}},
		{format: "kimi-k2", text: `<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>`,
			calls: []core.Call{{ID: "functions.get_weather:0", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris"}`)}}},
	} {
		format, err := textcalls.Lookup(tc.format)
		if err != nil {
			t.Fatal(err)
		}
		s, err := agent.NewTextStrategy(agent.ModeParsed, format)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := s.Extract(req, resp(tc.text))
		if err != nil {
			t.Fatalf("%s %q: %v", tc.format, tc.text, err)
		}
		if len(ex.Calls) != len(tc.calls) || len(ex.Malformed) != tc.malformed || ex.Answer != tc.answer {
			t.Errorf("%s %q: %d calls, %d malformed, answer %v; want %d, %d, %v", tc.format, tc.text, len(ex.Calls), len(ex.Malformed), ex.Answer, len(tc.calls), tc.malformed, tc.answer)
			continue
		}
		for i, c := range ex.Calls {
			w := tc.calls[i]
			if c.ID != w.ID || c.Name != w.Name || !jsonEqual(c.Arguments, w.Arguments) {
				t.Errorf("%s %q: call %d = %+v, want %+v", tc.format, tc.text, i, c, w)
			}
		}
		for _, m := range ex.Malformed {
			if !errors.Is(m, agent.ErrMalformedCall) {
				t.Errorf("%s %q: malformed call %v does not wrap ErrMalformedCall", tc.format, tc.text, m)
			}
		}
	}
	if _, err := agent.NewTextStrategy(agent.ModeNative, textcalls.Formats()[0]); !errors.Is(err, agent.ErrUnknownMode) {
		t.Errorf("a text format with the native mode: err %v, want ErrUnknownMode", err)
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

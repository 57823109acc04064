package agent

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolconform/conform/core"
)

func call(name, args string) core.Call {
	return core.Call{Name: name, Arguments: json.RawMessage(args)}
}

// bad is a malformed call expected at an offset; its error must wrap
// ErrMalformedCall.
type bad struct {
	Offset int
	Text   string
}

// testTools are the tools offered in the extraction tests.
var testTools = readOpts{tools: []string{"a", "b", "get_weather"}}

func TestExtractText(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		tagsOnly  bool // ModeNative reads only tags
		wantText  string
		wantCalls []core.Call
		wantBad   []bad
	}{
		{
			name:     "plain answer",
			text:     "It is sunny in Paris.",
			wantText: "It is sunny in Paris.",
		},
		{
			name:      "bare object",
			text:      `{"tool": "get_weather", "arguments": {"city": "Paris"}}`,
			wantCalls: []core.Call{call("get_weather", `{"city":"Paris"}`)},
		},
		{
			name:      "bare object with text before and after",
			text:      "Let me check.\n{\"tool\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\nOne moment.",
			wantText:  "Let me check.\nOne moment.",
			wantCalls: []core.Call{call("get_weather", `{"city":"Paris"}`)},
		},
		{
			name:      "fenced json block",
			text:      "Calling:\n```json\n{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}\n```\nDone.",
			wantText:  "Calling:\nDone.",
			wantCalls: []core.Call{call("get_weather", `{"city":"Oslo"}`)},
		},
		{
			name:      "tool_call tag",
			text:      `Sure. <tool_call>{"tool": "get_weather", "arguments": {"city": "Rome"}}</tool_call> Back soon.`,
			wantText:  "Sure.\nBack soon.",
			wantCalls: []core.Call{call("get_weather", `{"city":"Rome"}`)},
		},
		{
			name:      "tool_use tag with fence inside",
			text:      "<tool_use>\n```json\n{\"name\": \"get_weather\", \"input\": {\"city\": \"Lima\"}}\n```\n</tool_use>",
			wantCalls: []core.Call{call("get_weather", `{"city":"Lima"}`)},
		},
		{
			name:      "two calls",
			text:      "First\n<tool_call>{\"tool\": \"a\", \"arguments\": {}}</tool_call>\nthen\n<tool_call>{\"tool\": \"b\", \"arguments\": {\"x\": 1}}</tool_call>\nend",
			wantText:  "First\nthen\nend",
			wantCalls: []core.Call{call("a", `{}`), call("b", `{"x":1}`)},
		},
		{
			name:      "two bare objects on separate lines",
			text:      "{\"tool\": \"a\", \"arguments\": {}}\n{\"tool\": \"b\", \"arguments\": {}}",
			wantCalls: []core.Call{call("a", `{}`), call("b", `{}`)},
		},
		{
			name:      "call id kept",
			text:      `<tool_call>{"id": "c1", "tool": "a", "arguments": {}}</tool_call>`,
			wantCalls: []core.Call{{ID: "c1", Name: "a", Arguments: json.RawMessage(`{}`)}},
		},
		{
			name:      "missing arguments means none",
			text:      `<tool_call>{"tool": "a"}</tool_call>`,
			wantCalls: []core.Call{call("a", `{}`)},
		},
		{
			name:     "malformed json in tag is reported, not dropped",
			text:     `Trying. <tool_call>{"tool": "a", "arguments": {"x": }</tool_call> ok`,
			wantText: "Trying.\nok",
			wantBad:  []bad{{Offset: 8, Text: `<tool_call>{"tool": "a", "arguments": {"x": }</tool_call>`}},
		},
		{
			name:    "unclosed tag is truncated, reported",
			text:    `<tool_call>{"tool": "a", "arguments": {"x": 1}}`,
			wantBad: []bad{{Offset: 0, Text: `<tool_call>{"tool": "a", "arguments": {"x": 1}}`}},
		},
		{
			name:     "truncated bare call is reported",
			text:     "Here:\n{\"tool\": \"a\", \"arguments\": {\"x\": 1",
			wantText: "Here:",
			wantBad:  []bad{{Offset: 6, Text: "{\"tool\": \"a\", \"arguments\": {\"x\": 1"}},
		},
		{
			name:      "malformed beside a good call: both reported",
			text:      "<tool_call>{\"tool\": \"a\"}</tool_call>\n<tool_call>{\"tool\": }</tool_call>",
			wantCalls: []core.Call{call("a", `{}`)},
			wantBad:   []bad{{Offset: 37, Text: `<tool_call>{"tool": }</tool_call>`}},
		},
		{
			name:    "tag without a tool name",
			text:    `<tool_call>{"arguments": {}}</tool_call>`,
			wantBad: []bad{{Offset: 0, Text: `<tool_call>{"arguments": {}}</tool_call>`}},
		},
		{
			name:     "json that is not a call stays text",
			text:     "The config is\n{\"debug\": true}\nas shown.",
			wantText: "The config is\n{\"debug\": true}\nas shown.",
		},
		{
			name:     "fenced non-call json stays text",
			text:     "Example:\n```json\n{\"city\": \"Paris\"}\n```",
			wantText: "Example:\n```json\n{\"city\": \"Paris\"}\n```",
		},
		{
			name:     "fenced code in another language stays text",
			text:     "```python\n{\"tool\": \"a\"}\n```",
			wantText: "```python\n{\"tool\": \"a\"}\n```",
		},
		{
			name:     "object mid-line is prose",
			text:     `I would write {"tool": "a"} if I wanted to.`,
			wantText: `I would write {"tool": "a"} if I wanted to.`,
		},
		{
			name:      "fence tagged JSON in upper case",
			text:      "```JSON\n{\"tool\": \"a\", \"arguments\": {\"x\": 1}}\n```",
			wantCalls: []core.Call{call("a", `{"x":1}`)},
		},
		{
			name:     "fenced record with a name key is data",
			text:     "Here is the user record:\n```json\n{\"name\": \"Alice\", \"email\": \"alice@example.com\"}\n```",
			wantText: "Here is the user record:\n```json\n{\"name\": \"Alice\", \"email\": \"alice@example.com\"}\n```",
		},
		{
			name:     "bare record with a name key is data",
			text:     "{\"name\": \"Alice\", \"arguments\": [1, 2]}\nis what the form held.",
			wantText: "{\"name\": \"Alice\", \"arguments\": [1, 2]}\nis what the form held.",
		},
		{
			name:     "truncated record with another name is data",
			text:     "Record:\n```json\n{\"name\": \"Ali",
			wantText: "Record:\n```json\n{\"name\": \"Ali",
		},
		{
			name:     "truncated bare call inside the tool's name",
			text:     "Record:\n{\"name\": \"get_wea",
			wantText: "Record:",
			wantBad:  []bad{{Offset: 8, Text: "{\"name\": \"get_wea"}},
		},
		{
			name:     "fenced object naming a tool without arguments is data",
			text:     "The tool:\n```json\n{\"name\": \"get_weather\", \"description\": \"weather\"}\n```",
			wantText: "The tool:\n```json\n{\"name\": \"get_weather\", \"description\": \"weather\"}\n```",
		},
		{
			name:    "tag naming a tool that is not offered is malformed",
			text:    `<tool_call>{"tool": "Alice", "arguments": {}}</tool_call>`,
			wantBad: []bad{{Offset: 0, Text: `<tool_call>{"tool": "Alice", "arguments": {}}</tool_call>`}},
		},
		{
			name:     "prose mentioning an unclosed tag",
			text:     "To call a tool, write <tool_call> and a JSON object.",
			wantText: "To call a tool, write <tool_call> and a JSON object.",
		},
		{
			name:     "prose mentioning both tags",
			text:     "Wrap it in <tool_call> … </tool_call> tags.",
			wantText: "Wrap it in <tool_call> … </tool_call> tags.",
		},
		{
			name:     "unclosed tag with JSON after it is truncated",
			text:     "Write <tool_call> like this. <tool_call>\n{\"tool\": \"a\"",
			wantText: "Write <tool_call> like this.",
			wantBad:  []bad{{Offset: 29, Text: "<tool_call>\n{\"tool\": \"a\""}},
		},
		{
			name:     "text ending with the tag is truncated",
			text:     "Calling.\n<tool_call>\n",
			wantText: "Calling.",
			wantBad:  []bad{{Offset: 9, Text: "<tool_call>\n"}},
		},
		{
			name:    "empty tag",
			text:    "<tool_use></tool_use>",
			wantBad: []bad{{Offset: 0, Text: "<tool_use></tool_use>"}},
		},
		{
			name:    "tag with another written form of a known tool",
			text:    `<tool_call>get_weather(city="Paris")</tool_call>`,
			wantBad: []bad{{Offset: 0, Text: `<tool_call>get_weather(city="Paris")</tool_call>`}},
		},
		{
			name:      "native reads tags",
			tagsOnly:  true,
			text:      "Sure.\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}</tool_call>",
			wantText:  "Sure.",
			wantCalls: []core.Call{call("get_weather", `{"city":"Rome"}`)},
		},
		{
			name:     "native leaves fenced and bare calls as text",
			tagsOnly: true,
			text:     "```json\n{\"tool\": \"a\", \"arguments\": {}}\n```\n{\"tool\": \"b\", \"arguments\": {}}",
			wantText: "```json\n{\"tool\": \"a\", \"arguments\": {}}\n```\n{\"tool\": \"b\", \"arguments\": {}}",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := testTools
			o.tagsOnly = tt.tagsOnly
			ex, err := extractText(tt.text, o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantText, ex.Text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCalls, ex.Calls, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			var gotBad []bad
			for _, m := range ex.Malformed {
				gotBad = append(gotBad, bad{m.Offset, m.Text})
				if !errors.Is(m, ErrMalformedCall) {
					t.Errorf("malformed error %v does not wrap ErrMalformedCall", m)
				}
			}
			if diff := cmp.Diff(tt.wantBad, gotBad); diff != "" {
				t.Errorf("malformed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractTextTooLarge(t *testing.T) {
	big := make([]byte, MaxTextBytes+1)
	for i := range big {
		big[i] = 'a'
	}
	if _, err := extractText(string(big), testTools); !errors.Is(err, ErrTextTooLarge) {
		t.Fatalf("got %v, want ErrTextTooLarge", err)
	}
}

func textResponse(s string) *core.Response {
	return &core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart(s)}}}
}

// TestToolChoiceNoneKeepsText checks F07: with tool choice none, no
// strategy strips call-shaped text or reports a call.
func TestToolChoiceNoneKeepsText(t *testing.T) {
	text := "Here is how a call looks:\n<tool_call>{\"tool\": \"get_weather\", \"arguments\": {}}</tool_call>\n{\"tool\": \"a\"}"
	req := &core.Request{Tools: []core.ToolSpec{{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		ToolChoice: &core.ToolChoice{Mode: core.ToolChoiceNone}}
	for _, m := range Modes {
		t.Run(string(m), func(t *testing.T) {
			s, err := NewStrategy(m)
			if err != nil {
				t.Fatal(err)
			}
			ex, err := s.Extract(req, textResponse(text))
			if err != nil {
				t.Fatal(err)
			}
			want := Extraction{Text: text, Answer: true}
			if diff := cmp.Diff(want, ex, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("extraction (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNativeFallsBackToText checks F06: a native response that wrote its
// call into the text instead of tool_calls still gives the call, and the
// text around it.
func TestNativeFallsBackToText(t *testing.T) {
	req := &core.Request{Tools: []core.ToolSpec{{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	ex, err := native{}.Extract(req, textResponse("Calling now.\n<tool_call>{\"tool\": \"a\", \"arguments\": {}}</tool_call>"))
	if err != nil {
		t.Fatal(err)
	}
	want := Extraction{Text: "Calling now.", Calls: []core.Call{call("a", `{}`)}}
	if diff := cmp.Diff(want, ex, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("extraction (-want +got):\n%s", diff)
	}
}

func TestStructuredExtract(t *testing.T) {
	req := &core.Request{}
	tests := []struct {
		name    string
		text    string
		want    Extraction
		wantBad bool
	}{
		{"wrapped call", `{"step": {"tool": "a", "arguments": {"x": 1}}}`, Extraction{Calls: []core.Call{call("a", `{"x": 1}`)}}, false},
		{"bare call", `{"tool": "a", "arguments": {}}`, Extraction{Calls: []core.Call{call("a", `{}`)}}, false},
		{"fenced answer", "```json\n{\"step\": {\"answer\": \"42\"}}\n```", Extraction{Text: "42", Answer: true}, false},
		{"scratchpad", `{"step": {"scratchpad": "think"}}`, Extraction{Scratchpad: "think"}, false},
		{"prose", "The answer is 42.", Extraction{}, true},
		{"truncated", `{"step": {"tool": "a", "arguments": {"x": `, Extraction{}, true},
		{"empty tool", `{"step": {"tool": ""}}`, Extraction{}, true},
		{"unknown step", `{"step": {"other": 1}}`, Extraction{}, true},
		{"two steps", `{"step": {"answer": "a"}} {"step": {"answer": "b"}}`, Extraction{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, err := structured{}.Extract(req, textResponse(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantBad {
				if len(ex.Malformed) != 1 || len(ex.Calls) != 0 || ex.Answer {
					t.Fatalf("want one malformed step and nothing else, got %+v", ex)
				}
				if !errors.Is(ex.Malformed[0], ErrMalformedCall) {
					t.Errorf("error %v does not wrap ErrMalformedCall", ex.Malformed[0])
				}
				return
			}
			if diff := cmp.Diff(tt.want, ex, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("extraction (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStepSchema(t *testing.T) {
	tools := []core.ToolSpec{
		{Name: "a", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer"}}}`)},
		{Name: "b", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}
	branches := func(choice *core.ToolChoice) []string {
		t.Helper()
		raw, err := StepSchema(tools, choice)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Type                 string   `json:"type"`
			Required             []string `json:"required"`
			AdditionalProperties bool     `json:"additionalProperties"`
			Properties           struct {
				Step struct {
					AnyOf []struct {
						Required   []string `json:"required"`
						Properties struct {
							Tool *struct {
								Const string `json:"const"`
							} `json:"tool"`
							Arguments *struct {
								AdditionalProperties *bool    `json:"additionalProperties"`
								Required             []string `json:"required"`
							} `json:"arguments"`
						} `json:"properties"`
					} `json:"anyOf"`
				} `json:"step"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		if s.Type != "object" || s.AdditionalProperties || !cmp.Equal(s.Required, []string{"step"}) {
			t.Errorf("root is not a closed object requiring step: %s", raw)
		}
		var names []string
		for _, b := range s.Properties.Step.AnyOf {
			switch {
			case b.Properties.Tool != nil:
				names = append(names, "tool:"+b.Properties.Tool.Const)
				if a := b.Properties.Arguments; a == nil || a.AdditionalProperties == nil || *a.AdditionalProperties {
					t.Errorf("tool %s: arguments schema not strict", b.Properties.Tool.Const)
				}
			default:
				names = append(names, b.Required[0])
			}
		}
		return names
	}
	tests := []struct {
		name   string
		choice *core.ToolChoice
		want   []string
	}{
		{"auto", nil, []string{"tool:a", "tool:b", "answer", "scratchpad"}},
		{"none", &core.ToolChoice{Mode: core.ToolChoiceNone}, []string{"answer", "scratchpad"}},
		{"required", &core.ToolChoice{Mode: core.ToolChoiceRequired}, []string{"tool:a", "tool:b", "scratchpad"}},
		{"named", &core.ToolChoice{Mode: core.ToolChoiceTool, Name: "b"}, []string{"tool:b", "scratchpad"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, branches(tt.choice)); diff != "" {
				t.Errorf("branches (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := StepSchema(tools, &core.ToolChoice{Mode: core.ToolChoiceTool, Name: "zz"}); err == nil {
		t.Error("a tool choice naming an unknown tool gave no error")
	}
}

func TestParseOnly(t *testing.T) {
	tests := []struct {
		args      string
		wantValid bool
		wantArgs  string
	}{
		{`{"x": 1}`, true, `{"x":1}`},
		{``, true, `{}`},
		{`null`, true, `{}`},
		{`{"x": `, false, `{"x": `},
		{`[1]`, false, `[1]`},
		{`{} {}`, false, `{} {}`},
	}
	for _, tt := range tests {
		v := parseOnly(call("a", tt.args))
		if v.Valid != tt.wantValid || string(v.Arguments) != tt.wantArgs {
			t.Errorf("parseOnly(%q) = valid %v args %s, want %v %s", tt.args, v.Valid, v.Arguments, tt.wantValid, tt.wantArgs)
		}
		if !v.Valid && (v.Message == "" || v.Err == nil) {
			t.Errorf("parseOnly(%q): invalid without a message and error", tt.args)
		}
	}
}

func TestDropOptionalNulls(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"]}`)
	got := string(dropOptionalNulls(schema, json.RawMessage(`{"a":null,"b":null}`)))
	if got != `{"a":null}` {
		t.Errorf("got %s, want {\"a\":null}: only the optional null goes", got)
	}
}

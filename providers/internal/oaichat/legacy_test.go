package oaichat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
)

// The bytes below follow the legacy function-calling examples of OpenAI's
// "Function calling" guide of June 2023 (gpt-3.5-turbo-0613): a message
// with function_call {name, arguments} and finish_reason "function_call",
// streamed as delta.function_call pieces.

const legacyResponse = `{"id":"chatcmpl-7R","object":"chat.completion","model":"gpt-3.5-turbo-0613",
"choices":[{"index":0,"message":{"role":"assistant","content":null,
"function_call":{"name":"get_current_weather","arguments":"{\n  \"location\": \"Boston, MA\"\n}"}},
"finish_reason":"function_call"}]}`

func TestDecodeLegacyFunctionCall(t *testing.T) {
	c := New(Config{Name: "openai-chat"})
	resp, err := c.DecodeResponse([]byte(legacyResponse))
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Call{{ID: legacyResponseID("chatcmpl-7R", nil), Name: "get_current_weather", Arguments: json.RawMessage("{\n  \"location\": \"Boston, MA\"\n}")}}
	if diff := cmp.Diff(want, resp.Calls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if resp.Finish != core.FinishToolCalls {
		t.Errorf("finish = %q, want tool_calls", resp.Finish)
	}

	// The same response streamed gives the same call with the same id.
	stream := `data: {"id":"chatcmpl-7R","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":null,"function_call":{"name":"get_current_weather","arguments":""}},"finish_reason":null}]}

data: {"id":"chatcmpl-7R","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"function_call":{"arguments":"{\n  \"location\": "}},"finish_reason":null}]}

data: {"id":"chatcmpl-7R","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"function_call":{"arguments":"\"Boston, MA\"\n}"}},"finish_reason":null}]}

data: {"id":"chatcmpl-7R","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"function_call"}]}

data: [DONE]

`
	got, err := core.Collect(c.DecodeStream(strings.NewReader(stream)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got.Calls()); diff != "" {
		t.Errorf("streamed calls (-want +got):\n%s", diff)
	}
	if got.Finish != core.FinishToolCalls {
		t.Errorf("streamed finish = %q, want tool_calls", got.Finish)
	}
}

func TestLegacyResponseIDWithoutResponseID(t *testing.T) {
	c := New(Config{Name: "openai-chat"})
	body := func(args string) string {
		return `{"choices":[{"index":0,"message":{"role":"assistant","function_call":{"name":"f","arguments":` + args + `}},"finish_reason":"function_call"}]}`
	}
	a, err := c.DecodeResponse([]byte(body(`"{\"x\":1}"`)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.DecodeResponse([]byte(body(`"{\"x\":2}"`)))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Calls()) != 1 || len(b.Calls()) != 1 {
		t.Fatalf("calls: %v, %v", a.Calls(), b.Calls())
	}
	if ida, idb := a.Calls()[0].ID, b.Calls()[0].ID; ida == idb || !strings.HasPrefix(ida, LegacyIDPrefix) {
		t.Errorf("ids %q and %q: want distinct ids starting %q", ida, idb, LegacyIDPrefix)
	}
	// Arguments cut short are never a complete call.
	cut, err := c.DecodeResponse([]byte(body(`"{\"x\":"`)))
	if err != nil {
		t.Fatal(err)
	}
	if len(cut.Calls()) != 0 || len(cut.Incomplete) != 1 {
		t.Errorf("cut arguments: calls %v, incomplete %v; want none and one", cut.Calls(), cut.Incomplete)
	}
}

func TestDecodeLegacyRequest(t *testing.T) {
	c := New(Config{Name: "openai-chat"})
	body := `{"model":"gpt-3.5-turbo-0613",
"messages":[{"role":"user","content":"Weather in Boston?"},
{"role":"assistant","content":null,"function_call":{"name":"get_current_weather","arguments":"{\"location\":\"Boston\"}"}},
{"role":"function","name":"get_current_weather","content":"{\"temperature\":22}"},
{"role":"assistant","content":null,"function_call":{"name":"get_current_weather","arguments":"{\"location\":\"Paris\"}"}},
{"role":"function","name":"get_current_weather","content":"{\"temperature\":18}"}],
"functions":[{"name":"get_current_weather","description":"Get the weather","parameters":{"type":"object","properties":{"location":{"type":"string"}}}}],
"function_call":{"name":"get_current_weather"}}`
	req, err := c.DecodeRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := &core.Request{
		Model: "gpt-3.5-turbo-0613",
		Messages: []core.Message{
			{Role: core.RoleUser, Parts: []core.Part{core.TextPart("Weather in Boston?")}},
			{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(core.Call{ID: "function_call_0", Name: "get_current_weather", Arguments: json.RawMessage(`{"location":"Boston"}`)})}},
			{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: "function_call_0", Name: "get_current_weather", Content: []core.Part{core.TextPart(`{"temperature":22}`)}})}},
			{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(core.Call{ID: "function_call_1", Name: "get_current_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)})}},
			{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: "function_call_1", Name: "get_current_weather", Content: []core.Part{core.TextPart(`{"temperature":18}`)}})}},
		},
		Tools:      []core.ToolSpec{{Name: "get_current_weather", Description: "Get the weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}}}`)}},
		ToolChoice: &core.ToolChoice{Mode: core.ToolChoiceTool, Name: "get_current_weather"},
	}
	if diff := cmp.Diff(want, req); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}

	// The decoded request encodes in the current form: tools and
	// tool_calls, no functions.
	out, err := c.EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, legacy := range []string{`"functions"`, `"function_call"`, `"role":"function"`} {
		if strings.Contains(string(out), legacy) {
			t.Errorf("encoded request holds %s: %s", legacy, out)
		}
	}

	for _, tc := range []struct{ name, body, wantErr string }{
		{"function message answering nothing", `{"messages":[{"role":"function","name":"f","content":"x"}]}`, "messages[0].name"},
		{"function message without a name", `{"messages":[{"role":"function","content":"x"}]}`, "messages[0].name"},
		{"function without a name", `{"messages":[],"functions":[{"parameters":{}}]}`, "functions[0].name"},
		{"unknown function_call", `{"messages":[],"function_call":"required"}`, "function_call"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.DecodeRequest([]byte(tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want one naming %s", err, tc.wantErr)
			}
		})
	}
}

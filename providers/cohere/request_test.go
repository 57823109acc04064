package cohere

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

func TestEncodeRequestShapes(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	tools := []core.ToolSpec{{Name: "a", InputSchema: schema}, {Name: "b", Description: "B", InputSchema: schema}}
	history := []core.Message{
		{Role: core.RoleSystem, Parts: []core.Part{core.TextPart("be brief")}},
		{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}},
		{Role: core.RoleAssistant, Parts: []core.Part{
			{Kind: core.PartPlan, Text: "I will call a."},
			core.CallPart(core.Call{ID: "a_1", Name: "a", Arguments: nil}),
			core.CallPart(core.Call{ID: "b_1", Name: "b", Arguments: json.RawMessage(`{"x": 1}`)}),
		}},
		{Role: core.RoleTool, Parts: []core.Part{
			core.ResultPart(core.Result{CallID: "a_1", Content: []core.Part{core.TextPart("plain")}}),
			core.ResultPart(core.Result{CallID: "b_1", Content: []core.Part{{Kind: core.PartText, Text: `{"output":"5"}`, Data: `{"output":"5"}`}}}),
		}},
	}
	tests := []struct {
		name string
		req  core.Request
		want string
	}{
		{
			name: "G16 plan as tool_plan, no-argument call as {}, results as content lists, one tool message per result",
			req:  core.Request{Model: "command-a", Messages: history},
			want: `{"model":"command-a","stream":false,"messages":[
				{"role":"system","content":"be brief"},
				{"role":"user","content":"hi"},
				{"role":"assistant","tool_plan":"I will call a.","tool_calls":[
					{"id":"a_1","type":"function","function":{"name":"a","arguments":"{}"}},
					{"id":"b_1","type":"function","function":{"name":"b","arguments":"{\"x\": 1}"}}]},
				{"role":"tool","tool_call_id":"a_1","content":[{"type":"text","text":"plain"}]},
				{"role":"tool","tool_call_id":"b_1","content":[{"type":"document","document":{"data":{"output":"5"}}}]}]}`,
		},
		{
			name: "F08 named tool choice forces the tool alone with REQUIRED",
			req:  core.Request{Messages: history[1:2], Tools: tools, ToolChoice: &core.ToolChoice{Mode: core.ToolChoiceTool, Name: "b"}},
			want: `{"stream":false,"messages":[{"role":"user","content":"hi"}],"tool_choice":"REQUIRED",
				"tools":[{"type":"function","function":{"name":"b","description":"B","parameters":{"type":"object"}}}]}`,
		},
		{
			name: "none, strict tools, response format, max tokens, stream",
			req: core.Request{Messages: history[1:2], Tools: []core.ToolSpec{{Name: "a", InputSchema: schema, Strict: true}}, ToolChoice: &core.ToolChoice{Mode: core.ToolChoiceNone},
				ResponseFormat: &core.ResponseFormat{Name: "x", Schema: schema}, MaxTokens: 9, Stream: true},
			want: `{"stream":true,"max_tokens":9,"messages":[{"role":"user","content":"hi"}],"tool_choice":"NONE","strict_tools":true,
				"tools":[{"type":"function","function":{"name":"a","description":"","parameters":{"type":"object"}}}],
				"response_format":{"type":"json_object","json_schema":{"type":"object"}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New().EncodeRequest(&tt.req)
			if err != nil {
				t.Fatal(err)
			}
			adaptertest.CheckJSON(t, []byte(tt.want), got)
		})
	}
}

func TestEncodeRequestErrors(t *testing.T) {
	tests := []struct {
		name string
		req  core.Request
		want string
	}{
		{"arguments that are not JSON", core.Request{Messages: []core.Message{{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(core.Call{ID: "x", Name: "f", Arguments: json.RawMessage(`{"a":`)})}}}}, "messages[0].parts[0].call.arguments"},
		{"named tool that is not offered", core.Request{Tools: []core.ToolSpec{{Name: "a"}}, ToolChoice: &core.ToolChoice{Mode: core.ToolChoiceTool, Name: "zz"}}, `tool "zz"`},
		{"unknown role", core.Request{Messages: []core.Message{{Role: "robot"}}}, `messages[0].role: malformed: unknown role "robot"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New().EncodeRequest(&tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "cohere: encode request: ") {
				t.Fatalf("error %v, want one naming %q", err, tt.want)
			}
		})
	}
}

func TestDecodeResponse(t *testing.T) {
	tests := []struct {
		name string
		body string
		want *core.Response
	}{
		{
			name: "C06 arguments null, G16 tool_plan kept out of the text",
			body: `{"id":"r","message":{"role":"assistant","tool_plan":"I will.","tool_calls":[{"id":"c","type":"function","function":{"name":"now","arguments":"null"}}]},"finish_reason":"TOOL_CALL","usage":{"billed_units":{"input_tokens":1,"output_tokens":2}}}`,
			want: &core.Response{ID: "r", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{
				{Kind: core.PartPlan, Text: "I will."},
				core.CallPart(core.Call{ID: "c", Name: "now", Arguments: json.RawMessage(`{}`)}),
			}}, Finish: core.FinishToolCalls, ProviderFinish: "TOOL_CALL", Usage: &core.Usage{InputTokens: 1, OutputTokens: 2}},
		},
		{
			name: "C05 double-encoded arguments are unwrapped and marked repaired",
			body: `{"message":{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"\"{\\\"a\\\":1}\""}}]},"finish_reason":"TOOL_CALL"}`,
			want: &core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{
				core.CallPart(core.Call{ID: "c", Name: "f", Arguments: json.RawMessage(`{"a":1}`), Repaired: true, Original: `"{\"a\":1}"`}),
			}}, Finish: core.FinishToolCalls, ProviderFinish: "TOOL_CALL"},
		},
		{
			name: "error body",
			body: `{"id":"e","message":"invalid request: model not found"}`,
			want: &core.Response{ID: "e", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}, Finish: core.FinishError, Error: &core.ProviderError{Message: "invalid request: model not found"}},
		},
		{
			name: "unknown finish reason",
			body: `{"message":{"role":"assistant","content":[{"type":"text","text":"ok"}]},"finish_reason":"SOMETHING_NEW"}`,
			want: &core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("ok")}}, Finish: core.FinishOther, ProviderFinish: "SOMETHING_NEW"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New().DecodeResponse([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if got.Text() == "I will." {
				t.Error("tool plan leaked into the answer text")
			}
		})
	}
}

func TestDecodeResponseErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{"truncated arguments are not a call", `{"message":{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}}`, "message.tool_calls[0].function.arguments"},
		{"arguments that are an array are not a call", `{"message":{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"[1]"}}]}}`, "message.tool_calls[0].function.arguments"},
		{"syntax error names the byte", `{"message":{"role":"assistant",}}`, "at byte 31"},
		{"wrong type names the field", `{"message":{"role":"assistant"},"usage":{"tokens":{"input_tokens":"x"}}}`, "usage.tokens.input_tokens"},
		{"missing message", `{"id":"x"}`, "at message: malformed: missing"},
		{"trailing data", `{"message":"x"} {}`, "unexpected data after the JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New().DecodeResponse([]byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "cohere: decode response") {
				t.Fatalf("error %v, want one naming %q", err, tt.want)
			}
			if strings.Contains(tt.name, "arguments") && !errors.Is(err, core.ErrInvalidArguments) {
				t.Errorf("error %v does not wrap core.ErrInvalidArguments", err)
			}
		})
	}
}

package bedrock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

func TestEncodeRequestG15(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	tools := []core.ToolSpec{{Name: "now", InputSchema: schema}}
	history := []core.Message{
		{Role: core.RoleSystem, Parts: []core.Part{core.TextPart("be brief")}},
		{Role: core.RoleUser, Parts: []core.Part{core.TextPart("time?")}},
		{Role: core.RoleAssistant, Parts: []core.Part{
			{Kind: core.PartThinking, Text: "call now", Signature: "sig"},
			core.CallPart(core.Call{ID: "t1", Name: "now"}),
			core.CallPart(core.Call{ID: "t2", Name: "now", Arguments: json.RawMessage("null")}),
		}},
		{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: "t1", Content: []core.Part{core.TextPart("12:00")}})}},
		{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: "t2", IsError: true, Content: []core.Part{{Kind: core.PartText, Text: `{"e":1}`, Data: `{"e":1}`}}})}},
		{Role: core.RoleUser, Parts: []core.Part{core.TextPart("thanks")}},
	}
	tests := []struct {
		name string
		req  core.Request
		want string
	}{
		{
			name: "no-argument calls send input {}, results go in one user turn with the next user text",
			req:  core.Request{Messages: history, Tools: tools, ToolChoice: &core.ToolChoice{Mode: core.ToolChoiceRequired}, MaxTokens: 100},
			want: `{"system":[{"text":"be brief"}],"messages":[
				{"role":"user","content":[{"text":"time?"}]},
				{"role":"assistant","content":[
					{"reasoningContent":{"reasoningText":{"text":"call now","signature":"sig"}}},
					{"toolUse":{"toolUseId":"t1","name":"now","input":{}}},
					{"toolUse":{"toolUseId":"t2","name":"now","input":{}}}]},
				{"role":"user","content":[
					{"toolResult":{"toolUseId":"t1","content":[{"text":"12:00"}]}},
					{"toolResult":{"toolUseId":"t2","content":[{"json":{"e":1}}],"status":"error"}},
					{"text":"thanks"}]}],
				"toolConfig":{"tools":[{"toolSpec":{"name":"now","inputSchema":{"json":{"type":"object"}}}}],"toolChoice":{"any":{}}},
				"inferenceConfig":{"maxTokens":100}}`,
		},
		{
			name: "none with tool blocks in the history keeps the tools and leaves toolChoice out",
			req:  core.Request{Messages: history[1:5], Tools: tools, ToolChoice: &core.ToolChoice{Mode: core.ToolChoiceNone}},
			want: `{"messages":[
				{"role":"user","content":[{"text":"time?"}]},
				{"role":"assistant","content":[
					{"reasoningContent":{"reasoningText":{"text":"call now","signature":"sig"}}},
					{"toolUse":{"toolUseId":"t1","name":"now","input":{}}},
					{"toolUse":{"toolUseId":"t2","name":"now","input":{}}}]},
				{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"text":"12:00"}]}},
					{"toolResult":{"toolUseId":"t2","content":[{"json":{"e":1}}],"status":"error"}}]}],
				"toolConfig":{"tools":[{"toolSpec":{"name":"now","inputSchema":{"json":{"type":"object"}}}}]}}`,
		},
		{
			name: "none without tool blocks drops the tools",
			req:  core.Request{Messages: history[1:2], Tools: tools, ToolChoice: &core.ToolChoice{Mode: core.ToolChoiceNone}},
			want: `{"messages":[{"role":"user","content":[{"text":"time?"}]}]}`,
		},
		{
			name: "named tool choice",
			req:  core.Request{Messages: history[1:2], Tools: tools, ToolChoice: &core.ToolChoice{Mode: core.ToolChoiceTool, Name: "now"}},
			want: `{"messages":[{"role":"user","content":[{"text":"time?"}]}],
				"toolConfig":{"tools":[{"toolSpec":{"name":"now","inputSchema":{"json":{"type":"object"}}}}],"toolChoice":{"tool":{"name":"now"}}}}`,
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
	call := func(args string) core.Request {
		return core.Request{Messages: []core.Message{{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(core.Call{ID: "t", Name: "f", Arguments: json.RawMessage(args)})}}}}
	}
	tests := []struct {
		name string
		req  core.Request
		want string
		is   error
	}{
		{"G15 string input refused", call(`"x"`), "messages[0].parts[0].call.arguments", core.ErrInvalidArguments},
		{"G15 array input refused", call(`[1]`), "messages[0].parts[0].call.arguments", core.ErrInvalidArguments},
		{"truncated arguments refused", call(`{"a":`), "messages[0].parts[0].call.arguments", core.ErrInvalidArguments},
		{"unknown role", core.Request{Messages: []core.Message{{Role: "robot"}}}, `messages[0]: malformed: unknown role "robot"`, nil},
		{"part index kept after blank text", core.Request{Messages: []core.Message{{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart(" "), core.CallPart(core.Call{ID: "t", Name: "f", Arguments: json.RawMessage(`[1]`)})}}}}, "messages[0].parts[1].call.arguments", core.ErrInvalidArguments},
	}
	for _, api := range []API{Converse, InvokeAnthropic} {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := New(WithAPI(api)).EncodeRequest(&tt.req)
				if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "bedrock: encode request: ") {
					t.Fatalf("error %v, want one naming %q", err, tt.want)
				}
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Errorf("error %v does not wrap %v", err, tt.is)
				}
			})
		}
	}
}

// TestEncodeRequestBlankText checks, on both APIs, that system text and
// tool-result text that is empty or only white space is left out (G11:
// "text content blocks must contain non-whitespace text"), that a JSON
// result and text with something in it are kept as given, and that the
// caller's request is not changed.
func TestEncodeRequestBlankText(t *testing.T) {
	req := &core.Request{Messages: []core.Message{
		{Role: core.RoleSystem, Parts: []core.Part{core.TextPart(" \n"), core.TextPart("be brief"), core.TextPart("")}},
		{Role: core.RoleUser, Parts: []core.Part{core.TextPart("go")}},
		{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("\t"), core.CallPart(core.Call{ID: "t1", Name: "f", Arguments: json.RawMessage(`{}`)}), core.CallPart(core.Call{ID: "t2", Name: "f", Arguments: json.RawMessage(`{}`)})}},
		{Role: core.RoleTool, Parts: []core.Part{
			core.ResultPart(core.Result{CallID: "t1", Content: []core.Part{core.TextPart("  "), core.TextPart(" ok "), core.TextPart("\n")}}),
			core.ResultPart(core.Result{CallID: "t2", IsError: true, Content: []core.Part{core.TextPart(""), {Kind: core.PartText, Text: " ", Data: `{"e":1}`}}}),
		}},
	}}
	before := cloneRequest(t, req)
	tests := []struct {
		api  API
		want string
	}{
		{Converse, `{"system":[{"text":"be brief"}],"messages":[
		 {"role":"user","content":[{"text":"go"}]},
		 {"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"f","input":{}}},{"toolUse":{"toolUseId":"t2","name":"f","input":{}}}]},
		 {"role":"user","content":[
		  {"toolResult":{"toolUseId":"t1","content":[{"text":" ok "}]}},
		  {"toolResult":{"toolUseId":"t2","content":[{"json":{"e":1}}],"status":"error"}}]}]}`},
		{InvokeAnthropic, `{"anthropic_version":"bedrock-2023-05-31","system":[{"type":"text","text":"be brief"}],"messages":[
		 {"role":"user","content":[{"type":"text","text":"go"}]},
		 {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}},{"type":"tool_use","id":"t2","name":"f","input":{}}]},
		 {"role":"user","content":[
		  {"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":" ok "}]},
		  {"type":"tool_result","tool_use_id":"t2","content":[],"is_error":true}]}]}`},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.api), func(t *testing.T) {
			body, err := New(WithAPI(tt.api)).EncodeRequest(req)
			if err != nil {
				t.Fatal(err)
			}
			adaptertest.CheckJSON(t, []byte(tt.want), body)
			if diff := cmp.Diff(before, req); diff != "" {
				t.Errorf("request changed by encoding (-before +after):\n%s", diff)
			}
		})
	}
}

// cloneRequest returns a deep copy of req.
func cloneRequest(t *testing.T, req *core.Request) *core.Request {
	t.Helper()
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var c core.Request
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

func TestDecodeResponse(t *testing.T) {
	assistant := func(parts ...core.Part) core.Message {
		return core.Message{Role: core.RoleAssistant, Parts: parts}
	}
	tests := []struct {
		name string
		body string
		want *core.Response
	}{
		{
			name: "C06 null and absent input are {}",
			body: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"f","input":null}},{"toolUse":{"toolUseId":"b","name":"g"}}]}},"stopReason":"tool_use","usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3}}`,
			want: &core.Response{
				Message: assistant(core.CallPart(core.Call{ID: "a", Name: "f", Arguments: json.RawMessage("{}")}), core.CallPart(core.Call{ID: "b", Name: "g", Arguments: json.RawMessage("{}")})),
				Finish:  core.FinishToolCalls, ProviderFinish: "tool_use", Usage: &core.Usage{InputTokens: 1, OutputTokens: 2},
			},
		},
		{
			name: "reasoning, redacted reasoning, text, unknown blocks skipped",
			body: `{"output":{"message":{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"hm","signature":"s"}}},{"reasoningContent":{"redactedContent":"AAAA"}},{"image":{"format":"png"}},{"text":"hi"}]}},"stopReason":"max_tokens"}`,
			want: &core.Response{
				Message: assistant(core.Part{Kind: core.PartThinking, Text: "hm", Signature: "s"}, core.Part{Kind: core.PartThinking, Data: "AAAA"}, core.TextPart("hi")),
				Finish:  core.FinishLength, ProviderFinish: "max_tokens",
			},
		},
		{
			name: "C05 input as a JSON string holding an object is unwrapped and marked repaired",
			body: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"f","input":"{\"x\":1}"}}]}},"stopReason":"tool_use"}`,
			want: &core.Response{
				Message: assistant(core.CallPart(core.Call{ID: "a", Name: "f", Arguments: json.RawMessage(`{"x":1}`), Repaired: true, Original: `"{\"x\":1}"`})),
				Finish:  core.FinishToolCalls, ProviderFinish: "tool_use",
			},
		},
		{
			name: "error body",
			body: `{"__type":"ValidationException","message":"bad input"}`,
			want: &core.Response{Message: assistant(), Finish: core.FinishError, Error: &core.ProviderError{Type: "ValidationException", Message: "bad input"}},
		},
		{
			name: "InvokeModel body: server_tool_use is not a client call",
			body: `{"id":"m","type":"message","role":"assistant","model":"claude","content":[{"type":"server_tool_use","id":"s","name":"web_search","input":{"q":"x"}},{"type":"web_search_tool_result","tool_use_id":"s","content":[]},{"type":"text","text":"ok"},{"type":"tool_use","id":"t","name":"f","input":{}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":6}}`,
			want: &core.Response{
				ID: "m", Model: "claude",
				Message: assistant(core.TextPart("ok"), core.CallPart(core.Call{ID: "t", Name: "f", Arguments: json.RawMessage("{}")})),
				Finish:  core.FinishToolCalls, ProviderFinish: "tool_use", Usage: &core.Usage{InputTokens: 5, OutputTokens: 6},
			},
		},
		{
			name: "B11 max_tokens: the last toolUse is incomplete, an earlier one stands",
			body: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"f","input":{"x":1}}},{"text":"and"},{"toolUse":{"toolUseId":"b","name":"write","input":{"path":"a.md"}}}]}},"stopReason":"max_tokens","usage":{"inputTokens":1,"outputTokens":9,"totalTokens":10}}`,
			want: &core.Response{
				Message:    assistant(core.CallPart(core.Call{ID: "a", Name: "f", Arguments: json.RawMessage(`{"x":1}`)}), core.TextPart("and")),
				Incomplete: []core.Call{{ID: "b", Name: "write", Original: `{"path":"a.md"}`}},
				Finish:     core.FinishLength, ProviderFinish: "max_tokens", Usage: &core.Usage{InputTokens: 1, OutputTokens: 9},
			},
		},
		{
			name: "B11 model_context_window_exceeded cuts a double-encoded input: kept as received",
			body: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"f","input":"{\"x\":1}"}}]}},"stopReason":"model_context_window_exceeded"}`,
			want: &core.Response{
				Message:    assistant(),
				Incomplete: []core.Call{{ID: "a", Name: "f", Original: `"{\"x\":1}"`}},
				Finish:     core.FinishLength, ProviderFinish: "model_context_window_exceeded",
			},
		},
		{
			name: "B11 max_tokens after text: the calls before it were finished",
			body: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"f","input":{}}},{"text":"Now I"}]}},"stopReason":"max_tokens"}`,
			want: &core.Response{
				Message: assistant(core.CallPart(core.Call{ID: "a", Name: "f", Arguments: json.RawMessage(`{}`)}), core.TextPart("Now I")),
				Finish:  core.FinishLength, ProviderFinish: "max_tokens",
			},
		},
		{
			name: "tool_use stop: the last toolUse stands",
			body: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"f","input":{"x":1}}}]}},"stopReason":"tool_use"}`,
			want: &core.Response{
				Message: assistant(core.CallPart(core.Call{ID: "a", Name: "f", Arguments: json.RawMessage(`{"x":1}`)})),
				Finish:  core.FinishToolCalls, ProviderFinish: "tool_use",
			},
		},
		{
			name: "InvokeModel body B11: max_tokens cuts the last tool_use",
			body: `{"id":"m","type":"message","role":"assistant","model":"claude","content":[{"type":"tool_use","id":"t0","name":"f","input":{"a":1}},{"type":"tool_use","id":"t1","name":"f","input":{"path":"/tm"}}],"stop_reason":"max_tokens"}`,
			want: &core.Response{
				ID: "m", Model: "claude",
				Message:    assistant(core.CallPart(core.Call{ID: "t0", Name: "f", Arguments: json.RawMessage(`{"a":1}`)})),
				Incomplete: []core.Call{{ID: "t1", Name: "f", Original: `{"path":"/tm"}`}},
				Finish:     core.FinishLength, ProviderFinish: "max_tokens",
			},
		},
		{
			name: "InvokeModel body B11: a provider-run block written last leaves the client call complete",
			body: `{"id":"m","type":"message","role":"assistant","model":"claude","content":[{"type":"tool_use","id":"t0","name":"f","input":{"a":1}},{"type":"server_tool_use","id":"s","name":"web_search","input":{"q":"x"}}],"stop_reason":"max_tokens"}`,
			want: &core.Response{
				ID: "m", Model: "claude",
				Message: assistant(core.CallPart(core.Call{ID: "t0", Name: "f", Arguments: json.RawMessage(`{"a":1}`)})),
				Finish:  core.FinishLength, ProviderFinish: "max_tokens",
			},
		},
		{
			name: "InvokeModel error body",
			body: `{"type":"error","error":{"type":"overloaded_error","message":"busy"}}`,
			want: &core.Response{Message: assistant(), Finish: core.FinishError, Error: &core.ProviderError{Type: "overloaded_error", Message: "busy"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New().DecodeResponse([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.want.Message.Parts == nil {
				tt.want.Message.Parts = []core.Part{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"syntax error names the byte", `{"output":{"message":{"role":"assistant",]}}}`, "at byte 41"},
		{"wrong type names the field", `{"output":{"message":{"role":"assistant","content":[]}},"usage":{"inputTokens":"x"}}`, "at byte 82: at usage.inputTokens"},
		{"cut body", `{"output":{"message":`, "unexpected end of JSON input"},
		{"neither output nor error", `{"stopReason":"end_turn"}`, "at output.message: malformed: missing"},
		{"unknown role", `{"output":{"message":{"role":"robot","content":[]}}}`, `output.message.role: malformed: unknown role "robot"`},
		{"G15 input that is not an object is not a call", `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"f","input":[1]}}]}}}`, "output.message.content[0].toolUse.input: tool call arguments are not a JSON object"},
		{"InvokeModel input that is a plain string", `{"type":"message","content":[{"type":"tool_use","id":"a","name":"f","input":"x"}]}`, "content[0].input: tool call arguments are not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New().DecodeResponse([]byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "bedrock: decode response") {
				t.Fatalf("error %v, want one naming %q", err, tt.want)
			}
		})
	}
}

// chunkFrames builds an InvokeModelWithResponseStream body from Anthropic
// stream events.
func chunkFrames(t testing.TB, events ...string) []byte {
	t.Helper()
	var pairs []string
	for _, e := range events {
		payload, err := json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString([]byte(e)), "p": "abcdef"})
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, "chunk", string(payload))
	}
	return frames(t, pairs...)
}

// TestInvokeStream checks the Anthropic events inside "chunk" frames: a
// provider-run tool's block yields no call events, a tool_use with no
// input deltas ends with {} (C02), empty partial_json is no input, a
// tool_use whose start carries input and no deltas ends with that input
// (A18, I01), and the response id and model come on the first event.
func TestInvokeStream(t *testing.T) {
	body := chunkFrames(t,
		`{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":7,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"s","name":"web_search","input":{}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"q\":1}"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"ping"}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"ok"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t","name":"now","input":{}}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}`,
		`{"type":"content_block_stop","index":2}`,
		`{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"u","name":"f","input":{"a":1}}}`,
		`{"type":"content_block_stop","index":3}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}`,
		`{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":7}}`,
	)
	got, err := adaptertest.Drain(New().DecodeStream(bytes.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Event{
		{Kind: core.EventText, Text: "ok", ID: "msg_1", Model: "claude"},
		start(2, "t", "now"), end(2, ptr("{}")),
		start(3, "u", "f"), end(3, ptr(`{"a":1}`)),
		{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 7, OutputTokens: 9}},
		{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "tool_use"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestDecodeRequestConverse(t *testing.T) {
	body := `{"modelId":"ignored","system":[{"text":"be brief"},{"cachePoint":{"type":"default"}}],
		"messages":[
			{"role":"user","content":[{"text":"time?"},{"cachePoint":{"type":"default"}}]},
			{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"now","input":null}}]},
			{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"text":"12:00"},{"json":{"h": 12}}],"status":"success"}},{"text":"and?"}]}],
		"toolConfig":{"tools":[{"toolSpec":{"name":"now","description":"d","inputSchema":{"json":{"type":"object"}}}},{"cachePoint":{"type":"default"}}],"toolChoice":{"auto":{}}},
		"inferenceConfig":{"maxTokens":5,"temperature":0.2},"additionalModelRequestFields":{"x":1}}`
	got, err := New().DecodeRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := &core.Request{
		Messages: []core.Message{
			{Role: core.RoleSystem, Parts: []core.Part{core.TextPart("be brief")}},
			{Role: core.RoleUser, Parts: []core.Part{core.TextPart("time?")}},
			{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(core.Call{ID: "t1", Name: "now", Arguments: json.RawMessage("{}")})}},
			{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: "t1", Content: []core.Part{core.TextPart("12:00"), {Kind: core.PartText, Text: `{"h":12}`, Data: `{"h":12}`}}})}},
			{Role: core.RoleUser, Parts: []core.Part{core.TextPart("and?")}},
		},
		Tools:      []core.ToolSpec{{Name: "now", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		ToolChoice: &core.ToolChoice{Mode: core.ToolChoiceAuto},
		MaxTokens:  5,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

// TestEncodeRequestThinkingOrder checks G12 on both APIs: reasoning after a
// toolUse in one assistant message is refused, naming the message and the
// part, and never reordered; reasoning before the calls is sent in place,
// first in the assistant turn.
func TestEncodeRequestThinkingOrder(t *testing.T) {
	signed := core.Part{Kind: core.PartThinking, Text: "think", Signature: "sig1"}
	redacted := core.Part{Kind: core.PartThinking, Data: "cmVkYWN0ZWQ="}
	use := func(id string) core.Part {
		return core.CallPart(core.Call{ID: id, Name: "f", Arguments: json.RawMessage(`{}`)})
	}
	res := func(id string) core.Part {
		return core.ResultPart(core.Result{CallID: id, Content: []core.Part{core.TextPart("ok")}})
	}
	convo := func(assistant ...core.Part) []core.Message {
		return []core.Message{
			{Role: core.RoleSystem, Parts: []core.Part{core.TextPart("be brief")}},
			{Role: core.RoleUser, Parts: []core.Part{core.TextPart("weather?")}},
			{Role: core.RoleAssistant, Parts: assistant},
			{Role: core.RoleTool, Parts: []core.Part{res("t1"), res("t2")}},
		}
	}
	tests := []struct {
		name string
		msgs []core.Message
		want *thinkingPlace // nil: encoded
	}{
		{"signed reasoning between two calls", convo(use("t1"), signed, use("t2")),
			&thinkingPlace{Message: 2, Part: 1, CallID: "t1"}},
		{"redacted reasoning after the calls", convo(signed, use("t1"), use("t2"), redacted),
			&thinkingPlace{Message: 2, Part: 3, CallID: "t2"}},
		{"reasoning, text, then calls", convo(signed, redacted, core.TextPart("let me look"), use("t1"), use("t2")), nil},
		{"reasoning in the next assistant turn", append(convo(signed, use("t1"), use("t2")),
			core.Message{Role: core.RoleAssistant, Parts: []core.Part{{Kind: core.PartThinking, Text: "interleaved", Signature: "sig2"}, core.TextPart("sunny")}}), nil},
	}
	apis := map[string]API{"converse": Converse, "invoke": InvokeAnthropic}
	for apiName, api := range apis {
		for _, tt := range tests {
			t.Run(apiName+"/"+tt.name, func(t *testing.T) {
				out, err := New(WithAPI(api)).EncodeRequest(&core.Request{Messages: tt.msgs, MaxTokens: 10})
				if tt.want == nil {
					if err != nil {
						t.Fatalf("EncodeRequest: %v", err)
					}
					if !bytes.Contains(out, []byte("sig1")) {
						t.Errorf("signature sig1 not sent: %s", out)
					}
					return
				}
				var he *core.HistoryError
				if !errors.As(err, &he) || !errors.Is(err, ErrThinkingOrder) || he.Guard != "G12" {
					t.Fatalf("EncodeRequest = %s, %v; want a *core.HistoryError of G12 wrapping ErrThinkingOrder", out, err)
				}
				if he.Message != tt.want.Message || he.CallID != tt.want.CallID {
					t.Errorf("error names message %d, call %q; want %+v", he.Message, he.CallID, *tt.want)
				}
				if !strings.HasPrefix(err.Error(), "bedrock: history: messages[2]") || !strings.Contains(err.Error(), fmt.Sprintf("parts[%d]:", tt.want.Part)) || !strings.Contains(err.Error(), "(G12)") {
					t.Errorf("error %q does not name the operation, the part and G12", err)
				}
			})
		}
	}
}

// TestEncodeRequestReasoningKeptFirst checks the Converse bytes of G12:
// the reasoning blocks come first in the assistant turn, in the order
// given, with their signature and redacted payload unchanged.
func TestEncodeRequestReasoningKeptFirst(t *testing.T) {
	req := &core.Request{Messages: []core.Message{
		{Role: core.RoleUser, Parts: []core.Part{core.TextPart("weather?")}},
		{Role: core.RoleAssistant, Parts: []core.Part{
			{Kind: core.PartThinking, Text: "b", Signature: "sigB"},
			{Kind: core.PartThinking, Data: "Ug=="},
			{Kind: core.PartThinking, Text: "a", Signature: "sigA"},
			core.CallPart(core.Call{ID: "t1", Name: "f", Arguments: json.RawMessage(`{}`)}),
		}},
		{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: "t1", Content: []core.Part{core.TextPart("ok")}})}},
	}}
	out, err := New().EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		Messages []struct {
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(out, &w); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range w.Messages[1].Content {
		got = append(got, string(b))
	}
	want := []string{
		`{"reasoningContent":{"reasoningText":{"text":"b","signature":"sigB"}}}`,
		`{"reasoningContent":{"redactedContent":"Ug=="}}`,
		`{"reasoningContent":{"reasoningText":{"text":"a","signature":"sigA"}}}`,
		`{"toolUse":{"toolUseId":"t1","name":"f","input":{}}}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("assistant blocks (-want +got):\n%s", diff)
	}
}

// thinkingPlace is where a G12 fault is: the message, the thinking part
// (named in the message as parts[N]) and the nearest call before it.
type thinkingPlace struct {
	Message, Part int
	CallID        string
}

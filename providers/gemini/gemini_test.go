package gemini

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// callSummary is what the table tests compare of a decoded call.
type callSummary struct {
	ID, Name, Args, Signature string
}

func summarize(calls []core.Call) []callSummary {
	var out []callSummary
	for _, c := range calls {
		out = append(out, callSummary{c.ID, c.Name, string(c.Arguments), c.Signature})
	}
	return out
}

func TestDecodeResponseFailureModes(t *testing.T) {
	tests := []struct {
		name        string
		body        string
		wantCalls   []callSummary
		wantText    string
		wantFinish  core.FinishReason
		wantRaw     string
		wantErrBody *core.ProviderError
	}{
		{
			name: "D01 two id-less calls to the same function get distinct ids",
			body: `{"candidates":[{"content":{"role":"model","parts":[
				{"functionCall":{"name":"add","args":{"a":1}}},
				{"functionCall":{"name":"add","args":{"a":1}}}]},"finishReason":"STOP"}]}`,
			wantCalls:  []callSummary{{"gemini_call_525c8e103325_0", "add", `{"a":1}`, ""}, {"gemini_call_525c8e103325_1", "add", `{"a":1}`, ""}},
			wantFinish: core.FinishToolCalls, wantRaw: "STOP",
		},
		{
			name: "D02 provider ids are kept",
			body: `{"candidates":[{"content":{"role":"model","parts":[
				{"functionCall":{"id":"abc123","name":"add","args":{}}}]},"finishReason":"STOP"}]}`,
			wantCalls:  []callSummary{{"abc123", "add", `{}`, ""}},
			wantFinish: core.FinishToolCalls, wantRaw: "STOP",
		},
		{
			name: "G13 thoughtSignature stays on the call",
			body: `{"candidates":[{"content":{"role":"model","parts":[
				{"functionCall":{"name":"w","args":{"x":"y"}},"thoughtSignature":"c2ln"}]},"finishReason":"STOP"}]}`,
			wantCalls:  []callSummary{{"gemini_call_2f98cf5589e1_0", "w", `{"x":"y"}`, "c2ln"}},
			wantFinish: core.FinishToolCalls, wantRaw: "STOP",
		},
		{
			name:       "F02 STOP without calls stays stop",
			body:       `{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}]}`,
			wantText:   "hi",
			wantFinish: core.FinishStop, wantRaw: "STOP",
		},
		{
			name:       "F04 MALFORMED_FUNCTION_CALL is error, never stop",
			body:       `{"candidates":[{"content":{},"finishReason":"MALFORMED_FUNCTION_CALL"}]}`,
			wantFinish: core.FinishError, wantRaw: "MALFORMED_FUNCTION_CALL",
		},
		{
			name:       "F04 UNEXPECTED_TOOL_CALL is error",
			body:       `{"candidates":[{"finishReason":"UNEXPECTED_TOOL_CALL"}]}`,
			wantFinish: core.FinishError, wantRaw: "UNEXPECTED_TOOL_CALL",
		},
		{
			name:       "F04 TOO_MANY_TOOL_CALLS is error",
			body:       `{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"TOO_MANY_TOOL_CALLS"}]}`,
			wantText:   "x",
			wantFinish: core.FinishError, wantRaw: "TOO_MANY_TOOL_CALLS",
		},
		{
			name:       "F04 integer enum 10 is MALFORMED_FUNCTION_CALL",
			body:       `{"candidates":[{"finishReason":10}]}`,
			wantFinish: core.FinishError, wantRaw: "MALFORMED_FUNCTION_CALL",
		},
		{
			name:       "integer enum 1 is STOP",
			body:       `{"candidates":[{"content":{"parts":[{"text":"ok"}]},"finishReason":1}]}`,
			wantText:   "ok",
			wantFinish: core.FinishStop, wantRaw: "STOP",
		},
		{
			name:       "unknown integer enum is other with its number",
			body:       `{"candidates":[{"content":{"parts":[{"text":"ok"}]},"finishReason":99}]}`,
			wantText:   "ok",
			wantFinish: core.FinishOther, wantRaw: "FINISH_REASON_99",
		},
		{
			name:       "F05 STOP with no parts at all is other",
			body:       `{"candidates":[{"content":{"role":"model"},"finishReason":"STOP"}]}`,
			wantFinish: core.FinishOther, wantRaw: "STOP",
		},
		{
			name:       "F05 STOP with no content object is other",
			body:       `{"candidates":[{"finishReason":"STOP","index":0}]}`,
			wantFinish: core.FinishOther, wantRaw: "STOP",
		},
		{
			name:       "F05 STOP with only empty text is other",
			body:       `{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}]}`,
			wantFinish: core.FinishOther, wantRaw: "STOP",
		},
		{
			name:       "SAFETY is content_filter",
			body:       `{"candidates":[{"finishReason":"SAFETY"}]}`,
			wantFinish: core.FinishContentFilter, wantRaw: "SAFETY",
		},
		{
			name:       "MAX_TOKENS is length",
			body:       `{"candidates":[{"content":{"parts":[{"text":"trunc"}]},"finishReason":"MAX_TOKENS"}]}`,
			wantText:   "trunc",
			wantFinish: core.FinishLength, wantRaw: "MAX_TOKENS",
		},
		{
			name:       "promptFeedback blockReason without candidates",
			body:       `{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}`,
			wantFinish: core.FinishContentFilter, wantRaw: "PROHIBITED_CONTENT",
		},
		{
			name:        "error body becomes Response.Error",
			body:        `{"error":{"code":400,"message":"Invalid JSON payload","status":"INVALID_ARGUMENT"}}`,
			wantFinish:  core.FinishError,
			wantErrBody: &core.ProviderError{Type: "INVALID_ARGUMENT", Code: "400", Message: "Invalid JSON payload"},
		},
		{
			name:       "thought parts are thinking, not text",
			body:       `{"candidates":[{"content":{"parts":[{"text":"plan","thought":true},{"text":"answer"}]},"finishReason":"STOP"}]}`,
			wantText:   "answer",
			wantFinish: core.FinishStop, wantRaw: "STOP",
		},
	}
	a := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := a.DecodeResponse([]byte(tt.body))
			if err != nil {
				t.Fatalf("DecodeResponse: %v", err)
			}
			if diff := cmp.Diff(tt.wantCalls, summarize(resp.Calls())); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if got := resp.Text(); got != tt.wantText {
				t.Errorf("text = %q, want %q", got, tt.wantText)
			}
			if resp.Finish != tt.wantFinish || resp.ProviderFinish != tt.wantRaw {
				t.Errorf("finish = %q/%q, want %q/%q", resp.Finish, resp.ProviderFinish, tt.wantFinish, tt.wantRaw)
			}
			if diff := cmp.Diff(tt.wantErrBody, resp.Error); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeResponseBadInput(t *testing.T) {
	tests := []struct {
		name, body, wantIn string
	}{
		{"truncated", `{"candidates":[{"content":`, "gemini: decode response"},
		{"syntax error names offset", `{"candidates":[}`, "at byte 15"},
		{"wrong type names field", `{"candidates":[{"content":{"parts":"x"}}]}`, "candidates.content.parts"},
		{"args not an object", `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":[1]}}]}}]}`, "candidates[0].content.parts[0]"},
	}
	a := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := a.DecodeResponse([]byte(tt.body))
			if err == nil {
				t.Fatal("DecodeResponse succeeded")
			}
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q does not mention %q", err, tt.wantIn)
			}
			if !errors.Is(err, core.ErrMalformed) {
				t.Errorf("error %q does not wrap core.ErrMalformed", err)
			}
		})
	}
}

// history builds a conversation with one model turn of calls and the
// given results.
func history(calls []core.Call, results ...core.Result) *core.Request {
	asst := core.Message{Role: core.RoleAssistant}
	for _, c := range calls {
		asst.Parts = append(asst.Parts, core.CallPart(c))
	}
	tool := core.Message{Role: core.RoleTool}
	for _, r := range results {
		tool.Parts = append(tool.Parts, core.ResultPart(r))
	}
	return &core.Request{Messages: []core.Message{
		{Role: core.RoleUser, Parts: []core.Part{core.TextPart("go")}},
		asst, tool,
	}}
}

func textResult(id, text string) core.Result {
	return core.Result{CallID: id, Content: []core.Part{core.TextPart(text)}}
}

func TestEncodeRequestHistory(t *testing.T) {
	a := New()
	c1 := core.Call{ID: "id1", Name: "add", Arguments: json.RawMessage(`{"a":1}`), Signature: "sig1"}
	c2 := core.Call{ID: "id2", Name: "mul", Arguments: json.RawMessage(`{"a":2}`)}
	g1 := core.Call{ID: "gemini_call_0", Name: "add", Arguments: json.RawMessage(`{}`)}

	t.Run("G05 results in completion order are sent in call order", func(t *testing.T) {
		body, err := a.EncodeRequest(history([]core.Call{c1, c2}, textResult("id2", "4"), textResult("id1", "1")))
		if err != nil {
			t.Fatal(err)
		}
		var w wireRequest
		if err := json.Unmarshal(body, &w); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range w.Contents[2].Parts {
			got = append(got, p.FunctionResponse.ID+"="+p.FunctionResponse.Name+":"+string(p.FunctionResponse.Response))
		}
		want := []string{`id1=add:{"result":"1"}`, `id2=mul:{"result":"4"}`}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("functionResponse order (-want +got):\n%s", diff)
		}
	})
	t.Run("D02 G13 ids echoed and signature sent back", func(t *testing.T) {
		body, err := a.EncodeRequest(history([]core.Call{c1}, textResult("id1", "1")))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"thoughtSignature":"sig1","functionCall":{"id":"id1","name":"add","args":{"a":1}}`, `"functionResponse":{"id":"id1","name":"add"`} {
			if !strings.Contains(string(body), want) {
				t.Errorf("body lacks %s:\n%s", want, body)
			}
		}
	})
	t.Run("D01 generated ids are not sent", func(t *testing.T) {
		body, err := a.EncodeRequest(history([]core.Call{g1}, textResult("gemini_call_0", "x")))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(body), "gemini_call_") {
			t.Errorf("generated id leaked to the wire:\n%s", body)
		}
		back, err := a.DecodeRequest(body)
		if err != nil {
			t.Fatal(err)
		}
		calls, results := back.Messages[1].Calls(), back.Messages[2].Results()
		if len(calls) != 1 || len(results) != 1 || calls[0].ID != results[0].CallID || calls[0].ID == "" {
			t.Errorf("decoded pairing lost: calls %+v results %+v", calls, results)
		}
	})
	errTests := []struct {
		name   string
		req    *core.Request
		wantIn string
	}{
		{"G04 fewer results than calls", history([]core.Call{c1, c2}, textResult("id1", "1")), "turn 2 answers 1 of the 2 functionCall parts of turn 1"},
		{"G04 more results than calls", history([]core.Call{c1}, textResult("id1", "1"), textResult("id2", "2")), "answers 2 of the 1"},
		{"G04 result for an unknown call", history([]core.Call{c1, c2}, textResult("id1", "1"), textResult("zzz", "2")), `no result for call "id2"`},
		{"G04 results with no calls before", history(nil, textResult("id1", "1")), "no functionCall in the model turn before"},
		{"duplicate result ids", history([]core.Call{c1, c2}, textResult("id1", "1"), textResult("id1", "2")), `two results for call id "id1"`},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := a.EncodeRequest(tt.req)
			if err == nil {
				t.Fatal("EncodeRequest succeeded")
			}
			if he := (*core.HistoryError)(nil); !errors.As(err, &he) || he.Guard != "G04" {
				t.Errorf("error %q is not a *core.HistoryError of G04", err)
			}
			if !strings.Contains(err.Error(), tt.wantIn) || !strings.Contains(err.Error(), "messages[2]") {
				t.Errorf("error %q does not name %q and messages[2]", err, tt.wantIn)
			}
		})
	}
	t.Run("arguments must be an object", func(t *testing.T) {
		bad := core.Call{ID: "x", Name: "f", Arguments: json.RawMessage(`"{\"a\":1}"`)}
		_, err := a.EncodeRequest(history([]core.Call{bad}, textResult("x", "1")))
		if err == nil || !strings.Contains(err.Error(), "messages[1].parts[0].call.arguments") {
			t.Errorf("err = %v, want one naming messages[1].parts[0].call.arguments", err)
		}
	})
	t.Run("tool with a non-object schema names the tool", func(t *testing.T) {
		_, err := a.EncodeRequest(&core.Request{Tools: []core.ToolSpec{{Name: "f", InputSchema: json.RawMessage(`{"type":"string"}`)}}})
		if err == nil || !errors.Is(err, core.ErrUnsupported) || !strings.Contains(err.Error(), "tools[0].input_schema") {
			t.Errorf("err = %v, want core.ErrUnsupported naming tools[0].input_schema", err)
		}
	})
}

func TestResultObject(t *testing.T) {
	tests := []struct {
		name string
		r    core.Result
		want string
	}{
		{"plain text wraps in result", textResult("a", "5"), `{"result":"5"}`},
		{"json object passes through", textResult("a", `{ "temp": 40 }`), `{"temp":40}`},
		{"json array wraps", textResult("a", `[1,2]`), `{"result":"[1,2]"}`},
		{"error result", core.Result{CallID: "a", IsError: true, Content: []core.Part{core.TextPart("boom")}}, `{"error":"boom"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(resultObject(tt.r))
			if got != tt.want {
				t.Errorf("resultObject = %s, want %s", got, tt.want)
			}
			back := resultFromObject(tt.r.CallID, "", json.RawMessage(got))
			if back.IsError != tt.r.IsError {
				t.Errorf("IsError = %v after round trip", back.IsError)
			}
		})
	}
}

func TestToolChoice(t *testing.T) {
	tests := []struct {
		choice core.ToolChoice
		want   string
	}{
		{core.ToolChoice{Mode: core.ToolChoiceAuto}, `{"functionCallingConfig":{"mode":"AUTO"}}`},
		{core.ToolChoice{Mode: core.ToolChoiceNone}, `{"functionCallingConfig":{"mode":"NONE"}}`},
		{core.ToolChoice{Mode: core.ToolChoiceRequired}, `{"functionCallingConfig":{"mode":"ANY"}}`},
		{core.ToolChoice{Mode: core.ToolChoiceTool, Name: "f"}, `{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f"]}}`},
	}
	a := New()
	for _, tt := range tests {
		t.Run(string(tt.choice.Mode), func(t *testing.T) {
			c := tt.choice
			body, err := a.EncodeRequest(&core.Request{ToolChoice: &c})
			if err != nil {
				t.Fatal(err)
			}
			var w struct {
				ToolConfig json.RawMessage `json:"toolConfig"`
			}
			if err := json.Unmarshal(body, &w); err != nil {
				t.Fatal(err)
			}
			if string(w.ToolConfig) != tt.want {
				t.Errorf("toolConfig = %s, want %s", w.ToolConfig, tt.want)
			}
			back, err := a.DecodeRequest(body)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&c, back.ToolChoice); diff != "" {
				t.Errorf("decoded tool choice (-want +got):\n%s", diff)
			}
		})
	}
}

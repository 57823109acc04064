package openairesponses

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

func msg(role core.Role, parts ...core.Part) core.Message {
	return core.Message{Role: role, Parts: parts}
}

func fcall(id, item, args string) core.Part {
	return core.CallPart(core.Call{ID: id, ItemID: item, Name: "f", Arguments: json.RawMessage(args)})
}

func output(id, text string) core.Part {
	return core.ResultPart(core.Result{CallID: id, Content: []core.Part{core.TextPart(text)}})
}

func asJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

// TestEncodeRequestWire checks D08 (item id and call id each in its own
// field), reasoning replay with encrypted content, H03 and the parameters.
func TestEncodeRequestWire(t *testing.T) {
	f := false
	req := &core.Request{
		Model: "gpt-5", MaxTokens: 50, Stream: true, ParallelToolCalls: &f,
		Messages: []core.Message{
			msg(core.RoleSystem, core.TextPart("be brief")),
			msg(core.RoleUser, core.TextPart("hi")),
			msg(core.RoleAssistant,
				core.Part{Kind: core.PartThinking, Text: "s1", ItemID: "rs_1", Signature: "ENC"},
				core.Part{Kind: core.PartThinking, Text: "s2", ItemID: "rs_1", Signature: "ENC"},
				fcall("call_1", "fc_1", `{"a":1}`)),
			msg(core.RoleTool, output("call_1", "42")),
		},
		Tools:          []core.ToolSpec{{Name: "f", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a"]}`), Strict: true}},
		ToolChoice:     &core.ToolChoice{Mode: core.ToolChoiceTool, Name: "f"},
		ResponseFormat: &core.ResponseFormat{Name: "out", Schema: json.RawMessage(`{"type":"object"}`), Strict: true},
	}
	out, err := New().EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"gpt-5","max_output_tokens":50,"stream":true,"parallel_tool_calls":false,
	 "input":[
	  {"type":"message","role":"system","content":[{"type":"input_text","text":"be brief"}]},
	  {"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},
	  {"type":"reasoning","id":"rs_1","encrypted_content":"ENC","summary":[{"type":"summary_text","text":"s1"},{"type":"summary_text","text":"s2"}]},
	  {"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{\"a\":1}"},
	  {"type":"function_call_output","call_id":"call_1","output":"42"}],
	 "tools":[{"type":"function","name":"f","strict":true,"parameters":{"type":"object","additionalProperties":false,
	   "properties":{"a":{"type":"integer"},"b":{"type":["string","null"]}},"required":["a","b"]}}],
	 "tool_choice":{"type":"function","name":"f"},
	 "text":{"format":{"type":"json_schema","name":"out","schema":{"type":"object"},"strict":true}}}`
	if diff := cmp.Diff(asJSON(t, []byte(want)), asJSON(t, out)); diff != "" {
		t.Errorf("wire (-want +got):\n%s", diff)
	}
	back, err := New().DecodeRequest(out)
	if err != nil {
		t.Fatal(err)
	}
	if c := back.Messages[2].Calls()[0]; c.ID != "call_1" || c.ItemID != "fc_1" {
		t.Errorf("D08: decoded call id %q item id %q, want call_1 and fc_1", c.ID, c.ItemID)
	}
}

func TestHistoryRules(t *testing.T) {
	user := msg(core.RoleUser, core.TextPart("hi"))
	tests := []struct {
		name    string
		msgs    []core.Message
		wantErr error
		wantMsg int
		wantID  string
	}{
		{"G07 function_call without output", []core.Message{user, msg(core.RoleAssistant, fcall("call_1", "", "{}"), fcall("call_2", "", "{}")), msg(core.RoleTool, output("call_1", "x"))},
			core.ErrMissingResult, 1, "call_2"},
		{"G07 only the last round's outputs", []core.Message{user, msg(core.RoleAssistant, fcall("call_1", "", "{}")), user,
			msg(core.RoleAssistant, fcall("call_2", "", "{}")), msg(core.RoleTool, output("call_2", "x"))}, core.ErrMissingResult, 1, "call_1"},
		{"orphan output", []core.Message{user, msg(core.RoleTool, output("call_9", "x"))}, core.ErrOrphanResult, 1, "call_9"},
		{"G09 invalid stored arguments", []core.Message{user, msg(core.RoleAssistant, fcall("call_1", "", `{"a":`)), msg(core.RoleTool, output("call_1", "x"))},
			core.ErrInvalidArguments, 1, "call_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New().EncodeRequest(&core.Request{Messages: tt.msgs})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			var he *core.HistoryError
			if !errors.As(err, &he) || he.Message != tt.wantMsg || he.CallID != tt.wantID {
				t.Fatalf("error = %v, want message %d id %q", err, tt.wantMsg, tt.wantID)
			}
		})
	}
	// A non-adjacent pair (reasoning and a message between call and output)
	// is legal as long as the output is there.
	ok := []core.Message{user, msg(core.RoleAssistant, fcall("call_1", "", "{}"), core.TextPart("working")), msg(core.RoleTool, output("call_1", "x"))}
	if _, err := New().EncodeRequest(&core.Request{Messages: ok}); err != nil {
		t.Errorf("G07 non-adjacent pair: %v", err)
	}
}

// TestG08StatefulReplay checks EncodeRequestAfter sends only what the
// server does not store, and checks the outputs it can check.
func TestG08StatefulReplay(t *testing.T) {
	history := []core.Message{
		msg(core.RoleUser, core.TextPart("hi")),
		msg(core.RoleAssistant, fcall("call_1", "fc_1", "{}"), fcall("call_2", "fc_2", "{}")),
		msg(core.RoleTool, output("call_1", "a"), output("call_2", "b")),
	}
	out, err := New().EncodeRequestAfter(&core.Request{Model: "m", Messages: history}, "resp_prev")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","previous_response_id":"resp_prev","input":[
	  {"type":"function_call_output","call_id":"call_1","output":"a"},
	  {"type":"function_call_output","call_id":"call_2","output":"b"}]}`
	if diff := cmp.Diff(asJSON(t, []byte(want)), asJSON(t, out)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if strings.Contains(string(out), `"function_call"`) {
		t.Error("stored function_call items re-sent (Duplicate item)")
	}
	short := append([]core.Message{}, history[:2]...)
	short = append(short, msg(core.RoleTool, output("call_1", "a")))
	_, err = New().EncodeRequestAfter(&core.Request{Messages: short}, "resp_prev")
	var he *core.HistoryError
	if !errors.Is(err, core.ErrMissingResult) || !errors.As(err, &he) || he.CallID != "call_2" {
		t.Errorf("missing output: error = %v, want core.ErrMissingResult for call_2", err)
	}
	if _, err := New().EncodeRequestAfter(&core.Request{Messages: history[:1]}, "resp_prev"); !errors.Is(err, core.ErrUnsupported) {
		t.Errorf("nothing to continue: error = %v, want core.ErrUnsupported", err)
	}
}

func TestDecodeRequestShapes(t *testing.T) {
	body := `{"model":"m","instructions":"sys","input":[
	  {"role":"developer","content":"dev"},
	  {"role":"user","content":[{"type":"input_text","text":"q"},{"type":"input_image","image_url":"x"}]},
	  {"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"E"},
	  {"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{}","status":"completed"},
	  {"type":"web_search_call","id":"ws_1","status":"completed"},
	  {"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]}],
	  "tools":[{"type":"web_search"},{"type":"function","name":"f","parameters":{"type":"object"}}],
	  "tool_choice":"required","previous_response_id":"resp_0","store":false}`
	req, err := New().DecodeRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := &core.Request{Model: "m", Messages: []core.Message{
		msg(core.RoleSystem, core.TextPart("sys")),
		msg(core.RoleSystem, core.TextPart("dev")),
		msg(core.RoleUser, core.TextPart("q")),
		msg(core.RoleAssistant, core.Part{Kind: core.PartThinking, ItemID: "rs_1", Signature: "E"}, fcall("call_1", "fc_1", "{}")),
		msg(core.RoleTool, core.ResultPart(core.Result{CallID: "call_1", Content: []core.Part{core.TextPart("a"), core.TextPart("b")}})),
	}, Tools: []core.ToolSpec{{Name: "f", InputSchema: json.RawMessage(`{"type":"object"}`)}}, ToolChoice: &core.ToolChoice{Mode: core.ToolChoiceRequired}}
	if diff := cmp.Diff(want, req); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, err = New().DecodeRequest([]byte(`{"input":[{"role":"user","content":[{"type":"input_text","text":5}]}]}`))
	var de *DecodeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "input[0].content") {
		t.Errorf("bad text: error = %v, want one naming input[0].content", err)
	}
}

func TestDecodeResponseCases(t *testing.T) {
	a := New()
	tests := []struct {
		name string
		body string
		want *core.Response
		err  error
	}{
		{
			name: "B11 incomplete with max_output_tokens: truncated call is incomplete",
			body: `{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[
			  {"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{\"a\":","status":"incomplete"}]}`,
			want: &core.Response{ID: "r", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}, Finish: core.FinishLength, ProviderFinish: "max_output_tokens",
				Incomplete: []core.Call{{ID: "call_1", ItemID: "fc_1", Name: "f", Original: `{"a":`}}},
		},
		{
			name: "built-in tool items are not calls; C01 empty arguments are {} as streamed",
			body: `{"id":"r","status":"completed","output":[{"type":"web_search_call","id":"ws_1","status":"completed","action":{"query":"x"}},
			  {"type":"local_shell_call","id":"ls_1","call_id":"call_ls","action":{}},
			  {"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":""}]}`,
			want: &core.Response{ID: "r", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{
				core.CallPart(core.Call{ID: "call_1", ItemID: "fc_1", Name: "f", Arguments: json.RawMessage("{}")})}},
				Finish: core.FinishToolCalls, ProviderFinish: "completed"},
		},
		{
			name: "error body",
			body: `{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key","param":null}}`,
			want: &core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}, Finish: core.FinishError,
				Error: &core.ProviderError{Type: "invalid_request_error", Code: "invalid_api_key", Message: "bad key"}},
		},
		{
			name: "B11 incomplete response: last function_call is incomplete even when marked completed",
			body: `{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[
			  {"type":"function_call","id":"fc_0","call_id":"call_0","name":"f","arguments":"{}","status":"completed"},
			  {"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{\"a\":1}","status":"completed"}]}`,
			want: &core.Response{ID: "r", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{fcall("call_0", "fc_0", "{}")}},
				Finish: core.FinishLength, ProviderFinish: "max_output_tokens",
				Incomplete: []core.Call{{ID: "call_1", ItemID: "fc_1", Name: "f", Original: `{"a":1}`}}},
		},
		{
			name: "D06 duplicate call_id",
			body: `{"status":"completed","output":[{"type":"function_call","id":"fc_1","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call","id":"fc_2","call_id":"c","name":"g","arguments":"{}"}]}`,
			err:  core.ErrDuplicateCallID,
		},
		{
			name: "truncated body",
			body: `{"status":"completed","output":[`,
			err:  core.ErrMalformed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := a.DecodeResponse([]byte(tt.body))
			if !errors.Is(err, tt.err) {
				t.Fatalf("error = %v, want %v", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

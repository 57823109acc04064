package openaichat

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

func respWith(msg, finish string) string {
	return `{"id":"r1","object":"chat.completion","model":"m","choices":[{"index":0,"message":` + msg + `,"finish_reason":` + finish + `}],"usage":{"prompt_tokens":5,"completion_tokens":6}}`
}

func TestDecodeResponseFailureModes(t *testing.T) {
	call := func(id, name, args string) core.Part {
		return core.CallPart(core.Call{ID: id, Name: name, Arguments: json.RawMessage(args)})
	}
	base := func(finish string, parts ...core.Part) *core.Response {
		return &core.Response{ID: "r1", Model: "m", Message: core.Message{Role: core.RoleAssistant, Parts: parts},
			Finish: FinishReason(finish), ProviderFinish: finish, Usage: &core.Usage{InputTokens: 5, OutputTokens: 6}}
	}
	tests := []struct {
		name string
		in   string
		want *core.Response
	}{
		{"plain text", respWith(`{"role":"assistant","content":"hi"}`, `"stop"`), base("stop", core.TextPart("hi"))},
		{"C01 empty-string arguments become {}",
			respWith(`{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"now","arguments":""}}]}`, `"tool_calls"`),
			base("tool_calls", call("a", "now", `{}`))},
		{"C04 object arguments are kept as JSON text",
			respWith(`{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":{"a": [1, 2]}}}]}`, `"tool_calls"`),
			base("tool_calls", call("a", "f", `{"a":[1,2]}`))},
		{"C06 null arguments become {}",
			respWith(`{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":null}}]}`, `"tool_calls"`),
			base("tool_calls", call("a", "f", `{}`))},
		{"F01 stop with calls keeps the calls and the finish",
			respWith(`{"role":"assistant","content":"","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}`, `"stop"`),
			base("stop", call("a", "f", `{}`))},
		{"F03 tool_calls finish without calls", respWith(`{"role":"assistant","content":"done"}`, `"tool_calls"`), base("tool_calls", core.TextPart("done"))},
		{"finish function_call and null finish", respWith(`{"role":"assistant","content":"x"}`, `"function_call"`), base("function_call", core.TextPart("x"))},
		{"G10 content as an array of parts",
			respWith(`{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{}},{"type":"text","text":"b"}]}`, `"stop"`),
			base("stop", core.TextPart("a"), core.TextPart("b"))},
		{"G14 reasoning_content is thinking",
			respWith(`{"role":"assistant","reasoning_content":"think","content":"answer"}`, `"stop"`),
			base("stop", core.Part{Kind: core.PartThinking, Text: "think"}, core.TextPart("answer"))},
		{"provider-run tool calls are not client calls",
			respWith(`{"role":"assistant","tool_calls":[{"id":"w","type":"web_search","web_search":{}},{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}`, `"tool_calls"`),
			base("tool_calls", call("a", "f", `{}`))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New().DecodeResponse([]byte(tt.in))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeResponseSpecialCases(t *testing.T) {
	a := New()
	t.Run("A13 choice 0 is decoded whatever its place", func(t *testing.T) {
		got, err := a.DecodeResponse([]byte(`{"choices":[{"index":1,"message":{"role":"assistant","content":"one"},"finish_reason":"stop"},{"index":0,"message":{"role":"assistant","content":"zero"},"finish_reason":"length"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if got.Text() != "zero" || got.Finish != core.FinishLength {
			t.Errorf("got text %q finish %q, want choice 0 (zero, length)", got.Text(), got.Finish)
		}
	})
	t.Run("truncated arguments are incomplete, never calls", func(t *testing.T) {
		got, err := a.DecodeResponse([]byte(respWith(`{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"q\": \"par"}}]}`, `"length"`)))
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Calls()) != 0 {
			t.Errorf("calls = %v, want none", got.Calls())
		}
		want := []core.Call{{ID: "a", Name: "f", Original: `{"q": "par`}}
		if diff := cmp.Diff(want, got.Incomplete); diff != "" {
			t.Errorf("incomplete (-want +got):\n%s", diff)
		}
	})
	t.Run("error bodies are provider errors", func(t *testing.T) {
		for body, want := range map[string]core.ProviderError{
			`{"error":{"message":"bad id","type":"invalid_request_error","param":"messages","code":"string_above_max_length"}}`: {Type: "invalid_request_error", Code: "string_above_max_length", Message: "bad id"},
			`{"object":"error","message":"Unauthorized","type":"unauthorized","param":null,"code":"1000"}`:                      {Type: "unauthorized", Code: "1000", Message: "Unauthorized"},
			`{"error":"rate limited"}`: {Message: "rate limited"},
		} {
			got, err := a.DecodeResponse([]byte(body))
			if err != nil {
				t.Fatalf("%s: %v", body, err)
			}
			if got.Error == nil || *got.Error != want {
				t.Errorf("%s: error = %+v, want %+v", body, got.Error, want)
			}
		}
	})
	t.Run("bad bodies are errors with a place", func(t *testing.T) {
		for body, wantErr := range map[string]error{
			`{"choices":[`:                            core.ErrMalformed,
			`{"choices":[{"index":"0"}]}`:             core.ErrMalformed,
			`{"id":"x"}`:                              core.ErrMalformed,
			`{"choices":[{"message":{"content":5}}]}`: core.ErrMalformed,
			``: core.ErrMalformed,
		} {
			_, err := a.DecodeResponse([]byte(body))
			var ce *DecodeError
			if !errors.Is(err, wantErr) || !errors.As(err, &ce) {
				t.Errorf("%q: error = %v, want %v in a *DecodeError", body, err, wantErr)
				continue
			}
			if ce.Offset < 0 && ce.Path == "" {
				t.Errorf("%q: error %v names neither offset nor path", body, err)
			}
		}
	})
}

func TestRequestFailureModes(t *testing.T) {
	a := New()
	t.Run("G06 tool message without tool_call_id", func(t *testing.T) {
		_, err := a.DecodeRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"tool","content":"r"}]}`))
		var ce *DecodeError
		if !errors.Is(err, core.ErrResultWithoutID) || !errors.As(err, &ce) || ce.Path != "messages[1].tool_call_id" {
			t.Fatalf("error = %v, want core.ErrResultWithoutID at messages[1].tool_call_id", err)
		}
		_, err = a.EncodeRequest(&core.Request{Messages: []core.Message{{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{Content: []core.Part{core.TextPart("r")}})}}}})
		if !errors.Is(err, core.ErrResultWithoutID) {
			t.Fatalf("encode error = %v, want core.ErrResultWithoutID", err)
		}
	})
	t.Run("G10 tool content as parts, both ways", func(t *testing.T) {
		req, err := a.DecodeRequest([]byte(`{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":[{"type":"text","text":"p1"},{"type":"text","text":"p2"}]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		want := []core.Message{
			{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(core.Call{ID: "a", Name: "f", Arguments: json.RawMessage(`{}`)})}},
			{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: "a", Content: []core.Part{core.TextPart("p1"), core.TextPart("p2")}})}},
		}
		if diff := cmp.Diff(want, req.Messages); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
		out, err := a.EncodeRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), `"content":[{"text":"p1","type":"text"},{"text":"p2","type":"text"}]`) {
			t.Errorf("encoded %s, want the parts array", out)
		}
	})
	t.Run("G14 thinking is sent back as reasoning_content", func(t *testing.T) {
		req := &core.Request{Messages: []core.Message{
			{Role: core.RoleUser, Parts: []core.Part{core.TextPart("q")}},
			{Role: core.RoleAssistant, Parts: []core.Part{{Kind: core.PartThinking, Text: "plan", Signature: "sig"}, core.CallPart(core.Call{ID: "a", Name: "f", Arguments: json.RawMessage(`{}`)})}},
			{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: "a", Content: []core.Part{core.TextPart("r")}})}},
		}}
		out, err := a.EncodeRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"messages":[{"role":"user","content":"q"},{"role":"assistant","reasoning_content":"plan","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","content":"r","tool_call_id":"a"}]}`
		if diff := cmp.Diff(want, string(out)); diff != "" {
			t.Errorf("request (-want +got):\n%s", diff)
		}
	})
	t.Run("H04 parallel_tool_calls only when set", func(t *testing.T) {
		f := false
		for _, tt := range []struct {
			p    *bool
			want string
		}{{nil, ""}, {&f, `"parallel_tool_calls":false`}} {
			out, err := a.EncodeRequest(&core.Request{Model: "o3-mini", Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("x")}}}, ParallelToolCalls: tt.p})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(out), "parallel_tool_calls"); got != (tt.want != "") || (tt.want != "" && !strings.Contains(string(out), tt.want)) {
				t.Errorf("parallel %v: encoded %s", tt.p, out)
			}
		}
	})
	t.Run("H03 strict tools carry a strict schema", func(t *testing.T) {
		out, err := a.EncodeRequest(&core.Request{Tools: []core.ToolSpec{{Name: "f", Strict: true, InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)}}})
		if err != nil {
			t.Fatal(err)
		}
		want := `"parameters":{"additionalProperties":false,"properties":{"a":{"type":["string","null"]}},"required":["a"],"type":"object"},"strict":true`
		if !strings.Contains(string(out), want) {
			t.Errorf("encoded %s, want %s", out, want)
		}
	})
	t.Run("H03 a strict schema that cannot be rewritten is refused naming the tool", func(t *testing.T) {
		tools := []core.ToolSpec{
			{Name: "f", Strict: true, InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)},
			{Name: "echo", Strict: true, InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{}}}`)},
		}
		out, err := a.EncodeRequest(&core.Request{Tools: tools})
		want := `openai-chat: encode request: at tools[1] "echo": strict schema: #/properties/x: `
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %v (body %s), want one starting %q", err, out, want)
		}
	})
	t.Run("D04 long ids are mapped and mapped back", func(t *testing.T) {
		long := "fc_" + strings.Repeat("x", 60)
		req := &core.Request{Messages: []core.Message{
			{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(core.Call{ID: long, Name: "f", Arguments: json.RawMessage(`{}`)})}},
			{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: long, Content: []core.Part{core.TextPart("r")}})}},
		}}
		out, err := a.EncodeRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), long) {
			t.Fatalf("long id sent as is: %s", out)
		}
		var w struct {
			Messages []struct {
				ToolCalls  []struct{ ID string } `json:"tool_calls"`
				ToolCallID string                `json:"tool_call_id"`
			}
		}
		if err := json.Unmarshal(out, &w); err != nil {
			t.Fatal(err)
		}
		sent := w.Messages[0].ToolCalls[0].ID
		if len(sent) > MaxIDLen || sent != w.Messages[1].ToolCallID || !strings.HasPrefix(sent, "call_") {
			t.Fatalf("sent id %q / %q, want one call_ id of at most 40 chars", sent, w.Messages[1].ToolCallID)
		}
		back, err := a.DecodeRequest(out)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(req.Messages, back.Messages); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
		resp, err := a.DecodeResponse([]byte(respWith(`{"role":"assistant","tool_calls":[{"id":"`+sent+`","type":"function","function":{"name":"f","arguments":"{}"}}]}`, `"tool_calls"`)))
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Calls()[0].ID; got != long {
			t.Errorf("response id %q, want it mapped back to %q", got, long)
		}
		kept, err := New(KeepLongIDs()).EncodeRequest(req)
		if err != nil || !strings.Contains(string(kept), long) {
			t.Errorf("KeepLongIDs: %v, %s", err, kept)
		}
	})
	t.Run("G03 G06 G09 D04 CheckHistory lists every problem", func(t *testing.T) {
		long := strings.Repeat("y", 41)
		msgs := []core.Message{
			{Role: core.RoleAssistant, Parts: []core.Part{
				core.CallPart(core.Call{ID: "a", Name: "f", Arguments: json.RawMessage(`{}`)}),
				core.CallPart(core.Call{ID: "b", Name: "g", Original: "15 * 4"}),
				core.CallPart(core.Call{ID: long, Name: "h", Arguments: json.RawMessage(`{}`)}),
			}},
			{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: "a"}), core.ResultPart(core.Result{CallID: long}), core.ResultPart(core.Result{}), core.ResultPart(core.Result{CallID: "zzz"})}},
			{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("ok")}},
		}
		err := CheckHistory(msgs)
		if err == nil {
			t.Fatal("CheckHistory found nothing")
		}
		lines := strings.Split(err.Error(), "\n")
		for _, want := range []string{"(G09)", "(D04)", "(G06)", "answers no earlier call", `call "b": tool call without a result: g has no tool message`} {
			found := false
			for _, l := range lines {
				found = found || strings.Contains(l, want)
			}
			if !found {
				t.Errorf("no problem line with %q in:\n%s", want, err)
			}
		}
		if len(lines) != 5 {
			t.Errorf("got %d problems, want 5:\n%s", len(lines), err)
		}
		if err := CheckHistory(msgs[:1][:0]); err != nil {
			t.Errorf("empty history: %v", err)
		}
	})
	t.Run("bad requests name the path", func(t *testing.T) {
		for body, wantPath := range map[string]string{
			`{"messages":[{"role":"wizard","content":"x"}]}`:                       "messages[0].role",
			`{"messages":[],"tool_choice":"sometimes"}`:                            "tool_choice",
			`{"messages":[],"tools":[{"type":"function","function":{"name":""}}]}`: "tools[0].function.name",
			`{"messages":[{"role":"user","content":5}]}`:                           "messages[0].content",
			`{"messages":[{"role":"user","content":[{"type":"text"}]}]}`:           "messages[0].content[0].text",
		} {
			_, err := a.DecodeRequest([]byte(body))
			var ce *DecodeError
			if !errors.As(err, &ce) || ce.Path != wantPath {
				t.Errorf("%s: error = %v, want path %s", body, err, wantPath)
			}
		}
	})
}

func TestEncodeRequestRefusesMisplacedParts(t *testing.T) {
	call := core.CallPart(core.Call{ID: "a", Name: "f", Arguments: json.RawMessage(`{}`)})
	for _, tt := range []struct {
		m    core.Message
		path string
	}{
		{core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart("x"), call}}, "messages[0].parts[1].kind"},
		{core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.ResultPart(core.Result{CallID: "a"})}}, "messages[0].parts[0].kind"},
		{core.Message{Role: core.RoleTool, Parts: []core.Part{core.TextPart("loose text")}}, "messages[0].parts[0].kind"},
		{core.Message{Role: core.RoleTool}, "messages[0].parts"},
		{core.Message{Role: core.RoleSystem, Parts: []core.Part{{Kind: core.PartThinking, Text: "t"}}}, "messages[0].parts[0].kind"},
	} {
		_, err := New().EncodeRequest(&core.Request{Messages: []core.Message{tt.m}})
		var ce *DecodeError
		if !errors.Is(err, core.ErrUnsupported) || !errors.As(err, &ce) || ce.Path != tt.path {
			t.Errorf("%+v: error = %v, want core.ErrUnsupported at %s", tt.m, err, tt.path)
		}
	}
}

// TestEncodeRequestRefusesBadHistory: histories Chat Completions servers
// reject with a 400 are refused, naming the call and the message.
func TestEncodeRequestRefusesBadHistory(t *testing.T) {
	user, calls, result := adaptertest.UserText, adaptertest.CallsMessage, adaptertest.ResultsMessage
	tests := []struct {
		name string
		msgs []core.Message
		want []string // each must appear in the error
	}{
		{"G01 call then a user message", []core.Message{user("q"), calls("call_1"), user("never mind")}, []string{`"call_1"`, "messages[1]", "(G03)"}},
		{"G03 one of two results missing", []core.Message{user("q"), calls("call_a", "call_b"), result("call_b"), user("thanks")}, []string{`"call_a"`, "messages[1]"}},
		{"G03 history ends with unanswered calls", []core.Message{user("q"), calls("call_1")}, []string{`"call_1"`, "end of the history"}},
		{"G02 orphan result", []core.Message{user("q"), result("call_x")}, []string{`messages[1]: call "call_x"`, "parts[0]", "(G02)"}},
		{"G02 result after another turn", []core.Message{user("q"), calls("c1"), result("c1"), user("again"), result("c1")}, []string{`messages[4]: call "c1"`}},
		{"G06 result without id", []core.Message{user("q"), calls("c1"), {Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{})}}}, []string{"messages[2].parts[0]", "tool_call_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New().EncodeRequest(&core.Request{Model: "m", Messages: tt.msgs})
			// The encoder faults an id-less result at its path before the
			// history is checked.
			if he := (*core.HistoryError)(nil); (!errors.As(err, &he) || he.Protocol != "openai-chat") && !errors.Is(err, core.ErrResultWithoutID) {
				t.Fatalf("error = %v, want a *core.HistoryError of openai-chat", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %s", err, w)
				}
			}
		})
	}
	// A user message holding the results and then text is fine: the results
	// go first as tool messages.
	ok := []core.Message{user("q"), calls("c1"), {Role: core.RoleUser, Parts: []core.Part{core.ResultPart(core.Result{CallID: "c1", Content: []core.Part{core.TextPart("r")}}), core.TextPart("and?")}}}
	if _, err := New().EncodeRequest(&core.Request{Messages: ok}); err != nil {
		t.Errorf("results then text in one user message: %v", err)
	}
}

func TestDecodeToolChoice(t *testing.T) {
	for body, want := range map[string]*core.ToolChoice{
		`"auto"`:     {Mode: core.ToolChoiceAuto},
		`"none"`:     {Mode: core.ToolChoiceNone},
		`"required"`: {Mode: core.ToolChoiceRequired},
		`"any"`:      {Mode: core.ToolChoiceRequired},
		`{"type":"function","function":{"name":"Book"}}`:                      {Mode: core.ToolChoiceTool, Name: "Book"},
		`{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[]}}`: nil,
		`null`: nil,
	} {
		req, err := New().DecodeRequest([]byte(`{"messages":[],"tool_choice":` + body + `}`))
		if err != nil {
			t.Errorf("%s: %v", body, err)
			continue
		}
		if diff := cmp.Diff(want, req.ToolChoice); diff != "" {
			t.Errorf("%s (-want +got):\n%s", body, diff)
		}
	}
}

package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

func call(id string, args string) core.Part {
	return core.CallPart(core.Call{ID: id, Name: "f", Arguments: json.RawMessage(args)})
}

func result(id, text string) core.Part {
	return core.ResultPart(core.Result{CallID: id, Content: []core.Part{core.TextPart(text)}})
}

// contents returns the content blocks of each message of an encoded
// request.
func contents(t *testing.T, body []byte) [][]map[string]any {
	t.Helper()
	var w struct {
		Messages []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatalf("encoded request: %v in %s", err, body)
	}
	out := make([][]map[string]any, len(w.Messages))
	for i, m := range w.Messages {
		out[i] = m.Content
	}
	return out
}

// contentOf returns the content blocks of message k of an encoded request,
// failing the test when there is no such message.
func contentOf(t *testing.T, body []byte, k int) []map[string]any {
	t.Helper()
	c := contents(t, body)
	if k >= len(c) {
		t.Fatalf("encoded request has %d messages, want message %d: %s", len(c), k, body)
	}
	return c[k]
}

func msg(role core.Role, parts ...core.Part) core.Message {
	return core.Message{Role: role, Parts: parts}
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
		{
			name:    "G01 tool_use without result in the next message",
			msgs:    []core.Message{user, msg(core.RoleAssistant, call("t1", "{}"), call("t2", "{}")), msg(core.RoleTool, result("t1", "ok"))},
			wantErr: core.ErrMissingResult, wantMsg: 1, wantID: "t2",
		},
		{
			name:    "G01 tool_use as the last message",
			msgs:    []core.Message{user, msg(core.RoleAssistant, call("t1", "{}"))},
			wantErr: core.ErrMissingResult, wantMsg: 1, wantID: "t1",
		},
		{
			name:    "G01 result two messages later is not next",
			msgs:    []core.Message{user, msg(core.RoleAssistant, call("t1", "{}")), user, msg(core.RoleTool, result("t1", "ok"))},
			wantErr: core.ErrMissingResult, wantMsg: 1, wantID: "t1",
		},
		{
			name:    "G02 orphan tool_result",
			msgs:    []core.Message{user, msg(core.RoleAssistant, core.TextPart("no calls")), msg(core.RoleTool, result("t9", "ok"))},
			wantErr: core.ErrOrphanResult, wantMsg: 2, wantID: "t9",
		},
		{
			name: "duplicate call id across turns",
			msgs: []core.Message{user, msg(core.RoleAssistant, call("t1", "{}")), msg(core.RoleTool, result("t1", "ok")),
				msg(core.RoleAssistant, call("t1", "{}")), msg(core.RoleTool, result("t1", "ok"))},
			wantErr: core.ErrDuplicateCallID, wantMsg: 3, wantID: "t1",
		},
		{
			name:    "G09 invalid stored arguments",
			msgs:    []core.Message{user, msg(core.RoleAssistant, call("t1", `{"a":1}{"b":2}`)), msg(core.RoleTool, result("t1", "ok"))},
			wantErr: core.ErrInvalidArguments, wantMsg: 1, wantID: "t1",
		},
	}
	a := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := a.EncodeRequest(&core.Request{Messages: tt.msgs})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			var he *core.HistoryError
			if !errors.As(err, &he) {
				t.Fatalf("error %v has no *core.HistoryError", err)
			}
			if he.Message != tt.wantMsg || he.CallID != tt.wantID {
				t.Errorf("error names message %d id %q, want %d %q", he.Message, he.CallID, tt.wantMsg, tt.wantID)
			}
			if !strings.Contains(err.Error(), tt.wantID) {
				t.Errorf("error text %q does not name the id", err)
			}
		})
	}
}

func TestValidateHistoryReportsEveryProblem(t *testing.T) {
	req := &core.Request{Messages: []core.Message{
		msg(core.RoleUser, core.TextPart("hi")),
		msg(core.RoleAssistant, call("t1", "{}"), call("t2", "{}")),
		msg(core.RoleTool, result("t3", "x")),
	}}
	err := ValidateHistory(req)
	var n int
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var he *core.HistoryError
		if errors.As(e, &he) {
			n++
		}
	}
	if n != 3 {
		t.Errorf("got %d problems, want 3 (t1, t2 missing; t3 orphan): %v", n, err)
	}
}

// TestEncodeRequestWire checks the bytes for G05, G11, G12, the system
// field and tool choice.
func TestEncodeRequestWire(t *testing.T) {
	yes := true
	req := &core.Request{
		Model: "claude", MaxTokens: 100,
		Messages: []core.Message{
			msg(core.RoleSystem, core.TextPart("be brief")),
			msg(core.RoleUser, core.TextPart("weather?")),
			msg(core.RoleAssistant,
				core.Part{Kind: core.PartThinking, Text: "think", Signature: "sig1"},
				core.Part{Kind: core.PartThinking, Data: "redacted=="},
				core.TextPart(""),
				call("t1", `{"c":"a"}`), call("t2", "")),
			msg(core.RoleTool, result("t2", "two"), result("t1", "one"), core.TextPart("and?")),
		},
		Tools:             []core.ToolSpec{{Name: "f", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		ToolChoice:        &core.ToolChoice{Mode: core.ToolChoiceRequired},
		ParallelToolCalls: &yes,
	}
	out, err := New().EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"claude","max_tokens":100,
	"system":[{"type":"text","text":"be brief"}],
	"messages":[
	 {"role":"user","content":[{"type":"text","text":"weather?"}]},
	 {"role":"assistant","content":[
	   {"type":"thinking","thinking":"think","signature":"sig1"},
	   {"type":"redacted_thinking","data":"redacted=="},
	   {"type":"tool_use","id":"t1","name":"f","input":{"c":"a"}},
	   {"type":"tool_use","id":"t2","name":"f","input":{}}]},
	 {"role":"user","content":[
	   {"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"one"}]},
	   {"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"two"}]},
	   {"type":"text","text":"and?"}]}],
	"tools":[{"name":"f","description":"d","input_schema":{"type":"object"}}],
	"tool_choice":{"type":"any","disable_parallel_tool_use":false}}`
	adaptertest.CheckJSON(t, []byte(want), out)
}

func TestToolChoiceMapping(t *testing.T) {
	f, tr := false, true
	tests := []struct {
		wire string
		tc   *core.ToolChoice
		par  *bool
	}{
		{`{"type":"auto"}`, &core.ToolChoice{Mode: core.ToolChoiceAuto}, nil},
		{`{"type":"any","disable_parallel_tool_use":true}`, &core.ToolChoice{Mode: core.ToolChoiceRequired}, &f},
		{`{"type":"none"}`, &core.ToolChoice{Mode: core.ToolChoiceNone}, nil},
		{`{"type":"tool","name":"f","disable_parallel_tool_use":false}`, &core.ToolChoice{Mode: core.ToolChoiceTool, Name: "f"}, &tr},
	}
	a := New()
	for _, tt := range tests {
		body := `{"model":"m","messages":[],"tool_choice":` + tt.wire + `}`
		req, err := a.DecodeRequest([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.tc, req.ToolChoice); diff != "" {
			t.Errorf("%s: tool choice (-want +got):\n%s", tt.wire, diff)
		}
		if diff := cmp.Diff(tt.par, req.ParallelToolCalls); diff != "" {
			t.Errorf("%s: parallel (-want +got):\n%s", tt.wire, diff)
		}
	}
	if _, err := a.DecodeRequest([]byte(`{"messages":[],"tool_choice":{"type":"sometimes"}}`)); !errors.Is(err, core.ErrMalformed) {
		t.Errorf("unknown tool_choice: error = %v, want core.ErrMalformed", err)
	}
}

func TestDecodeRequestShapes(t *testing.T) {
	body := `{"model":"m","system":"sys","messages":[
	 {"role":"user","content":"plain"},
	 {"role":"assistant","content":[{"type":"text","text":"x"},{"type":"server_tool_use","id":"s","name":"web_search","input":{}},{"type":"tool_use","id":"t1","name":"f","input":{"a":1}}]},
	 {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"done","is_error":true}]}],
	 "tools":[{"type":"web_search_20250305","name":"web_search"},{"name":"f","input_schema":{"type":"object"}}]}`
	req, err := New().DecodeRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := &core.Request{Model: "m", Messages: []core.Message{
		msg(core.RoleSystem, core.TextPart("sys")),
		msg(core.RoleUser, core.TextPart("plain")),
		msg(core.RoleAssistant, core.TextPart("x"), call("t1", `{"a":1}`)),
		msg(core.RoleTool, core.ResultPart(core.Result{CallID: "t1", Content: []core.Part{core.TextPart("done")}, IsError: true})),
	}, Tools: []core.ToolSpec{{Name: "f", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	if diff := cmp.Diff(want, req); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, err = New().DecodeRequest([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":1}]}]}`))
	var de *DecodeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "messages[0].content") {
		t.Errorf("bad text type: error = %v, want a DecodeError naming messages[0].content", err)
	}
}

func TestResponses(t *testing.T) {
	a := New()
	for stop, want := range map[string]core.FinishReason{
		"end_turn": core.FinishStop, "tool_use": core.FinishToolCalls, "max_tokens": core.FinishLength,
		"stop_sequence": core.FinishStop, "refusal": core.FinishContentFilter, "pause_turn": core.FinishOther, "new_reason": core.FinishOther,
	} {
		resp, err := a.DecodeResponse([]byte(`{"id":"m","type":"message","role":"assistant","content":[],"stop_reason":"` + stop + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Finish != want || resp.ProviderFinish != stop {
			t.Errorf("%s: finish %q/%q, want %q/%q", stop, resp.Finish, resp.ProviderFinish, want, stop)
		}
	}
	resp, err := a.DecodeResponse([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"busy"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&core.ProviderError{Type: "overloaded_error", Message: "busy"}, resp.Error); diff != "" {
		t.Errorf("error body (-want +got):\n%s", diff)
	}
	resp, err = a.DecodeResponse([]byte(`{"type":"message","content":[
	  {"type":"server_tool_use","id":"s1","name":"web_search","input":{"q":1}},
	  {"type":"web_search_tool_result","tool_use_id":"s1","content":[]},
	  {"type":"tool_use","id":"t1","name":"f","input":{}}],"stop_reason":"tool_use"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Calls(); len(got) != 1 || got[0].ID != "t1" {
		t.Errorf("calls = %+v, want only the client call t1", got)
	}
	_, err = a.DecodeResponse([]byte(`{"type":"message","content":[{"type":"tool_use","id":"t1","name":"f","input":{}},{"type":"tool_use","id":"t1","name":"g","input":{}}]}`))
	if !errors.Is(err, core.ErrDuplicateCallID) {
		t.Errorf("D06: error = %v, want core.ErrDuplicateCallID", err)
	}
	_, err = a.DecodeResponse([]byte(`{"type":"message","content":[{"type":"tool_use"`))
	var de *DecodeError
	if !errors.As(err, &de) || de.Offset < 0 {
		t.Errorf("truncated body: error = %v, want a DecodeError with an offset", err)
	}
}

// TestG12ThinkingRoundTrip decodes a response with signed thinking before
// tool_use, replays it as history and checks the thinking block is sent
// first with its signature.
func TestG12ThinkingRoundTrip(t *testing.T) {
	a := New()
	resp, err := a.DecodeResponse([]byte(`{"type":"message","content":[{"type":"thinking","thinking":"plan","signature":"SIG"},{"type":"tool_use","id":"t1","name":"f","input":{"x":1}}],"stop_reason":"tool_use"}`))
	if err != nil {
		t.Fatal(err)
	}
	req := &core.Request{Messages: []core.Message{msg(core.RoleUser, core.TextPart("go")), resp.Message, msg(core.RoleTool, result("t1", "ok"))}}
	out, err := a.EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	got := contentOf(t, out, 1)
	if len(got) != 2 || got[0]["type"] != "thinking" || got[0]["signature"] != "SIG" || got[1]["type"] != "tool_use" {
		t.Errorf("assistant content = %v, want signed thinking then tool_use", got)
	}
}

// TestChatStyleResults checks that one RoleTool message per result, in
// completion order, is sent as one user turn in call order (G05).
func TestChatStyleResults(t *testing.T) {
	req := &core.Request{Messages: []core.Message{
		msg(core.RoleUser, core.TextPart("hi")),
		msg(core.RoleAssistant, call("t1", "{}"), call("t2", "{}")),
		msg(core.RoleTool, result("t2", "two")),
		msg(core.RoleTool, result("t1", "one")),
	}}
	out, err := New().EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(contents(t, out)); n != 3 {
		t.Fatalf("got %d wire messages, want 3: %s", n, out)
	}
	last := contentOf(t, out, 2)
	if len(last) != 2 || last[0]["tool_use_id"] != "t1" || last[1]["tool_use_id"] != "t2" {
		t.Errorf("results = %v, want t1 then t2 in one turn", last)
	}
	bad := &core.Request{Messages: []core.Message{msg(core.RoleUser, core.TextPart("hi")), msg(core.RoleAssistant, call("t1", "{}")), msg(core.RoleTool, result("t1", "x")), msg(core.RoleTool, result("t9", "y"))}}
	var he *core.HistoryError
	if _, err := New().EncodeRequest(bad); !errors.As(err, &he) || he.Message != 3 || he.CallID != "t9" || !errors.Is(err, core.ErrOrphanResult) {
		t.Errorf("orphan in a run: error = %v, want core.ErrOrphanResult at message 3 for t9", err)
	}
}

func TestG11EmptyMessage(t *testing.T) {
	req := &core.Request{Messages: []core.Message{msg(core.RoleUser, core.TextPart(""))}}
	if _, err := New().EncodeRequest(req); !errors.Is(err, core.ErrUnsupported) || !strings.Contains(err.Error(), "message 0") {
		t.Errorf("error = %v, want core.ErrUnsupported naming message 0", err)
	}
}

// TestG11BlankText checks that text which is empty or only white space is
// left out wherever the encoder writes text blocks (the API answers 400
// "text content blocks must contain non-whitespace text"), that text with
// anything else in it is sent exactly as given, and that a message left
// with nothing is an error naming it.
func TestG11BlankText(t *testing.T) {
	blankResult := core.ResultPart(core.Result{CallID: "t1", Content: []core.Part{core.TextPart(" \n\t "), core.TextPart("")}})
	tests := []struct {
		name    string
		msgs    []core.Message
		want    string // wire messages and system, as JSON
		wantErr string // a message index the error must name, when refused
	}{
		{
			name: "assistant white space beside tool_use",
			msgs: []core.Message{msg(core.RoleUser, core.TextPart("go")), msg(core.RoleAssistant, core.TextPart("  "), call("t1", `{}`), core.TextPart("\n")), msg(core.RoleTool, result("t1", "ok"))},
			want: `{"messages":[
			 {"role":"user","content":[{"type":"text","text":"go"}]},
			 {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},
			 {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"}]}]}]}`,
		},
		{
			name: "user white space beside a tool_result, blank result content",
			msgs: []core.Message{msg(core.RoleUser, core.TextPart("go")), msg(core.RoleAssistant, call("t1", `{}`)), msg(core.RoleTool, blankResult, core.TextPart("\r\n"))},
			want: `{"messages":[
			 {"role":"user","content":[{"type":"text","text":"go"}]},
			 {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},
			 {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1"}]}]}`,
		},
		{
			name: "blank system text",
			msgs: []core.Message{msg(core.RoleSystem, core.TextPart(" "), core.TextPart("be brief")), msg(core.RoleUser, core.TextPart(" \u00a0\u3000"), core.TextPart("hi"))},
			want: `{"system":[{"type":"text","text":"be brief"}],"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`,
		},
		{
			name: "text around white space kept as given",
			msgs: []core.Message{msg(core.RoleUser, core.TextPart(" hi\n")), msg(core.RoleAssistant, core.TextPart("\t.\t"))},
			want: `{"messages":[{"role":"user","content":[{"type":"text","text":" hi\n"}]},{"role":"assistant","content":[{"type":"text","text":"\t.\t"}]}]}`,
		},
		{
			name:    "user message of white space only",
			msgs:    []core.Message{msg(core.RoleUser, core.TextPart("hi")), msg(core.RoleAssistant, core.TextPart("yes")), msg(core.RoleUser, core.TextPart(" "), core.TextPart("\n"))},
			wantErr: "message 2",
		},
		{
			name:    "assistant message of white space only",
			msgs:    []core.Message{msg(core.RoleUser, core.TextPart("hi")), msg(core.RoleAssistant, core.TextPart("\n\n"))},
			wantErr: "message 1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := New().EncodeRequest(&core.Request{Messages: tt.msgs})
			if tt.wantErr != "" {
				if !errors.Is(err, core.ErrUnsupported) || !strings.Contains(err.Error(), tt.wantErr+":") || !strings.Contains(err.Error(), "G11") {
					t.Errorf("error = %v, want core.ErrUnsupported naming %s and G11; body %s", err, tt.wantErr, out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			adaptertest.CheckJSON(t, []byte(tt.want), out)
		})
	}
}

func TestB11Body(t *testing.T) {
	resp, err := New().DecodeResponse([]byte(`{"type":"message","content":[{"type":"tool_use","id":"t0","name":"f","input":{"a":1}},{"type":"text","text":"x"},{"type":"tool_use","id":"t1","name":"f","input":{"path":"/tm"}}],"stop_reason":"max_tokens"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := resp.Calls(); len(c) != 1 || c[0].ID != "t0" {
		t.Errorf("calls = %+v, want only t0", c)
	}
	if len(resp.Incomplete) != 1 || resp.Incomplete[0].ID != "t1" || resp.Incomplete[0].Original != `{"path":"/tm"}` || resp.Finish != core.FinishLength {
		t.Errorf("incomplete = %+v finish %q, want t1 with its cut input, length", resp.Incomplete, resp.Finish)
	}
}

// TestEncodeRequestThinkingOrder checks G12: a thinking part after a tool
// call in one assistant message is refused, naming the message and the
// part, and never reordered; thinking before the calls is sent in place.
func TestEncodeRequestThinkingOrder(t *testing.T) {
	signed := core.Part{Kind: core.PartThinking, Text: "think", Signature: "sig1"}
	redacted := core.Part{Kind: core.PartThinking, Data: "redacted=="}
	convo := func(assistant ...core.Part) []core.Message {
		return []core.Message{
			msg(core.RoleUser, core.TextPart("weather?")),
			msg(core.RoleAssistant, assistant...),
			msg(core.RoleTool, result("t1", "one"), result("t2", "two")),
		}
	}
	tests := []struct {
		name string
		msgs []core.Message
		want *thinkingPlace // nil: encoded
	}{
		{"signed thinking between two calls", convo(call("t1", `{}`), signed, call("t2", `{}`)),
			&thinkingPlace{Message: 1, Part: 1, CallID: "t1"}},
		{"redacted thinking after the calls", convo(signed, call("t1", `{}`), call("t2", `{}`), redacted),
			&thinkingPlace{Message: 1, Part: 3, CallID: "t2"}},
		{"unsigned thinking after a call, behind an empty text part", convo(call("t1", `{}`), core.TextPart(""), core.Part{Kind: core.PartThinking, Text: "later"}, call("t2", `{}`)),
			&thinkingPlace{Message: 1, Part: 2, CallID: "t1"}},
		{"thinking, text, then calls", convo(signed, redacted, core.TextPart("let me look"), call("t1", `{}`), call("t2", `{}`)), nil},
		{"text after the calls is no thinking", convo(signed, call("t1", `{}`), call("t2", `{}`), core.TextPart("done")), nil},
		{"thinking in the next assistant turn, after the results", append(convo(signed, call("t1", `{}`), call("t2", `{}`)),
			msg(core.RoleAssistant, core.Part{Kind: core.PartThinking, Text: "interleaved", Signature: "sig2"}, core.TextPart("sunny"))), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := New().EncodeRequest(&core.Request{Messages: tt.msgs})
			if tt.want == nil {
				if err != nil {
					t.Fatalf("EncodeRequest: %v", err)
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
			for _, s := range []string{"anthropic: history: messages[1]", fmt.Sprintf("parts[%d]:", tt.want.Part), "(G12)"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %q", err, s)
				}
			}
		})
	}
}

// TestEncodeRequestThinkingOrderKept checks that thinking before the calls
// goes out byte for byte in its place, each block in the order given (G12):
// the encoder never moves a signed block.
func TestEncodeRequestThinkingOrderKept(t *testing.T) {
	req := &core.Request{Messages: []core.Message{
		msg(core.RoleUser, core.TextPart("weather?")),
		msg(core.RoleAssistant,
			core.Part{Kind: core.PartThinking, Text: "b", Signature: "sigB"},
			core.Part{Kind: core.PartThinking, Data: "R"},
			core.Part{Kind: core.PartThinking, Text: "a", Signature: "sigA"},
			call("t1", `{}`)),
		msg(core.RoleTool, result("t1", "one")),
	}}
	out, err := New().EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range contentOf(t, out, 1) {
		got = append(got, fmt.Sprintf("%v sig=%v data=%v id=%v", b["type"], b["signature"], b["data"], b["id"]))
	}
	want := []string{
		"thinking sig=sigB data=<nil> id=<nil>",
		"redacted_thinking sig=<nil> data=R id=<nil>",
		"thinking sig=sigA data=<nil> id=<nil>",
		"tool_use sig=<nil> data=<nil> id=t1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("assistant blocks (-want +got):\n%s", diff)
	}
}

// TestEncodeRequestRootComposition: an input schema with oneOf, allOf or
// anyOf at its top level is refused naming the tool and the keyword, as the
// API answers 400; the same keywords below the top level are sent as given.
func TestEncodeRequestRootComposition(t *testing.T) {
	a := New()
	user := []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}}
	for _, k := range []string{"oneOf", "allOf", "anyOf"} {
		schema := `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"` + k + `":[{"required":["a"]},{"required":["b"]}]}`
		_, err := a.EncodeRequest(&core.Request{Model: "m", Messages: user, Tools: []core.ToolSpec{{Name: "ok"}, {Name: "pick", InputSchema: json.RawMessage(schema)}}})
		if !errors.Is(err, core.ErrUnsupported) || !strings.Contains(err.Error(), `tools[1] "pick": input_schema/`+k) {
			t.Errorf("%s at the top level: err = %v, want core.ErrUnsupported naming tools[1] and %s", k, err, k)
		}
	}
	nested := `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`
	body, err := a.EncodeRequest(&core.Request{Model: "m", Messages: user, Tools: []core.ToolSpec{{Name: "nested", InputSchema: json.RawMessage(nested)}}})
	if err != nil {
		t.Fatalf("anyOf below the top level: %v", err)
	}
	if !strings.Contains(string(body), `"input_schema":`+nested) {
		t.Errorf("nested anyOf not sent as given: %s", body)
	}
}

// thinkingPlace is where a G12 fault is: the message, the thinking part
// (named in the message as parts[N]) and the nearest call before it.
type thinkingPlace struct {
	Message, Part int
	CallID        string
}

package ollama

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// TestEncodeRequestToolChoice checks F08: a choice Ollama cannot express
// and that forces a call is refused with errors.ErrUnsupported, naming the
// mode; auto and none encode without a tool_choice field.
func TestEncodeRequestToolChoice(t *testing.T) {
	tests := []struct {
		name        string
		choice      *core.ToolChoice
		unsupported string // substring of the error; empty means encoded
	}{
		{"no choice", nil, ""},
		{"auto", &core.ToolChoice{Mode: core.ToolChoiceAuto}, ""},
		{"none", &core.ToolChoice{Mode: core.ToolChoiceNone}, ""},
		{"named tool refused", &core.ToolChoice{Mode: core.ToolChoiceTool, Name: "get_time"}, `tool_choice.mode: not supported by the protocol: Ollama has no tool choice, so mode "tool" cannot be sent`},
		{"required refused", &core.ToolChoice{Mode: core.ToolChoiceRequired}, `mode "required" cannot be sent`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &core.Request{
				Model:      "llama3.2",
				Messages:   []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("time?")}}},
				Tools:      []core.ToolSpec{{Name: "get_time", InputSchema: json.RawMessage(`{"type":"object"}`)}},
				ToolChoice: tt.choice,
			}
			body, err := New().EncodeRequest(req)
			if tt.unsupported == "" {
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(body), "tool_choice") {
					t.Errorf("body %s has a tool_choice field", body)
				}
				return
			}
			if err == nil {
				t.Fatalf("encoded %s, dropping the forced choice", body)
			}
			if !errors.Is(err, errors.ErrUnsupported) || !errors.Is(err, core.ErrUnsupported) || !strings.HasPrefix(err.Error(), "ollama: encode request") || !strings.Contains(err.Error(), tt.unsupported) {
				t.Errorf("error %q, want one wrapping errors.ErrUnsupported and core.ErrUnsupported containing %q", err, tt.unsupported)
			}
		})
	}
}

// TestEncodeRequestResultsInCallOrder checks G05: the tool messages of one
// tool turn, given in one canonical message or several, are sent in the
// order of the calls before them.
func TestEncodeRequestResultsInCallOrder(t *testing.T) {
	call := func(id string) core.Part {
		return core.CallPart(core.Call{ID: id, Name: "f", Arguments: json.RawMessage(`{}`)})
	}
	result := func(id string) core.Part {
		return core.ResultPart(core.Result{CallID: id, Content: []core.Part{core.TextPart(id + "!")}})
	}
	tool := func(ps ...core.Part) core.Message { return core.Message{Role: core.RoleTool, Parts: ps} }
	user := core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart("go")}}
	asst := core.Message{Role: core.RoleAssistant, Parts: []core.Part{call("a"), call("b"), call("c")}}
	tests := []struct {
		name string
		msgs []core.Message
		want []string // content of the tool messages, in wire order
	}{
		{"one message reversed", []core.Message{user, asst, tool(result("c"), result("b"), result("a"))}, []string{"a!", "b!", "c!"}},
		{"several messages shuffled", []core.Message{user, asst, tool(result("b")), tool(result("c"), result("a"))}, []string{"a!", "b!", "c!"}},
		{"already in order", []core.Message{user, asst, tool(result("a"), result("b"), result("c"))}, []string{"a!", "b!", "c!"}},
		{"second turn ordered by its own calls", []core.Message{user, asst, tool(result("a"), result("b"), result("c")),
			{Role: core.RoleAssistant, Parts: []core.Part{call("e"), call("d")}}, tool(result("d"), result("e"))}, []string{"a!", "b!", "c!", "e!", "d!"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := New().EncodeRequest(&core.Request{Model: "m", Messages: tt.msgs})
			if err != nil {
				t.Fatal(err)
			}
			var w wireRequest
			if err := json.Unmarshal(body, &w); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range w.Messages {
				if m.Role == "tool" {
					got = append(got, m.Content)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tool messages (-want +got):\n%s\nbody %s", diff, body)
			}
		})
	}
}

// TestResultText checks G10: the text parts of a result are joined with a
// newline, other parts are left out, and one part is sent as is.
func TestResultText(t *testing.T) {
	tests := []struct {
		name  string
		parts []core.Part
		want  string
	}{
		{"none", nil, ""},
		{"one", []core.Part{core.TextPart("a b")}, "a b"},
		{"two paragraphs", []core.Part{core.TextPart("Title: x"), core.TextPart("Body: y")}, "Title: x\nBody: y"},
		{"non-text skipped", []core.Part{core.TextPart("a"), {Kind: core.PartThinking, Text: "t"}, core.TextPart("b")}, "a\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, resultText(core.Result{Content: tt.parts})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestEncodeRequestHistoryRules: the encoder follows the history rules the
// other seven adapters follow (issue 28: it took a call without a result
// and an orphan result): each is refused with core's sentinel and guard.
func TestEncodeRequestHistoryRules(t *testing.T) {
	call := core.CallPart(core.Call{ID: "a", Name: "f", Arguments: json.RawMessage(`{}`)})
	result := func(id string) core.Message {
		return core.Message{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: id, Content: []core.Part{core.TextPart("ok")}})}}
	}
	user := core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart("go")}}
	asst := core.Message{Role: core.RoleAssistant, Parts: []core.Part{call}}
	tests := []struct {
		name string
		msgs []core.Message
		want error
	}{
		{"call without a result", []core.Message{user, asst, user}, core.ErrMissingResult},
		{"orphan result", []core.Message{user, asst, result("a"), result("x")}, core.ErrOrphanResult},
		{"result without a call id", []core.Message{user, asst, result("a"), asst, result("")}, core.ErrResultWithoutID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New().EncodeRequest(&core.Request{Model: "m", Messages: tt.msgs})
			var he *core.HistoryError
			if !errors.Is(err, tt.want) || !errors.As(err, &he) {
				t.Errorf("EncodeRequest = %v, want a *core.HistoryError wrapping %v", err, tt.want)
			}
		})
	}
	if _, err := New().EncodeRequest(&core.Request{Model: "m", Messages: []core.Message{user, asst, result("a")}}); err != nil {
		t.Errorf("a sound history: %v", err)
	}
}

package oaichat

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestCheckHistorySharedRules checks that each problem is a
// *core.HistoryError of the protocol wrapping core's sentinel of the rule,
// for the rules core.CheckHistory shares and for the Chat Completions extra
// (results right after their calls).
func TestCheckHistorySharedRules(t *testing.T) {
	user, calls, results := adaptertest.UserText("hi"), adaptertest.CallsMessage, adaptertest.ResultsMessage
	type problem struct {
		Guard   string
		Message int
		ID      string
		Rule    string // core's sentinel
	}
	tests := []struct {
		name string
		msgs []core.Message
		want []problem
	}{
		{"sound", []core.Message{user, calls("a", "b"), results("b", "a"), user}, nil},
		{"G01 call then user turn", []core.Message{user, calls("a"), user}, []problem{{"G03", 1, "a", "missing"}}},
		{"G01 call at the end", []core.Message{user, calls("a")}, []problem{{"G03", 1, "a", "missing"}}},
		{"G02 orphan", []core.Message{user, results("x")}, []problem{{"G02", 1, "x", "orphan"}}},
		{"G03 two results", []core.Message{user, calls("a"), results("a", "a")}, []problem{{"G03", 2, "a", "two results"}}},
		{"G06 no id", []core.Message{user, calls("a"), results("")}, []problem{{"G06", 2, "", "no id"}, {"G03", 1, "a", "missing"}}},
		{"Chat Completions only: user text between call and result", []core.Message{user, calls("a"), user, results("a")},
			[]problem{{"G03", 1, "a", "missing"}, {"G02", 3, "a", "orphan"}}},
	}
	rules := map[error]string{core.ErrMissingResult: "missing", core.ErrOrphanResult: "orphan", core.ErrDuplicateResult: "two results", core.ErrResultWithoutID: "no id"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckHistory(tt.msgs, HistoryChecks{Protocol: "p"})
			var got []problem
			if err != nil {
				for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
					he, ok := e.(*core.HistoryError)
					if !ok || he.Protocol != "p" {
						t.Fatalf("problem %v is not a *core.HistoryError of p", e)
					}
					p := problem{he.Guard, he.Message, he.CallID, ""}
					for s, name := range rules {
						if errors.Is(he, s) {
							p.Rule = name
						}
					}
					got = append(got, p)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}

// TestEncodeRequestToolsInCallOrder checks G05: each run of tool messages
// is sent in the order of the calls before it; a turn that repeats a call
// id (D06) keeps the order given.
func TestEncodeRequestToolsInCallOrder(t *testing.T) {
	user, calls, results := adaptertest.UserText("go"), adaptertest.CallsMessage, adaptertest.ResultsMessage
	tests := []struct {
		name string
		msgs []core.Message
		want []string // tool_call_id of each tool message, in wire order
	}{
		{"one message reversed", []core.Message{user, calls("a", "b", "c"), results("c", "b", "a")}, []string{"a", "b", "c"}},
		{"several messages shuffled", []core.Message{user, calls("a", "b", "c"), results("b"), results("c", "a")}, []string{"a", "b", "c"}},
		{"in order kept", []core.Message{user, calls("a", "b"), results("a", "b")}, []string{"a", "b"}},
		{"each turn by its own calls", []core.Message{user, calls("a", "b"), results("b", "a"), calls("d", "c"), results("c", "d")}, []string{"a", "b", "d", "c"}},
		{"repeated id keeps the order given", []core.Message{user, calls("a", "b", "a"), results("b", "a", "a")}, []string{"b", "a", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := New(Config{Name: "openai-chat"}).EncodeRequest(&core.Request{Model: "m", Messages: tt.msgs})
			if err != nil {
				t.Fatal(err)
			}
			var w wireRequest
			if err := json.Unmarshal(body, &w); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range w.Messages {
				if m.Role == "tool" && m.ToolCallID != nil {
					got = append(got, *m.ToolCallID)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tool messages (-want +got):\n%s\nbody %s", diff, body)
			}
		})
	}
}

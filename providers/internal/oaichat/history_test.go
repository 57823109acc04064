package oaichat

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestCheckHistorySharedRules checks that each problem wraps
// ErrBadHistory, and the *core.HistoryError exactly when core.CheckHistory
// breaks the same rule; the Chat Completions extra (results right after
// their calls) has no core counterpart.
func TestCheckHistorySharedRules(t *testing.T) {
	user, calls, results := adaptertest.UserText("hi"), adaptertest.CallsMessage, adaptertest.ResultsMessage
	type problem struct {
		Guard   string // of the wrapped *core.HistoryError, "" if none
		Message int    // of the wrapped *core.HistoryError
		ID      string
	}
	tests := []struct {
		name string
		msgs []core.Message
		want []problem
	}{
		{"sound", []core.Message{user, calls("a", "b"), results("b", "a"), user}, nil},
		{"G01 call then user turn", []core.Message{user, calls("a"), user}, []problem{{"G01", 1, "a"}}},
		{"G01 call at the end", []core.Message{user, calls("a")}, []problem{{"G01", 1, "a"}}},
		{"G02 orphan", []core.Message{user, results("x")}, []problem{{"G02", 1, "x"}}},
		{"G03 two results", []core.Message{user, calls("a"), results("a", "a")}, []problem{{"G03", 2, "a"}}},
		{"G06 no id", []core.Message{user, calls("a"), results("")}, []problem{{"G06", 2, ""}, {"G01", 1, "a"}}},
		{"Chat Completions only: user text between call and result", []core.Message{user, calls("a"), user, results("a")},
			[]problem{{"", 0, ""}, {"", 0, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckHistory(tt.msgs, HistoryChecks{})
			var got []problem
			if err != nil {
				for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
					if !errors.Is(e, ErrBadHistory) {
						t.Errorf("problem %v does not wrap ErrBadHistory", e)
					}
					var p problem
					var he *core.HistoryError
					if errors.As(e, &he) {
						p = problem{he.Guard, he.Message, he.CallID}
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

package oaichat

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// TestCheckHistorySharedRules checks that each problem wraps
// ErrBadHistory, and the *core.HistoryError exactly when core.CheckHistory
// breaks the same rule; the Chat Completions extra (results right after
// their calls) has no core counterpart.
func TestCheckHistorySharedRules(t *testing.T) {
	user := core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}
	calls := func(ids ...string) core.Message {
		m := core.Message{Role: core.RoleAssistant}
		for _, id := range ids {
			m.Parts = append(m.Parts, core.CallPart(core.Call{ID: id, Name: "f", Arguments: json.RawMessage(`{}`)}))
		}
		return m
	}
	results := func(ids ...string) core.Message {
		m := core.Message{Role: core.RoleTool}
		for _, id := range ids {
			m.Parts = append(m.Parts, core.ResultPart(core.Result{CallID: id, Content: []core.Part{core.TextPart("ok")}}))
		}
		return m
	}
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

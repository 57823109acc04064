package anthropic

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestValidateHistoryRules checks that ValidateHistory reports the shared
// rules of core.CheckHistory once each, and keeps Anthropic's stricter rules
// (result in the very next turn, ids unique over the conversation), each a
// *core.HistoryError of the protocol wrapping core's sentinel of the rule.
func TestValidateHistoryRules(t *testing.T) {
	user, calls, results := adaptertest.UserText("hi"), adaptertest.CallsMessage, adaptertest.ResultsMessage
	type problem struct {
		Message int
		ID      string
		Rule    string // core's sentinel
		Guard   string
		Own     bool // an Anthropic-only rule, in Anthropic's words
	}
	tests := []struct {
		name string
		msgs []core.Message
		want []problem
	}{
		{"sound", []core.Message{user, calls("a", "b"), results("b", "a"), user}, nil},
		{"G01 call then user turn", []core.Message{user, calls("a"), user}, []problem{{1, "a", "missing", "G01", false}}},
		{"G02 orphan", []core.Message{user, results("x")}, []problem{{1, "x", "orphan", "G02", false}}},
		{"G03 two results", []core.Message{user, calls("a"), results("a", "a")}, []problem{{2, "a", "two results", "G03", false}}},
		{"G06 no id", []core.Message{user, calls("a"), results("")}, []problem{{2, "", "no id", "G06", false}, {1, "a", "missing", "G01", false}}},
		{"D06 one id twice in a turn", []core.Message{user, calls("a", "a"), results("a")}, []problem{{1, "a", "one id", "D06", false}}},
		{"Anthropic: user text between call and result", []core.Message{user, calls("a"), user, results("a")},
			[]problem{{1, "a", "missing", "G01", true}, {3, "a", "orphan", "G02", true}}},
		{"Anthropic: one id in two turns", []core.Message{user, calls("a"), results("a"), calls("a"), results("a")},
			[]problem{{3, "a", "one id", "D06", true}}},
	}
	rules := map[error]string{core.ErrMissingResult: "missing", core.ErrOrphanResult: "orphan", core.ErrDuplicateResult: "two results",
		core.ErrResultWithoutID: "no id", core.ErrDuplicateCallID: "one id"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateHistory(&core.Request{Messages: tt.msgs})
			var got []problem
			if err != nil {
				for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
					he, ok := e.(*core.HistoryError)
					if !ok || he.Protocol != "anthropic" {
						t.Fatalf("problem %v is not a *core.HistoryError of anthropic", e)
					}
					// Anthropic's own rules wrap the sentinel in its words.
					p := problem{Message: he.Message, ID: he.CallID, Guard: he.Guard, Own: errors.Unwrap(he.Err) != nil}
					for s, name := range rules {
						if errors.Is(e, s) {
							p.Rule = name
						}
					}
					got = append(got, p)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\nerror: %v", diff, err)
			}
			_, encErr := New().EncodeRequest(&core.Request{Messages: tt.msgs})
			if (encErr == nil) != (tt.want == nil) {
				t.Errorf("EncodeRequest error %v, want one iff problems", encErr)
			}
		})
	}
}

package anthropic

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestValidateHistoryRules checks that ValidateHistory reports the shared
// rules of core.CheckHistory once each, wrapping both sentinels, and keeps
// Anthropic's stricter rules (result in the very next turn, ids unique over
// the conversation).
func TestValidateHistoryRules(t *testing.T) {
	user, calls, results := adaptertest.UserText("hi"), adaptertest.CallsMessage, adaptertest.ResultsMessage
	type problem struct {
		Message int
		ID      string
		Own     string // this package's sentinel
		Guard   string // the core guard, "" for an Anthropic-only rule
	}
	tests := []struct {
		name string
		msgs []core.Message
		want []problem
	}{
		{"sound", []core.Message{user, calls("a", "b"), results("b", "a"), user}, nil},
		{"G01 call then user turn", []core.Message{user, calls("a"), user}, []problem{{1, "a", "missing", "G01"}}},
		{"G02 orphan", []core.Message{user, results("x")}, []problem{{1, "x", "orphan", "G02"}}},
		{"G03 two results", []core.Message{user, calls("a"), results("a", "a")}, []problem{{2, "a", "duplicate", "G03"}}},
		{"G06 no id", []core.Message{user, calls("a"), results("")}, []problem{{2, "", "orphan", "G06"}, {1, "a", "missing", "G01"}}},
		{"D06 one id twice in a turn", []core.Message{user, calls("a", "a"), results("a")}, []problem{{1, "a", "duplicate", "D06"}}},
		{"Anthropic: user text between call and result", []core.Message{user, calls("a"), user, results("a")},
			[]problem{{1, "a", "missing", ""}, {3, "a", "orphan", ""}}},
		{"Anthropic: one id in two turns", []core.Message{user, calls("a"), results("a"), calls("a"), results("a")},
			[]problem{{3, "a", "duplicate", ""}}},
	}
	own := map[error]string{ErrMissingResult: "missing", ErrOrphanResult: "orphan", ErrDuplicateID: "duplicate"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateHistory(&core.Request{Messages: tt.msgs})
			var got []problem
			if err != nil {
				for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
					var he *HistoryError
					if !errors.As(e, &he) {
						t.Fatalf("problem %v is not a *HistoryError", e)
					}
					p := problem{Message: he.Message, ID: he.ID}
					for s, name := range own {
						if errors.Is(e, s) {
							p.Own = name
						}
					}
					var ce *core.HistoryError
					if errors.As(e, &ce) {
						p.Guard = ce.Guard
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

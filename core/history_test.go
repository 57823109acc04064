package core

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckHistory(t *testing.T) {
	user := Message{Role: RoleUser, Parts: []Part{TextPart("weather in Paris and Rome?")}}
	calls := func(ids ...string) Message {
		m := Message{Role: RoleAssistant}
		for _, id := range ids {
			m.Parts = append(m.Parts, CallPart(Call{ID: id, Name: "weather", Arguments: json.RawMessage(`{}`)}))
		}
		return m
	}
	results := func(ids ...string) Message {
		m := Message{Role: RoleTool}
		for _, id := range ids {
			m.Parts = append(m.Parts, ResultPart(Result{CallID: id, Content: []Part{TextPart("18C")}}))
		}
		return m
	}
	answer := Message{Role: RoleAssistant, Parts: []Part{TextPart("Both mild.")}}
	type problem struct {
		Message int
		CallID  string
		Guard   string
		Err     error
	}
	for _, tc := range []struct {
		name string
		msgs []Message
		want []problem
	}{
		{"sound", []Message{user, calls("a", "b"), results("b"), results("a"), answer}, nil},
		{"results in one message", []Message{user, calls("a", "b"), results("a", "b"), answer, user, calls("c"), results("c")}, nil},
		{"no tools at all", []Message{user, answer}, nil},
		{"G01 call without result before the next turn", []Message{user, calls("a"), user, answer},
			[]problem{{1, "a", "G01", ErrMissingResult}}},
		{"G01 conversation ends on calls", []Message{user, calls("a", "b"), results("a")},
			[]problem{{1, "b", "G01", ErrMissingResult}}},
		{"G03 one of two results missing", []Message{user, calls("a", "b"), results("a"), answer},
			[]problem{{1, "b", "G01", ErrMissingResult}}},
		{"G02 orphan result", []Message{user, calls("a"), results("a", "zz"), answer},
			[]problem{{2, "zz", "G02", ErrOrphanResult}}},
		{"G02 result with no assistant turn", []Message{user, results("a")},
			[]problem{{1, "a", "G02", ErrOrphanResult}}},
		{"G02 result for an earlier turn's call", []Message{user, calls("a"), results("a"), calls("b"), results("a", "b")},
			[]problem{{4, "a", "G02", ErrOrphanResult}}},
		{"G06 result without id", []Message{user, calls("a"), results("", "a")},
			[]problem{{2, "", "G06", ErrResultWithoutID}}},
		{"two results for one call", []Message{user, calls("a"), results("a", "a")},
			[]problem{{2, "a", "G03", ErrDuplicateResult}}},
		{"D06 duplicate call ids", []Message{user, calls("a", "a"), results("a")},
			[]problem{{1, "a", "D06", ErrDuplicateCallID}}},
		{"every problem reported", []Message{user, calls("a", "b"), results("x"), calls("c")},
			[]problem{{2, "x", "G02", ErrOrphanResult}, {1, "a", "G01", ErrMissingResult}, {1, "b", "G01", ErrMissingResult}, {3, "c", "G01", ErrMissingResult}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckHistory(tc.msgs)
			var got []problem
			if err != nil {
				for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
					var he *HistoryError
					if !errors.As(e, &he) {
						t.Fatalf("%v is not a *HistoryError", e)
					}
					got = append(got, problem{he.Message, he.CallID, he.Guard, he.Err})
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHistoryErrorMessage(t *testing.T) {
	err := CheckHistory([]Message{{Role: RoleAssistant, Parts: []Part{CallPart(Call{ID: "call_1", Name: "f"})}}})
	if got, want := err.Error(), `history: messages[0]: call "call_1": tool call without a result (G01)`; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
	if !errors.Is(err, ErrMissingResult) {
		t.Errorf("error %v does not wrap ErrMissingResult", err)
	}
}

// TestHistoryErrorText checks the text of a HistoryError: the protocol when
// an adapter sets it, the message index, the call and the guard when known.
func TestHistoryErrorText(t *testing.T) {
	tests := []struct {
		err  *HistoryError
		want string
	}{
		{&HistoryError{Message: 2, CallID: "c1", Guard: "G01", Err: ErrMissingResult}, `history: messages[2]: call "c1": tool call without a result (G01)`},
		{&HistoryError{Protocol: "p", Message: 3, Err: ErrResultWithoutID}, `p: history: messages[3]: tool result without a call id`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
		if !errors.Is(tt.err, tt.err.Err) {
			t.Errorf("%v does not unwrap to %v", tt.err, tt.err.Err)
		}
	}
}

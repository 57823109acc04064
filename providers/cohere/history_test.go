package cohere

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
)

// TestEncodeRequestRefusesBadHistory checks that EncodeRequest refuses what
// Cohere answers with a 400, naming the message, the call and the guard,
// and still encodes a sound history.
func TestEncodeRequestRefusesBadHistory(t *testing.T) {
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
	tests := []struct {
		name string
		msgs []core.Message
		want string // substring of the error; empty means no error
		is   error
	}{
		{"sound history", []core.Message{user, calls("a", "b"), results("b", "a"), user}, "", nil},
		{"G01 call followed by a user turn", []core.Message{user, calls("a"), user}, `messages[1]: call "a": tool call without a result (G01)`, core.ErrMissingResult},
		{"G01 call at the end", []core.Message{user, calls("a")}, `messages[1]: call "a"`, core.ErrMissingResult},
		{"G02 orphan result", []core.Message{user, results("x")}, `messages[1]: call "x": tool result without a call (G02)`, core.ErrOrphanResult},
		{"G02 result answering an older turn", []core.Message{user, calls("a"), results("a"), calls("b"), results("a", "b")}, `messages[4]: call "a": tool result without a call (G02)`, core.ErrOrphanResult},
		{"G03 one of two results missing", []core.Message{user, calls("a", "b"), results("a"), user}, `messages[1]: call "b"`, core.ErrMissingResult},
		{"G03 two results for one call", []core.Message{user, calls("a"), results("a", "a")}, `messages[2]: call "a": two results for one tool call (G03)`, core.ErrDuplicateResult},
		{"G06 result without id", []core.Message{user, calls("a"), results("")}, `messages[2]: tool result without a call id (G06)`, core.ErrResultWithoutID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New().EncodeRequest(&core.Request{Messages: tt.msgs})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("sound history refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("encoded a history Cohere rejects")
			}
			if !strings.HasPrefix(err.Error(), "cohere: encode request: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want one containing %q", err, tt.want)
			}
			var he *core.HistoryError
			if !errors.As(err, &he) || !errors.Is(err, tt.is) {
				t.Errorf("error %v is not a *core.HistoryError wrapping %v", err, tt.is)
			}
		})
	}
}

package cohere

import (
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestEncodeRequestRefusesBadHistory checks that EncodeRequest refuses what
// Cohere answers with a 400, naming the message, the call and the guard,
// and still encodes a sound history.
func TestEncodeRequestRefusesBadHistory(t *testing.T) {
	user, calls, results := adaptertest.UserText("hi"), adaptertest.CallsMessage, adaptertest.ResultsMessage
	tests := []adaptertest.HistoryCase{
		{Name: "sound history", Msgs: []core.Message{user, calls("a", "b"), results("b", "a"), user}},
		{Name: "G01 call followed by a user turn", Msgs: []core.Message{user, calls("a"), user}, Want: `messages[1]: call "a": tool call without a result (G01)`, Is: core.ErrMissingResult},
		{Name: "G01 call at the end", Msgs: []core.Message{user, calls("a")}, Want: `messages[1]: call "a"`, Is: core.ErrMissingResult},
		{Name: "G02 orphan result", Msgs: []core.Message{user, results("x")}, Want: `messages[1]: call "x": tool result without a call (G02)`, Is: core.ErrOrphanResult},
		{Name: "G02 result answering an older turn", Msgs: []core.Message{user, calls("a"), results("a"), calls("b"), results("a", "b")}, Want: `messages[4]: call "a": tool result without a call (G02)`, Is: core.ErrOrphanResult},
		{Name: "G03 one of two results missing", Msgs: []core.Message{user, calls("a", "b"), results("a"), user}, Want: `messages[1]: call "b"`, Is: core.ErrMissingResult},
		{Name: "G03 two results for one call", Msgs: []core.Message{user, calls("a"), results("a", "a")}, Want: `messages[2]: call "a": two results for one tool call (G03)`, Is: core.ErrDuplicateResult},
		{Name: "G06 result without id", Msgs: []core.Message{user, calls("a"), results("")}, Want: `messages[2]: tool result without a call id (G06)`, Is: core.ErrResultWithoutID},
	}
	adaptertest.CheckHistoryCases(t, "cohere: history: ", tests, func(r *core.Request) error {
		_, err := New().EncodeRequest(r)
		return err
	})
}

package gemini

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestEncodeRequestRefusesBadHistory checks the history rules Gemini
// enforces with a 400, including a call followed by a user turn (G01), which
// the functionResponse count check alone let through.
func TestEncodeRequestRefusesBadHistory(t *testing.T) {
	user, calls, results := adaptertest.UserText("hi"), adaptertest.CallsMessage, adaptertest.ResultsMessage
	tests := []struct {
		name string
		msgs []core.Message
		want string // substring of the error; empty means no error
		is   error
	}{
		{"sound history", []core.Message{user, calls("a", "b"), results("b", "a"), user}, "", nil},
		{"G01 call followed by a user turn", []core.Message{user, calls("a"), user}, `messages[1]: call "a": tool call without a result (G01)`, core.ErrMissingResult},
		{"G01 call at the end", []core.Message{user, calls("a")}, `messages[1]: call "a": tool call without a result (G01)`, core.ErrMissingResult},
		{"G01 second call followed by a user turn", []core.Message{user, calls("a"), results("a"), calls("b"), user}, `messages[3]: call "b"`, core.ErrMissingResult},
		{"G02 orphan result", []core.Message{user, results("x")}, "G04", core.ErrOrphanResult},
		{"G03 one of two results missing", []core.Message{user, calls("a", "b"), results("a"), user}, "answers 1 of the 2", core.ErrMissingResult},
		{"G06 result without id", []core.Message{user, calls("a"), results("")}, "has no call id", core.ErrResultWithoutID},
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
				t.Fatal("encoded a history Gemini rejects")
			}
			if !strings.HasPrefix(err.Error(), "gemini: history: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want one containing %q", err, tt.want)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
		})
	}
}

// TestResultObjectJoinsTextParts checks G10: the text parts of a result are
// joined with a newline in the functionResponse, never run together.
func TestResultObjectJoinsTextParts(t *testing.T) {
	tests := []struct {
		name  string
		parts []core.Part
		want  string
	}{
		{"two paragraphs", []core.Part{core.TextPart("Title: x"), core.TextPart("Body: y")}, `{"result":"Title: x\nBody: y"}`},
		{"one part", []core.Part{core.TextPart("ok")}, `{"result":"ok"}`},
		{"one JSON object", []core.Part{core.TextPart(`{"a":1}`)}, `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(resultObject(core.Result{Content: tt.parts}))
			if got != tt.want {
				t.Errorf("response %s, want %s", got, tt.want)
			}
		})
	}
}

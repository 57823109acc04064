package adaptertest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
)

// UserText returns a user message with one text part.
func UserText(text string) core.Message {
	return core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart(text)}}
}

// CallsMessage returns an assistant message with one call per id, each to
// the tool "f" with the arguments {}.
func CallsMessage(ids ...string) core.Message {
	m := core.Message{Role: core.RoleAssistant}
	for _, id := range ids {
		m.Parts = append(m.Parts, core.CallPart(core.Call{ID: id, Name: "f", Arguments: json.RawMessage(`{}`)}))
	}
	return m
}

// ResultsMessage returns a tool message with one result per id, in the
// order given, each with the text "ok".
func ResultsMessage(ids ...string) core.Message {
	m := core.Message{Role: core.RoleTool}
	for _, id := range ids {
		m.Parts = append(m.Parts, core.ResultPart(core.Result{CallID: id, Content: []core.Part{core.TextPart("ok")}}))
	}
	return m
}

// HistoryCase is a conversation given to an adapter's EncodeRequest: one
// it must encode when Want is empty, else one it must refuse with an error
// containing Want that is a *core.HistoryError wrapping Is.
type HistoryCase struct {
	Name string
	Msgs []core.Message
	Want string
	Is   error
}

// CheckHistoryCases runs one subtest per case: encode gets a request with
// the case's messages, and every refusal must start with prefix (the
// protocol, "cohere: history: ").
func CheckHistoryCases(t *testing.T, prefix string, cases []HistoryCase, encode func(*core.Request) error) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			err := encode(&core.Request{Messages: tt.Msgs})
			if tt.Want == "" {
				if err != nil {
					t.Fatalf("sound history refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("encoded a history the protocol rejects")
			}
			if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tt.Want) {
				t.Errorf("error %q, want one starting %q and containing %q", err, prefix, tt.Want)
			}
			var he *core.HistoryError
			if !errors.As(err, &he) || !errors.Is(err, tt.Is) {
				t.Errorf("error %v is not a *core.HistoryError wrapping %v", err, tt.Is)
			}
		})
	}
}

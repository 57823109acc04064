package rules

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// TestThinkingAfterCall checks the G12 place: the first thinking part after
// a call and the nearest call before it, whatever kind of thinking it is.
func TestThinkingAfterCall(t *testing.T) {
	call := func(id string) core.Part {
		return core.CallPart(core.Call{ID: id, Name: "f", Arguments: json.RawMessage(`{}`)})
	}
	signed := core.Part{Kind: core.PartThinking, Text: "think", Signature: "sig"}
	unsigned := core.Part{Kind: core.PartThinking, Text: "think"}
	redacted := core.Part{Kind: core.PartThinking, Data: "UmVk"}
	text := core.TextPart("let me look")
	type place struct {
		Part   int
		CallID string
		OK     bool
	}
	tests := []struct {
		name  string
		parts []core.Part
		want  place
	}{
		{"no parts", nil, place{}},
		{"thinking, text, then calls", []core.Part{signed, redacted, text, call("t1"), call("t2")}, place{}},
		{"text after the calls", []core.Part{signed, call("t1"), text}, place{}},
		{"signed thinking between two calls", []core.Part{call("t1"), signed, call("t2")}, place{1, "t1", true}},
		{"redacted thinking after the calls", []core.Part{signed, call("t1"), call("t2"), redacted}, place{3, "t2", true}},
		{"unsigned thinking behind a text part", []core.Part{call("t1"), text, unsigned, call("t2"), signed}, place{2, "t1", true}},
		{"call part without a call", []core.Part{{Kind: core.PartToolCall}, signed}, place{}},
		{"empty call id", []core.Part{call(""), signed}, place{1, "", true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got place
			got.Part, got.CallID, got.OK = ThinkingAfterCall(tt.parts)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ThinkingAfterCall (-want +got):\n%s", diff)
			}
		})
	}
}

package anthropic

import (
	"bytes"
	"slices"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// shapes compares what the encoders write with the recorded Anthropic
// traffic. No key is omitted: every key that all recorded events of a kind
// carry is written.
var shapes = adaptertest.Shapes{Protocol: "anthropic", Sub: []string{"content_block", "delta"}}

// TestEncodeStreamShapeMatchesRecordings checks that every event
// EncodeStream writes carries each key that every recorded event of its
// kind carries (adaptertest.Shapes).
func TestEncodeStreamShapeMatchesRecordings(t *testing.T) {
	args := `{"q":"a"}`
	events := []core.Event{
		{Kind: core.EventThinking, Text: "plan"},
		{Kind: core.EventThinking, Signature: "sig"},
		{Kind: core.EventText, Text: "Hi"},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: 2, HasIndex: true, ID: "toolu_1", Name: "search", Start: true}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 2, HasIndex: true, ArgsDelta: args}},
		{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: 2, HasIndex: true, Done: true}},
		{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 3, OutputTokens: 4}},
		{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "tool_use"},
	}
	events[0].ID, events[0].Model = "msg_1", "claude"
	// The same stream without its usage event: message_start and
	// message_delta must still carry usage.
	noUsage := slices.DeleteFunc(slices.Clone(events), func(e core.Event) bool { return e.Kind == core.EventUsage })
	var buf bytes.Buffer
	for _, evs := range [][]core.Event{events, noUsage} {
		if err := New().EncodeStream(&buf, evs); err != nil {
			t.Fatal(err)
		}
	}
	shapes.CheckStream(t, buf.Bytes(), 11)
}

// TestEncodeResponseShapeMatchesRecordings checks that a body
// EncodeResponse writes, without usage in the response, carries each key
// that every recorded message body carries.
func TestEncodeResponseShapeMatchesRecordings(t *testing.T) {
	resp := &core.Response{ID: "msg_1", Model: "claude", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("Hi")}}, Finish: core.FinishStop}
	body, err := New().EncodeResponse(resp)
	if err != nil {
		t.Fatal(err)
	}
	shapes.CheckBody(t, body, func(m map[string]any) bool { return m["type"] == "message" })
}

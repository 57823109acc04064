package openairesponses

import (
	"bytes"
	"slices"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// shapes compares what the encoders write with the recorded Responses
// traffic. Omitted are the keys left out on purpose: settings echoed from
// the request, which conform's canonical events do not carry, and
// per-delta noise.
var shapes = adaptertest.Shapes{Protocol: "openai-responses", Sub: []string{"item", "part"}, Omitted: map[string]bool{
	// Random padding that OpenAI adds to deltas against length side
	// channels; it carries nothing.
	"obfuscation": true,
	// The request's settings, echoed in every response object; the
	// canonical events do not carry the request.
	"response.background": true, "response.instructions": true, "response.max_output_tokens": true,
	"response.max_tool_calls": true, "response.metadata": true, "response.parallel_tool_calls": true,
	"response.previous_response_id": true, "response.prompt_cache_key": true, "response.reasoning": true,
	"response.safety_identifier": true, "response.service_tier": true, "response.store": true,
	"response.temperature": true, "response.text": true, "response.tool_choice": true, "response.tools": true,
	"response.top_logprobs": true, "response.top_p": true, "response.truncation": true,
}}

// TestEncodeStreamShapeMatchesRecordings checks that every event
// EncodeStream writes carries each key that every recorded event of its
// kind carries (adaptertest.Shapes).
func TestEncodeStreamShapeMatchesRecordings(t *testing.T) {
	args := `{"q":"a"}`
	events := []core.Event{
		{Kind: core.EventThinking, Text: "plan", ItemID: "rs_1"},
		{Kind: core.EventThinking, Signature: "enc", ItemID: "rs_1"},
		{Kind: core.EventText, Text: "Hi"},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: 2, HasIndex: true, ID: "call_1", ItemID: "fc_1", Name: "search", Start: true}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 2, HasIndex: true, ItemID: "fc_1", ArgsDelta: args}},
		{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: 2, HasIndex: true, ItemID: "fc_1", Done: true}},
		{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 3, OutputTokens: 4}},
		{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "completed"},
	}
	events[0].ID, events[0].Model = "resp_1", "gpt"
	// The same stream without its usage event: the terminal event must
	// still carry the usage key (null).
	noUsage := slices.DeleteFunc(slices.Clone(events), func(e core.Event) bool { return e.Kind == core.EventUsage })
	var buf bytes.Buffer
	for _, evs := range [][]core.Event{events, noUsage} {
		if err := New().EncodeStream(&buf, evs); err != nil {
			t.Fatal(err)
		}
	}
	shapes.CheckStream(t, buf.Bytes(), 12)
}

// TestEncodeResponseShapeMatchesRecordings checks that a body
// EncodeResponse writes carries each key that every recorded /v1/responses
// body carries.
func TestEncodeResponseShapeMatchesRecordings(t *testing.T) {
	resp := &core.Response{ID: "resp_1", Model: "gpt", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("Hi")}}, Finish: core.FinishStop}
	body, err := New().EncodeResponse(resp)
	if err != nil {
		t.Fatal(err)
	}
	shapes.CheckBody(t, body, func(m map[string]any) bool { return m["object"] == "response" })
}

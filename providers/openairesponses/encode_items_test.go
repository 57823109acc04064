package openairesponses

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// TestEncodeStreamOpensItemsAsRealStreams checks that a message item opens
// with its empty content list and role and then an output_text part, before
// the first text delta, as the recorded streams do: SDKs that rebuild the
// response from events (openai-node) index into them.
func TestEncodeStreamOpensItemsAsRealStreams(t *testing.T) {
	var buf bytes.Buffer
	events := []core.Event{
		{Kind: core.EventThinking, Text: "plan", ItemID: "rs_1"},
		{Kind: core.EventText, Text: "Hi"},
		{Kind: core.EventFinish, Finish: core.FinishStop, ProviderFinish: "completed"},
	}
	if err := New().EncodeStream(&buf, events); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(buf.String(), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type string          `json:"type"`
			Item json.RawMessage `json:"item"`
			Part json.RawMessage `json:"part"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		switch ev.Type {
		case "response.output_item.added":
			got = append(got, ev.Type+" "+string(ev.Item))
		case "response.content_part.added":
			got = append(got, ev.Type+" "+string(ev.Part))
		case "response.output_text.delta", "response.reasoning_summary_text.delta":
			got = append(got, ev.Type)
		}
	}
	want := []string{
		`response.output_item.added {"id":"rs_1","status":"in_progress","summary":[],"type":"reasoning"}`,
		"response.reasoning_summary_text.delta",
		`response.output_item.added {"content":[],"id":"msg_1","role":"assistant","status":"in_progress","type":"message"}`,
		`response.content_part.added {"annotations":[],"logprobs":[],"text":"","type":"output_text"}`,
		"response.output_text.delta",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("item events (-want +got):\n%s", diff)
	}
}

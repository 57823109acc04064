package oaichat

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// roles returns the delta role of every chunk's first choice, "-" for a
// chunk without choices, in stream order.
func roles(t *testing.T, stream string) []string {
	t.Helper()
	var got []string
	for _, line := range strings.Split(stream, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ch struct {
			Choices []struct {
				Delta struct {
					Role *string `json:"role"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		switch {
		case len(ch.Choices) == 0:
			got = append(got, "-")
		case ch.Choices[0].Delta.Role == nil:
			got = append(got, "")
		default:
			got = append(got, *ch.Choices[0].Delta.Role)
		}
	}
	return got
}

// TestEncodeStreamRole checks that the first chunk with a choice, and only
// it, names the role "assistant" in its delta, as OpenAI's streams do.
func TestEncodeStreamRole(t *testing.T) {
	args := `{"a":1}`
	tests := []struct {
		name   string
		events []core.Event
		want   []string
	}{
		{"text", []core.Event{
			{Kind: core.EventText, Text: "hi", ID: "c1", Model: "m"},
			{Kind: core.EventText, Text: " there"},
			{Kind: core.EventFinish, Finish: core.FinishStop, ProviderFinish: "stop"},
		}, []string{"assistant", "", ""}},
		{"usage first", []core.Event{
			{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 1, OutputTokens: 2}},
			{Kind: core.EventCallStart, Chunk: &core.Chunk{HasIndex: true, ID: "call_1", Name: "f", ArgsDelta: args}},
			{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "tool_calls"},
		}, []string{"-", "assistant", ""}},
		{"finish only", []core.Event{
			{Kind: core.EventFinish, Finish: core.FinishStop, ProviderFinish: "stop"},
		}, []string{"assistant"}},
		{"thinking", []core.Event{
			{Kind: core.EventThinking, Text: "hmm"},
			{Kind: core.EventText, Text: "ok"},
		}, []string{"assistant", ""}},
	}
	c := New(Config{Name: "openai-chat"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := c.EncodeStream(&buf, tt.events); err != nil {
				t.Fatalf("EncodeStream: %v", err)
			}
			if diff := cmp.Diff(tt.want, roles(t, buf.String())); diff != "" {
				t.Errorf("delta roles (-want +got):\n%s\nstream:\n%s", diff, buf.String())
			}
		})
	}
}

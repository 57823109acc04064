package core

import (
	"path/filepath"
	"strings"
	"testing"
)

// anthropicEvents reads a recorded Anthropic stream (one SSE data payload
// per line) into canonical events, the way an adapter would, and returns
// what the recording says the response holds: its text and its calls.
func anthropicEvents(t *testing.T, path string) (events []Event, text string, calls int) {
	var sb strings.Builder
	tools := map[int]bool{}
	for _, line := range readLines(t, path) {
		var typ string
		var index int
		unmarshal(t, line["type"], &typ)
		unmarshal(t, line["index"], &index)
		switch typ {
		case "message_start":
			var m struct {
				ID    string `json:"id"`
				Model string `json:"model"`
				Usage Usage  `json:"usage"`
			}
			unmarshal(t, line["message"], &m)
			events = append(events, Event{Kind: EventUsage, ID: m.ID, Model: m.Model, Usage: &Usage{InputTokens: m.Usage.InputTokens}})
		case "content_block_start":
			var block struct {
				Type string `json:"type"`
				ID   string `json:"id"`
				Name string `json:"name"`
			}
			unmarshal(t, line["content_block"], &block)
			if block.Type == "tool_use" {
				tools[index] = true
				calls++
				events = append(events, callEv(EventCallStart, Chunk{HasIndex: true, Index: index, ID: block.ID, Name: block.Name}))
			}
		case "content_block_delta":
			var d struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
				Thinking    string `json:"thinking"`
				Signature   string `json:"signature"`
			}
			unmarshal(t, line["delta"], &d)
			switch d.Type {
			case "text_delta":
				sb.WriteString(d.Text)
				events = append(events, Event{Kind: EventText, Text: d.Text})
			case "thinking_delta", "signature_delta":
				events = append(events, Event{Kind: EventThinking, Text: d.Thinking, Signature: d.Signature})
			case "input_json_delta":
				if tools[index] {
					events = append(events, callEv(EventCallDelta, Chunk{HasIndex: true, Index: index, ArgsDelta: d.PartialJSON}))
				}
			}
		case "content_block_stop":
			if tools[index] {
				events = append(events, callEv(EventCallEnd, Chunk{HasIndex: true, Index: index}))
			}
		case "message_delta":
			var d struct {
				StopReason string `json:"stop_reason"`
			}
			var u Usage
			unmarshal(t, line["delta"], &d)
			unmarshal(t, line["usage"], &u)
			finish := map[string]FinishReason{"tool_use": FinishToolCalls, "end_turn": FinishStop, "max_tokens": FinishLength}[d.StopReason]
			events = append(events, Event{Kind: EventUsage, Usage: &Usage{OutputTokens: u.OutputTokens}},
				Event{Kind: EventFinish, Finish: finish, ProviderFinish: d.StopReason})
		}
	}
	return events, sb.String(), calls
}

func TestCollectCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "corpus", "anthropic", "*.chunks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			events, text, calls := anthropicEvents(t, path)
			resp, err := Collect(SliceStream(events))
			if err != nil {
				t.Fatalf("Collect: %v", err)
			}
			if resp.Text() != text {
				t.Errorf("Text() = %q, want %q", resp.Text(), text)
			}
			if got := len(resp.Calls()); got != calls {
				t.Errorf("%d calls, the recording has %d", got, calls)
			}
			if resp.ID == "" || resp.Model == "" || resp.ProviderFinish == "" || resp.Usage == nil || resp.Usage.OutputTokens == 0 {
				t.Errorf("response metadata missing: id %q model %q finish %q usage %+v", resp.ID, resp.Model, resp.ProviderFinish, resp.Usage)
			}
			if len(resp.Incomplete) != 0 {
				t.Errorf("incomplete calls: %+v", resp.Incomplete)
			}
			total += calls
		})
	}
	if total == 0 {
		t.Error("no calls read from the Anthropic recordings")
	}
}

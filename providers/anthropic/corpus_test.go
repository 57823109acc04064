package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestCorpusResponses decodes every recorded response, streaming or not,
// and compares what it says with the golden file beside the test.
func TestCorpusResponses(t *testing.T) {
	n := adaptertest.CheckCorpusGolden(t, "anthropic", New())
	if n != 38 {
		t.Errorf("decoded %d responses, want 38 (every response in the corpus)", n)
	}
}

// droppedRequestFields are the request fields conform does not model; the
// round trip compares everything else.
var droppedRequestFields = []string{"thinking", "anthropic_version", "temperature", "top_p", "top_k", "metadata", "stop_sequences", "service_tier", "container", "mcp_servers"}

// TestCorpusRequests decodes every recorded request, encodes it again and
// compares the two as JSON, after dropping the unmodelled fields listed in
// droppedRequestFields and normalising the forms the protocol allows two
// ways (string content versus one text block, cache_control, server tools).
func TestCorpusRequests(t *testing.T) {
	n := adaptertest.CheckCorpusRequests(t, "anthropic", New(), normRequest)
	if n < 15 {
		t.Errorf("round-tripped %d requests, want at least 15", n)
	}
}

func normRequest(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range droppedRequestFields {
		delete(m, f)
	}
	if m["stream"] == false {
		delete(m, "stream")
	}
	if s, ok := m["system"]; ok {
		m["system"] = normBlocks(s)
		if len(m["system"].([]any)) == 0 {
			delete(m, "system")
		}
	}
	if msgs, ok := m["messages"].([]any); ok {
		for _, x := range msgs {
			msg := x.(map[string]any)
			msg["content"] = normBlocks(msg["content"])
		}
	}
	if tools, ok := m["tools"].([]any); ok {
		var kept []any
		for _, x := range tools {
			tool := x.(map[string]any)
			if typ, ok := tool["type"].(string); ok && typ != "custom" {
				continue
			}
			delete(tool, "type")
			delete(tool, "cache_control")
			kept = append(kept, tool)
		}
		if kept == nil {
			delete(m, "tools")
		} else {
			m["tools"] = kept
		}
	}
	return m
}

// normBlocks turns string content into one text block and keeps only the
// modelled fields of each block.
func normBlocks(v any) []any {
	if s, ok := v.(string); ok {
		if s == "" {
			return []any{}
		}
		return []any{map[string]any{"type": "text", "text": s}}
	}
	list, _ := v.([]any)
	out := []any{}
	for _, x := range list {
		b := x.(map[string]any)
		keep := map[string][]string{
			"text":              {"type", "text"},
			"thinking":          {"type", "thinking", "signature"},
			"redacted_thinking": {"type", "data"},
			"tool_use":          {"type", "id", "name", "input"},
			"tool_result":       {"type", "tool_use_id", "content", "is_error"},
		}[b["type"].(string)]
		if keep == nil {
			continue
		}
		nb := map[string]any{}
		for _, k := range keep {
			if v, ok := b[k]; ok {
				nb[k] = v
			}
		}
		if nb["type"] == "tool_result" {
			if c, ok := nb["content"]; ok {
				nb["content"] = normBlocks(c)
				if len(nb["content"].([]any)) == 0 {
					delete(nb, "content")
				}
			}
			if nb["is_error"] == false {
				delete(nb, "is_error")
			}
		}
		if nb["type"] == "text" && nb["text"] == "" {
			continue
		}
		out = append(out, nb)
	}
	return out
}

package openairesponses

import (
	"encoding/json"
	"testing"

	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestCorpusResponses decodes every recorded response, streaming or not,
// and compares what it says with the golden file beside the test.
func TestCorpusResponses(t *testing.T) {
	n := adaptertest.CheckCorpusGolden(t, "openai-responses", New())
	if n != wantResponses {
		t.Errorf("decoded %d responses, want %d (every response in the corpus)", n, wantResponses)
	}
}

const wantResponses = 59

// droppedRequestFields are the top-level request fields conform does not
// model; the round trip compares everything else.
var droppedRequestFields = []string{"store", "include", "reasoning", "previous_response_id", "temperature", "top_p", "truncation",
	"metadata", "user", "service_tier", "prompt_cache_key", "safety_identifier", "background", "max_tool_calls", "top_logprobs"}

// droppedItemFields are the item fields conform does not model, by item
// type: status everywhere, message ids, annotations and logprobs of text.
var droppedItemFields = []string{"status", "annotations", "logprobs"}

// TestCorpusRequests decodes every recorded request, encodes it again and
// compares the two as JSON after dropping the unmodelled fields listed
// above and normalising what the canonical model cannot tell apart: string
// input or content versus one input_text part, the developer role versus
// system, instructions versus a leading system item, strict absent versus
// false, and the optional "type":"message" of message items.
func TestCorpusRequests(t *testing.T) {
	n := adaptertest.CheckCorpusRequests(t, "openai-responses", New(), normRequest)
	if n != 39 {
		t.Errorf("round-tripped %d requests, want 39", n)
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
	var items []any
	if ins, ok := m["instructions"].(string); ok {
		items = append(items, map[string]any{"role": "system", "content": ins})
		delete(m, "instructions")
	}
	switch in := m["input"].(type) {
	case string:
		items = append(items, map[string]any{"role": "user", "content": in})
	case []any:
		items = append(items, in...)
	}
	var norm []any
	for _, x := range items {
		it := x.(map[string]any)
		for _, f := range droppedItemFields {
			delete(it, f)
		}
		typ, _ := it["type"].(string)
		if typ == "" || typ == "message" {
			delete(it, "type")
			delete(it, "id")
			if it["role"] == "developer" {
				it["role"] = "system"
			}
			kind := "input_text"
			if it["role"] == "assistant" {
				kind = "output_text"
			}
			if s, ok := it["content"].(string); ok {
				it["content"] = []any{map[string]any{"type": kind, "text": s}}
			}
			for _, c := range it["content"].([]any) {
				cm := c.(map[string]any)
				for _, f := range droppedItemFields {
					delete(cm, f)
				}
			}
			norm = append(norm, it)
			continue
		}
		switch typ {
		case "function_call", "function_call_output":
			if typ == "function_call_output" {
				delete(it, "id")
			}
			norm = append(norm, it)
		case "reasoning":
			if c, ok := it["content"].([]any); ok && len(c) == 0 {
				delete(it, "content")
			}
			norm = append(norm, it)
		}
	}
	m["input"] = norm
	if tools, ok := m["tools"].([]any); ok {
		var kept []any
		for _, x := range tools {
			tool := x.(map[string]any)
			if tool["type"] != "function" {
				continue
			}
			if _, ok := tool["strict"]; !ok {
				tool["strict"] = false
			}
			kept = append(kept, tool)
		}
		if kept == nil {
			delete(m, "tools")
		} else {
			m["tools"] = kept
		}
	}
	if txt, ok := m["text"].(map[string]any); ok {
		f, _ := txt["format"].(map[string]any)
		if f == nil || f["type"] != "json_schema" {
			delete(m, "text")
		} else {
			m["text"] = map[string]any{"format": f}
		}
	}
	return m
}

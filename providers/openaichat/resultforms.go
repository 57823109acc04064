package openaichat

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolconform/conform/providers/protocol"
)

// resultForms are the forms of a tool message's content the Chat
// Completions API takes besides the string the encoder writes: an array
// of text content parts (API reference, tool message content: "string or
// array").
var resultForms = []protocol.ResultForm{{Name: "content as a list of text parts", Rewrite: listResults}}

// listResults rewrites every tool message whose content is a string into
// one with the string as a single text part.
func listResults(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var req map[string]any
	if err := dec.Decode(&req); err != nil {
		return nil, fmt.Errorf("tool content as a list: %w", err)
	}
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		if s, ok := msg["content"].(string); ok && msg["role"] == "tool" {
			msg["content"] = []any{map[string]any{"type": "text", "text": s}}
		}
	}
	return json.Marshal(req)
}

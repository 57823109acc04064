package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolconform/conform/providers/protocol"
)

// resultForms are the forms of tool_result content the Messages API takes
// besides the list of text blocks the encoder writes: "content" may be a
// string (Messages API reference, tool_result content: "string or array
// of content blocks").
var resultForms = []protocol.ResultForm{{Name: "content as a string", Rewrite: stringResults}}

// stringResults rewrites every tool_result whose content is text blocks
// alone into one with the text as a string.
func stringResults(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var req map[string]any
	if err := dec.Decode(&req); err != nil {
		return nil, fmt.Errorf("tool_result as a string: %w", err)
	}
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			block, _ := b.(map[string]any)
			if block["type"] != "tool_result" {
				continue
			}
			parts, ok := block["content"].([]any)
			if !ok {
				continue
			}
			var text strings.Builder
			for _, p := range parts {
				part, _ := p.(map[string]any)
				s, isText := part["text"].(string)
				if part["type"] != "text" || !isText || len(part) != 2 {
					text.Reset()
					ok = false
					break
				}
				text.WriteString(s)
			}
			if ok && len(parts) > 0 {
				block["content"] = text.String()
			}
		}
	}
	return json.Marshal(req)
}

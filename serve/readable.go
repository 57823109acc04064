package serve

import (
	"encoding/json"
	"strings"

	"github.com/toolconform/conform/providers/protocol"
)

// readableBody returns a copy of a follow-up body with the wire faults
// that keep the adapter from decoding it mended as the API's own form
// (each one a problem GradeBody already reports), so that the rest of
// what it carries can still be graded; nil when it mends nothing. A
// Converse toolResult whose content is not a list gets it as one text or
// JSON block (G15); a Chat-shaped tool message whose content is a list
// of parts, for a protocol that takes a string (Ollama, G10), gets the
// parts' text joined.
func readableBody(protocolName string, body []byte) []byte {
	d := descriptor(protocolName).Grading
	var w map[string]any
	if json.Unmarshal(body, &w) != nil {
		return nil
	}
	msgs, _ := w["messages"].([]any)
	changed := false
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		switch {
		case d.Shape == protocol.ShapeConverse:
			blocks, _ := msg["content"].([]any)
			for _, b := range blocks {
				blk, _ := b.(map[string]any)
				tr, _ := blk["toolResult"].(map[string]any)
				if tr == nil {
					continue
				}
				switch c := tr["content"].(type) {
				case []any:
				case string:
					tr["content"], changed = []any{map[string]any{"text": c}}, true
				default:
					tr["content"], changed = []any{map[string]any{"json": c}}, true
				}
			}
		case d.Shape == protocol.ShapeChat && d.ToolResultText:
			parts, ok := msg["content"].([]any)
			if !ok || msg["role"] != "tool" {
				continue
			}
			var text strings.Builder
			for _, p := range parts {
				if part, _ := p.(map[string]any); part != nil {
					s, _ := part["text"].(string)
					text.WriteString(s)
				}
			}
			msg["content"], changed = text.String(), true
		}
	}
	if !changed {
		return nil
	}
	out, err := json.Marshal(w)
	if err != nil {
		return nil
	}
	return out
}

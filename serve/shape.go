package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolconform/conform/providers/protocol"
	"github.com/toolconform/conform/scenarios"
)

// GradeBody checks the rules a follow-up breaks in its wire form that the
// canonical request decoded from it no longer shows, or that stop the
// adapter from decoding it at all: an empty text block beside tool_use
// (G11, Anthropic and Bedrock), Converse's shape rules (G15, Bedrock), tool
// results JSON-stringified or in a form the server refuses (G10, Chat
// Completions protocols) and Cohere's v2 shape rules (G16). Each problem
// names the JSON path of the fault. A body that is not JSON gives no
// problems here; the adapter reports it.
func GradeBody(name string, body []byte) []scenarios.Problem {
	var out []scenarios.Problem
	add := func(rule, format string, args ...any) {
		out = append(out, scenarios.Problem{Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	switch descriptor(name).Grading.Shape {
	case protocol.ShapeMessages:
		anthropicShape(body, add)
	case protocol.ShapeConverse:
		var probe struct {
			AnthropicVersion *string `json:"anthropic_version"`
		}
		if json.Unmarshal(body, &probe) == nil && probe.AnthropicVersion != nil {
			anthropicShape(body, add) // InvokeModel carries a Messages body
		} else {
			converseShape(body, add)
		}
	case protocol.ShapeChat:
		chatShape(name, body, add)
	case protocol.ShapeCohere:
		cohereShape(body, add)
	}
	return out
}

type addFunc func(rule, format string, args ...any)

// blank reports whether a text is empty or only white space, which
// Anthropic ("text content blocks must contain non-whitespace text") and
// Converse ("The text field in the ContentBlock object ... is blank")
// refuse.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

// rawMessage is a message of any of the protocols, content left raw.
type rawMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// anthropicShape reports empty text blocks (G11). The adapter drops them
// on decoding, so only the body shows them.
func anthropicShape(body []byte, add addFunc) {
	var w struct {
		Messages []rawMessage `json:"messages"`
	}
	if json.Unmarshal(body, &w) != nil {
		return
	}
	for i, m := range w.Messages {
		var blocks []struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue // a string, or not content the adapter reads
		}
		toolUse := false
		for _, b := range blocks {
			toolUse = toolUse || b.Type == "tool_use"
		}
		for j, b := range blocks {
			if b.Type != "text" || b.Text == nil || !blank(*b.Text) {
				continue
			}
			beside := ""
			if toolUse {
				beside = " beside tool_use"
			}
			if *b.Text == "" {
				add("G11", "messages[%d].content[%d]: empty text block%s; the API answers 400 \"text content blocks must be non-empty\"", i, j, beside)
			} else {
				add("G11", "messages[%d].content[%d]: white-space-only text block%s; the API answers 400 \"text content blocks must contain non-whitespace text\"", i, j, beside)
			}
		}
	}
}

// converseShape reports Converse's rules on a Bedrock follow-up (G15) and
// blank text blocks (G11). The adapter reads a missing or null toolUse
// input as {} and ignores a "none" tool choice, and cannot decode a
// toolResult whose content is not a list, so these are read from the body.
func converseShape(body []byte, add addFunc) {
	var w struct {
		Messages   []rawMessage `json:"messages"`
		ToolConfig *struct {
			ToolChoice map[string]json.RawMessage `json:"toolChoice"`
		} `json:"toolConfig"`
	}
	if json.Unmarshal(body, &w) != nil {
		return
	}
	for i, m := range w.Messages {
		var blocks []map[string]json.RawMessage
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for j, b := range blocks {
			path := fmt.Sprintf("messages[%d].content[%d]", i, j)
			if raw, ok := b["text"]; ok {
				var t string
				if json.Unmarshal(raw, &t) == nil && blank(t) {
					add("G11", "%s.text: blank text block; Converse answers 400 \"The text field in the ContentBlock object is blank\"", path)
				}
			}
			if raw, ok := b["toolUse"]; ok {
				var tu map[string]json.RawMessage
				if json.Unmarshal(raw, &tu) == nil {
					in, has := tu["input"]
					in = bytes.TrimSpace(in)
					switch {
					case !has:
						add("G15", "%s.toolUse.input: missing; a call without arguments must carry input {}", path)
					case string(in) == "null":
						add("G15", "%s.toolUse.input: null; a call without arguments must carry input {}", path)
					case len(in) == 0 || in[0] != '{':
						add("G15", "%s.toolUse.input: %s is not a JSON object", path, compact(in))
					}
				}
			}
			if raw, ok := b["toolResult"]; ok {
				if m.Role == "assistant" {
					add("G15", "%s.toolResult: a tool result in an assistant turn; Converse takes results in a user turn", path)
				}
				var tr map[string]json.RawMessage
				if json.Unmarshal(raw, &tr) == nil {
					c := bytes.TrimSpace(tr["content"])
					if len(c) == 0 || c[0] != '[' {
						add("G15", "%s.toolResult.content: must be a list of content blocks, got %s", path, describe(c))
					}
				}
			}
		}
	}
	if w.ToolConfig != nil {
		if _, ok := w.ToolConfig.ToolChoice["none"]; ok {
			add("G15", "toolConfig.toolChoice.none: Converse has no none tool choice (auto, any or tool)")
		}
	}
}

// describe names a raw JSON value for a message.
func describe(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '[':
		return "a list"
	}
	return "a number"
}

// stringifiedParts reports whether a tool result's text is the JSON text of
// a list of content parts, each an object whose type is one of types with
// a string text (or a document): the parts a client meant to send were
// serialised into the text the model reads (G10).
func stringifiedParts(s string, types ...string) bool {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "[") {
		return false
	}
	var parts []map[string]json.RawMessage
	if json.Unmarshal([]byte(t), &parts) != nil || len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		var typ string
		if json.Unmarshal(p["type"], &typ) != nil {
			return false
		}
		ok := false
		for _, want := range types {
			ok = ok || typ == want
		}
		if !ok {
			return false
		}
		switch typ {
		case "document":
			if _, has := p["document"]; !has {
				return false
			}
		default:
			var text string
			if json.Unmarshal(p["text"], &text) != nil {
				return false
			}
		}
	}
	return true
}

// chatShape reports tool results of the Chat Completions protocols in a
// form their servers misread or refuse (G10): content that is the JSON text
// of a list of parts, and, for Ollama, whose content field is a string,
// any list at all.
func chatShape(name string, body []byte, add addFunc) {
	var w struct {
		Messages []rawMessage `json:"messages"`
	}
	if json.Unmarshal(body, &w) != nil {
		return
	}
	for i, m := range w.Messages {
		if m.Role != "tool" {
			continue
		}
		c := bytes.TrimSpace(m.Content)
		if len(c) == 0 {
			continue
		}
		switch c[0] {
		case '[':
			if descriptor(name).Grading.ToolResultText {
				add("G10", "messages[%d].content: a list of parts; Ollama takes a tool result's content as a string and refuses a list", i)
			}
		case '"':
			var s string
			if json.Unmarshal(c, &s) == nil && stringifiedParts(s, "text", "input_text", "output_text") {
				add("G10", "messages[%d].content: the tool result is a list of content parts serialised as JSON text; the model reads the JSON, not the result", i)
			}
		}
	}
}

// v1Fields are the request fields of Cohere's v1 chat API, which v2 does
// not read.
var v1Fields = []string{"message", "chat_history", "preamble", "tool_results"}

// cohereShape reports Cohere v1 shapes sent to /v2/chat and tool results
// whose list of content objects was serialised into a string (G16).
func cohereShape(body []byte, add addFunc) {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return
	}
	for _, f := range v1Fields {
		if _, ok := top[f]; ok {
			add("G16", "%s: a Cohere v1 field, which /v2/chat ignores; v2 carries the conversation, results included, in messages", f)
		}
	}
	var msgs []rawMessage
	if json.Unmarshal(top["messages"], &msgs) != nil {
		return
	}
	for i, m := range msgs {
		switch m.Role {
		case "USER", "CHATBOT", "SYSTEM", "TOOL":
			add("G16", "messages[%d].role: %q is a Cohere v1 role; v2 uses user, assistant, system and tool", i, m.Role)
		case "tool":
			var s string
			if json.Unmarshal(m.Content, &s) == nil && stringifiedParts(s, "text", "document") {
				add("G16", "messages[%d].content: the tool result's list of content objects is serialised into a string", i)
			}
		}
	}
}

package cohere

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/wire"
)

type request struct {
	Model          string          `json:"model,omitempty"`
	Messages       []message       `json:"messages"`
	Tools          []tool          `json:"tools,omitempty"`
	ToolChoice     string          `json:"tool_choice,omitempty"`
	StrictTools    *bool           `json:"strict_tools,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	Stream         bool            `json:"stream"`
}

type message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	ToolPlan   string          `json:"tool_plan,omitempty"`
	ToolCalls  []toolCall      `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// block is one content object: text, thinking or document.
type block struct {
	Type     string          `json:"type"`
	Text     *string         `json:"text,omitempty"`
	Thinking *string         `json:"thinking,omitempty"`
	Document json.RawMessage `json:"document,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string   `json:"name"`
		Arguments wireArgs `json:"arguments"`
	} `json:"function"`
}

// wireArgs is a call's arguments: written as the JSON string Cohere
// documents, read from that string or, as gateways and compatible servers
// send it, from a JSON object, taken as its JSON text (C04).
type wireArgs string

func (a *wireArgs) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		*a = wireArgs(b)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*a = wireArgs(s)
	return nil
}

type tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
}

type responseFormat struct {
	Type       string          `json:"type"`
	JSONSchema json.RawMessage `json:"json_schema,omitempty"`
}

// EncodeRequest writes req as a Cohere v2 /v2/chat body. See the package
// documentation for what the wire cannot express. A history that
// core.CheckHistory faults is refused with its *core.HistoryError.
func (a *Adapter) EncodeRequest(req *core.Request) ([]byte, error) {
	if req == nil {
		return nil, fmt.Errorf("cohere: encode request: %w: nil request", core.ErrMalformed)
	}
	if err := wire.CheckToolChoice("cohere", req.ToolChoice); err != nil {
		return nil, err
	}
	if err := wire.CheckResultParts("cohere", req.Messages); err != nil {
		return nil, err
	}
	for i, t := range req.Tools {
		// Cohere's alphabet (letters, digits and "_", no leading digit)
		// refuses the dashes, slashes, dots and spaces of MCP names (E01)
		// and digit-leading names before a 400. tools.NameMapper maps
		// such names.
		if err := a.ToolNameRules().Check(t.Name); err != nil {
			return nil, fmt.Errorf("cohere: encode request: tools[%d]: %w", i, err)
		}
	}
	if err := partKinds.Check("cohere: encode request", req.Messages); err != nil {
		return nil, err
	}
	out := request{Model: req.Model, Messages: []message{}, MaxTokens: req.MaxTokens, Stream: req.Stream}
	for i, m := range req.Messages {
		msgs, err := encodeMessage(m)
		if err != nil {
			return nil, fmt.Errorf("cohere: encode request: messages[%d]%w", i, err)
		}
		out.Messages = append(out.Messages, msgs...)
	}
	// Checked after the messages, so that a fault inside one part is
	// reported by its path first. Cohere answers such a history with a
	// 400 (G01, G02, G03, G06).
	if err := wire.History("cohere", core.CheckHistory(req.Messages)); err != nil {
		return nil, err
	}
	tools := req.Tools
	if tc := req.ToolChoice; tc != nil {
		switch tc.Mode {
		case core.ToolChoiceRequired:
			out.ToolChoice = "REQUIRED"
		case core.ToolChoiceNone:
			out.ToolChoice = "NONE"
		case core.ToolChoiceTool:
			// Cohere cannot name a tool: the named tool is forced by
			// offering it alone with REQUIRED (F08), not downgraded.
			out.ToolChoice = "REQUIRED"
			tools = nil
			for _, t := range req.Tools {
				if t.Name == tc.Name {
					tools = append(tools, t)
				}
			}
			if len(tools) == 0 {
				return nil, fmt.Errorf("cohere: encode request: tool_choice: %w: tool %q is not among the tools", core.ErrMalformed, tc.Name)
			}
		}
	}
	strict := len(tools) > 0
	for _, t := range tools {
		var w tool
		w.Type = "function"
		w.Function.Name, w.Function.Description, w.Function.Parameters = t.Name, t.Description, t.InputSchema
		out.Tools = append(out.Tools, w)
		strict = strict && t.Strict
	}
	if strict {
		out.StrictTools = &strict
	}
	if rf := req.ResponseFormat; rf != nil {
		out.ResponseFormat = &responseFormat{Type: "json_object", JSONSchema: rf.Schema}
	}
	return json.Marshal(out)
}

// partKinds are the parts each role carries: system messages hold text,
// user messages text (images and documents are not modelled), assistant
// messages text and thinking blocks, the tool plan and tool calls, and a
// tool message the result of one call.
var partKinds = wire.PartKinds{
	core.RoleSystem:    {core.PartText},
	core.RoleUser:      {core.PartText},
	core.RoleAssistant: {core.PartText, core.PartThinking, core.PartPlan, core.PartToolCall},
	core.RoleTool:      {core.PartToolResult},
}

// encodeMessage writes one message, whose parts partKinds has checked.
func encodeMessage(m core.Message) ([]message, error) {
	switch m.Role {
	case core.RoleSystem, core.RoleUser:
		var blocks []block
		for _, p := range m.Parts {
			if p.Kind == core.PartText {
				t := p.Text
				blocks = append(blocks, block{Type: "text", Text: &t})
			}
		}
		return []message{{Role: string(m.Role), Content: contentJSON(blocks)}}, nil
	case core.RoleAssistant:
		out := message{Role: "assistant"}
		var blocks []block
		for j, p := range m.Parts {
			switch p.Kind {
			case core.PartText:
				if p.Text == "" {
					continue // an empty text block carries nothing (G11)
				}
				t := p.Text
				blocks = append(blocks, block{Type: "text", Text: &t})
			case core.PartThinking:
				t := p.Text
				blocks = append(blocks, block{Type: "thinking", Thinking: &t})
			case core.PartPlan:
				out.ToolPlan += p.Text
			case core.PartToolCall:
				if p.Call == nil {
					return nil, fmt.Errorf(".parts[%d]: %w: tool_call part without a call", j, core.ErrMalformed)
				}
				args, err := argsToWire(p.Call.Arguments)
				if err != nil {
					return nil, fmt.Errorf(".parts[%d].call.arguments: %w", j, err)
				}
				var c toolCall
				c.ID, c.Type = p.Call.ID, "function"
				c.Function.Name, c.Function.Arguments = p.Call.Name, wireArgs(args)
				out.ToolCalls = append(out.ToolCalls, c)
			}
		}
		if len(blocks) > 0 {
			out.Content = contentJSON(blocks)
		}
		return []message{out}, nil
	case core.RoleTool:
		var out []message
		for j, p := range m.Parts {
			blocks := []block{}
			for _, c := range p.Result.Content {
				if c.Kind != core.PartText {
					continue
				}
				if d := bytes.TrimSpace([]byte(c.Data)); len(d) > 0 && d[0] == '{' && json.Valid(d) {
					doc, err := json.Marshal(struct {
						Data json.RawMessage `json:"data"`
					}{d})
					if err != nil {
						return nil, fmt.Errorf(".parts[%d].result: %w", j, err)
					}
					blocks = append(blocks, block{Type: "document", Document: doc})
					continue
				}
				t := c.Text
				blocks = append(blocks, block{Type: "text", Text: &t})
			}
			raw, err := json.Marshal(blocks)
			if err != nil {
				return nil, fmt.Errorf(".parts[%d].result: %w", j, err)
			}
			out = append(out, message{Role: "tool", ToolCallID: p.Result.CallID, Content: raw})
		}
		return out, nil
	}
	return nil, fmt.Errorf(".role: %w: unknown role %q", core.ErrMalformed, m.Role)
}

// contentJSON writes content as a plain string when it is one text block,
// the form clients send most, and as a list of blocks otherwise.
func contentJSON(blocks []block) json.RawMessage {
	if len(blocks) == 1 && blocks[0].Type == "text" {
		raw, _ := json.Marshal(*blocks[0].Text)
		return raw
	}
	if blocks == nil {
		blocks = []block{}
	}
	raw, _ := json.Marshal(blocks)
	return raw
}

// DecodeRequest reads a Cohere v2 /v2/chat body.
func (a *Adapter) DecodeRequest(body []byte) (*core.Request, error) {
	var in request
	if err := unmarshal("decode request", body, &in); err != nil {
		return nil, err
	}
	req := &core.Request{Model: in.Model, MaxTokens: in.MaxTokens, Stream: in.Stream}
	for i, m := range in.Messages {
		msg, err := decodeMessage(m)
		if err != nil {
			return nil, fmt.Errorf("cohere: decode request: messages[%d]%w", i, err)
		}
		req.Messages = append(req.Messages, msg)
	}
	strict := in.StrictTools != nil && *in.StrictTools
	for i, t := range in.Tools {
		if t.Function.Name == "" {
			return nil, &DecodeError{Protocol: "cohere", Op: "decode request", Offset: -1, Path: fmt.Sprintf("tools[%d].function.name", i), Err: fmt.Errorf("%w: missing", core.ErrMalformed)}
		}
		req.Tools = append(req.Tools, core.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, InputSchema: t.Function.Parameters, Strict: strict})
	}
	switch in.ToolChoice {
	case "REQUIRED":
		req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceRequired}
	case "NONE":
		req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceNone}
	case "":
	default:
		return nil, &DecodeError{Protocol: "cohere", Op: "decode request", Offset: -1, Path: "tool_choice", Err: fmt.Errorf("%w: unknown value %q", core.ErrMalformed, in.ToolChoice)}
	}
	if rf := in.ResponseFormat; rf != nil && rf.Type == "json_object" && len(rf.JSONSchema) > 0 {
		req.ResponseFormat = &core.ResponseFormat{Schema: rf.JSONSchema}
	}
	return req, nil
}

func decodeMessage(m message) (core.Message, error) {
	blocks, err := decodeContent(m.Content)
	if err != nil {
		return core.Message{}, fmt.Errorf(".content: %w", err)
	}
	switch m.Role {
	case "system", "user":
		msg := core.Message{Role: core.Role(m.Role), Parts: []core.Part{}}
		for _, b := range blocks {
			if b.Type == "text" && b.Text != nil {
				msg.Parts = append(msg.Parts, core.TextPart(*b.Text))
			}
		}
		return msg, nil
	case "assistant":
		msg := core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}
		if m.ToolPlan != "" {
			msg.Parts = append(msg.Parts, core.Part{Kind: core.PartPlan, Text: m.ToolPlan})
		}
		for _, b := range blocks {
			switch {
			case b.Type == "text" && b.Text != nil:
				msg.Parts = append(msg.Parts, core.TextPart(*b.Text))
			case b.Type == "thinking" && b.Thinking != nil:
				msg.Parts = append(msg.Parts, core.Part{Kind: core.PartThinking, Text: *b.Thinking})
			}
		}
		for j, c := range m.ToolCalls {
			if a := strings.TrimSpace(string(c.Function.Arguments)); c.ID == "" && c.Function.Name == "" && (a == "" || a == "null" || a == `""`) {
				continue // a zero-valued entry is an absent one
			}
			call, err := callFromWire(c.ID, c.Function.Name, string(c.Function.Arguments))
			if err != nil {
				return core.Message{}, fmt.Errorf(".tool_calls[%d].function.arguments: %w", j, err)
			}
			if c.Function.Name == "" {
				return core.Message{}, fmt.Errorf(".tool_calls[%d].function.name: %w: missing", j, core.ErrMalformed)
			}
			msg.Parts = append(msg.Parts, core.CallPart(call))
		}
		return msg, nil
	case "tool":
		r := core.Result{CallID: m.ToolCallID, Content: []core.Part{}}
		for j, b := range blocks {
			switch b.Type {
			case "text":
				if b.Text != nil {
					r.Content = append(r.Content, core.TextPart(*b.Text))
				}
			case "document":
				p, err := documentPart(b.Document)
				if err != nil {
					return core.Message{}, fmt.Errorf(".content[%d].document: %w", j, err)
				}
				r.Content = append(r.Content, p)
			}
		}
		return core.Message{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(r)}}, nil
	}
	return core.Message{}, fmt.Errorf(".role: %w: unknown role %q", core.ErrMalformed, m.Role)
}

// documentPart reads a document object. Object data becomes a text part
// holding the JSON in Text and Data, so that it is sent back as a document;
// string data becomes plain text.
func documentPart(raw json.RawMessage) (core.Part, error) {
	var doc struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return core.Part{}, err
	}
	d := bytes.TrimSpace(doc.Data)
	if len(d) > 0 && d[0] == '"' {
		var s string
		if err := json.Unmarshal(d, &s); err != nil {
			return core.Part{}, err
		}
		return core.TextPart(s), nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, d); err != nil {
		return core.Part{}, fmt.Errorf("data: %w", err)
	}
	return core.Part{Kind: core.PartText, Text: buf.String(), Data: buf.String()}, nil
}

// decodeContent reads content that is a string, a list of blocks, or
// absent.
func decodeContent(raw json.RawMessage) ([]block, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	if t[0] == '"' {
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return nil, err
		}
		return []block{{Type: "text", Text: &s}}, nil
	}
	var blocks []block
	if err := json.Unmarshal(t, &blocks); err != nil {
		return nil, err
	}
	return blocks, nil
}

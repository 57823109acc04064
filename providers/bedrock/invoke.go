package bedrock

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolconform/conform/core"
)

// InvokeModel with an Anthropic model takes and returns Anthropic Messages
// bodies, with anthropic_version in place of the model field. The adapter
// reads and writes the subset conform models.

const anthropicVersion = "bedrock-2023-05-31"

type anRequest struct {
	AnthropicVersion string          `json:"anthropic_version"`
	MaxTokens        int             `json:"max_tokens,omitempty"`
	Messages         []anMessage     `json:"messages"`
	System           json.RawMessage `json:"system,omitempty"`
	Tools            []anTool        `json:"tools,omitempty"`
	ToolChoice       *anToolChoice   `json:"tool_choice,omitempty"`
}

type anMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`
}

type anTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type anToolChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

type anResponse struct {
	ID         string    `json:"id,omitempty"`
	Type       string    `json:"type"`
	Role       string    `json:"role,omitempty"`
	Model      string    `json:"model,omitempty"`
	Content    []anBlock `json:"content"`
	StopReason *string   `json:"stop_reason"`
	Usage      *anUsage  `json:"usage,omitempty"`
	Error      *anError  `json:"error,omitempty"`
}

type anUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

type anError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func encodeInvokeRequest(req *core.Request) ([]byte, error) {
	out := anRequest{AnthropicVersion: anthropicVersion, MaxTokens: req.MaxTokens, Messages: []anMessage{}}
	var system []anBlock
	var prevCalls []core.Call
	for i, m := range req.Messages {
		if m.Role == core.RoleSystem {
			for _, p := range m.Parts {
				t := p.Text
				system = append(system, anBlock{Type: "text", Text: &t})
			}
			continue
		}
		role := "user"
		switch m.Role {
		case core.RoleAssistant:
			role = "assistant"
		case core.RoleUser, core.RoleTool:
		default:
			return nil, fmt.Errorf("bedrock: encode request: messages[%d]: %w: unknown role %q", i, core.ErrMalformed, m.Role)
		}
		blocks, err := encodeAnBlocks(m.Parts, true)
		if err != nil {
			return nil, fmt.Errorf("bedrock: encode request: messages[%d]%w", i, err)
		}
		if m.Role == core.RoleAssistant {
			prevCalls = m.Calls()
		}
		if n := len(out.Messages); n > 0 && out.Messages[n-1].Role == role {
			var prev []anBlock
			_ = json.Unmarshal(out.Messages[n-1].Content, &prev)
			blocks = append(prev, blocks...)
			out.Messages = out.Messages[:n-1]
		}
		if role == "user" {
			// Results in call order (G05), as on Converse.
			inCallOrder(blocks, prevCalls, func(b anBlock) (string, bool) { return b.ToolUseID, b.Type == "tool_result" })
		}
		raw, err := json.Marshal(blocks)
		if err != nil {
			return nil, fmt.Errorf("bedrock: encode request: messages[%d]: %w", i, err)
		}
		out.Messages = append(out.Messages, anMessage{Role: role, Content: raw})
	}
	if len(system) > 0 {
		out.System, _ = json.Marshal(system)
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, anTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	if req.ToolChoice != nil {
		tc := &anToolChoice{}
		switch req.ToolChoice.Mode {
		case core.ToolChoiceRequired:
			tc.Type = "any"
		case core.ToolChoiceTool:
			tc.Type, tc.Name = "tool", req.ToolChoice.Name
		default:
			tc.Type = string(req.ToolChoice.Mode)
		}
		out.ToolChoice = tc
	}
	if req.ParallelToolCalls != nil && !*req.ParallelToolCalls {
		if out.ToolChoice == nil {
			out.ToolChoice = &anToolChoice{Type: "auto"}
		}
		out.ToolChoice.DisableParallelToolUse = true
	}
	return json.Marshal(out)
}

// encodeAnBlocks encodes the parts of one message, of the kinds partKinds
// lists for its role, as Anthropic Messages blocks. In a request (request true) empty text parts are left out, since
// Anthropic rejects empty text blocks (G11).
func encodeAnBlocks(parts []core.Part, request bool) ([]anBlock, error) {
	blocks := []anBlock{}
	for j, p := range parts {
		switch p.Kind {
		case core.PartText:
			if p.Text == "" && request {
				continue
			}
			t := p.Text
			blocks = append(blocks, anBlock{Type: "text", Text: &t})
		case core.PartThinking:
			if p.Data != "" {
				blocks = append(blocks, anBlock{Type: "redacted_thinking", Data: p.Data})
			} else {
				t := p.Text
				blocks = append(blocks, anBlock{Type: "thinking", Thinking: &t, Signature: p.Signature})
			}
		case core.PartToolCall:
			if p.Call == nil {
				return nil, fmt.Errorf(".parts[%d]: %w: tool_call part without a call", j, core.ErrMalformed)
			}
			in, err := objectArgs(p.Call.Arguments)
			if err != nil {
				return nil, fmt.Errorf(".parts[%d].call.arguments: %w", j, err)
			}
			blocks = append(blocks, anBlock{Type: "tool_use", ID: p.Call.ID, Name: p.Call.Name, Input: in})
		case core.PartToolResult:
			if p.Result == nil {
				return nil, fmt.Errorf(".parts[%d]: %w: tool_result part without a result", j, core.ErrMalformed)
			}
			content := []anBlock{}
			for _, c := range p.Result.Content {
				if c.Kind == core.PartText {
					t := c.Text
					content = append(content, anBlock{Type: "text", Text: &t})
				}
			}
			raw, _ := json.Marshal(content)
			blocks = append(blocks, anBlock{Type: "tool_result", ToolUseID: p.Result.CallID, Content: raw, IsError: p.Result.IsError})
		}
	}
	return blocks, nil
}

func decodeInvokeRequest(body []byte) (*core.Request, error) {
	var in anRequest
	if err := unmarshal("decode request", body, &in); err != nil {
		return nil, err
	}
	req := &core.Request{MaxTokens: in.MaxTokens}
	if len(in.System) > 0 && string(in.System) != "null" {
		blocks, err := anContent(in.System)
		if err != nil {
			return nil, fmt.Errorf("bedrock: decode request: system: %w", err)
		}
		sys := core.Message{Role: core.RoleSystem}
		for _, b := range blocks {
			if b.Text != nil {
				sys.Parts = append(sys.Parts, core.TextPart(*b.Text))
			}
		}
		req.Messages = append(req.Messages, sys)
	}
	for i, m := range in.Messages {
		blocks, err := anContent(m.Content)
		if err != nil {
			return nil, fmt.Errorf("bedrock: decode request: messages[%d].content: %w", i, err)
		}
		msgs, err := decodeAnBlocks(m.Role, blocks)
		if err != nil {
			return nil, fmt.Errorf("bedrock: decode request: messages[%d]%w", i, err)
		}
		req.Messages = append(req.Messages, msgs...)
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, core.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	if tc := in.ToolChoice; tc != nil {
		switch tc.Type {
		case "any":
			req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceRequired}
		case "tool":
			req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceTool, Name: tc.Name}
		case "auto", "none":
			req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceMode(tc.Type)}
		}
		if tc.DisableParallelToolUse {
			f := false
			req.ParallelToolCalls = &f
		}
	}
	return req, nil
}

// anContent reads Anthropic content, which is a string or a list of blocks.
func anContent(raw json.RawMessage) ([]anBlock, error) {
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && t[0] == '"' {
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return nil, err
		}
		return []anBlock{{Type: "text", Text: &s}}, nil
	}
	var blocks []anBlock
	if err := json.Unmarshal(t, &blocks); err != nil {
		return nil, err
	}
	return blocks, nil
}

func decodeAnBlocks(wireRole string, blocks []anBlock) ([]core.Message, error) {
	var role core.Role
	switch wireRole {
	case "user":
		role = core.RoleUser
	case "assistant":
		role = core.RoleAssistant
	default:
		return nil, fmt.Errorf(".role: %w: unknown role %q", core.ErrMalformed, wireRole)
	}
	var out []core.Message
	add := func(r core.Role, p core.Part) {
		if n := len(out); n > 0 && out[n-1].Role == r {
			out[n-1].Parts = append(out[n-1].Parts, p)
			return
		}
		out = append(out, core.Message{Role: r, Parts: []core.Part{p}})
	}
	for j, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text != nil {
				add(role, core.TextPart(*b.Text))
			}
		case "tool_use":
			if b.Name == "" {
				return nil, fmt.Errorf(".content[%d].name: %w: missing", j, core.ErrMalformed)
			}
			c, err := callFromWire(b.ID, b.Name, b.Input)
			if err != nil {
				return nil, fmt.Errorf(".content[%d].input: %w", j, err)
			}
			add(role, core.CallPart(c))
		case "tool_result":
			r := core.Result{CallID: b.ToolUseID, IsError: b.IsError, Content: []core.Part{}}
			if len(b.Content) > 0 {
				inner, err := anContent(b.Content)
				if err != nil {
					return nil, fmt.Errorf(".content[%d].content: %w", j, err)
				}
				for _, c := range inner {
					if c.Type == "text" && c.Text != nil {
						r.Content = append(r.Content, core.TextPart(*c.Text))
					}
				}
			}
			add(core.RoleTool, core.ResultPart(r))
		case "thinking":
			t := ""
			if b.Thinking != nil {
				t = *b.Thinking
			}
			add(role, core.Part{Kind: core.PartThinking, Text: t, Signature: b.Signature})
		case "redacted_thinking":
			add(role, core.Part{Kind: core.PartThinking, Data: b.Data})
		}
		// server_tool_use and its result blocks are run by the provider,
		// not the client, and are left out (see doc.go).
	}
	if len(out) == 0 {
		out = append(out, core.Message{Role: role, Parts: []core.Part{}})
	}
	return out, nil
}

func encodeInvokeResponse(resp *core.Response) ([]byte, error) {
	if resp.Error != nil {
		return json.Marshal(anResponse{Type: "error", Content: nil, Error: &anError{Type: resp.Error.Type, Message: resp.Error.Message}})
	}
	blocks, err := encodeAnBlocks(resp.Message.Parts, false)
	if err != nil {
		return nil, fmt.Errorf("bedrock: encode response: message%w", err)
	}
	stop := resp.ProviderFinish
	if stop == "" {
		stop = stopFromFinish(resp.Finish)
	}
	out := anResponse{ID: resp.ID, Type: "message", Role: "assistant", Model: resp.Model, Content: blocks, StopReason: &stop}
	if resp.Usage != nil {
		out.Usage = &anUsage{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens}
	}
	return json.Marshal(out)
}

func decodeInvokeResponse(body []byte) (*core.Response, error) {
	var in anResponse
	if err := unmarshal("decode response", body, &in); err != nil {
		return nil, err
	}
	resp := &core.Response{ID: in.ID, Model: in.Model, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}}
	if in.Type == "error" {
		resp.Error = &core.ProviderError{Message: "unknown error"}
		if in.Error != nil {
			resp.Error = &core.ProviderError{Type: in.Error.Type, Message: in.Error.Message}
		}
		resp.Finish = core.FinishError
		return resp, nil
	}
	if in.Content == nil {
		return nil, &DecodeError{Protocol: "bedrock", Op: "decode response", Offset: -1, Path: "content", Err: fmt.Errorf("%w: null, and the body is not an error body", core.ErrMalformed)}
	}
	msgs, err := decodeAnBlocks("assistant", in.Content)
	if err != nil {
		return nil, fmt.Errorf("bedrock: decode response: %w", err)
	}
	for _, m := range msgs {
		resp.Message.Parts = append(resp.Message.Parts, m.Parts...)
	}
	if in.StopReason != nil {
		resp.ProviderFinish = *in.StopReason
		resp.Finish = finishFromStop(*in.StopReason)
	}
	if in.Usage != nil {
		resp.Usage = &core.Usage{InputTokens: in.Usage.InputTokens, OutputTokens: in.Usage.OutputTokens}
	}
	return resp, nil
}

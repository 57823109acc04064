package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/vendorerr"
)

type wireUsage struct {
	InputTokens  *int `json:"input_tokens,omitempty"`
	OutputTokens *int `json:"output_tokens,omitempty"`
}

type wireError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

type wireResponse struct {
	ID         string      `json:"id"`
	Type       string      `json:"type"`
	Role       string      `json:"role"`
	Model      string      `json:"model"`
	Content    []wireBlock `json:"content"`
	StopReason string      `json:"stop_reason"`
	Usage      *wireUsage  `json:"usage"`
	Error      *wireError  `json:"error"`
}

// finishOf maps an Anthropic stop_reason to a normalised finish reason.
func finishOf(stop string) core.FinishReason {
	switch stop {
	case "":
		return ""
	case "end_turn", "stop_sequence":
		return core.FinishStop
	case "tool_use":
		return core.FinishToolCalls
	case "max_tokens", "model_context_window_exceeded":
		return core.FinishLength
	case "refusal":
		return core.FinishContentFilter
	}
	return core.FinishOther
}

// stopOf is the inverse of finishOf, preferring the provider's raw value.
func stopOf(f core.FinishReason, raw string) string {
	if raw != "" {
		return raw
	}
	switch f {
	case core.FinishStop:
		return "end_turn"
	case core.FinishToolCalls:
		return "tool_use"
	case core.FinishLength:
		return "max_tokens"
	case core.FinishContentFilter:
		return "refusal"
	case core.FinishOther:
		return "pause_turn"
	}
	return ""
}

func usageOf(u *wireUsage) *core.Usage {
	if u == nil {
		return nil
	}
	var cu core.Usage
	if u.InputTokens != nil {
		cu.InputTokens = *u.InputTokens
	}
	if u.OutputTokens != nil {
		cu.OutputTokens = *u.OutputTokens
	}
	return &cu
}

// DecodeResponse decodes a /v1/messages response body. A body of type "error"
// becomes Response.Error; any other body without a content list is an error
// wrapping core.ErrMalformed. Provider-run blocks (server_tool_use and every
// *_tool_result block) are dropped, so they never appear among the calls. Two
// tool_use blocks with one id are an error wrapping core.ErrDuplicateCallID.
// When stop_reason is max_tokens and the last block is a tool_use, that call
// goes to Response.Incomplete (B11).
func (a *Adapter) DecodeResponse(body []byte) (resp *core.Response, err error) {
	defer vendorerr.Fallback(body, &resp, &err)
	const op = "decode response"
	if err := jsonstr.CheckUTF8(protocolName, op, body); err != nil {
		return nil, err
	}
	var w wireResponse
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, decodeErr(op, 0, "", err)
	}
	if w.Type == "error" || w.Error != nil {
		resp := &core.Response{Finish: core.FinishError, Message: core.Message{Role: core.RoleAssistant}}
		if w.Error != nil {
			resp.Error = &core.ProviderError{Type: w.Error.Type, Message: w.Error.Message}
		} else {
			resp.Error = &core.ProviderError{Message: "error body without error object"}
		}
		return resp, nil
	}
	if w.Content == nil {
		// Every message carries a content list, empty or not; without one
		// the body is not a message, and an empty answer would be a guess.
		return nil, &DecodeError{Protocol: protocolName, Op: op, Offset: -1, Path: "content", Err: fmt.Errorf("%w: missing, and the body is not an error body", core.ErrMalformed)}
	}
	resp = &core.Response{
		ID: w.ID, Model: w.Model,
		Message:        core.Message{Role: core.RoleAssistant, Parts: []core.Part{}},
		Finish:         finishOf(w.StopReason),
		ProviderFinish: w.StopReason,
		Usage:          usageOf(w.Usage),
	}
	ids := map[string]int{}
	for i, b := range w.Content {
		path := fmt.Sprintf("content[%d]", i)
		if b.Type == "tool_result" || isProviderRun(b.Type) {
			continue
		}
		p, ok, err := decodeBlock(b, op, path)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if p.Kind == core.PartToolCall {
			if j, dup := ids[p.Call.ID]; dup {
				return nil, &DecodeError{Protocol: protocolName, Op: op, Offset: -1, Path: path + ".id", Err: fmt.Errorf("%w: %q also at content[%d]", core.ErrDuplicateCallID, p.Call.ID, j)}
			}
			ids[p.Call.ID] = i
			// A call without a name is never complete.
			if !json.Valid(p.Call.Arguments) || p.Call.Name == "" {
				c := *p.Call
				c.Original, c.Arguments = string(c.Arguments), nil
				resp.Incomplete = append(resp.Incomplete, c)
				continue
			}
		}
		resp.Message.Parts = append(resp.Message.Parts, p)
	}
	// B11: when max_tokens cut the message and its last block is a
	// tool_use, that call's input is whatever was generated before the
	// cut; it is reported incomplete, never as a call to run.
	if n := len(resp.Message.Parts); resp.Finish == core.FinishLength && n > 0 && resp.Message.Parts[n-1].Kind == core.PartToolCall && lastIsToolUse(w.Content) {
		c := *resp.Message.Parts[n-1].Call
		c.Original, c.Arguments = string(c.Arguments), nil
		resp.Incomplete = append(resp.Incomplete, c)
		resp.Message.Parts = resp.Message.Parts[:n-1]
	}
	return resp, nil
}

// lastIsToolUse reports whether the last block the model wrote is a
// client tool_use.
func lastIsToolUse(blocks []wireBlock) bool {
	return len(blocks) > 0 && blocks[len(blocks)-1].Type == "tool_use"
}

// EncodeResponse encodes a canonical response as a /v1/messages body, with
// usage always present (zero counts when the response has none). A
// response with Error set is written as an error body. Incomplete calls are
// not written.
func (a *Adapter) EncodeResponse(resp *core.Response) ([]byte, error) {
	if resp == nil {
		return nil, fmt.Errorf("anthropic: encode response: %w: nil response", core.ErrMalformed)
	}
	if resp.Error != nil {
		return json.Marshal(map[string]any{"type": "error", "error": wireError{Type: resp.Error.Type, Message: resp.Error.Message}})
	}
	if err := partKinds.CheckResponse("anthropic: encode response", resp.Message.Parts); err != nil {
		return nil, err
	}
	content := []map[string]any{}
	for _, p := range resp.Message.Parts {
		switch p.Kind {
		case core.PartText:
			content = append(content, map[string]any{"type": "text", "text": p.Text})
		case core.PartThinking:
			if p.Data != "" {
				content = append(content, map[string]any{"type": "redacted_thinking", "data": p.Data})
			} else {
				content = append(content, map[string]any{"type": "thinking", "thinking": p.Text, "signature": p.Signature})
			}
		case core.PartToolCall:
			if p.Call == nil {
				return nil, fmt.Errorf("anthropic: encode response: %w: tool_call part without a call", core.ErrMalformed)
			}
			args, err := checkArgs(*p.Call)
			if err != nil {
				return nil, fmt.Errorf("anthropic: encode response: call %q: %w", p.Call.ID, err)
			}
			content = append(content, map[string]any{"type": "tool_use", "id": p.Call.ID, "name": p.Call.Name, "input": args})
		}
	}
	w := map[string]any{
		"id": resp.ID, "type": "message", "role": "assistant", "model": resp.Model,
		"content": content, "stop_reason": nil, "stop_sequence": nil,
	}
	if s := stopOf(resp.Finish, resp.ProviderFinish); s != "" {
		w["stop_reason"] = s
	}
	// Every recorded body carries usage, and SDKs read it unchecked: zero
	// counts when the response has none, as EncodeStream writes them.
	usage := core.Usage{}
	if resp.Usage != nil {
		usage = *resp.Usage
	}
	w["usage"] = map[string]int{"input_tokens": usage.InputTokens, "output_tokens": usage.OutputTokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	out, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("anthropic: encode response: %w", err)
	}
	return out, nil
}

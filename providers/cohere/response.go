package cohere

import (
	"encoding/json"
	"fmt"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/vendorerr"
)

// responseWire is a chat response with its message field left raw,
// because an error body carries "message" as a string.
type responseWire struct {
	ID           string          `json:"id,omitempty"`
	Message      json.RawMessage `json:"message,omitempty"`
	FinishReason string          `json:"finish_reason,omitempty"`
	Usage        *usage          `json:"usage,omitempty"`
}

// EncodeResponse writes resp as a Cohere v2 chat response, with usage
// always present (zero counts when the response has none). A response that
// carries a provider error is written as an error body {"id", "message"}.
func (a *Adapter) EncodeResponse(resp *core.Response) ([]byte, error) {
	if resp == nil {
		return nil, fmt.Errorf("cohere: encode response: %w: nil response", core.ErrMalformed)
	}
	if resp.Error != nil {
		msg, _ := json.Marshal(resp.Error.Message)
		return json.Marshal(responseWire{ID: resp.ID, Message: msg})
	}
	if err := partKinds.CheckResponse("cohere: encode response", resp.Message.Parts); err != nil {
		return nil, err
	}
	msgs, err := encodeMessage(core.Message{Role: core.RoleAssistant, Parts: resp.Message.Parts})
	if err != nil {
		return nil, fmt.Errorf("cohere: encode response: message%w", err)
	}
	m := msgs[0]
	// Responses always carry content as a list of blocks.
	if blocks, _ := decodeContent(m.Content); len(blocks) > 0 {
		m.Content, _ = json.Marshal(blocks)
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("cohere: encode response: %w", err)
	}
	finish := resp.ProviderFinish
	if finish == "" {
		finish = finishToWire(resp.Finish)
	}
	// Every recorded body carries usage, and gateways read it unchecked
	// (Portkey refuses a body without it): zero counts when there are none.
	u := resp.Usage
	if u == nil {
		u = &core.Usage{}
	}
	return json.Marshal(responseWire{ID: resp.ID, Message: raw, FinishReason: finish, Usage: wireUsage(u)})
}

// DecodeResponse reads a Cohere v2 chat response, or a v1 one (see v1.go). An error body (whose
// "message" is a string) becomes Response.Error. Tool plans become plan
// parts, never answer text; citations are not modelled and are ignored.
func (a *Adapter) DecodeResponse(body []byte) (resp *core.Response, err error) {
	defer vendorerr.Fallback(body, &resp, &err)
	if bad := jsonstr.InvalidUTF8At(body); bad >= 0 {
		return nil, &DecodeError{Protocol: "cohere", Op: "decode response", Offset: int64(bad), Err: core.ErrInvalidUTF8}
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(body, &probe) == nil && isV1Response(probe) {
		return decodeV1Response(body)
	}
	var in responseWire
	if err := unmarshal("decode response", body, &in); err != nil {
		return nil, err
	}
	resp = &core.Response{ID: in.ID, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}}
	if len(in.Message) > 0 && in.Message[0] == '"' {
		var s string
		if err := json.Unmarshal(in.Message, &s); err != nil {
			return nil, &DecodeError{Protocol: "cohere", Op: "decode response", Offset: -1, Path: "message", Err: fmt.Errorf("%w: %w", core.ErrMalformed, err)}
		}
		resp.Error = &core.ProviderError{Message: s}
		resp.Finish = core.FinishError
		return resp, nil
	}
	if len(in.Message) == 0 || string(in.Message) == "null" {
		return nil, &DecodeError{Protocol: "cohere", Op: "decode response", Offset: -1, Path: "message", Err: fmt.Errorf("%w: missing", core.ErrMalformed)}
	}
	var m message
	if err := json.Unmarshal(in.Message, &m); err != nil {
		return nil, &DecodeError{Protocol: "cohere", Op: "decode response", Offset: -1, Path: "message", Err: fmt.Errorf("%w: %w", core.ErrMalformed, err)}
	}
	m.Role = "assistant"
	msg, err := decodeMessage(m)
	if err != nil {
		return nil, fmt.Errorf("cohere: decode response: message%w", err)
	}
	resp.Message = msg
	resp.ProviderFinish = in.FinishReason
	resp.Finish = finishFromWire(in.FinishReason)
	resp.Usage = canonicalUsage(in.Usage)
	return resp, nil
}

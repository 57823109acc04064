package bedrock

import (
	"encoding/json"
	"fmt"

	"github.com/toolconform/conform/core"
)

type cvResponse struct {
	Output *struct {
		Message *cvMessage `json:"message"`
	} `json:"output,omitempty"`
	StopReason string   `json:"stopReason,omitempty"`
	Usage      *cvUsage `json:"usage,omitempty"`
	// Type and Message are set in an error body.
	Type    string `json:"__type,omitempty"`
	Message string `json:"message,omitempty"`
}

type cvUsage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	TotalTokens  int `json:"totalTokens"`
}

// EncodeResponse writes resp as a Converse response body (or an Anthropic
// Messages body with WithAPI(InvokeAnthropic)). A response carrying a
// provider error is written as an error body {"__type", "message"}.
func (a *Adapter) EncodeResponse(resp *core.Response) ([]byte, error) {
	if resp == nil {
		return nil, fmt.Errorf("bedrock: encode response: nil response")
	}
	if a.api == InvokeAnthropic {
		return encodeInvokeResponse(resp)
	}
	if resp.Error != nil {
		return json.Marshal(cvResponse{Type: resp.Error.Type, Message: resp.Error.Message})
	}
	blocks, err := encodeBlocks(resp.Message.Parts, false)
	if err != nil {
		return nil, fmt.Errorf("bedrock: encode response: message%w", err)
	}
	out := cvResponse{StopReason: resp.ProviderFinish}
	if out.StopReason == "" {
		out.StopReason = stopFromFinish(resp.Finish)
	}
	out.Output = &struct {
		Message *cvMessage `json:"message"`
	}{Message: &cvMessage{Role: "assistant", Content: blocks}}
	if resp.Usage != nil {
		out.Usage = &cvUsage{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens, TotalTokens: resp.Usage.InputTokens + resp.Usage.OutputTokens}
	}
	return json.Marshal(out)
}

// DecodeResponse reads a Converse response body, an Anthropic Messages body
// from InvokeModel, or an error body ({"message": ...}), which becomes
// Response.Error.
func (a *Adapter) DecodeResponse(body []byte) (*core.Response, error) {
	var probe map[string]json.RawMessage
	if err := unmarshal("decode response", body, &probe); err != nil {
		return nil, err
	}
	if _, ok := probe["output"]; !ok {
		if _, ok := probe["content"]; ok {
			return decodeInvokeResponse(body)
		}
		if t, ok := probe["type"]; ok && string(t) == `"error"` {
			return decodeInvokeResponse(body)
		}
	}
	var in cvResponse
	if err := unmarshal("decode response", body, &in); err != nil {
		return nil, err
	}
	resp := &core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}}
	if in.Output == nil || in.Output.Message == nil {
		if in.Message == "" && in.Type == "" {
			return nil, &DecodeError{Op: "decode response", Path: "output.message", Err: fmt.Errorf("missing, and the body is not an error body")}
		}
		resp.Error = &core.ProviderError{Type: in.Type, Message: in.Message}
		resp.Finish = core.FinishError
		return resp, nil
	}
	msgs, err := decodeMessage(*in.Output.Message)
	if err != nil {
		return nil, fmt.Errorf("bedrock: decode response: output.message%w", err)
	}
	for _, m := range msgs {
		resp.Message.Parts = append(resp.Message.Parts, m.Parts...)
	}
	resp.ProviderFinish = in.StopReason
	resp.Finish = finishFromStop(in.StopReason)
	if in.Usage != nil {
		resp.Usage = &core.Usage{InputTokens: in.Usage.InputTokens, OutputTokens: in.Usage.OutputTokens}
	}
	return resp, nil
}

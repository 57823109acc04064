package bedrock

import (
	"encoding/json"
	"fmt"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/vendorerr"
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
		return nil, fmt.Errorf("bedrock: encode response: %w: nil response", core.ErrMalformed)
	}
	if resp.Error == nil {
		if err := partKinds.CheckResponse("bedrock: encode response", resp.Message.Parts); err != nil {
			return nil, err
		}
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
	// Every recorded Converse body carries usage: zero counts when the
	// response has none.
	u := resp.Usage
	if u == nil {
		u = &core.Usage{}
	}
	out.Usage = &cvUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
	return json.Marshal(out)
}

// DecodeResponse reads a Converse response body, an Anthropic Messages body
// from InvokeModel, or an error body ({"message": ...}), which becomes
// Response.Error.
//
// When the token limit cut the message (stopReason max_tokens or
// model_context_window_exceeded) and the last block the model wrote is a
// client toolUse (tool_use), that call goes to Response.Incomplete, never
// to the calls to run (B11): its input is whatever was generated before
// the cut, and the body holds it as a parsed object, so a prefix such as
// {"path":"a.md"} of {"path":"a.md","body":"..."} looks complete. The
// incomplete call keeps its input as received in Original. Earlier calls
// of the message were finished before the model went on, and stand.
func (a *Adapter) DecodeResponse(body []byte) (resp *core.Response, err error) {
	defer vendorerr.Fallback(body, &resp, &err)
	if bad := jsonstr.InvalidUTF8At(body); bad >= 0 {
		return nil, &DecodeError{Protocol: "bedrock", Op: "decode response", Offset: int64(bad), Err: core.ErrInvalidUTF8}
	}
	var probe map[string]json.RawMessage
	if err := unmarshal("decode response", body, &probe); err != nil {
		return nil, err
	}
	if _, ok := probe["output"]; !ok {
		_, hasContent := probe["content"]
		if t, ok := probe["type"]; hasContent || ok && string(t) == `"error"` {
			resp, err := decodeInvokeResponse(body)
			if err != nil {
				return nil, err
			}
			var blocks []struct {
				Type string `json:"type"`
			}
			// decodeInvokeResponse read the same list, so this cannot fail
			// on a body it accepted.
			_ = json.Unmarshal(probe["content"], &blocks)
			cutLastCall(resp, len(blocks) > 0 && blocks[len(blocks)-1].Type == "tool_use")
			return resp, nil
		}
	}
	var in cvResponse
	if err := unmarshal("decode response", body, &in); err != nil {
		return nil, err
	}
	resp = &core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}}
	if in.Output == nil || in.Output.Message == nil {
		if in.Message == "" && in.Type == "" {
			return nil, &DecodeError{Protocol: "bedrock", Op: "decode response", Offset: -1, Path: "output.message", Err: fmt.Errorf("%w: missing, and the body is not an error body", core.ErrMalformed)}
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
	content := in.Output.Message.Content
	cutLastCall(resp, len(content) > 0 && content[len(content)-1].clientCall())
	return resp, nil
}

// cutLastCall moves the last part of resp to Response.Incomplete when the
// token limit cut the message and lastIsCall says the last wire block is a
// client tool call, which that part then is (B11). The call keeps its input
// as received in Original (for double-encoded input, C05, the string as
// sent) and has no Arguments.
func cutLastCall(resp *core.Response, lastIsCall bool) {
	n := len(resp.Message.Parts)
	if resp.Finish != core.FinishLength || !lastIsCall || n == 0 {
		return
	}
	last := resp.Message.Parts[n-1]
	if last.Kind != core.PartToolCall || last.Call == nil {
		return
	}
	c := *last.Call
	if !c.Repaired {
		c.Original = string(c.Arguments)
	}
	c.Arguments, c.Repaired = nil, false
	resp.Incomplete = append(resp.Incomplete, c)
	resp.Message.Parts = resp.Message.Parts[:n-1]
}

package oaichat

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/rules"
	"github.com/toolconform/conform/providers/internal/vendorerr"
	"github.com/toolconform/conform/providers/internal/wire"
)

// pickChoice returns the choice with index 0, or the first choice when none
// says index 0 (A13: with n>1 only choice 0 is decoded).
func pickChoice(cs []wireChoice) *wireChoice {
	for i := range cs {
		if cs[i].Index == nil || *cs[i].Index == 0 {
			return &cs[i]
		}
	}
	if len(cs) > 0 {
		return &cs[0]
	}
	return nil
}

// DecodeResponse reads a non-streaming Chat Completions response body. A
// provider error body becomes Response.Error; a body with neither choices
// nor an error, or whose choice has neither a message nor a finish_reason,
// is an error wrapping core.ErrMalformed. Calls whose arguments are not
// complete JSON go to Response.Incomplete, never to the message.
func (c *Codec) DecodeResponse(body []byte) (resp *core.Response, err error) {
	defer vendorerr.Fallback(body, &resp, &err)
	op := c.op("decode response")
	if bad := jsonstr.InvalidUTF8At(body); bad >= 0 {
		return nil, wire.Placed(op, int64(bad), "", core.ErrInvalidUTF8)
	}
	var w wireResponse
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, jsonError(op, 0, err)
	}
	resp = &core.Response{ID: w.ID, Model: w.Model, Message: core.Message{Role: core.RoleAssistant}}
	if pe := providerError(w.Error); pe != nil {
		resp.Error = pe
	} else if w.Object == "error" {
		resp.Error = &core.ProviderError{Type: scalarText(w.Type), Code: scalarText(w.Code), Message: scalarText(w.Message)}
	}
	if w.Usage != nil {
		resp.Usage = &core.Usage{InputTokens: w.Usage.PromptTokens, OutputTokens: w.Usage.CompletionTokens}
	}
	ch := pickChoice(w.Choices)
	if ch == nil {
		if resp.Error == nil && w.Choices == nil {
			return nil, fieldError(op, "choices", fmt.Errorf("%w: response has neither choices nor error", core.ErrMalformed))
		}
		if resp.Error != nil {
			resp.Finish = core.FinishError
		}
		return resp, nil
	}
	idx := 0
	if ch.Index != nil {
		idx = *ch.Index
	}
	path := pathf("choices[%d].message", idx)
	if ch.FinishReason != nil {
		resp.ProviderFinish = *ch.FinishReason
		resp.Finish = FinishReason(*ch.FinishReason)
	}
	if ch.Message == nil {
		// A choice may say why it ended without a message (a content
		// filter); one with neither is not a response's choice (a stream
		// chunk's has a delta instead).
		if ch.FinishReason == nil {
			return nil, fieldError(op, path, fmt.Errorf("%w: missing, and the choice has no finish_reason", core.ErrMalformed))
		}
		return resp, nil
	}
	wm := *ch.Message
	content := bytes.TrimSpace(wm.Content)
	if len(content) > 0 && content[0] == '{' {
		// A vendor's structured-output answer sends the object itself,
		// which the SDKs read as text: its compact JSON text, said.
		var b bytes.Buffer
		if err := json.Compact(&b, content); err != nil {
			return nil, fieldError(op, path+".content", fmt.Errorf("%w: %v", core.ErrMalformed, err))
		}
		text, _ := json.Marshal(b.String()) // a string always marshals
		wm.Content = text
		resp.Deviations = append(resp.Deviations, path+".content is a JSON object, not a string or an array of parts: read as its compact JSON text")
	}
	parts, err := decodeContent(op, wm.Content, path+".content")
	if err != nil {
		return nil, err
	}
	if t := c.thinking(wm); t != "" {
		resp.Message.Parts = append(resp.Message.Parts, core.Part{Kind: core.PartThinking, Text: t})
	}
	resp.Message.Parts = append(resp.Message.Parts, parts...)
	for j, tc := range wm.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue // provider-run tools are not client calls
		}
		if (tc.ID == nil || *tc.ID == "") && zeroFunction(&tc.Function) {
			continue // a zero-valued entry is an absent one
		}
		call, complete, err := c.responseCall(tc)
		if err != nil {
			return nil, fieldError(op, pathf("%s.tool_calls[%d].function.arguments", path, j), err)
		}
		if !complete {
			resp.Incomplete = append(resp.Incomplete, call)
			continue
		}
		resp.Message.Parts = append(resp.Message.Parts, core.CallPart(call))
	}
	if fc := wm.FunctionCall; fc != nil && !zeroFunction(fc) {
		call, complete, err := c.responseCall(legacyCall(fc))
		if err != nil {
			return nil, fieldError(op, path+".function_call.arguments", err)
		}
		call.ID = legacyResponseID(w.ID, fc)
		if !complete {
			resp.Incomplete = append(resp.Incomplete, call)
		} else {
			resp.Message.Parts = append(resp.Message.Parts, core.CallPart(call))
		}
	}
	return resp, nil
}

// EncodeResponse writes resp as a non-streaming Chat Completions response.
func (c *Codec) EncodeResponse(resp *core.Response) ([]byte, error) {
	op := c.op("encode response")
	if resp == nil {
		return nil, fieldError(op, "", fmt.Errorf("%w: nil response", core.ErrMalformed))
	}
	out := map[string]any{"object": "chat.completion"}
	if resp.ID != "" {
		out["id"] = resp.ID
	}
	if resp.Model != "" {
		out["model"] = resp.Model
	}
	if resp.Usage != nil {
		out["usage"] = wireUsage{PromptTokens: resp.Usage.InputTokens, CompletionTokens: resp.Usage.OutputTokens, TotalTokens: resp.Usage.InputTokens + resp.Usage.OutputTokens}
	}
	if resp.Error != nil {
		out["error"] = encodeError(resp.Error)
		if len(resp.Message.Parts) == 0 && resp.Finish == core.FinishError {
			b, err := json.Marshal(out)
			if err != nil {
				return nil, wire.Placed(op, -1, "", err)
			}
			return b, nil
		}
	}
	// Every recorded body carries created, model and usage (typed SDKs
	// require them): a response without a model or usage gets "" and zero
	// counts; the canonical response has no creation time, so created is
	// 0. An error body alone (above) is as the API sends it.
	out["created"], out["model"] = 0, resp.Model
	if resp.Usage == nil {
		out["usage"] = wireUsage{}
	}
	if err := partKinds.CheckResponse(op, resp.Message.Parts); err != nil {
		return nil, err
	}
	m := resp.Message
	m.Role = core.RoleAssistant
	msgs, err := c.encodeMessage(op, 0, m)
	if err != nil {
		return nil, err
	}
	if len(msgs) != 1 {
		return nil, fieldError(op, "message", fmt.Errorf("%w: response message must be one assistant message", core.ErrUnsupported))
	}
	wm := msgs[0]
	for _, call := range resp.Incomplete {
		tc, err := c.wireCall(call)
		if err != nil {
			return nil, fieldError(op, "incomplete", err)
		}
		wm.ToolCalls = append(wm.ToolCalls, tc)
	}
	if len(wm.ToolCalls) > 0 && len(wm.Content) == 0 {
		wm.Content = json.RawMessage("null")
	}
	var finish any
	if f := wireFinish(resp.Finish, resp.ProviderFinish); f != "" {
		finish = f
	}
	out["choices"] = []map[string]any{{"index": 0, "message": wm, "finish_reason": finish}}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, wire.Placed(op, -1, "", err)
	}
	return b, nil
}

// responseCall decodes a tool call of a whole response and judges its
// arguments as core.Buffer judges the same text streamed
// (rules.WholeArgs): text the Buffer repairs is complete and Repaired,
// text it cannot repair, and a call without a name, incomplete.
func (c *Codec) responseCall(tc wireToolCall) (core.Call, bool, error) {
	call, complete, err := c.decodeCall(tc)
	switch {
	case err != nil:
		return call, false, err
	case !complete:
		call, complete, _ = rules.WholeArgs(call, call.Original)
	case call.Name == "":
		call, complete, _ = rules.WholeArgs(call, string(call.Arguments))
	}
	return call, complete, nil
}

// zeroFunction reports whether a function object is zero-valued: no name
// (or "") and no arguments (absent, null or ""), as servers that write
// every field of their response type send beside "tool_calls": null. A
// zero-valued object is an absent one, never a call.
func zeroFunction(fc *wireFunctionArg) bool {
	if fc.Name != nil && *fc.Name != "" {
		return false
	}
	switch string(bytes.TrimSpace(fc.Arguments)) {
	case "", "null", `""`:
		return true
	}
	return false
}

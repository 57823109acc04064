package openairesponses

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/rules"
	"github.com/toolconform/conform/providers/internal/vendorerr"
)

type wireUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

type wireError struct {
	Type    string `json:"type"`
	Code    any    `json:"code"`
	Message string `json:"message"`
}

func (e *wireError) provider() *core.ProviderError {
	pe := &core.ProviderError{Type: e.Type, Message: e.Message}
	switch c := e.Code.(type) {
	case string:
		pe.Code = c
	case float64:
		pe.Code = fmt.Sprint(c)
	}
	return pe
}

type wireResponse struct {
	ID                string     `json:"id"`
	Object            string     `json:"object"`
	Model             string     `json:"model"`
	Status            string     `json:"status"`
	Output            []wireItem `json:"output"`
	Usage             *wireUsage `json:"usage"`
	Error             *wireError `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

// finishOf maps a response status (and incomplete reason) to the normalised
// finish reason and the raw value kept in ProviderFinish: the status, or the
// incomplete reason for an incomplete response.
func finishOf(status, reason string, calls bool) (core.FinishReason, string) {
	switch status {
	case "completed":
		if calls {
			return core.FinishToolCalls, status
		}
		return core.FinishStop, status
	case "incomplete":
		switch reason {
		case "max_output_tokens":
			return core.FinishLength, reason
		case "content_filter":
			return core.FinishContentFilter, reason
		case "":
			return core.FinishOther, status
		}
		return core.FinishOther, reason
	case "failed":
		return core.FinishError, status
	case "":
		return "", ""
	}
	return core.FinishOther, status
}

// statusOf is the inverse of finishOf: the status and incomplete reason to
// write.
func statusOf(f core.FinishReason, raw string) (status, reason string) {
	switch raw {
	case "completed", "failed", "cancelled", "in_progress", "queued":
		return raw, ""
	case "incomplete":
		return "incomplete", ""
	case "":
		switch f {
		case core.FinishStop, core.FinishToolCalls, "":
			return "completed", ""
		case core.FinishLength:
			return "incomplete", "max_output_tokens"
		case core.FinishContentFilter:
			return "incomplete", "content_filter"
		case core.FinishError:
			return "failed", ""
		}
		return "cancelled", ""
	}
	return "incomplete", raw
}

// callOf decodes a function_call item. ok is false when the item is
// incomplete; such calls are never reported as complete. Otherwise the
// arguments get the verdict core.Buffer gives the same text streamed
// (rules.WholeArgs), but for null, {} reported as a repair (C06): empty
// text is {} (C01), text the Buffer repairs is
// complete and Repaired, other text, and a call without a name,
// incomplete.
func callOf(it wireItem) (c core.Call, ok bool) {
	c = core.Call{ID: it.CallID, ItemID: it.ID, Name: it.Name}
	args, _ := argsOf(it.Arguments)
	if it.Status == "incomplete" {
		c.Original = args
		return c, false
	}
	if string(bytes.TrimSpace(it.Arguments)) == "null" && it.Name != "" {
		// arguments is always a string: null is a value the item cannot
		// carry, read as none, {}, and the substitution said (C06).
		c.Arguments, c.Repaired = json.RawMessage("{}"), true
		return c, true
	}
	c, ok, _ = rules.WholeArgs(c, args)
	return c, ok
}

// zeroItem reports whether a function_call item is zero-valued, as a
// server that writes every field of its types sends it: no id, call_id,
// name or arguments. It is an absent one, never a call.
func zeroItem(it wireItem) bool {
	args, _ := argsOf(it.Arguments)
	return it.ID == "" && it.CallID == "" && it.Name == "" && args == ""
}

// DecodeResponse decodes a /v1/responses body. Output items become the
// message: message items give text, reasoning items thinking (item id in
// ItemID, encrypted content in Signature), function_call items calls with
// both ids (D08). Built-in tool items (web_search_call, file_search_call,
// code_interpreter_call, local_shell_call, apply_patch_call, tool_search_call,
// program, mcp_call, ...) are provider-run or not modelled and are dropped.
// A function_call that is incomplete or whose arguments are not JSON goes
// to Response.Incomplete, and so does the last item of an incomplete
// response when it is a function_call (B11). Two calls with one call_id are an error wrapping
// core.ErrDuplicateCallID (D06). An error body ({"error": {...}}) or a failed
// response sets Response.Error; any other body without an output list is
// an error wrapping core.ErrMalformed.
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
	resp = &core.Response{ID: w.ID, Model: w.Model, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}}
	if w.Error != nil {
		resp.Error = w.Error.provider()
		if w.Status == "" {
			resp.Finish = core.FinishError
			return resp, nil
		}
	}
	if w.Output == nil && resp.Error == nil {
		// Every response object carries an output list, empty or not.
		return nil, &DecodeError{Protocol: protocolName, Op: op, Offset: -1, Path: "output", Err: fmt.Errorf("%w: missing, and the body is not an error body", core.ErrMalformed)}
	}
	seen := map[string]int{}
	calls := false
	for i, it := range w.Output {
		path := fmt.Sprintf("output[%d]", i)
		switch it.Type {
		case "message":
			parts, err := decodeText(it.Content, op, path+".content")
			if err != nil {
				return nil, err
			}
			resp.Message.Parts = append(resp.Message.Parts, parts...)
		case "reasoning":
			resp.Message.Parts = append(resp.Message.Parts, reasoningParts(it)...)
		case "function_call":
			if zeroItem(it) {
				continue
			}
			if j, dup := seen[it.CallID]; dup {
				return nil, &DecodeError{Protocol: protocolName, Op: op, Offset: -1, Path: path + ".call_id", Err: fmt.Errorf("%w: duplicate call_id %q, also at output[%d]", core.ErrDuplicateCallID, it.CallID, j)}
			}
			seen[it.CallID] = i
			c, ok := callOf(it)
			if !ok {
				resp.Incomplete = append(resp.Incomplete, c)
				continue
			}
			calls = true
			resp.Message.Parts = append(resp.Message.Parts, core.CallPart(c))
		}
	}
	reason := ""
	if w.IncompleteDetails != nil {
		reason = w.IncompleteDetails.Reason
	}
	// B11: when the output limit cut the response and its last item is a
	// function_call, that call is reported incomplete whatever its status.
	if n := len(resp.Message.Parts); w.Status == "incomplete" && n > 0 && len(w.Output) > 0 && w.Output[len(w.Output)-1].Type == "function_call" &&
		resp.Message.Parts[n-1].Kind == core.PartToolCall {
		c := *resp.Message.Parts[n-1].Call
		c.Original, c.Arguments = string(c.Arguments), nil
		resp.Incomplete = append(resp.Incomplete, c)
		resp.Message.Parts = resp.Message.Parts[:n-1]
		calls = len(resp.Message.Calls()) > 0
	}
	resp.Finish, resp.ProviderFinish = finishOf(w.Status, reason, calls)
	if w.Usage != nil {
		resp.Usage = &core.Usage{InputTokens: w.Usage.InputTokens, OutputTokens: w.Usage.OutputTokens}
	}
	if a.IDMap != nil {
		resp.Message = a.IDMap.FromWireMessage(resp.Message)
	}
	return resp, nil
}

// EncodeResponse encodes a canonical response as a /v1/responses body,
// with created_at and usage (null when the response has none) as every
// recorded body has them. Incomplete calls are not written. A response with Error and no finish is
// written as an error body.
func (a *Adapter) EncodeResponse(resp *core.Response) ([]byte, error) {
	if resp == nil {
		return nil, fmt.Errorf("openai-responses: encode response: %w: nil response", core.ErrMalformed)
	}
	if resp.Error != nil && resp.Finish == core.FinishError && resp.ProviderFinish == "" {
		return json.Marshal(map[string]any{"error": errorObject(resp.Error)})
	}
	if err := partKinds.CheckResponse("openai-responses: encode response", resp.Message.Parts); err != nil {
		return nil, err
	}
	items, err := encodeParts(0, resp.Message.Parts, true)
	if err != nil {
		return nil, fmt.Errorf("openai-responses: encode response: %w", err)
	}
	if items == nil {
		items = []map[string]any{}
	}
	status, reason := statusOf(resp.Finish, resp.ProviderFinish)
	w := withRequestFields(map[string]any{"id": resp.ID, "object": "response", "created_at": createdAt, "model": resp.Model, "status": status, "output": items,
		"error": nil, "incomplete_details": nil, "usage": nil})
	if reason != "" {
		w["incomplete_details"] = map[string]string{"reason": reason}
	}
	if resp.Error != nil {
		w["error"] = errorObject(resp.Error)
	}
	// Every recorded body carries usage: a response without counts is
	// written with zero counts.
	w["usage"] = usageObject(core.Usage{})
	if resp.Usage != nil {
		w["usage"] = usageObject(*resp.Usage)
	}
	out, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("openai-responses: encode response: %w", err)
	}
	return out, nil
}

func errorObject(pe *core.ProviderError) map[string]any {
	m := map[string]any{"message": pe.Message}
	if pe.Type != "" {
		m["type"] = pe.Type
	}
	if pe.Code != "" {
		m["code"] = pe.Code
	}
	return m
}

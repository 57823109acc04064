package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/vendorerr"
	"github.com/toolconform/conform/providers/internal/wire"
)

// DecodeResponse decodes a generateContent response body.
//
// Only candidates[0] is read. functionCall parts without an id get a
// generated id "gemini_call_<key>_<k>", k being the call's position among
// the calls of the response and key a hash of the responseId, or of the
// call when there is none (see responseCallID): two id-less calls to the
// same function get distinct ids (D01), and so do the calls of two
// responses. The finish reason is normalised by NormalizeFinish (F02,
// F04, F05); the raw value, as an enum name even when the body used the
// integer form, stays in ProviderFinish. A response without candidates
// whose promptFeedback has a blockReason is a content_filter finish; any
// other body without candidates is an error wrapping core.ErrMalformed. An error
// body {"error":{…}} becomes Response.Error.
func (a *Adapter) DecodeResponse(body []byte) (resp *core.Response, err error) {
	defer vendorerr.Fallback(body, &resp, &err)
	const op = "gemini: decode response"
	if bad := jsonstr.InvalidUTF8At(body); bad >= 0 {
		return nil, wire.Placed(op, int64(bad), "", core.ErrInvalidUTF8)
	}
	var w wireResponse
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, syntaxError(op, 0, err)
	}
	resp = &core.Response{ID: w.ResponseID, Model: w.ModelVersion, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}}
	if w.Error != nil {
		resp.Error = providerError(w.Error)
		resp.Finish = core.FinishError
		return resp, nil
	}
	if u := w.UsageMetadata; u != nil {
		resp.Usage = &core.Usage{InputTokens: u.PromptTokenCount, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount}
	}
	if len(w.Candidates) == 0 {
		// Only a blocked prompt answers with no candidate; any other body
		// without one is not a generateContent response.
		if w.PromptFeedback == nil || w.PromptFeedback.BlockReason == "" {
			return nil, wire.Placed(op, -1, "candidates", fmt.Errorf("%w: no candidate, and no promptFeedback.blockReason or error says why", core.ErrMalformed))
		}
		resp.Finish = core.FinishContentFilter
		resp.ProviderFinish = string(w.PromptFeedback.BlockReason)
		return resp, nil
	}
	c := w.Candidates[0]
	k := 0
	if c.Content != nil {
		for i, p := range c.Content.Parts {
			if fc := p.FunctionCall; fc != nil && zeroCall(fc) {
				p.FunctionCall = nil // a zero-valued object is an absent one
			}
			if fc := p.FunctionCall; fc != nil && fc.Name == "" {
				// A call without a name is never complete.
				resp.Incomplete = append(resp.Incomplete, core.Call{ID: fc.ID, Signature: p.ThoughtSignature, Original: string(bytes.TrimSpace(fc.Args))})
				continue
			}
			part, ok, err := partOf(p, w.ResponseID, &k)
			if err != nil {
				return nil, wire.Placed(op, -1, "candidates[0].content.parts["+strconv.Itoa(i)+"]", err)
			}
			if ok {
				resp.Message.Parts = append(resp.Message.Parts, part)
			}
		}
	}
	resp.ProviderFinish = string(c.FinishReason)
	resp.Finish = NormalizeFinish(resp.ProviderFinish, k > 0, hasContent(resp.Message))
	return resp, nil
}

// zeroCall reports whether a functionCall is zero-valued, as a server that
// writes every field of its part type sends it beside a text part: no id,
// no name, no args (absent or null), no partialArgs, no willContinue. It
// is an absent one, except where it ends a call whose partialArgs came
// before it (stream.part).
func zeroCall(fc *wireFunctionCall) bool {
	a := bytes.TrimSpace(fc.Args)
	return fc.ID == "" && fc.Name == "" && (len(a) == 0 || string(a) == "null") && len(fc.PartialArgs) == 0 && !fc.WillContinue
}

// hasContent reports whether a message holds anything but empty text.
func hasContent(m core.Message) bool {
	for _, p := range m.Parts {
		if p.Kind != core.PartText || p.Text != "" {
			return true
		}
	}
	return false
}

// partOf converts one response part of the response whose responseId is
// respID; k counts the calls seen so far.
func partOf(p wirePart, respID string, k *int) (core.Part, bool, error) {
	switch {
	case p.FunctionCall != nil:
		fc := p.FunctionCall
		args, err := argsOf(fc.Args)
		if err != nil {
			return core.Part{}, false, err
		}
		id := fc.ID
		if id == "" {
			id = responseCallID(respID, fc.Name, args, *k)
		}
		*k++
		return core.CallPart(core.Call{ID: id, Name: fc.Name, Arguments: args, Signature: p.ThoughtSignature}), true, nil
	case p.Text != nil && p.Thought:
		return core.Part{Kind: core.PartThinking, Text: *p.Text, Signature: p.ThoughtSignature}, true, nil
	case p.Text != nil:
		return core.Part{Kind: core.PartText, Text: *p.Text, Signature: p.ThoughtSignature}, true, nil
	case p.ThoughtSignature != "":
		return core.Part{Kind: core.PartText, Signature: p.ThoughtSignature}, true, nil
	}
	return core.Part{}, false, nil
}

// wirePartOf is the inverse of partOf for response parts, of the kinds
// partKinds lists for an assistant message.
func wirePartOf(p core.Part) (wirePart, error) {
	switch p.Kind {
	case core.PartText:
		return wirePart{Text: ptr(p.Text), ThoughtSignature: p.Signature}, nil
	case core.PartThinking:
		return wirePart{Text: ptr(p.Text), Thought: true, ThoughtSignature: p.Signature}, nil
	}
	if p.Call == nil {
		return wirePart{}, fmt.Errorf("%w: tool_call part without a call", core.ErrMalformed)
	}
	args, err := objectArgs(p.Call.Arguments)
	if err != nil {
		return wirePart{}, err
	}
	return wirePart{
		FunctionCall:     &wireFunctionCall{ID: wireID(p.Call.ID), Name: p.Call.Name, Args: args},
		ThoughtSignature: p.Call.Signature,
	}, nil
}

// EncodeResponse encodes a canonical response as a generateContent body.
// Generated call ids are not written; ProviderFinish is written when set,
// else the Gemini value of Finish (tool_calls and stop are both STOP).
func (a *Adapter) EncodeResponse(resp *core.Response) ([]byte, error) {
	const op = "gemini: encode response"
	if resp == nil {
		return nil, fmt.Errorf("%s: %w: nil response", op, core.ErrMalformed)
	}
	w := wireResponse{ResponseID: resp.ID, ModelVersion: resp.Model}
	if resp.Error != nil {
		w.Error = wireErrorFrom(resp.Error)
		return json.Marshal(w)
	}
	if err := partKinds.CheckResponse(op, resp.Message.Parts); err != nil {
		return nil, err
	}
	c := wireCandidate{Content: &wireContent{Role: "model", Parts: []wirePart{}}}
	for i, p := range resp.Message.Parts {
		wp, err := wirePartOf(p)
		if err != nil {
			return nil, wire.Placed(op, -1, "message.parts["+strconv.Itoa(i)+"]", err)
		}
		c.Content.Parts = append(c.Content.Parts, wp)
	}
	c.FinishReason = finishReason(rawFinish(resp.Finish, resp.ProviderFinish))
	w.Candidates = []wireCandidate{c}
	// Every recorded body carries modelVersion and usageMetadata: a
	// response without usage is written with zero counts.
	w.UsageMetadata = usageOf(resp.Usage)
	return marshalBody(w)
}

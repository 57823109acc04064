package oaichat

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/wire"
)

// EncodeRequest writes req as a Chat Completions request body. It refuses
// a history CheckHistory faults and a tool name outside
// ^[a-zA-Z0-9_-]{1,64}$ (E01, E02; tools.NameMapper maps such names), with
// the *core.NameError wrapped. A strict tool whose schema StrictSchema
// cannot rewrite (H03) is refused with a *DecodeError whose place names the tool
// by index and name (tools[1] "echo") and which wraps the
// *StrictSchemaError; so is a tool whose parameters hold one of
// Config.RootSchemaKeywords at the top level (core.ErrUnsupported).
func (c *Codec) EncodeRequest(req *core.Request) ([]byte, error) {
	op := c.op("encode request")
	if req == nil {
		return nil, fieldError(op, "", fmt.Errorf("%w: nil request", core.ErrMalformed))
	}
	if err := partKinds.Check(op, req.Messages); err != nil {
		return nil, err
	}
	w := wireRequest{Model: req.Model, Messages: []wireMessage{}, ParallelToolCalls: req.ParallelToolCalls, Stream: req.Stream}
	for i, m := range req.Messages {
		msgs, err := c.encodeMessage(op, i, m)
		if err != nil {
			return nil, err
		}
		w.Messages = append(w.Messages, msgs...)
	}
	if err := CheckHistory(req.Messages, HistoryChecks{Protocol: c.cfg.Name}); err != nil {
		return nil, err
	}
	toolsInCallOrder(w.Messages)
	for i, t := range req.Tools {
		if err := c.cfg.NameRules.Check(t.Name); err != nil {
			// OpenAI and Mistral answer 400 (E01, E02).
			return nil, fieldError(op, pathf("tools[%d].name", i), err)
		}
		params := t.InputSchema
		if k := RootKeyword(params, c.cfg.RootSchemaKeywords); k != "" {
			return nil, fieldError(op, pathf("tools[%d] %q", i, t.Name), fmt.Errorf("parameters/%s: %w: the API refuses %s at the top level of a function's parameters", k, core.ErrUnsupported, strings.Join(c.cfg.RootSchemaKeywords, ", ")))
		}
		if t.Strict {
			s, err := StrictSchema(params)
			if err != nil {
				// The place names the tool by index and by name, as the
				// Responses encoder names it: tools[1] "echo".
				return nil, fieldError(op, pathf("tools[%d] %q", i, t.Name), err)
			}
			params = s
		}
		w.Tools = append(w.Tools, wireTool{Type: "function", Function: wireFunction{Name: t.Name, Description: t.Description, Parameters: params, Strict: t.Strict}})
	}
	if tc := req.ToolChoice; tc != nil {
		switch tc.Mode {
		case core.ToolChoiceAuto, core.ToolChoiceNone:
			w.ToolChoice = jsonString(string(tc.Mode))
		case core.ToolChoiceRequired:
			w.ToolChoice = jsonString(c.cfg.RequiredChoice)
		case core.ToolChoiceTool:
			if tc.Name == "" {
				return nil, fieldError(op, "tool_choice.name", fmt.Errorf("%w: named tool choice without a name", core.ErrMalformed))
			}
			b, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": tc.Name}})
			w.ToolChoice = b
		default:
			return nil, fieldError(op, "tool_choice.mode", fmt.Errorf("%w: unknown mode %q", core.ErrMalformed, tc.Mode))
		}
	}
	if rf := req.ResponseFormat; rf != nil {
		w.ResponseFormat = &wireResponseFormat{Type: "json_schema", JSONSchema: &wireJSONSchema{Name: rf.Name, Schema: rf.Schema, Strict: rf.Strict}}
	}
	if req.MaxTokens > 0 {
		n := req.MaxTokens
		if c.cfg.MaxTokensField == "max_completion_tokens" {
			w.MaxCompletionTokens = &n
		} else {
			w.MaxTokens = &n
		}
	}
	if req.Stream && c.cfg.StreamUsage {
		w.StreamOptions = &wireStreamOptions{IncludeUsage: true}
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, wire.Placed(op, -1, "", err)
	}
	return b, nil
}

// content writes text parts as a content value: "" for none, a string for
// one, an array of text parts for several (G10).
func content(parts []core.Part) json.RawMessage {
	var texts []string
	for _, p := range parts {
		if p.Kind == core.PartText {
			texts = append(texts, p.Text)
		}
	}
	switch len(texts) {
	case 0:
		return jsonString("")
	case 1:
		return jsonString(texts[0])
	}
	arr := make([]map[string]string, len(texts))
	for i, t := range texts {
		arr[i] = map[string]string{"type": "text", "text": t}
	}
	b, _ := json.Marshal(arr)
	return b
}

// thinkingContent writes Mistral's content array: one thinking chunk
// holding the thinking text, then the text parts.
func thinkingContent(thinking string, parts []core.Part) json.RawMessage {
	arr := []any{map[string]any{"type": "thinking", "thinking": []map[string]string{{"type": "text", "text": thinking}}}}
	for _, p := range parts {
		if p.Kind == core.PartText {
			arr = append(arr, map[string]string{"type": "text", "text": p.Text})
		}
	}
	b, _ := json.Marshal(arr)
	return b
}

func hasText(parts []core.Part) bool {
	for _, p := range parts {
		if p.Kind == core.PartText {
			return true
		}
	}
	return false
}

// partKinds lists the part kinds each role may hold on this wire. It has no
// place for a plan: sent as reasoning it would come back as thinking.
var partKinds = wire.PartKinds{
	core.RoleSystem:    {core.PartText},
	core.RoleUser:      {core.PartText, core.PartToolResult},
	core.RoleTool:      {core.PartToolResult},
	core.RoleAssistant: {core.PartText, core.PartThinking, core.PartToolCall},
}

// encodeMessage writes message i, whose parts partKinds has checked.
func (c *Codec) encodeMessage(op string, i int, m core.Message) ([]wireMessage, error) {
	if m.Role == core.RoleTool && len(m.Parts) == 0 {
		return nil, fieldError(op, pathf("messages[%d].parts", i), fmt.Errorf("%w: tool message without results", core.ErrUnsupported))
	}
	switch m.Role {
	case core.RoleSystem:
		return []wireMessage{{Role: "system", Content: content(m.Parts)}}, nil
	case core.RoleUser, core.RoleTool:
		// Results travel as tool messages, one per result, in order; any
		// text of a user message follows them as one user message.
		var out []wireMessage
		var texts []core.Part
		for j, p := range m.Parts {
			switch p.Kind {
			case core.PartToolResult:
				if p.Result == nil || p.Result.CallID == "" {
					return nil, fieldError(op, pathf("messages[%d].parts[%d].result.call_id", i, j), fmt.Errorf("%w: Chat Completions pairs a result with its call only by tool_call_id", core.ErrResultWithoutID))
				}
				id, err := c.toWire(p.Result.CallID)
				if err != nil {
					return nil, fieldError(op, pathf("messages[%d].parts[%d].result.call_id", i, j), err)
				}
				wm := wireMessage{Role: "tool", ToolCallID: &id, Content: content(p.Result.Content)}
				if c.cfg.ToolResultName {
					wm.Name = p.Result.Name
				}
				out = append(out, wm)
			case core.PartText:
				texts = append(texts, p)
			}
		}
		if m.Role == core.RoleUser && (len(texts) > 0 || len(out) == 0) {
			out = append(out, wireMessage{Role: "user", Content: content(texts)})
		}
		return out, nil
	case core.RoleAssistant:
		wm := wireMessage{Role: "assistant"}
		var thinking strings.Builder
		hasThinking := false
		for j, p := range m.Parts {
			switch p.Kind {
			case core.PartThinking:
				thinking.WriteString(p.Text)
				hasThinking = true
			case core.PartToolCall:
				if p.Call == nil {
					return nil, fieldError(op, pathf("messages[%d].parts[%d].call", i, j), fmt.Errorf("%w: tool-call part without a call", core.ErrMalformed))
				}
				tc, err := c.wireCall(*p.Call)
				if err != nil {
					return nil, fieldError(op, pathf("messages[%d].parts[%d].call", i, j), err)
				}
				wm.ToolCalls = append(wm.ToolCalls, tc)
			}
		}
		if hasThinking && c.cfg.ThinkingInContent {
			wm.Content = thinkingContent(thinking.String(), m.Parts)
			return []wireMessage{wm}, nil
		}
		if hasText(m.Parts) || len(wm.ToolCalls) == 0 {
			wm.Content = content(m.Parts)
		}
		if hasThinking {
			if c.cfg.ReasoningField == "reasoning" {
				wm.Reasoning = jsonString(thinking.String())
			} else {
				wm.ReasoningContent = jsonString(thinking.String())
			}
		}
		return []wireMessage{wm}, nil
	}
	return nil, fieldError(op, pathf("messages[%d].role", i), fmt.Errorf("%w: unknown role %q", core.ErrMalformed, m.Role))
}

// wireCall writes a call. Arguments go as their JSON text; a call without
// arguments sends "{}". A call whose arguments were never complete
// (Arguments nil, Original set) sends Original, so that it decodes as
// incomplete again.
func (c *Codec) wireCall(call core.Call) (wireToolCall, error) {
	id, err := c.toWire(call.ID)
	if err != nil {
		return wireToolCall{}, err
	}
	args := string(call.Arguments)
	if len(call.Arguments) == 0 {
		args = "{}"
		if call.Original != "" {
			args = call.Original
		}
	}
	name := call.Name
	tc := wireToolCall{ID: &id, Type: "function", Function: wireFunctionArg{Name: &name, Arguments: jsonString(args)}}
	if c.cfg.ThoughtSignatures && call.Signature != "" {
		// The vertex namespace is not remembered; google is what the
		// generativelanguage endpoint reads back.
		tc.ExtraContent = &extraContent{Google: &thoughtSignature{ThoughtSignature: call.Signature}}
	}
	return tc, nil
}

// DecodeRequest reads a Chat Completions request body.
func (c *Codec) DecodeRequest(body []byte) (*core.Request, error) {
	op := c.op("decode request")
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, jsonError(op, 0, err)
	}
	req := &core.Request{Model: w.Model, ParallelToolCalls: w.ParallelToolCalls, Stream: w.Stream}
	switch {
	case w.MaxTokens != nil:
		req.MaxTokens = *w.MaxTokens
	case w.MaxCompletionTokens != nil:
		req.MaxTokens = *w.MaxCompletionTokens
	}
	var legacy legacyPairing
	for i, wm := range w.Messages {
		path := pathf("messages[%d]", i)
		var m core.Message
		var err error
		if wm.Role == "function" {
			m, err = c.decodeFunctionResult(op, path, wm, &legacy)
		} else {
			m, err = c.decodeMessage(op, path, wm)
		}
		if err != nil {
			return nil, err
		}
		if wm.Role == "assistant" {
			if id := legacy.assistant(wm.FunctionCall); id != "" {
				call, _, err := c.decodeCall(legacyCall(wm.FunctionCall))
				if err != nil {
					return nil, fieldError(op, path+".function_call.arguments", err)
				}
				call.ID = id
				m.Parts = append(m.Parts, core.CallPart(call))
			}
		}
		req.Messages = append(req.Messages, m)
	}
	if len(w.Tools) == 0 && len(w.Functions) > 0 {
		tools, err := decodeFunctions(op, w.Functions)
		if err != nil {
			return nil, err
		}
		req.Tools = tools
	}
	if fc := bytes.TrimSpace(w.FunctionCall); len(w.ToolChoice) == 0 && len(fc) > 0 && string(fc) != "null" {
		choice, err := decodeFunctionChoice(fc)
		if err != nil {
			return nil, fieldError(op, "function_call", err)
		}
		req.ToolChoice = choice
	}
	for i, t := range w.Tools {
		if t.Type != "" && t.Type != "function" {
			continue // provider-run tools are not modelled
		}
		if t.Function.Name == "" {
			return nil, fieldError(op, pathf("tools[%d].function.name", i), fmt.Errorf("%w: tool without a name", core.ErrMalformed))
		}
		req.Tools = append(req.Tools, core.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, InputSchema: t.Function.Parameters, Strict: t.Function.Strict})
	}
	if tc := bytes.TrimSpace(w.ToolChoice); len(tc) > 0 && string(tc) != "null" {
		choice, err := decodeToolChoice(tc)
		if err != nil {
			return nil, fieldError(op, "tool_choice", err)
		}
		req.ToolChoice = choice // nil for forms not modelled
	}
	if rf := w.ResponseFormat; rf != nil && rf.Type == "json_schema" && rf.JSONSchema != nil {
		req.ResponseFormat = &core.ResponseFormat{Name: rf.JSONSchema.Name, Schema: rf.JSONSchema.Schema, Strict: rf.JSONSchema.Strict}
	}
	return req, nil
}

func decodeToolChoice(raw json.RawMessage) (*core.ToolChoice, error) {
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%w: %v", core.ErrMalformed, err)
		}
		switch s {
		case "auto", "none":
			return &core.ToolChoice{Mode: core.ToolChoiceMode(s)}, nil
		case "required", "any":
			return &core.ToolChoice{Mode: core.ToolChoiceRequired}, nil
		}
		return nil, fmt.Errorf("%w: unknown tool_choice %q", core.ErrMalformed, s)
	}
	var o struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("%w: %v", core.ErrMalformed, err)
	}
	if o.Type != "" && o.Type != "function" {
		return nil, nil // other forms (allowed_tools, custom) are not modelled
	}
	if o.Function.Name == "" {
		return nil, fmt.Errorf("%w: tool_choice object without function.name", core.ErrMalformed)
	}
	return &core.ToolChoice{Mode: core.ToolChoiceTool, Name: o.Function.Name}, nil
}

// decodeContent reads a content value: null or absent (no parts), a string
// (one text part unless empty), or an array of parts whose text parts are
// kept (G10); other part types (images, audio) are not modelled.
func decodeContent(op string, raw json.RawMessage, path string) ([]core.Part, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fieldError(op, path, fmt.Errorf("%w: %v", core.ErrMalformed, err))
		}
		if s == "" {
			return nil, nil
		}
		return []core.Part{core.TextPart(s)}, nil
	case '[':
		var arr []json.RawMessage
		if err := json.Unmarshal(raw, &arr); err != nil {
			return nil, fieldError(op, path, fmt.Errorf("%w: %v", core.ErrMalformed, err))
		}
		var parts []core.Part
		for i, el := range arr {
			var p struct {
				Type     string          `json:"type"`
				Text     *string         `json:"text"`
				Thinking json.RawMessage `json:"thinking"`
			}
			if err := json.Unmarshal(el, &p); err != nil {
				return nil, fieldError(op, pathf("%s[%d]", path, i), fmt.Errorf("%w: content part is not an object", core.ErrMalformed))
			}
			if p.Type == "thinking" {
				// Mistral's thinking chunk: {"type":"thinking","thinking":
				// [{"type":"text","text":...}]} (or a plain string).
				t, err := thinkingText(p.Thinking)
				if err != nil {
					return nil, fieldError(op, pathf("%s[%d].thinking", path, i), err)
				}
				if t != "" {
					parts = append(parts, core.Part{Kind: core.PartThinking, Text: t})
				}
				continue
			}
			if p.Type == "text" {
				if p.Text == nil {
					return nil, fieldError(op, pathf("%s[%d].text", path, i), fmt.Errorf("%w: text part without text", core.ErrMalformed))
				}
				parts = append(parts, core.TextPart(*p.Text))
			}
		}
		return parts, nil
	}
	return nil, fieldError(op, path, fmt.Errorf("%w: content must be a string, an array of parts or null", core.ErrMalformed))
}

// decodeMessage reads one request message.
func (c *Codec) decodeMessage(op, path string, wm wireMessage) (core.Message, error) {
	parts, err := decodeContent(op, wm.Content, path+".content")
	if err != nil {
		return core.Message{}, err
	}
	switch wm.Role {
	case "system", "developer":
		return core.Message{Role: core.RoleSystem, Parts: parts}, nil
	case "user":
		return core.Message{Role: core.RoleUser, Parts: parts}, nil
	case "tool":
		if wm.ToolCallID == nil || *wm.ToolCallID == "" {
			return core.Message{}, fieldError(op, path+".tool_call_id", core.ErrResultWithoutID)
		}
		if parts == nil {
			parts = []core.Part{}
		}
		r := core.Result{CallID: c.fromWire(*wm.ToolCallID), Name: wm.Name, Content: parts}
		return core.Message{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(r)}}, nil
	case "assistant":
		m := core.Message{Role: core.RoleAssistant}
		if t := c.thinking(wm); t != "" {
			m.Parts = append(m.Parts, core.Part{Kind: core.PartThinking, Text: t})
		}
		m.Parts = append(m.Parts, parts...)
		for j, tc := range wm.ToolCalls {
			// Arguments that are not JSON stay in Original with Arguments
			// nil (G09): the history is read as sent, and CheckHistory
			// reports it.
			call, _, err := c.decodeCall(tc)
			if err != nil {
				return core.Message{}, fieldError(op, pathf("%s.tool_calls[%d].function.arguments", path, j), err)
			}
			m.Parts = append(m.Parts, core.CallPart(call))
		}
		return m, nil
	}
	return core.Message{}, fieldError(op, path+".role", fmt.Errorf("%w: unknown role %q", core.ErrMalformed, wm.Role))
}

// thinking returns the reasoning text of a message: the configured field
// first, then the other one.
func (c *Codec) thinking(wm wireMessage) string {
	first, second := wm.ReasoningContent, wm.Reasoning
	if c.cfg.ReasoningField == "reasoning" {
		first, second = second, first
	}
	if t := stringValue(first); t != "" {
		return t
	}
	return stringValue(second)
}

// stringValue returns the value of a JSON string, or "" for anything else.
func stringValue(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// decodeCall reads a whole tool call. Arguments: a JSON string holding JSON
// is kept as it is; "" (C01) and null or absent (C06) mean no arguments and
// become {}, as the core Buffer and Validate read them; an object (C04) is
// accepted as its compact JSON text. A string that is not JSON gives complete=false, with
// the text in Original and Arguments nil.
func (c *Codec) decodeCall(tc wireToolCall) (call core.Call, complete bool, err error) {
	if tc.ID != nil {
		call.ID = c.fromWire(*tc.ID)
	}
	if tc.Function.Name != nil {
		call.Name = *tc.Function.Name
	}
	call.Signature = c.signature(&tc)
	raw := bytes.TrimSpace(tc.Function.Arguments)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		call.Arguments = json.RawMessage("{}")
		return call, true, nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return call, false, fmt.Errorf("%w: %v", core.ErrMalformed, err)
		}
		if strings.TrimSpace(s) == "" {
			call.Arguments = json.RawMessage("{}")
			return call, true, nil
		}
		if !json.Valid([]byte(s)) {
			call.Original = s
			return call, false, nil
		}
		call.Arguments = json.RawMessage(s)
		return call, true, nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return call, false, fmt.Errorf("%w: %v", core.ErrMalformed, err)
	}
	call.Arguments = validUTF8(b.Bytes())
	return call, true, nil
}

// thinkingText reads the value of a thinking chunk: a string, or an array
// of parts whose text parts are joined.
func thinkingText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		return stringValue(raw), nil
	}
	var arr []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &arr); err != nil {
		return "", fmt.Errorf("%w: thinking must be a string or an array of text parts", core.ErrMalformed)
	}
	var b strings.Builder
	for _, x := range arr {
		if x.Type == "text" {
			b.WriteString(x.Text)
		}
	}
	return b.String(), nil
}

// toolsInCallOrder sorts each run of tool messages into the order of the
// tool_calls of the assistant message before it (G05). OpenAI pairs them by
// tool_call_id, but OpenAI-compatible servers that render a chat template
// pair them by position. Ids are compared as sent, after any mapping; a
// turn whose calls repeat an id keeps the order given.
func toolsInCallOrder(msgs []wireMessage) {
	rank := map[string]int{}
	for i := 0; i < len(msgs); i++ {
		if msgs[i].Role == "assistant" {
			clear(rank)
			for k, tc := range msgs[i].ToolCalls {
				if tc.ID == nil {
					continue
				}
				if _, dup := rank[*tc.ID]; dup {
					// Two calls with one id (D06): which result
					// answers which is unknown, so the order given
					// is kept.
					clear(rank)
					break
				}
				rank[*tc.ID] = k
			}
			continue
		}
		if msgs[i].Role != "tool" {
			continue
		}
		j := i
		for j < len(msgs) && msgs[j].Role == "tool" {
			j++
		}
		key := func(m wireMessage) int {
			if m.ToolCallID != nil {
				if k, ok := rank[*m.ToolCallID]; ok {
					return k
				}
			}
			return math.MaxInt // unknown ids keep their order, last
		}
		slices.SortStableFunc(msgs[i:j], func(x, y wireMessage) int { return cmp.Compare(key(x), key(y)) })
		i = j - 1
	}
}

package openairesponses

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"github.com/toolconform/conform/providers/internal/oaichat"
	"github.com/toolconform/conform/providers/internal/wire"
)

type wireRequest struct {
	Model              string          `json:"model,omitempty"`
	Instructions       *string         `json:"instructions,omitempty"`
	Input              json.RawMessage `json:"input,omitempty"`
	Tools              []wireTool      `json:"tools,omitempty"`
	ToolChoice         json.RawMessage `json:"tool_choice,omitempty"`
	ParallelToolCalls  *bool           `json:"parallel_tool_calls,omitempty"`
	Text               *wireText       `json:"text,omitempty"`
	MaxOutputTokens    int             `json:"max_output_tokens,omitempty"`
	Stream             bool            `json:"stream,omitempty"`
	PreviousResponseID string          `json:"previous_response_id,omitempty"`
}

type wireTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

type wireText struct {
	Format *wireFormat `json:"format,omitempty"`
}

type wireFormat struct {
	Type   string          `json:"type"`
	Name   string          `json:"name,omitempty"`
	Schema json.RawMessage `json:"schema,omitempty"`
	Strict *bool           `json:"strict,omitempty"`
}

// wireItem is any input or output item, for decoding.
type wireItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
	Output           json.RawMessage `json:"output"`
	Summary          []wireSummary   `json:"summary"`
	EncryptedContent *string         `json:"encrypted_content"`
	Status           string          `json:"status"`
}

type wireSummary struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type wireContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// decodeErr turns a json error into a DecodeError with the offset it names.
func decodeErr(op string, base int64, path string, err error) error {
	return wire.JSONError(protocolName, op, base, path, err)
}

// decodeText reads message content: a string or a list of content parts, of
// which the text kinds (input_text, output_text, text) are kept.
func decodeText(raw json.RawMessage, op, path string) ([]core.Part, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, decodeErr(op, -1, path, err)
		}
		return []core.Part{core.TextPart(s)}, nil
	}
	var list []wireContent
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, decodeErr(op, -1, path, err)
	}
	var parts []core.Part
	for _, c := range list {
		switch c.Type {
		case "input_text", "output_text", "text":
			parts = append(parts, core.TextPart(c.Text))
		}
	}
	return parts, nil
}

// itemDecoder turns items into canonical messages, merging consecutive
// assistant-side items (reasoning, function_call, assistant message) into
// one assistant message and consecutive function_call_output items into one
// RoleTool message.
type itemDecoder struct {
	op   string
	msgs []core.Message
}

func (d *itemDecoder) last(role core.Role) *core.Message {
	if n := len(d.msgs); n > 0 && d.msgs[n-1].Role == role {
		return &d.msgs[n-1]
	}
	d.msgs = append(d.msgs, core.Message{Role: role, Parts: []core.Part{}})
	return &d.msgs[len(d.msgs)-1]
}

func (d *itemDecoder) item(it wireItem, path string) error {
	typ := it.Type
	if typ == "" && it.Role != "" {
		typ = "message"
	}
	switch typ {
	case "message":
		parts, err := decodeText(it.Content, d.op, path+".content")
		if err != nil {
			return err
		}
		switch it.Role {
		case "assistant":
			m := d.last(core.RoleAssistant)
			m.Parts = append(m.Parts, parts...)
		case "user":
			d.msgs = append(d.msgs, core.Message{Role: core.RoleUser, Parts: nonNil(parts)})
		case "system", "developer":
			d.msgs = append(d.msgs, core.Message{Role: core.RoleSystem, Parts: nonNil(parts)})
		default:
			return &DecodeError{Protocol: protocolName, Op: d.op, Offset: -1, Path: path + ".role", Err: fmt.Errorf("%w: unknown role %q", core.ErrMalformed, it.Role)}
		}
	case "reasoning":
		m := d.last(core.RoleAssistant)
		m.Parts = append(m.Parts, reasoningParts(it)...)
	case "function_call":
		m := d.last(core.RoleAssistant)
		c := core.Call{ID: it.CallID, ItemID: it.ID, Name: it.Name}
		if args, ok := argsOf(it.Arguments); ok {
			c.Arguments = json.RawMessage(args)
		}
		m.Parts = append(m.Parts, core.CallPart(c))
	case "function_call_output":
		parts, err := decodeText(it.Output, d.op, path+".output")
		if err != nil {
			return err
		}
		if len(parts) == 1 && parts[0].Text == "" {
			parts = nil
		}
		m := d.last(core.RoleTool)
		m.Parts = append(m.Parts, core.ResultPart(core.Result{CallID: it.CallID, Content: parts}))
	default:
		// Built-in tool items (web_search_call, file_search_call,
		// local_shell_call, ...) and item references are not modelled.
	}
	return nil
}

// argsOf reads an item's arguments: a JSON string as sent, or (from
// servers that send an object, C04) the object's JSON text. ok is false when
// there are none.
func argsOf(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	if raw[0] == '"' {
		s, err := jsonstr.UnquoteRaw(raw)
		if err != nil {
			return "", false
		}
		return s, true
	}
	return string(raw), true
}

func nonNil(p []core.Part) []core.Part {
	if p == nil {
		return []core.Part{}
	}
	return p
}

// reasoningParts gives one thinking part per summary entry (one empty part
// when there is no summary), each carrying the item id in ItemID and the
// encrypted content in Signature.
func reasoningParts(it wireItem) []core.Part {
	enc := ""
	if it.EncryptedContent != nil {
		enc = *it.EncryptedContent
	}
	var parts []core.Part
	for _, s := range it.Summary {
		parts = append(parts, core.Part{Kind: core.PartThinking, Text: s.Text, Signature: enc, ItemID: it.ID})
	}
	var content []wireContent
	_ = json.Unmarshal(it.Content, &content)
	for _, c := range content {
		if c.Type == "reasoning_text" {
			parts = append(parts, core.Part{Kind: core.PartThinking, Text: c.Text, Signature: enc, ItemID: it.ID})
		}
	}
	if parts == nil {
		parts = []core.Part{{Kind: core.PartThinking, Signature: enc, ItemID: it.ID}}
	}
	return parts
}

// DecodeRequest decodes a /v1/responses request body. instructions and
// input items of role system or developer become RoleSystem messages;
// previous_response_id, store, include, reasoning and other unmodelled
// fields are ignored, and so are built-in tools and non-text content.
func (a *Adapter) DecodeRequest(body []byte) (*core.Request, error) {
	const op = "decode request"
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, decodeErr(op, 0, "", err)
	}
	req := &core.Request{Model: w.Model, MaxTokens: w.MaxOutputTokens, Stream: w.Stream, ParallelToolCalls: w.ParallelToolCalls}
	d := &itemDecoder{op: op}
	if w.Instructions != nil {
		d.msgs = append(d.msgs, core.Message{Role: core.RoleSystem, Parts: []core.Part{core.TextPart(*w.Instructions)}})
	}
	in := bytes.TrimSpace(w.Input)
	if len(in) > 0 && in[0] == '"' {
		var s string
		if err := json.Unmarshal(in, &s); err != nil {
			return nil, decodeErr(op, -1, "input", err)
		}
		d.msgs = append(d.msgs, core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart(s)}})
	} else if len(in) > 0 && string(in) != "null" {
		var items []wireItem
		if err := json.Unmarshal(in, &items); err != nil {
			return nil, decodeErr(op, -1, "input", err)
		}
		for i, it := range items {
			if err := d.item(it, fmt.Sprintf("input[%d]", i)); err != nil {
				return nil, err
			}
		}
	}
	req.Messages = d.msgs
	if req.Messages == nil {
		req.Messages = []core.Message{}
	}
	for _, t := range w.Tools {
		if t.Type != "function" {
			continue
		}
		req.Tools = append(req.Tools, core.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.Parameters, Strict: t.Strict != nil && *t.Strict})
	}
	if tc := bytes.TrimSpace(w.ToolChoice); len(tc) > 0 && string(tc) != "null" {
		if tc[0] == '"' {
			var s string
			_ = json.Unmarshal(tc, &s)
			switch s {
			case "auto":
				req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceAuto}
			case "none":
				req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceNone}
			case "required":
				req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceRequired}
			default:
				return nil, &DecodeError{Protocol: protocolName, Op: op, Offset: -1, Path: "tool_choice", Err: fmt.Errorf("%w: unknown tool_choice %q", core.ErrMalformed, s)}
			}
		} else {
			var o struct {
				Type string `json:"type"`
				Name string `json:"name"`
			}
			if err := json.Unmarshal(tc, &o); err != nil {
				return nil, decodeErr(op, -1, "tool_choice", err)
			}
			if o.Type == "function" {
				req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceTool, Name: o.Name}
			}
		}
	}
	if w.Text != nil && w.Text.Format != nil && w.Text.Format.Type == "json_schema" {
		f := w.Text.Format
		req.ResponseFormat = &core.ResponseFormat{Name: f.Name, Schema: f.Schema, Strict: f.Strict != nil && *f.Strict}
	}
	if a.IDMap != nil {
		for i, m := range req.Messages {
			req.Messages[i] = a.IDMap.FromWireMessage(m)
		}
	}
	return req, nil
}

// ValidateHistory checks that every function_call has a
// function_call_output later in the conversation (G07), that every output
// answers an earlier call, and that call ids are unique. Every problem is
// reported, each a *core.HistoryError naming the message index and call
// id and wrapping core's sentinel of the rule.
func ValidateHistory(req *core.Request) error {
	return validate(req.Messages, 0, nil)
}

// errMissingOutput is G07 in the protocol's words.
var errMissingOutput = fmt.Errorf("%w: function_call without function_call_output", core.ErrMissingResult)

// validate checks msgs; base is the index of msgs[0] in the request and
// stored the call ids the server already holds (stateful replay, G08).
func validate(msgs []core.Message, base int, stored map[string]bool) error {
	var errs []error
	calls := map[string]int{}
	answered := map[string]bool{}
	for i, m := range msgs {
		for _, r := range m.Results() {
			if r.CallID == "" {
				errs = append(errs, &core.HistoryError{Protocol: protocolName, Message: base + i, Guard: "G06", Err: fmt.Errorf("%w: function_call_output without call_id", core.ErrResultWithoutID)})
			} else if _, ok := calls[r.CallID]; !ok && !stored[r.CallID] {
				errs = append(errs, &core.HistoryError{Protocol: protocolName, Message: base + i, CallID: r.CallID, Guard: "G02", Err: fmt.Errorf("%w: function_call_output without function_call", core.ErrOrphanResult)})
			}
			answered[r.CallID] = true
		}
		if m.Role != core.RoleAssistant {
			continue
		}
		for _, c := range m.Calls() {
			if j, dup := calls[c.ID]; dup {
				errs = append(errs, &core.HistoryError{Protocol: protocolName, Message: base + i, CallID: c.ID, Guard: "D06", Err: fmt.Errorf("%w: duplicate call_id, first used in message %d", core.ErrDuplicateCallID, j)})
				continue
			}
			calls[c.ID] = base + i
		}
	}
	for i, m := range msgs {
		if m.Role != core.RoleAssistant {
			continue
		}
		for _, c := range m.Calls() {
			if !answered[c.ID] {
				errs = append(errs, &core.HistoryError{Protocol: protocolName, Message: base + i, CallID: c.ID, Guard: "G07", Err: errMissingOutput})
			}
		}
	}
	return errors.Join(errs...)
}

// EncodeRequest encodes a canonical request as a /v1/responses body with
// the whole conversation in input (stateless replay). It fails with a
// *core.HistoryError when a function_call has no function_call_output (G07) or
// an output has no call. A tool name outside ^[a-zA-Z0-9_-]{1,64}$ is
// refused, naming the tool (E01, E02; tools.NameMapper maps such names), and
// so is a tool whose parameters hold one of oaichat.OpenAIRootKeywords
// (oneOf, anyOf, allOf, enum, const, not) at the top level, which OpenAI
// answers with a 400. A call id over MaxCallIDLen characters is sent
// through Adapter.IDMap (D04).
func (a *Adapter) EncodeRequest(req *core.Request) ([]byte, error) {
	if req == nil {
		return nil, fmt.Errorf("openai-responses: encode request: %w: nil request", core.ErrMalformed)
	}
	if err := partKinds.Check("openai-responses: encode request", req.Messages); err != nil {
		return nil, err
	}
	if err := ValidateHistory(req); err != nil {
		return nil, err
	}
	return a.encode(req, req.Messages, 0, "")
}

// EncodeRequestAfter encodes a stateful follow-up (G08): previous_response_id
// names the stored response, and input holds only the messages after the
// last assistant message, since the server already stores everything up to
// and including it; re-sending a stored function_call is the "Duplicate
// item" error. It checks what it can: every call of that last assistant
// message has an output in the new messages, and every output answers one
// of those calls. It cannot check that the server still holds the response,
// nor that the stored conversation is the one in req.
func (a *Adapter) EncodeRequestAfter(req *core.Request, previousResponseID string) ([]byte, error) {
	if req == nil {
		return nil, fmt.Errorf("openai-responses: encode request: %w: nil request", core.ErrMalformed)
	}
	if previousResponseID == "" {
		return nil, fmt.Errorf("openai-responses: encode request: empty previous_response_id: %w", core.ErrUnsupported)
	}
	if err := partKinds.Check("openai-responses: encode request", req.Messages); err != nil {
		return nil, err
	}
	last := -1
	for i, m := range req.Messages {
		if m.Role == core.RoleAssistant {
			last = i
		}
	}
	if last < 0 {
		return nil, fmt.Errorf("openai-responses: encode request: previous_response_id without an assistant message to continue: %w", core.ErrUnsupported)
	}
	stored := map[string]bool{}
	for _, c := range req.Messages[last].Calls() {
		stored[c.ID] = true
	}
	rest := req.Messages[last+1:]
	var errs []error
	if err := validate(rest, last+1, stored); err != nil {
		errs = append(errs, err)
	}
	answered := map[string]bool{}
	for _, m := range rest {
		for _, r := range m.Results() {
			answered[r.CallID] = true
		}
	}
	for _, c := range req.Messages[last].Calls() {
		if !answered[c.ID] {
			errs = append(errs, &core.HistoryError{Protocol: protocolName, Message: last, CallID: c.ID, Guard: "G07", Err: errMissingOutput})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return a.encode(req, rest, last+1, previousResponseID)
}

func (a *Adapter) encode(req *core.Request, msgs []core.Message, base int, prev string) ([]byte, error) {
	w := struct {
		Model              string           `json:"model,omitempty"`
		PreviousResponseID string           `json:"previous_response_id,omitempty"`
		Input              []map[string]any `json:"input"`
		Tools              []wireTool       `json:"tools,omitempty"`
		ToolChoice         any              `json:"tool_choice,omitempty"`
		ParallelToolCalls  *bool            `json:"parallel_tool_calls,omitempty"`
		Text               *wireText        `json:"text,omitempty"`
		MaxOutputTokens    int              `json:"max_output_tokens,omitempty"`
		Stream             bool             `json:"stream,omitempty"`
	}{Model: req.Model, PreviousResponseID: prev, ParallelToolCalls: req.ParallelToolCalls, MaxOutputTokens: req.MaxTokens, Stream: req.Stream, Input: []map[string]any{}}
	if a.IDMap != nil {
		var err error
		if msgs, err = a.IDMap.ToWireMessages(msgs); err != nil {
			return nil, fmt.Errorf("openai-responses: encode request: %w", err)
		}
	}
	for i, m := range msgs {
		items, err := encodeMessage(base+i, m)
		if err != nil {
			return nil, err
		}
		w.Input = append(w.Input, items...)
	}
	for i, t := range req.Tools {
		if err := a.ToolNameRules().Check(t.Name); err != nil {
			// OpenAI answers 400 (E01, E02).
			return nil, fmt.Errorf("openai-responses: encode request: tools[%d]: %w", i, err)
		}
		params := t.InputSchema
		if k := oaichat.RootKeyword(params, oaichat.OpenAIRootKeywords); k != "" {
			return nil, fmt.Errorf("openai-responses: encode request: tool %q: parameters/%s: %w: the API refuses %s at the top level of a function's parameters", t.Name, k, core.ErrUnsupported, strings.Join(oaichat.OpenAIRootKeywords, ", "))
		}
		if t.Strict {
			s, err := oaichat.StrictSchema(params)
			if err != nil {
				return nil, fmt.Errorf("openai-responses: encode request: tool %q: %w", t.Name, err)
			}
			params = s
		} else if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		strict := t.Strict
		w.Tools = append(w.Tools, wireTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params, Strict: &strict})
	}
	if tc := req.ToolChoice; tc != nil {
		switch tc.Mode {
		case core.ToolChoiceAuto, core.ToolChoiceNone, core.ToolChoiceRequired:
			w.ToolChoice = string(tc.Mode)
		case core.ToolChoiceTool:
			w.ToolChoice = map[string]string{"type": "function", "name": tc.Name}
		default:
			return nil, fmt.Errorf("openai-responses: encode request: tool_choice.mode: %w: unknown mode %q", core.ErrMalformed, tc.Mode)
		}
	}
	if rf := req.ResponseFormat; rf != nil {
		strict := rf.Strict
		w.Text = &wireText{Format: &wireFormat{Type: "json_schema", Name: rf.Name, Schema: rf.Schema, Strict: &strict}}
	}
	out, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("openai-responses: encode request: %w", err)
	}
	return out, nil
}

// argsString returns the arguments text to send: {} when empty, else the
// arguments, which must be valid JSON (G09).
func argsString(c core.Call) (string, error) {
	args := strings.TrimSpace(string(c.Arguments))
	if args == "" {
		return "{}", nil
	}
	if !json.Valid([]byte(args)) {
		return "", core.ErrInvalidArguments
	}
	return string(c.Arguments), nil
}

// encodeParts writes an assistant message's parts as output items:
// consecutive thinking parts of one reasoning item (same ItemID) as one
// reasoning item, runs of text as one message item, calls as function_call
// items with their item id (D08).
func encodeParts(i int, parts []core.Part, forResponse bool) ([]map[string]any, error) {
	var items []map[string]any
	var text []map[string]any
	flushText := func() {
		if text != nil {
			it := map[string]any{"type": "message", "role": "assistant", "content": text}
			if forResponse {
				// A response's message item has an id, as EncodeStream
				// names it, and its output_text parts annotations and
				// logprobs, as every recorded one has.
				it["status"], it["id"] = "completed", fmt.Sprintf("msg_%d", len(items))
				for _, t := range text {
					t["annotations"], t["logprobs"] = []any{}, []any{}
				}
			}
			items = append(items, it)
			text = nil
		}
	}
	for k := 0; k < len(parts); k++ {
		p := parts[k]
		switch p.Kind {
		case core.PartText:
			text = append(text, map[string]any{"type": "output_text", "text": p.Text})
		case core.PartThinking:
			flushText()
			if p.ItemID == "" && p.Signature == "" {
				// Reasoning without an item id or encrypted content
				// (another provider's thinking) cannot be replayed.
				continue
			}
			summary := []map[string]any{}
			group := []core.Part{p}
			for k+1 < len(parts) && parts[k+1].Kind == core.PartThinking && parts[k+1].ItemID == p.ItemID && parts[k+1].Signature == p.Signature && p.ItemID != "" {
				k++
				group = append(group, parts[k])
			}
			if !(len(group) == 1 && group[0].Text == "") {
				for _, g := range group {
					summary = append(summary, map[string]any{"type": "summary_text", "text": g.Text})
				}
			}
			it := map[string]any{"type": "reasoning", "summary": summary}
			if p.ItemID != "" {
				it["id"] = p.ItemID
			}
			if p.Signature != "" {
				it["encrypted_content"] = p.Signature
			}
			items = append(items, it)
		case core.PartToolCall:
			flushText()
			if p.Call == nil {
				return nil, fmt.Errorf("openai-responses: encode: message %d: %w: tool_call part without a call", i, core.ErrMalformed)
			}
			args, err := argsString(*p.Call)
			if err != nil {
				return nil, &core.HistoryError{Protocol: protocolName, Message: i, CallID: p.Call.ID, Guard: "G09", Err: err}
			}
			it := map[string]any{"type": "function_call", "call_id": p.Call.ID, "name": p.Call.Name, "arguments": args}
			if p.Call.ItemID != "" {
				it["id"] = p.Call.ItemID
			}
			if forResponse {
				// Every recorded function_call item has an id: one the
				// call lacks is named as EncodeStream names it.
				it["status"] = "completed"
				if p.Call.ItemID == "" {
					it["id"] = fmt.Sprintf("fc_%d", len(items))
				}
			}
			items = append(items, it)
		}
	}
	flushText()
	return items, nil
}

// partKinds are the parts each role carries: system text; input_text and
// function_call_output items from user and tool messages; message,
// reasoning and function_call items from an assistant message.
var partKinds = wire.PartKinds{
	core.RoleSystem:    {core.PartText},
	core.RoleUser:      {core.PartText, core.PartToolResult},
	core.RoleTool:      {core.PartText, core.PartToolResult},
	core.RoleAssistant: {core.PartText, core.PartThinking, core.PartToolCall},
}

// encodeMessage writes message i, whose parts partKinds has checked.
func encodeMessage(i int, m core.Message) ([]map[string]any, error) {
	switch m.Role {
	case core.RoleAssistant:
		return encodeParts(i, m.Parts, false)
	case core.RoleSystem, core.RoleUser, core.RoleTool:
		var items []map[string]any
		var content []map[string]any
		role := "user"
		if m.Role == core.RoleSystem {
			role = "system"
		}
		flush := func() {
			if content != nil {
				items = append(items, map[string]any{"type": "message", "role": role, "content": content})
				content = nil
			}
		}
		for _, p := range m.Parts {
			switch p.Kind {
			case core.PartText:
				content = append(content, map[string]any{"type": "input_text", "text": p.Text})
			case core.PartToolResult:
				if p.Result == nil {
					return nil, fmt.Errorf("openai-responses: encode request: message %d: %w: tool_result part without a result", i, core.ErrMalformed)
				}
				flush()
				items = append(items, map[string]any{"type": "function_call_output", "call_id": p.Result.CallID, "output": resultOutput(*p.Result)})
			}
		}
		flush()
		if m.Role != core.RoleTool && len(m.Parts) == 0 {
			items = append(items, map[string]any{"type": "message", "role": role, "content": []any{}})
		}
		return items, nil
	}
	return nil, fmt.Errorf("openai-responses: encode request: message %d: role %q: %w", i, m.Role, core.ErrUnsupported)
}

// resultOutput is a result's output: a string for zero or one text part,
// else a list of input_text parts. IsError has no place on the wire.
func resultOutput(r core.Result) any {
	var texts []string
	for _, p := range r.Content {
		if p.Kind == core.PartText {
			texts = append(texts, p.Text)
		}
	}
	if len(texts) <= 1 {
		return strings.Join(texts, "")
	}
	list := make([]map[string]any, len(texts))
	for k, t := range texts {
		list[k] = map[string]any{"type": "input_text", "text": t}
	}
	return list
}

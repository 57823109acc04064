package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/rules"
	"github.com/toolconform/conform/providers/internal/wire"
)

type wireRequest struct {
	Model        string            `json:"model,omitempty"`
	MaxTokens    int               `json:"max_tokens,omitempty"`
	System       json.RawMessage   `json:"system,omitempty"`
	Messages     []wireMessage     `json:"messages"`
	Tools        []wireTool        `json:"tools,omitempty"`
	ToolChoice   *wireToolChoice   `json:"tool_choice,omitempty"`
	OutputFormat *wireOutputFormat `json:"output_format,omitempty"`
	Stream       bool              `json:"stream,omitempty"`
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type wireTool struct {
	Type        string          `json:"type,omitempty"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
}

type wireToolChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse *bool  `json:"disable_parallel_tool_use,omitempty"`
}

type wireOutputFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema,omitempty"`
}

// wireBlock is any content block, for decoding.
type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// isProviderRun reports whether a block type is a tool the provider runs
// itself (server_tool_use, web_search_tool_result, code_execution_tool_result,
// mcp_tool_use, ...). Such blocks are never client calls.
func isProviderRun(typ string) bool {
	switch typ {
	case "server_tool_use", "mcp_tool_use", "mcp_tool_result":
		return true
	}
	return len(typ) > len("_tool_result") && typ[len(typ)-len("_tool_result"):] == "_tool_result"
}

// decodeErr turns a json error into a DecodeError with the offset it names.
func decodeErr(op string, base int64, path string, err error) error {
	return wire.JSONError(protocolName, op, base, path, err)
}

// decodeBlocks reads content that is either a string or an array of blocks.
func decodeBlocks(raw json.RawMessage, op, path string) ([]wireBlock, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, decodeErr(op, -1, path, err)
		}
		return []wireBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []wireBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, decodeErr(op, -1, path, err)
	}
	return blocks, nil
}

// DecodeRequest decodes a /v1/messages request body. The system field
// becomes a leading RoleSystem message (one text part per block). A user
// message that holds tool_result blocks becomes a RoleTool message. Server
// tools (tools with a type such as web_search_20250305 or computer_20251124)
// and content blocks conform does not model (images, documents,
// server_tool_use) are dropped.
func (a *Adapter) DecodeRequest(body []byte) (*core.Request, error) {
	const op = "decode request"
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, decodeErr(op, 0, "", err)
	}
	req := &core.Request{Model: w.Model, MaxTokens: w.MaxTokens, Stream: w.Stream, Messages: []core.Message{}}
	sys, err := decodeBlocks(w.System, op, "system")
	if err != nil {
		return nil, err
	}
	if len(sys) > 0 {
		m := core.Message{Role: core.RoleSystem}
		for _, b := range sys {
			if b.Type == "text" {
				m.Parts = append(m.Parts, core.TextPart(b.Text))
			}
		}
		req.Messages = append(req.Messages, m)
	}
	for i, wm := range w.Messages {
		path := fmt.Sprintf("messages[%d]", i)
		blocks, err := decodeBlocks(wm.Content, op, path+".content")
		if err != nil {
			return nil, err
		}
		var m core.Message
		switch wm.Role {
		case "user":
			m.Role = core.RoleUser
		case "assistant":
			m.Role = core.RoleAssistant
		default:
			return nil, &DecodeError{Protocol: protocolName, Op: op, Offset: -1, Path: path + ".role", Err: fmt.Errorf("%w: unknown role %q", core.ErrMalformed, wm.Role)}
		}
		m.Parts = []core.Part{}
		for j, b := range blocks {
			bp := fmt.Sprintf("%s.content[%d]", path, j)
			p, ok, err := decodeBlock(b, op, bp)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			if p.Kind == core.PartToolResult {
				m.Role = core.RoleTool
			}
			m.Parts = append(m.Parts, p)
		}
		req.Messages = append(req.Messages, m)
	}
	for _, t := range w.Tools {
		if t.Type != "" && t.Type != "custom" {
			continue
		}
		req.Tools = append(req.Tools, core.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	if tc := w.ToolChoice; tc != nil {
		switch tc.Type {
		case "auto":
			req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceAuto}
		case "any":
			req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceRequired}
		case "none":
			req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceNone}
		case "tool":
			req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceTool, Name: tc.Name}
		default:
			return nil, &DecodeError{Protocol: protocolName, Op: op, Offset: -1, Path: "tool_choice.type", Err: fmt.Errorf("%w: unknown tool_choice type %q", core.ErrMalformed, tc.Type)}
		}
		if tc.DisableParallelToolUse != nil {
			p := !*tc.DisableParallelToolUse
			req.ParallelToolCalls = &p
		}
	}
	if of := w.OutputFormat; of != nil && of.Type == "json_schema" {
		req.ResponseFormat = &core.ResponseFormat{Schema: of.Schema}
	}
	return req, nil
}

// decodeBlock maps one content block to a Part; ok is false for blocks that
// conform does not model or that the provider runs itself.
func decodeBlock(b wireBlock, op, path string) (core.Part, bool, error) {
	switch b.Type {
	case "text":
		return core.TextPart(b.Text), true, nil
	case "thinking":
		return core.Part{Kind: core.PartThinking, Text: b.Thinking, Signature: b.Signature}, true, nil
	case "redacted_thinking":
		return core.Part{Kind: core.PartThinking, Data: b.Data}, true, nil
	case "tool_use":
		args := bytes.TrimSpace(b.Input)
		if len(args) == 0 || string(args) == "null" {
			args = []byte("{}")
		}
		return core.CallPart(core.Call{ID: b.ID, Name: b.Name, Arguments: json.RawMessage(args)}), true, nil
	case "tool_result":
		inner, err := decodeBlocks(b.Content, op, path+".content")
		if err != nil {
			return core.Part{}, false, err
		}
		r := core.Result{CallID: b.ToolUseID, IsError: b.IsError}
		for _, ib := range inner {
			if ib.Type == "text" && ib.Text != "" {
				r.Content = append(r.Content, core.TextPart(ib.Text))
			}
		}
		return core.ResultPart(r), true, nil
	}
	return core.Part{}, false, nil
}

// turn is a run of canonical messages that travel as one wire message:
// one message, or consecutive RoleTool messages (Chat Completions style, one
// result per message), which Anthropic needs in a single user turn.
type turn struct {
	start, end int // Messages[start:end]
	msg        core.Message
}

// turns groups messages into wire turns.
func turns(msgs []core.Message) []turn {
	var out []turn
	for i := 0; i < len(msgs); {
		j := i + 1
		m := msgs[i]
		if m.Role == core.RoleTool {
			m = core.Message{Role: core.RoleTool, Parts: append([]core.Part(nil), m.Parts...)}
			for j < len(msgs) && msgs[j].Role == core.RoleTool {
				m.Parts = append(m.Parts, msgs[j].Parts...)
				j++
			}
		}
		out = append(out, turn{start: i, end: j, msg: m})
		i = j
	}
	return out
}

// resultIndex is the index of the message of turn t that holds the result
// for id.
func resultIndex(msgs []core.Message, t turn, id string) int {
	for k := t.start; k < t.end; k++ {
		for _, r := range msgs[k].Results() {
			if r.CallID == id {
				return k
			}
		}
	}
	return t.start
}

// ValidateHistory checks the conversation against Anthropic's history
// rules and returns every problem found, joined. The rules every provider
// shares come from core.CheckHistory (G01, G02, G03, G06, D06); Anthropic
// adds its own: each tool_use must have its tool_result in the very next
// turn (G01: a user text turn between them is refused too), each
// tool_result must answer a tool_use of the turn right before it (G02), and
// call ids are unique over the whole conversation. A turn is one message, or
// a run of consecutive RoleTool messages, which are sent as one user
// message. Each problem is a *core.HistoryError of this protocol naming the
// message index and the call id and wrapping core's sentinel of the rule;
// Anthropic's own rules say so in its words.
func ValidateHistory(req *core.Request) error {
	var errs []error
	flagged := map[string]bool{} // guard + call id, as core.CheckHistory found them
	if err := core.CheckHistory(req.Messages); err != nil {
		list := []error{err}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			list = j.Unwrap()
		}
		for _, e := range list {
			var he *core.HistoryError
			if errors.As(e, &he) {
				flagged[he.Guard+"\x00"+he.CallID] = true
				he.Protocol = protocolName
			}
			errs = append(errs, e)
		}
	}
	seen := map[string]int{}
	msgs := req.Messages
	ts := turns(msgs)
	for ti, t := range ts {
		m := t.msg
		if m.Role == core.RoleAssistant {
			for _, c := range m.Calls() {
				if j, dup := seen[c.ID]; dup {
					if !flagged["D06\x00"+c.ID] {
						errs = append(errs, &core.HistoryError{Protocol: protocolName, Message: t.start, CallID: c.ID, Guard: "D06", Err: fmt.Errorf("%w: first used in message %d; Anthropic wants ids unique over the conversation", core.ErrDuplicateCallID, j)})
					}
					continue
				}
				seen[c.ID] = t.start
				answered := false
				if ti+1 < len(ts) && ts[ti+1].msg.Role != core.RoleAssistant {
					for _, r := range ts[ti+1].msg.Results() {
						if r.CallID == c.ID {
							answered = true
						}
					}
				}
				if !answered && !flagged["G01\x00"+c.ID] {
					errs = append(errs, &core.HistoryError{Protocol: protocolName, Message: t.start, CallID: c.ID, Guard: "G01", Err: fmt.Errorf("%w: tool_use without tool_result in the next message", core.ErrMissingResult)})
				}
			}
		}
		results := m.Results()
		if len(results) == 0 {
			continue
		}
		var calls []core.Call
		if ti > 0 && ts[ti-1].msg.Role == core.RoleAssistant {
			calls = ts[ti-1].msg.Calls()
		}
		for _, r := range results {
			if r.CallID == "" || flagged["G02\x00"+r.CallID] || flagged["G03\x00"+r.CallID] {
				continue // reported by core.CheckHistory
			}
			found := false
			for _, c := range calls {
				if c.ID == r.CallID {
					found = true
				}
			}
			if !found {
				errs = append(errs, &core.HistoryError{Protocol: protocolName, Message: resultIndex(msgs, t, r.CallID), CallID: r.CallID, Guard: "G02", Err: fmt.Errorf("%w: tool_result without tool_use in the previous message", core.ErrOrphanResult)})
			}
		}
	}
	return errors.Join(errs...)
}

// EncodeRequest encodes a canonical request as a /v1/messages body.
//
// It first runs ValidateHistory and fails on any G01/G02 problem.
// Consecutive RoleTool messages (one result each, as Chat Completions
// histories have them) are sent as one user turn. Leading
// system messages become the system field; a system message later in the
// conversation is an error. Text parts that are empty or hold only white
// space are dropped, in the system field, in user and assistant turns and
// inside tool results, since the API answers 400 "text content blocks must
// contain non-whitespace text" for either (G11); a message left with no
// content is an error naming it. The
// tool_result blocks of a turn are written first and in the order of the
// preceding tool_use blocks (G05), whatever their canonical order. Call
// arguments must be a JSON object (empty means {}), else the error names the
// message and the call (G09). A tool name outside ^[a-zA-Z0-9_-]{1,64}$ is
// refused, naming the tool (E01, E02; tools.NameMapper maps such names), and
// so is an input schema with oneOf, allOf or anyOf at its top level, which
// the API answers with a 400 ("input_schema does not support oneOf, allOf,
// or anyOf at the top level", anthropics/claude-code #5319,
// mobile-next/mobile-mcp #344). A thinking part after a tool call in one
// assistant message is refused with a *core.HistoryError naming the message
// and the part, wrapping ErrThinkingOrder (G12).
func (a *Adapter) EncodeRequest(req *core.Request) ([]byte, error) {
	if req == nil {
		return nil, fmt.Errorf("anthropic: encode request: %w: nil request", core.ErrMalformed)
	}
	if err := partKinds.Check("anthropic: encode request", req.Messages); err != nil {
		return nil, err
	}
	if err := ValidateHistory(req); err != nil {
		return nil, err
	}
	w := struct {
		Model        string            `json:"model,omitempty"`
		MaxTokens    int               `json:"max_tokens,omitempty"`
		System       []map[string]any  `json:"system,omitempty"`
		Messages     []outMessage      `json:"messages"`
		Tools        []wireTool        `json:"tools,omitempty"`
		ToolChoice   *wireToolChoice   `json:"tool_choice,omitempty"`
		OutputFormat *wireOutputFormat `json:"output_format,omitempty"`
		Stream       bool              `json:"stream,omitempty"`
	}{Model: req.Model, MaxTokens: req.MaxTokens, Stream: req.Stream, Messages: []outMessage{}}
	inSystem := true
	ts := turns(req.Messages)
	for ti, t := range ts {
		i, m := t.start, t.msg
		if m.Role == core.RoleSystem {
			if !inSystem {
				return nil, fmt.Errorf("anthropic: encode request: message %d: system message after the conversation started: %w", i, core.ErrUnsupported)
			}
			for _, p := range m.Parts {
				if !isBlank(p.Text) {
					w.System = append(w.System, map[string]any{"type": "text", "text": p.Text})
				}
			}
			continue
		}
		inSystem = false
		var prevCalls []core.Call
		if ti > 0 && ts[ti-1].msg.Role == core.RoleAssistant {
			prevCalls = ts[ti-1].msg.Calls()
		}
		om, err := encodeMessage(i, m, prevCalls)
		if err != nil {
			return nil, err
		}
		w.Messages = append(w.Messages, om)
	}
	for i, t := range req.Tools {
		if err := a.ToolNameRules().Check(t.Name); err != nil {
			// Anthropic answers 400 (E01, E02).
			return nil, fmt.Errorf("anthropic: encode request: tools[%d]: %w", i, err)
		}
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		if k := rootComposition(schema); k != "" {
			return nil, fmt.Errorf("anthropic: encode request: tools[%d] %q: input_schema/%s: %w: the API refuses oneOf, allOf and anyOf at the top level of input_schema", i, t.Name, k, core.ErrUnsupported)
		}
		w.Tools = append(w.Tools, wireTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if tc := req.ToolChoice; tc != nil || req.ParallelToolCalls != nil {
		wtc := &wireToolChoice{Type: "auto"}
		if tc != nil {
			switch tc.Mode {
			case core.ToolChoiceAuto:
			case core.ToolChoiceNone:
				wtc.Type = "none"
			case core.ToolChoiceRequired:
				wtc.Type = "any"
			case core.ToolChoiceTool:
				wtc.Type, wtc.Name = "tool", tc.Name
			default:
				return nil, fmt.Errorf("anthropic: encode request: tool_choice.mode: %w: unknown mode %q", core.ErrMalformed, tc.Mode)
			}
		}
		if req.ParallelToolCalls != nil {
			d := !*req.ParallelToolCalls
			wtc.DisableParallelToolUse = &d
		}
		w.ToolChoice = wtc
	}
	if rf := req.ResponseFormat; rf != nil {
		w.OutputFormat = &wireOutputFormat{Type: "json_schema", Schema: rf.Schema}
	}
	out, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("anthropic: encode request: %w", err)
	}
	return out, nil
}

// ErrThinkingOrder reports a thinking block after a tool_use in one
// assistant message (G12), which Anthropic refuses and the encoder cannot
// fix, since signed thinking must not be reordered.
var ErrThinkingOrder = errors.New("thinking block after a tool_use in one assistant message")

// checkThinkingOrder refuses an assistant message (index i) that holds a
// thinking part after a tool call (G12) with a *core.HistoryError naming
// the message, the nearest call before the part and the part, wrapping
// ErrThinkingOrder; see the package documentation for why this is an
// error and not a reordering.
func checkThinkingOrder(i int, m core.Message) error {
	if j, callID, ok := rules.ThinkingAfterCall(m.Parts); ok {
		return &core.HistoryError{Protocol: protocolName, Message: i, CallID: callID, Guard: "G12",
			Err: fmt.Errorf("%w: parts[%d]: a signed thinking block goes before the tool_use blocks of its message and cannot be moved; send the message as the model produced it", ErrThinkingOrder, j)}
	}
	return nil
}

// isBlank reports whether text is empty or only white space, which
// Anthropic refuses as a text block (G11).
func isBlank(text string) bool { return strings.TrimSpace(text) == "" }

type outMessage struct {
	Role    string           `json:"role"`
	Content []map[string]any `json:"content"`
}

// checkArgs returns the arguments to send for a call: {} when empty, the
// arguments when they are a JSON object, else an error (G09).
func checkArgs(c core.Call) (json.RawMessage, error) {
	args := bytes.TrimSpace(c.Arguments)
	if len(args) == 0 {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid(args) || args[0] != '{' {
		return nil, core.ErrInvalidArguments
	}
	return json.RawMessage(args), nil
}

// partKinds are the parts each role carries: system text; text and
// tool_result blocks in a user turn, where a tool message's results go
// too; text, thinking and tool_use blocks in an assistant turn.
var partKinds = wire.PartKinds{
	core.RoleSystem:    {core.PartText},
	core.RoleUser:      {core.PartText, core.PartToolResult},
	core.RoleTool:      {core.PartText, core.PartToolResult},
	core.RoleAssistant: {core.PartText, core.PartThinking, core.PartToolCall},
}

// encodeMessage writes message i, whose parts partKinds has checked.
func encodeMessage(i int, m core.Message, prevCalls []core.Call) (outMessage, error) {
	om := outMessage{Content: []map[string]any{}}
	switch m.Role {
	case core.RoleUser, core.RoleTool:
		om.Role = "user"
		order := map[string]int{}
		for k, c := range prevCalls {
			order[c.ID] = k
		}
		var results []core.Result
		var rest []core.Part
		for _, p := range m.Parts {
			switch p.Kind {
			case core.PartToolResult:
				if p.Result != nil {
					results = append(results, *p.Result)
				}
			case core.PartText:
				rest = append(rest, p)
			}
		}
		sort.SliceStable(results, func(x, y int) bool { return order[results[x].CallID] < order[results[y].CallID] })
		for _, r := range results {
			b := map[string]any{"type": "tool_result", "tool_use_id": r.CallID}
			var content []map[string]any
			for _, p := range r.Content {
				if p.Kind == core.PartText && !isBlank(p.Text) {
					content = append(content, map[string]any{"type": "text", "text": p.Text})
				}
			}
			if content != nil {
				b["content"] = content
			}
			if r.IsError {
				b["is_error"] = true
			}
			om.Content = append(om.Content, b)
		}
		for _, p := range rest {
			if !isBlank(p.Text) {
				om.Content = append(om.Content, map[string]any{"type": "text", "text": p.Text})
			}
		}
	case core.RoleAssistant:
		om.Role = "assistant"
		if err := checkThinkingOrder(i, m); err != nil {
			return om, err
		}
		for _, p := range m.Parts {
			switch p.Kind {
			case core.PartText:
				if !isBlank(p.Text) {
					om.Content = append(om.Content, map[string]any{"type": "text", "text": p.Text})
				}
			case core.PartThinking:
				if p.Data != "" {
					om.Content = append(om.Content, map[string]any{"type": "redacted_thinking", "data": p.Data})
				} else {
					om.Content = append(om.Content, map[string]any{"type": "thinking", "thinking": p.Text, "signature": p.Signature})
				}
			case core.PartToolCall:
				if p.Call == nil {
					return om, fmt.Errorf("anthropic: encode request: message %d: %w: tool_call part without a call", i, core.ErrMalformed)
				}
				args, err := checkArgs(*p.Call)
				if err != nil {
					return om, &core.HistoryError{Protocol: protocolName, Message: i, CallID: p.Call.ID, Guard: "G09", Err: err}
				}
				om.Content = append(om.Content, map[string]any{"type": "tool_use", "id": p.Call.ID, "name": p.Call.Name, "input": args})
			}
		}
	default:
		return om, fmt.Errorf("anthropic: encode request: message %d: role %q: %w", i, m.Role, core.ErrUnsupported)
	}
	if len(om.Content) == 0 {
		return om, fmt.Errorf("anthropic: encode request: message %d: no content left after dropping empty and white-space-only text (G11): %w", i, core.ErrUnsupported)
	}
	return om, nil
}

// rootComposition returns the first of oneOf, allOf and anyOf that schema
// holds at its top level, or "". A schema that is not a JSON object holds
// none.
func rootComposition(schema json.RawMessage) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil {
		return ""
	}
	for _, k := range []string{"oneOf", "allOf", "anyOf"} {
		if _, ok := top[k]; ok {
			return k
		}
	}
	return ""
}

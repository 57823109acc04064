package bedrock

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/rules"
	"github.com/toolconform/conform/providers/internal/wire"
)

// Converse request shapes. Pointers and RawMessage keep absent apart from
// empty where the difference matters on the wire.

type cvRequest struct {
	ModelID         string        `json:"modelId,omitempty"`
	Messages        []cvMessage   `json:"messages"`
	System          []cvSystem    `json:"system,omitempty"`
	ToolConfig      *cvToolConfig `json:"toolConfig,omitempty"`
	InferenceConfig *cvInference  `json:"inferenceConfig,omitempty"`
}

// cvSystem is a system block; blocks without text (cachePoint, guard
// content) are not modelled and are skipped on decode.
type cvSystem struct {
	Text *string `json:"text,omitempty"`
}

type cvInference struct {
	MaxTokens int `json:"maxTokens,omitempty"`
}

type cvMessage struct {
	Role    string    `json:"role"`
	Content []cvBlock `json:"content"`
}

type cvBlock struct {
	Text             *string       `json:"text,omitempty"`
	ToolUse          *cvToolUse    `json:"toolUse,omitempty"`
	ToolResult       *cvToolResult `json:"toolResult,omitempty"`
	ReasoningContent *cvReasoning  `json:"reasoningContent,omitempty"`
}

type cvToolUse struct {
	ToolUseID string          `json:"toolUseId"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	// Type is "server_tool_use" for a tool Bedrock runs itself (ToolUseType,
	// API reference ToolUseBlock); absent for a client call.
	Type string `json:"type,omitempty"`
}

// serverToolUse is the ToolUseBlock type of a tool Bedrock runs itself
// (Nova web grounding, Nova code interpreter): its toolUse and the
// toolResult that answers it are the provider's, never a call for the
// client nor a result the client sent.
const serverToolUse = "server_tool_use"

// clientCall reports whether a Converse block is a call the client runs.
func (b cvBlock) clientCall() bool { return b.ToolUse != nil && b.ToolUse.Type != serverToolUse }

type cvToolResult struct {
	ToolUseID string          `json:"toolUseId"`
	Content   []cvResultBlock `json:"content"`
	Status    string          `json:"status,omitempty"`
}

type cvResultBlock struct {
	Text *string         `json:"text,omitempty"`
	JSON json.RawMessage `json:"json,omitempty"`
}

type cvReasoning struct {
	ReasoningText   *cvReasoningText `json:"reasoningText,omitempty"`
	RedactedContent string           `json:"redactedContent,omitempty"`
}

type cvReasoningText struct {
	Text      string `json:"text"`
	Signature string `json:"signature,omitempty"`
}

type cvToolConfig struct {
	Tools      []cvTool      `json:"tools"`
	ToolChoice *cvToolChoice `json:"toolChoice,omitempty"`
}

type cvTool struct {
	ToolSpec *cvToolSpec `json:"toolSpec,omitempty"`
}

type cvToolSpec struct {
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	InputSchema cvInput `json:"inputSchema"`
}

type cvInput struct {
	JSON json.RawMessage `json:"json"`
}

type cvToolChoice struct {
	Auto *struct{} `json:"auto,omitempty"`
	Any  *struct{} `json:"any,omitempty"`
	Tool *cvNamed  `json:"tool,omitempty"`
}

type cvNamed struct {
	Name string `json:"name"`
}

// EncodeRequest writes req as a Converse request body, or as an Anthropic
// Messages body for InvokeModel when the adapter was built with
// WithAPI(InvokeAnthropic). See the package documentation for what the wire
// cannot express. A part its role has no place for (partKinds: a plan, a
// call or reasoning outside an assistant turn, a result in one) is refused
// with a *DecodeError naming messages[i].parts[j].kind and wrapping
// core.ErrUnsupported.
//
// Text that is empty or only white space is left out on both APIs (G11):
// Converse and Anthropic answer 400 ("text content blocks must contain
// non-whitespace text", or "The text field in the ContentBlock object at
// messages.X.content.Y is blank"), and such text tells the model nothing.
// That holds for system text, text parts of every turn, and the
// text of tool results (a result left without text is sent with an empty
// content list, as a result without content always was).
func (a *Adapter) EncodeRequest(req *core.Request) ([]byte, error) {
	if req == nil {
		return nil, fmt.Errorf("bedrock: encode request: %w: nil request", core.ErrMalformed)
	}
	if err := wire.CheckToolChoice("bedrock", req.ToolChoice); err != nil {
		return nil, err
	}
	if err := a.checkNames(req.Tools); err != nil {
		return nil, err
	}
	if err := partKinds.Check("bedrock: encode request", req.Messages); err != nil {
		return nil, err
	}
	if err := checkThinkingOrder(req.Messages); err != nil {
		return nil, err
	}
	if a.api == InvokeAnthropic {
		r := *req
		r.Messages = blankAsEmpty(req.Messages, false)
		body, err := encodeInvokeRequest(&r)
		if err != nil {
			return nil, err
		}
		return body, checkHistory(req.Messages)
	}
	out := cvRequest{Messages: []cvMessage{}}
	msgs := blankAsEmpty(req.Messages, true)
	if a.IDMap != nil {
		var err error
		if msgs, err = a.IDMap.ToWireMessages(msgs); err != nil {
			return nil, fmt.Errorf("bedrock: encode request: %w", err)
		}
	}
	var prevCalls []core.Call
	for i, m := range msgs {
		switch m.Role {
		case core.RoleSystem:
			for _, p := range m.Parts {
				t := p.Text
				out.System = append(out.System, cvSystem{Text: &t})
			}
			continue
		case core.RoleUser, core.RoleTool, core.RoleAssistant:
		default:
			return nil, fmt.Errorf("bedrock: encode request: messages[%d]: %w: unknown role %q", i, core.ErrMalformed, m.Role)
		}
		role := "user"
		if m.Role == core.RoleAssistant {
			role = "assistant"
		}
		blocks, err := encodeBlocks(m.Parts, true)
		if err != nil {
			return nil, fmt.Errorf("bedrock: encode request: messages[%d]%w", i, err)
		}
		if m.Role == core.RoleAssistant {
			prevCalls = m.Calls()
		}
		// Converse wants roles to alternate and tool results in a user
		// turn (G15): consecutive turns of one wire role are merged.
		if n := len(out.Messages); n > 0 && out.Messages[n-1].Role == role {
			out.Messages[n-1].Content = append(out.Messages[n-1].Content, blocks...)
			if role == "user" {
				orderResults(out.Messages[n-1].Content, prevCalls)
			}
			continue
		}
		if role == "user" {
			orderResults(blocks, prevCalls)
		}
		out.Messages = append(out.Messages, cvMessage{Role: role, Content: blocks})
	}
	if tc := toolConfig(req); tc != nil {
		out.ToolConfig = tc
	}
	if req.MaxTokens > 0 {
		out.InferenceConfig = &cvInference{MaxTokens: req.MaxTokens}
	}
	if err := checkHistory(req.Messages); err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// isBlank reports whether text is empty or only white space, which
// Converse and Anthropic refuse as a text block (G11).
func isBlank(text string) bool { return strings.TrimSpace(text) == "" }

// blankAsEmpty returns msgs with blank text treated as empty text (G11), so
// that both encoders leave it out: blank text parts become empty ones in
// place (the parts keep their indices, which errors name), blank
// text parts of system messages and of tool results are removed. With
// jsonResults (Converse), a result part whose Data holds a JSON object is
// kept whatever its text, since it is sent as a {json} block. msgs is not
// modified; messages with nothing blank are shared.
func blankAsEmpty(msgs []core.Message, jsonResults bool) []core.Message {
	var out []core.Message
	for i, m := range msgs {
		parts := m.Parts
		copied := false
		own := func() {
			if !copied {
				parts = append([]core.Part(nil), m.Parts...)
				copied = true
			}
		}
		for j, p := range m.Parts {
			switch {
			case p.Kind == core.PartText && p.Text != "" && isBlank(p.Text):
				own()
				parts[j].Text = ""
			case p.Kind == core.PartToolResult && p.Result != nil:
				if content, changed := nonBlank(p.Result.Content, jsonResults); changed {
					own()
					r := *p.Result
					r.Content = content
					parts[j].Result = &r
				}
			}
		}
		if m.Role == core.RoleSystem {
			if kept, changed := nonBlank(parts, false); changed {
				parts, copied = kept, true
			}
		}
		if !copied {
			continue
		}
		if out == nil {
			out = append([]core.Message(nil), msgs...)
		}
		out[i] = core.Message{Role: m.Role, Parts: parts}
	}
	if out == nil {
		return msgs
	}
	return out
}

// nonBlank returns parts without its blank text parts and whether any was
// removed; with jsonResults a part that jsonResult accepts is never blank.
// parts is not modified.
func nonBlank(parts []core.Part, jsonResults bool) ([]core.Part, bool) {
	blank := func(p core.Part) bool {
		if p.Kind != core.PartText || !isBlank(p.Text) {
			return false
		}
		_, isJSON := jsonResult(p)
		return !(jsonResults && isJSON)
	}
	if !slices.ContainsFunc(parts, blank) {
		return parts, false
	}
	kept := make([]core.Part, 0, len(parts))
	for _, p := range parts {
		if !blank(p) {
			kept = append(kept, p)
		}
	}
	return kept, true
}

// checkNames refuses a tool name outside Bedrock's rule (ToolNameRules),
// which Bedrock rejects with a 400 (E01, E02); tools.NameMapper maps such
// names.
func (a *Adapter) checkNames(tools []core.ToolSpec) error {
	for i, t := range tools {
		if err := a.ToolNameRules().Check(t.Name); err != nil {
			return fmt.Errorf("bedrock: encode request: tools[%d]: %w", i, err)
		}
	}
	return nil
}

// ErrThinkingOrder reports reasoning after a tool call in one assistant
// message (G12), which Claude on Bedrock refuses and the encoder cannot fix,
// since signed reasoning must not be reordered.
var ErrThinkingOrder = errors.New("reasoning block after a toolUse in one assistant message")

// checkThinkingOrder refuses an assistant message that holds a thinking
// part after a tool call (G12), on either API, with a *core.HistoryError
// naming the message, the nearest call before the part and the part,
// wrapping ErrThinkingOrder; see the package documentation for why this is
// an error and not a reordering.
func checkThinkingOrder(msgs []core.Message) error {
	for i, m := range msgs {
		if m.Role != core.RoleAssistant {
			continue
		}
		if j, callID, ok := rules.ThinkingAfterCall(m.Parts); ok {
			return &core.HistoryError{Protocol: "bedrock", Message: i, CallID: callID, Guard: "G12",
				Err: fmt.Errorf("%w: parts[%d]: signed reasoning goes before the toolUse blocks of its message and cannot be moved; send the message as the model produced it", ErrThinkingOrder, j)}
		}
	}
	return nil
}

// checkHistory refuses a history that breaks core.CheckHistory (G01, G02,
// G03, G06), which Bedrock rejects with a 400. It runs after the parts are
// encoded, so that a fault inside one part is reported by its path first.
func checkHistory(msgs []core.Message) error {
	return wire.History("bedrock", core.CheckHistory(msgs))
}

// orderResults puts the toolResult blocks of a user turn into the order of
// the calls they answer (G05), in the slots the results held; other blocks
// keep their places. Results of ids not among calls keep their order after
// the known ones.
func orderResults(blocks []cvBlock, calls []core.Call) {
	inCallOrder(blocks, calls, func(b cvBlock) (string, bool) {
		if b.ToolResult == nil {
			return "", false
		}
		return b.ToolResult.ToolUseID, true
	})
}

// inCallOrder sorts the result blocks among blocks (those resultID reports
// as results) into the order of calls, in the slots they held.
func inCallOrder[B any](blocks []B, calls []core.Call, resultID func(B) (string, bool)) {
	rank := make(map[string]int, len(calls))
	for k, c := range calls {
		if _, ok := rank[c.ID]; !ok {
			rank[c.ID] = k
		}
	}
	var slots []int
	var results []B
	for k, b := range blocks {
		if _, ok := resultID(b); ok {
			slots = append(slots, k)
			results = append(results, b)
		}
	}
	if len(results) < 2 {
		return
	}
	key := func(b B) int {
		id, _ := resultID(b)
		if r, ok := rank[id]; ok {
			return r
		}
		return len(calls)
	}
	slices.SortStableFunc(results, func(x, y B) int { return cmp.Compare(key(x), key(y)) })
	for k, at := range slots {
		blocks[at] = results[k]
	}
}

func toolConfig(req *core.Request) *cvToolConfig {
	if len(req.Tools) == 0 {
		return nil
	}
	tc := &cvToolConfig{}
	if req.ToolChoice != nil {
		switch req.ToolChoice.Mode {
		case core.ToolChoiceAuto:
			tc.ToolChoice = &cvToolChoice{Auto: &struct{}{}}
		case core.ToolChoiceRequired:
			tc.ToolChoice = &cvToolChoice{Any: &struct{}{}}
		case core.ToolChoiceTool:
			tc.ToolChoice = &cvToolChoice{Tool: &cvNamed{Name: req.ToolChoice.Name}}
		case core.ToolChoiceNone:
			// Converse has no "none" (G15). Without tool blocks in the
			// history the tools are dropped, so the model cannot call
			// one; with them, Converse requires toolConfig, so the tools
			// stay and the choice is left to the model.
			if !hasToolBlocks(req.Messages) {
				return nil
			}
		}
	}
	for _, t := range req.Tools {
		schema := t.InputSchema
		if len(bytes.TrimSpace(schema)) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		tc.Tools = append(tc.Tools, cvTool{ToolSpec: &cvToolSpec{Name: t.Name, Description: t.Description, InputSchema: cvInput{JSON: schema}}})
	}
	return tc
}

func hasToolBlocks(msgs []core.Message) bool {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Kind == core.PartToolCall || p.Kind == core.PartToolResult {
				return true
			}
		}
	}
	return false
}

// partKinds are the parts each role carries, on Converse and on Anthropic
// Messages alike: system text; text and tool results in a user turn, where
// a tool message's results go too; text, reasoning and tool calls in an
// assistant turn. Neither API has a place for a plan: sent as text it
// would become answer text (G16).
var partKinds = wire.PartKinds{
	core.RoleSystem:    {core.PartText},
	core.RoleUser:      {core.PartText, core.PartToolResult},
	core.RoleTool:      {core.PartText, core.PartToolResult},
	core.RoleAssistant: {core.PartText, core.PartThinking, core.PartToolCall},
}

// encodeBlocks encodes the parts of one message, of the kinds partKinds
// lists for its role. In a request (request
// true) empty and white-space-only text parts are left out, since Converse
// rejects them (G11); a response is written as the provider would send it.
func encodeBlocks(parts []core.Part, request bool) ([]cvBlock, error) {
	blocks := []cvBlock{}
	for j, p := range parts {
		switch p.Kind {
		case core.PartText:
			if request && isBlank(p.Text) {
				// Converse rejects empty and white-space-only text
				// blocks (G11).
				continue
			}
			t := p.Text
			blocks = append(blocks, cvBlock{Text: &t})
		case core.PartThinking:
			if p.Data != "" {
				blocks = append(blocks, cvBlock{ReasoningContent: &cvReasoning{RedactedContent: p.Data}})
			} else {
				blocks = append(blocks, cvBlock{ReasoningContent: &cvReasoning{ReasoningText: &cvReasoningText{Text: p.Text, Signature: p.Signature}}})
			}
		case core.PartToolCall:
			if p.Call == nil {
				return nil, fmt.Errorf(".parts[%d]: %w: tool_call part without a call", j, core.ErrMalformed)
			}
			in, err := objectArgs(p.Call.Arguments)
			if err != nil {
				return nil, fmt.Errorf(".parts[%d].call.arguments: %w", j, err)
			}
			blocks = append(blocks, cvBlock{ToolUse: &cvToolUse{ToolUseID: p.Call.ID, Name: p.Call.Name, Input: in}})
		case core.PartToolResult:
			if p.Result == nil {
				return nil, fmt.Errorf(".parts[%d]: %w: tool_result part without a result", j, core.ErrMalformed)
			}
			tr := &cvToolResult{ToolUseID: p.Result.CallID, Content: []cvResultBlock{}}
			if p.Result.IsError {
				tr.Status = "error"
			}
			for _, c := range p.Result.Content {
				if c.Kind != core.PartText {
					continue
				}
				if d, ok := jsonResult(c); ok {
					tr.Content = append(tr.Content, cvResultBlock{JSON: d})
					continue
				}
				t := c.Text
				tr.Content = append(tr.Content, cvResultBlock{Text: &t})
			}
			blocks = append(blocks, cvBlock{ToolResult: tr})
		}
	}
	return blocks, nil
}

// jsonResult returns the JSON object a tool result's text part carries in
// Data, which Converse sends as a {json} block.
func jsonResult(p core.Part) (json.RawMessage, bool) {
	d := bytes.TrimSpace([]byte(p.Data))
	if len(d) > 0 && d[0] == '{' && json.Valid(d) {
		return json.RawMessage(d), true
	}
	return nil, false
}

// DecodeRequest reads a Converse request body, or an Anthropic Messages body
// for InvokeModel (recognised by its anthropic_version field).
func (a *Adapter) DecodeRequest(body []byte) (*core.Request, error) {
	var probe struct {
		AnthropicVersion *string `json:"anthropic_version"`
	}
	if err := unmarshal("decode request", body, &probe); err != nil {
		return nil, err
	}
	if probe.AnthropicVersion != nil {
		return decodeInvokeRequest(body)
	}
	var in cvRequest
	if err := unmarshal("decode request", body, &in); err != nil {
		return nil, err
	}
	req := &core.Request{}
	sys := core.Message{Role: core.RoleSystem}
	for _, s := range in.System {
		if s.Text != nil {
			sys.Parts = append(sys.Parts, core.TextPart(*s.Text))
		}
	}
	if len(sys.Parts) > 0 {
		req.Messages = append(req.Messages, sys)
	}
	for i, m := range in.Messages {
		msgs, err := decodeMessage(m)
		if err != nil {
			return nil, fmt.Errorf("bedrock: decode request: messages[%d]%w", i, err)
		}
		for _, m := range msgs {
			if a.IDMap != nil {
				m = a.IDMap.FromWireMessage(m)
			}
			req.Messages = append(req.Messages, m)
		}
	}
	if in.ToolConfig != nil {
		for i, t := range in.ToolConfig.Tools {
			if t.ToolSpec == nil {
				continue // cachePoint and other non-tool entries
			}
			if t.ToolSpec.Name == "" {
				return nil, fmt.Errorf("bedrock: decode request: toolConfig.tools[%d].toolSpec.name: %w: missing", i, core.ErrMalformed)
			}
			req.Tools = append(req.Tools, core.ToolSpec{Name: t.ToolSpec.Name, Description: t.ToolSpec.Description, InputSchema: t.ToolSpec.InputSchema.JSON})
		}
		if c := in.ToolConfig.ToolChoice; c != nil {
			switch {
			case c.Auto != nil:
				req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceAuto}
			case c.Any != nil:
				req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceRequired}
			case c.Tool != nil:
				req.ToolChoice = &core.ToolChoice{Mode: core.ToolChoiceTool, Name: c.Tool.Name}
			}
		}
	}
	if in.InferenceConfig != nil {
		req.MaxTokens = in.InferenceConfig.MaxTokens
	}
	return req, nil
}

// decodeMessage turns one Converse message into canonical messages. A user
// turn is split where it changes between tool results and other content, so
// that results stand in RoleTool messages.
func decodeMessage(m cvMessage) ([]core.Message, error) {
	var role core.Role
	switch m.Role {
	case "user":
		role = core.RoleUser
	case "assistant":
		role = core.RoleAssistant
	default:
		return nil, fmt.Errorf(".role: %w: unknown role %q", core.ErrMalformed, m.Role)
	}
	var out []core.Message
	add := func(r core.Role, p core.Part) {
		if n := len(out); n > 0 && out[n-1].Role == r {
			out[n-1].Parts = append(out[n-1].Parts, p)
			return
		}
		out = append(out, core.Message{Role: r, Parts: []core.Part{p}})
	}
	// server holds the ids of the provider-run tool uses of the message,
	// whose toolResults are the provider's too.
	server := map[string]bool{}
	for j, b := range m.Content {
		switch {
		case b.Text != nil:
			add(role, core.TextPart(*b.Text))
		case b.ToolUse != nil && b.ToolUse.Type == serverToolUse:
			server[b.ToolUse.ToolUseID] = true
		case b.ToolResult != nil && server[b.ToolResult.ToolUseID]:
			// The result of a provider-run tool, in the assistant's turn.
		case b.ToolUse != nil:
			if b.ToolUse.Name == "" {
				return nil, fmt.Errorf(".content[%d].toolUse.name: %w: missing", j, core.ErrMalformed)
			}
			c, err := callFromWire(b.ToolUse.ToolUseID, b.ToolUse.Name, b.ToolUse.Input)
			if err != nil {
				return nil, fmt.Errorf(".content[%d].toolUse.input: %w", j, err)
			}
			add(role, core.CallPart(c))
		case b.ToolResult != nil:
			r := core.Result{CallID: b.ToolResult.ToolUseID, IsError: b.ToolResult.Status == "error", Content: []core.Part{}}
			for _, c := range b.ToolResult.Content {
				switch {
				case c.Text != nil:
					r.Content = append(r.Content, core.TextPart(*c.Text))
				case len(c.JSON) > 0:
					var buf bytes.Buffer
					if err := json.Compact(&buf, c.JSON); err != nil {
						return nil, fmt.Errorf(".content[%d].toolResult.content.json: %w", j, err)
					}
					r.Content = append(r.Content, core.Part{Kind: core.PartText, Text: buf.String(), Data: buf.String()})
				}
			}
			add(core.RoleTool, core.ResultPart(r))
		case b.ReasoningContent != nil:
			rc := b.ReasoningContent
			if rc.ReasoningText != nil {
				add(role, core.Part{Kind: core.PartThinking, Text: rc.ReasoningText.Text, Signature: rc.ReasoningText.Signature})
			} else if rc.RedactedContent != "" {
				add(role, core.Part{Kind: core.PartThinking, Data: rc.RedactedContent})
			}
		}
		// Images, documents, cache points and other blocks are not
		// modelled and are skipped.
	}
	if len(out) == 0 {
		out = append(out, core.Message{Role: role, Parts: []core.Part{}})
	}
	return out, nil
}

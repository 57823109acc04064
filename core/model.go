package core

import (
	"encoding/json"
	"strings"
)

// Role is the author of a Message.
type Role string

// The roles of the canonical conversation. System messages stand in
// Request.Messages like any other; adapters whose wire protocol keeps the
// system prompt apart (Anthropic, Gemini, Bedrock, Cohere) move it there and
// back.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// PartKind says what a Part holds.
type PartKind string

// The kinds of Part.
const (
	// PartText is visible text.
	PartText PartKind = "text"
	// PartThinking is model reasoning. Signature, when present, must be
	// sent back unchanged (Anthropic thinking blocks, G12). Redacted
	// thinking keeps its opaque payload in Data.
	PartThinking PartKind = "thinking"
	// PartPlan is a model's statement of what it will call next, kept apart
	// from the answer text (Cohere tool_plan, G16).
	PartPlan PartKind = "plan"
	// PartToolCall is a call the model asks the client to run.
	PartToolCall PartKind = "tool_call"
	// PartToolResult is the outcome of a call, sent back to the model.
	PartToolResult PartKind = "tool_result"
)

// Part is one piece of a Message.
type Part struct {
	Kind      PartKind `json:"kind"`
	Text      string   `json:"text,omitempty"`
	Signature string   `json:"signature,omitempty"`
	// Data holds an opaque provider payload, such as redacted thinking.
	Data string `json:"data,omitempty"`
	// ItemID is the provider's id of the item the part came from where it
	// must be replayed (OpenAI Responses reasoning items, rs_…).
	ItemID string  `json:"item_id,omitempty"`
	Call   *Call   `json:"call,omitempty"`
	Result *Result `json:"result,omitempty"`
}

// TextPart returns a text Part.
func TextPart(s string) Part { return Part{Kind: PartText, Text: s} }

// CallPart returns a tool-call Part.
func CallPart(c Call) Part { return Part{Kind: PartToolCall, Call: &c} }

// ResultPart returns a tool-result Part.
func ResultPart(r Result) Part { return Part{Kind: PartToolResult, Result: &r} }

// Message is one turn of the canonical conversation.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
}

// Text returns the message's visible text, its text parts concatenated in
// order. Thinking and plan parts are not part of it.
func (m Message) Text() string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Kind == PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Calls returns the tool calls of the message, in order.
func (m Message) Calls() []Call {
	var calls []Call
	for _, p := range m.Parts {
		if p.Kind == PartToolCall && p.Call != nil {
			calls = append(calls, *p.Call)
		}
	}
	return calls
}

// Results returns the tool results of the message, in order.
func (m Message) Results() []Result {
	var results []Result
	for _, p := range m.Parts {
		if p.Kind == PartToolResult && p.Result != nil {
			results = append(results, *p.Result)
		}
	}
	return results
}

// Call is a tool call requested by a model.
type Call struct {
	// ID is the provider's call id, or a stable generated one where the
	// provider sends none (Gemini 2, D01).
	ID string `json:"id"`
	// ItemID is the OpenAI Responses item id (fc_…), distinct from the
	// call id (call_…); both must be replayed in their own fields (D08).
	ItemID string `json:"item_id,omitempty"`
	Name   string `json:"name"`
	// Arguments is the JSON object of arguments. After a repair it holds
	// the repaired JSON and Original the text as received.
	Arguments json.RawMessage `json:"arguments"`
	// Signature is an opaque value to echo with the call on the next turn
	// (Gemini thoughtSignature, G13).
	Signature string `json:"signature,omitempty"`
	// Repaired reports that Arguments is a repair of Original (C09).
	Repaired bool   `json:"repaired,omitempty"`
	Original string `json:"original,omitempty"`
}

// Result is the outcome of a Call.
type Result struct {
	CallID string `json:"call_id"`
	// Name is the called tool's name; some protocols key results by name
	// (Gemini functionResponse).
	Name string `json:"name,omitempty"`
	// Content is the result as parts, usually one text part. Protocols that
	// accept a list of content blocks (Anthropic, Cohere, Bedrock) carry
	// each part as a block (G10, G16).
	Content []Part `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// Text returns the result's text parts concatenated.
func (r Result) Text() string {
	var b strings.Builder
	for _, p := range r.Content {
		if p.Kind == PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// ToolSpec is a tool as it travels in a request: a name, a description and
// the JSON Schema of its input. Tool.Spec gives it for a registered tool.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
	// Strict asks for OpenAI strict mode, which rewrites the schema (H03).
	Strict bool `json:"strict,omitempty"`
}

// ToolChoiceMode says whether and how the model must call a tool.
type ToolChoiceMode string

// The tool choice modes.
const (
	ToolChoiceAuto     ToolChoiceMode = "auto"
	ToolChoiceNone     ToolChoiceMode = "none"
	ToolChoiceRequired ToolChoiceMode = "required"
	// ToolChoiceTool forces the tool named in ToolChoice.Name (F08).
	ToolChoiceTool ToolChoiceMode = "tool"
)

// ToolChoice is a request's tool choice.
type ToolChoice struct {
	Mode ToolChoiceMode `json:"mode"`
	Name string         `json:"name,omitempty"`
}

// ResponseFormat asks for output that matches a JSON Schema.
type ResponseFormat struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict,omitempty"`
}

// Request is the canonical conversation sent to a model.
type Request struct {
	Model      string      `json:"model,omitempty"`
	Messages   []Message   `json:"messages"`
	Tools      []ToolSpec  `json:"tools,omitempty"`
	ToolChoice *ToolChoice `json:"tool_choice,omitempty"`
	// ParallelToolCalls is nil when the request leaves it to the provider;
	// some models reject the parameter even when false (H04).
	ParallelToolCalls *bool           `json:"parallel_tool_calls,omitempty"`
	ResponseFormat    *ResponseFormat `json:"response_format,omitempty"`
	MaxTokens         int             `json:"max_tokens,omitempty"`
	Stream            bool            `json:"stream,omitempty"`
}

// FinishReason is a normalised reason for the end of a response. The
// provider's own value is kept beside it (Response.ProviderFinish).
type FinishReason string

// The normalised finish reasons.
const (
	FinishStop          FinishReason = "stop"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishLength        FinishReason = "length"
	FinishContentFilter FinishReason = "content_filter"
	FinishError         FinishReason = "error"
	FinishOther         FinishReason = "other"
)

// Usage counts tokens.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// ProviderError is an error reported by a provider inside a response body or
// stream, as opposed to a failure to decode one.
type ProviderError struct {
	Type    string `json:"type,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

func (e *ProviderError) Error() string {
	var b strings.Builder
	b.WriteString("provider error")
	if e.Type != "" {
		b.WriteString(" ")
		b.WriteString(e.Type)
	}
	if e.Code != "" {
		b.WriteString(" (")
		b.WriteString(e.Code)
		b.WriteString(")")
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	return b.String()
}

// Response is a model's reply: one assistant message with its finish reason.
//
// A response whose finish reason is "stop" may still carry calls (F01): the
// calls are never dropped. Each adapter maps its protocol's reasons to
// Finish by that protocol's own rules and keeps the raw value in
// ProviderFinish. Where a protocol has a reason for a tool turn (OpenAI's
// "tool_calls", Anthropic's "tool_use"), a "stop" that carries calls stays
// FinishStop, since the provider said so. Gemini has no such reason and ends
// every tool turn with STOP, so its adapter reports STOP with calls as
// FinishToolCalls (F02); the raw STOP stays in ProviderFinish.
type Response struct {
	ID             string         `json:"id,omitempty"`
	Model          string         `json:"model,omitempty"`
	Message        Message        `json:"message"`
	Finish         FinishReason   `json:"finish_reason,omitempty"`
	ProviderFinish string         `json:"provider_finish_reason,omitempty"`
	Usage          *Usage         `json:"usage,omitempty"`
	Error          *ProviderError `json:"error,omitempty"`
	// Incomplete lists calls that were still open when a stream ended or
	// failed; they must never be executed (B09–B11).
	Incomplete []Call `json:"incomplete,omitempty"`
	// Deviations lists what a decoder read although the protocol does not
	// allow it, each naming the field and how it was read (a Chat
	// Completions message.content that is a JSON object, read as its
	// compact JSON text): read, and said, rather than refused.
	Deviations []string `json:"deviations,omitempty"`
}

// Calls returns the calls the client must run.
func (r *Response) Calls() []Call { return r.Message.Calls() }

// Text returns the visible answer text.
func (r *Response) Text() string { return r.Message.Text() }

package oaichat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/idmap"
)

// Config chooses the variations between Chat-Completions-shaped protocols.
type Config struct {
	// Name is the protocol name, used as the prefix of every error.
	Name string
	// RequiredChoice is the tool_choice string written for
	// core.ToolChoiceRequired: "required" (OpenAI) or "any" (Mistral). Both
	// are read.
	RequiredChoice string
	// MaxTokensField is the field written for Request.MaxTokens:
	// "max_tokens" or "max_completion_tokens". Both are read.
	MaxTokensField string
	// StreamUsage writes stream_options.include_usage=true on streaming
	// requests, so that the stream ends with a usage chunk.
	StreamUsage bool
	// ReasoningField is the assistant-message field that carries thinking
	// text on requests and responses: "reasoning_content" (DeepSeek, G14)
	// or "reasoning" (OpenRouter). Both are read.
	ReasoningField string
	// ThinkingInContent writes thinking as Mistral does, as a thinking
	// chunk in an assistant content array, instead of a reasoning field.
	// Both forms are always read.
	ThinkingInContent bool
	// ToolResultName writes a result's tool name as the tool message's
	// "name" (Mistral documents it); it is always read.
	ToolResultName bool
	// ThoughtSignatures reads a tool call's extra_content thought signature
	// (Gemini's OpenAI-compatible endpoint, G13) into Call.Signature and
	// Chunk.Signature, and writes a call's Signature back as
	// extra_content.google.thought_signature. Off, extra_content is read
	// for its shape only and nothing is written.
	ThoughtSignatures bool
	// IDs, when set, maps call ids that the protocol would reject to valid
	// ones on every encode and back on every decode.
	IDs *idmap.Map
	// MaxEventSize bounds one SSE event of a stream; 0 means
	// sse.DefaultMaxEventSize.
	MaxEventSize int
	// RootSchemaKeywords lists keywords a tool's parameters schema may not
	// hold at its top level; a tool with one is refused (RootKeyword).
	RootSchemaKeywords []string
	// NameRules is the provider's tool-name rule (its ToolNameRules);
	// EncodeRequest refuses a tool name it breaks. Unset (MaxLen 0), it is
	// core.CommonNameRules.
	NameRules core.NameRules
	// FullDeltas writes stream chunks as Mistral sends them: every choice
	// with "logprobs": null and a delta content ("" when it has none), and
	// every piece of a call after its first with "type": "function" and
	// "name": "" (recorded in testdata/corpus/mistral).
	FullDeltas bool
}

// Codec encodes and decodes one Chat-Completions-shaped protocol.
type Codec struct {
	cfg Config
	// streamOp is op("decode stream"), made once.
	streamOp string
}

// New returns a Codec for cfg, filling unset fields with OpenAI's choices.
func New(cfg Config) *Codec {
	if cfg.RequiredChoice == "" {
		cfg.RequiredChoice = "required"
	}
	if cfg.MaxTokensField == "" {
		cfg.MaxTokensField = "max_tokens"
	}
	if cfg.ReasoningField == "" {
		cfg.ReasoningField = "reasoning_content"
	}
	if cfg.NameRules.MaxLen == 0 {
		cfg.NameRules = core.CommonNameRules
	}
	return &Codec{cfg: cfg, streamOp: cfg.Name + ": decode stream"}
}

// Name returns the protocol name.
func (c *Codec) Name() string { return c.cfg.Name }

func (c *Codec) op(what string) string { return c.cfg.Name + ": " + what }

func (c *Codec) toWire(id string) (string, error) {
	if c.cfg.IDs == nil {
		return id, nil
	}
	return c.cfg.IDs.ToWire(id)
}

func (c *Codec) fromWire(id string) string {
	if c.cfg.IDs == nil {
		return id
	}
	return c.cfg.IDs.FromWire(id)
}

// Wire types. Polymorphic fields stay json.RawMessage and are read by hand,
// so that each shape the providers send is accepted or named in an error.

type wireRequest struct {
	Model               string              `json:"model,omitempty"`
	Messages            []wireMessage       `json:"messages"`
	Tools               []wireTool          `json:"tools,omitempty"`
	ToolChoice          json.RawMessage     `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool               `json:"parallel_tool_calls,omitempty"`
	ResponseFormat      *wireResponseFormat `json:"response_format,omitempty"`
	MaxTokens           *int                `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int                `json:"max_completion_tokens,omitempty"`
	Stream              bool                `json:"stream,omitempty"`
	StreamOptions       *wireStreamOptions  `json:"stream_options,omitempty"`
	// Functions and FunctionCall are the legacy forms of tools and
	// tool_choice (see legacy.go); they are read, never written.
	Functions    []wireFunction  `json:"functions,omitempty"`
	FunctionCall json.RawMessage `json:"function_call,omitempty"`
}

type wireStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireMessage struct {
	Role             string          `json:"role,omitempty"`
	Content          json.RawMessage `json:"content,omitempty"`
	ReasoningContent json.RawMessage `json:"reasoning_content,omitempty"`
	Reasoning        json.RawMessage `json:"reasoning,omitempty"`
	ToolCalls        []wireToolCall  `json:"tool_calls,omitempty"`
	ToolCallID       *string         `json:"tool_call_id,omitempty"`
	Name             string          `json:"name,omitempty"`
	// FunctionCall is the legacy single call of an assistant message or
	// delta (see legacy.go); it is read, never written.
	FunctionCall *wireFunctionArg `json:"function_call,omitempty"`
}

type wireToolCall struct {
	Index        *int            `json:"index,omitempty"`
	ID           *string         `json:"id,omitempty"`
	Type         string          `json:"type,omitempty"`
	Function     wireFunctionArg `json:"function"`
	ExtraContent *extraContent   `json:"extra_content,omitempty"`
}

// extraContent is Gemini's extension of a tool call on its
// OpenAI-compatible endpoint: {"google": {"thought_signature": "..."}}
// (generativelanguage) or {"vertex": {...}} (Vertex AI).
type extraContent struct {
	Google *thoughtSignature `json:"google,omitempty"`
	Vertex *thoughtSignature `json:"vertex,omitempty"`
}

type thoughtSignature struct {
	ThoughtSignature string `json:"thought_signature"`
}

// signature returns the thought signature, the google one first.
func (e *extraContent) signature() string {
	switch {
	case e == nil:
		return ""
	case e.Google != nil && e.Google.ThoughtSignature != "":
		return e.Google.ThoughtSignature
	case e.Vertex != nil:
		return e.Vertex.ThoughtSignature
	}
	return ""
}

// signature returns the thought signature of tc when the codec reads them.
func (c *Codec) signature(tc *wireToolCall) string {
	if !c.cfg.ThoughtSignatures {
		return ""
	}
	return tc.ExtraContent.signature()
}

type wireFunctionArg struct {
	Name      *string         `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

type wireTool struct {
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      bool            `json:"strict,omitempty"`
}

type wireResponseFormat struct {
	Type       string          `json:"type"`
	JSONSchema *wireJSONSchema `json:"json_schema,omitempty"`
}

type wireJSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema,omitempty"`
	Strict bool            `json:"strict,omitempty"`
}

type wireResponse struct {
	ID      string          `json:"id,omitempty"`
	Object  string          `json:"object,omitempty"`
	Model   string          `json:"model,omitempty"`
	Choices []wireChoice    `json:"choices"`
	Usage   *wireUsage      `json:"usage,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
	// Message, Type and Code are Mistral's top-level error body
	// ({"object":"error","message":...}).
	Message json.RawMessage `json:"message,omitempty"`
	Type    json.RawMessage `json:"type,omitempty"`
	Code    json.RawMessage `json:"code,omitempty"`
}

type wireChoice struct {
	Index        *int         `json:"index,omitempty"`
	Message      *wireMessage `json:"message,omitempty"`
	Delta        *wireMessage `json:"delta,omitempty"`
	FinishReason *string      `json:"finish_reason"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type wireError struct {
	Message json.RawMessage `json:"message"`
	Type    json.RawMessage `json:"type,omitempty"`
	Code    json.RawMessage `json:"code,omitempty"`
}

// scalarText returns a JSON scalar as text: a string's value, a number's or
// boolean's literal, "" for null or absent. Objects and arrays are returned
// as compact JSON.
func scalarText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return string(validUTF8(b.Bytes()))
	}
	return string(raw)
}

// validUTF8 returns b with each byte that is not part of valid UTF-8
// replaced by U+FFFD, as encoding/json does when it decodes a string, so
// that arguments sent as a JSON object (C04) read the same as the same
// object sent as a string.
func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}

// providerError reads an error value: an object with message, type and
// code, or a bare string.
func providerError(raw json.RawMessage) *core.ProviderError {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] != '{' {
		return &core.ProviderError{Message: scalarText(raw)}
	}
	var we wireError
	if err := json.Unmarshal(raw, &we); err != nil {
		return &core.ProviderError{Message: string(raw)}
	}
	return &core.ProviderError{Type: scalarText(we.Type), Code: scalarText(we.Code), Message: scalarText(we.Message)}
}

func encodeError(e *core.ProviderError) json.RawMessage {
	we := map[string]any{"message": e.Message}
	if e.Type != "" {
		we["type"] = e.Type
	}
	if e.Code != "" {
		we["code"] = e.Code
	}
	b, _ := json.Marshal(we)
	return b
}

// FinishReason maps a provider finish reason to the canonical one.
func FinishReason(raw string) core.FinishReason {
	switch raw {
	case "":
		return ""
	case "stop", "end_turn", "stop_sequence":
		return core.FinishStop
	case "tool_calls", "function_call":
		return core.FinishToolCalls
	case "length", "model_length", "max_tokens":
		return core.FinishLength
	case "content_filter":
		return core.FinishContentFilter
	case "error":
		return core.FinishError
	}
	return core.FinishOther
}

// wireFinish returns the finish_reason to write: the provider's own value
// when kept, else the canonical one spelled the Chat Completions way.
func wireFinish(f core.FinishReason, raw string) string {
	if raw != "" {
		return raw
	}
	return string(f)
}

// jsonString marshals s as a JSON string.
func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func pathf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

package openaichat

import (
	"encoding/json"
	"io"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/idmap"
	"github.com/toolconform/conform/providers/internal/oaichat"
)

// MaxIDLen is the longest call id OpenAI Chat Completions accepts (D04).
const MaxIDLen = 40

// ErrTooManyIDs reports an id map that reached its size limit; the
// conditions every protocol shares are core's sentinels (core.ErrMalformed
// and the others), which codec errors wrap in a *DecodeError.
var ErrTooManyIDs = oaichat.ErrTooManyIDs

// DecodeError is a codec error naming its byte offset and JSON path.
type DecodeError = oaichat.DecodeError

// IDMap translates call ids between the canonical conversation and the
// wire (see Adapter.IDMap).
type IDMap = idmap.Map

// Adapter is the openai-chat protocol: /v1/chat/completions.
type Adapter struct {
	// IDMap holds the ids mapped on encoding: call ids over MaxIDLen
	// characters (from the Responses API, OpenRouter and others, D04) are
	// sent as "call_" plus 24 base-62 characters derived from the id, and
	// mapped back on decoding. It is nil with KeepLongIDs.
	IDMap *IDMap
	c     *oaichat.Codec
}

// Option configures an Adapter.
type Option func(*oaichat.Config)

// MaxCompletionTokens makes requests carry max_completion_tokens instead of
// max_tokens (required by OpenAI's reasoning models).
func MaxCompletionTokens() Option {
	return func(c *oaichat.Config) { c.MaxTokensField = "max_completion_tokens" }
}

// ReasoningField names the assistant field written for thinking text:
// "reasoning_content" (the default, DeepSeek and most compatible servers)
// or "reasoning" (OpenRouter). Both are always read.
func ReasoningField(name string) Option {
	return func(c *oaichat.Config) { c.ReasoningField = name }
}

// MaxEventSize bounds one SSE event of a stream in bytes.
func MaxEventSize(n int) Option { return func(c *oaichat.Config) { c.MaxEventSize = n } }

// KeepLongIDs turns off the mapping of over-long call ids: they are sent as
// they are, and a server that enforces the limit will reject them.
func KeepLongIDs() Option { return func(c *oaichat.Config) { c.IDs = nil } }

// New returns an openai-chat Adapter. Streaming requests ask for a final
// usage chunk (stream_options.include_usage).
func New(opts ...Option) *Adapter {
	cfg := oaichat.Config{
		Name:           "openai-chat",
		RequiredChoice: "required",
		MaxTokensField: "max_tokens",
		StreamUsage:    true,
		ReasoningField: "reasoning_content",
		IDs:            idmap.New(validID, mintID, 0),
		// G13: Gemini's OpenAI-compatible endpoint signs tool calls.
		ThoughtSignatures:  true,
		RootSchemaKeywords: oaichat.OpenAIRootKeywords,
		NameRules:          nameRules,
	}
	for _, o := range opts {
		o(&cfg)
	}
	return &Adapter{IDMap: cfg.IDs, c: oaichat.New(cfg)}
}

func validID(id string) bool { return len(id) <= MaxIDLen }

func mintID(id string, attempt int) string { return "call_" + idmap.Hash(id, attempt, 24) }

// Name returns "openai-chat".
func (a *Adapter) Name() string { return a.c.Name() }

// EncodeRequest writes req as a Chat Completions request body. A call's
// Signature is written as its extra_content.google.thought_signature (G13).
func (a *Adapter) EncodeRequest(req *core.Request) ([]byte, error) { return a.c.EncodeRequest(req) }

// DecodeRequest reads a Chat Completions request body, thought signatures
// of assistant tool calls included.
func (a *Adapter) DecodeRequest(body []byte) (*core.Request, error) { return a.c.DecodeRequest(body) }

// EncodeResponse writes resp as a Chat Completions response body.
func (a *Adapter) EncodeResponse(resp *core.Response) ([]byte, error) {
	return a.c.EncodeResponse(resp)
}

// DecodeResponse reads a Chat Completions response body; a tool call's
// extra_content thought signature (Gemini's OpenAI-compatible endpoint,
// G13) becomes the call's Signature.
func (a *Adapter) DecodeResponse(body []byte) (*core.Response, error) {
	return a.c.DecodeResponse(body)
}

// DecodeStream reads a Chat Completions SSE stream one event at a time; a
// tool call's extra_content thought signature becomes the Signature of a
// chunk of that call (G13).
func (a *Adapter) DecodeStream(r io.Reader) core.EventStream {
	return a.c.DecodeGuardedStream(r)
}

// EncodeStream writes events as a Chat Completions SSE stream.
func (a *Adapter) EncodeStream(w io.Writer, events []core.Event) error {
	return a.c.EncodeStream(w, events)
}

// EncodeLiveStream writes the events of s as a Chat Completions SSE stream, each
// as it arrives.
func (a *Adapter) EncodeLiveStream(w io.Writer, s core.EventStream) error {
	return a.c.EncodeLiveStream(w, s)
}

// StrictSchema rewrites a JSON Schema for OpenAI strict mode (H03): every
// object closed with additionalProperties false, every property required,
// optional ones made nullable. EncodeRequest applies it to strict tools.
func StrictSchema(schema json.RawMessage) (json.RawMessage, error) {
	return oaichat.StrictSchema(schema)
}

// CheckHistory reports every history problem, one per line: calls not
// answered right after their assistant message (G01, G03), results without a
// call id (G06), results that answer no call before them (G02), call ids over
// MaxIDLen characters (D04) and arguments kept as non-JSON text (G09). Each
// is a *core.HistoryError. EncodeRequest refuses the first four; it maps long
// ids and sends non-JSON arguments as recorded. It returns nil for a clean
// history.
func CheckHistory(msgs []core.Message) error {
	return oaichat.CheckHistory(msgs, oaichat.HistoryChecks{Protocol: "openai-chat", MaxIDLen: MaxIDLen, Arguments: true})
}

// FinishReason maps a Chat Completions finish_reason to the canonical one.
func FinishReason(raw string) core.FinishReason { return oaichat.FinishReason(raw) }

var _ core.Adapter = (*Adapter)(nil)

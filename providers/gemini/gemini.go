package gemini

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonscan"
	"github.com/toolconform/conform/providers/internal/wire"
	"github.com/toolconform/conform/sse"
)

// Name is the protocol name of the adapter.
const Name = "gemini"

// Default limits of the stream decoder.
const (
	// DefaultMaxEventSize bounds one streamed GenerateContentResponse
	// (one SSE event or one element of the JSON array), in bytes.
	DefaultMaxEventSize = 4 << 20
	// DefaultMaxArgsSize bounds the arguments of one call assembled from
	// Vertex partialArgs pieces, in bytes of JSON.
	DefaultMaxArgsSize = 1 << 20
)

// GeneratedIDPrefix starts every call id the adapter makes up for a
// functionCall that carries none (Gemini 2, D01). EncodeRequest and the
// response encoders never send such an id to the provider.
const GeneratedIDPrefix = "gemini_call_"

// protocolName names the protocol in errors.
const protocolName = "gemini"

// DecodeError is every fault of the adapter that has a place: the byte
// offset in a body or stream, or the JSON path of a value in a body or of
// a canonical value that cannot be written (Op "encode request").
type DecodeError = wire.DecodeError

// Option configures an Adapter.
type Option func(*Adapter)

// WithJSONArrayStream makes EncodeStream write the one-JSON-array form
// (streamGenerateContent without alt=sse) instead of SSE.
func WithJSONArrayStream() Option { return func(a *Adapter) { a.arrayStream = true } }

// WithMaxEventSize sets the largest streamed event DecodeStream accepts.
func WithMaxEventSize(n int) Option { return func(a *Adapter) { a.maxEvent = n } }

// WithMaxArgsSize sets the largest argument object DecodeStream assembles
// from partialArgs pieces.
func WithMaxArgsSize(n int) Option { return func(a *Adapter) { a.maxArgs = n } }

// Adapter is the Gemini generateContent / streamGenerateContent protocol.
// Its zero value is not ready; use New.
type Adapter struct {
	arrayStream bool
	maxEvent    int
	maxArgs     int
	// sseOpts are the SSE decoder's options for every stream, made once.
	sseOpts []sse.Option
}

// New returns a Gemini adapter.
func New(opts ...Option) *Adapter {
	a := &Adapter{maxEvent: DefaultMaxEventSize, maxArgs: DefaultMaxArgsSize}
	for _, o := range opts {
		o(a)
	}
	a.sseOpts = a.sseOptions()
	return a
}

// sseOptions returns the SSE decoder's options: those New made, so that a
// stream does not allocate them, or new ones for an Adapter New did not
// make.
func (a *Adapter) sseOptions() []sse.Option {
	if a.sseOpts != nil {
		return a.sseOpts
	}
	return []sse.Option{sse.FlushAtEOF(), sse.MaxEventSize(a.maxEvent)}
}

// Name returns "gemini".
func (a *Adapter) Name() string { return Name }

var _ core.Adapter = (*Adapter)(nil)

// Wire types. Only the fields conform models are declared; everything else
// is ignored on decode.

type wirePart struct {
	Text             *string               `json:"text,omitempty"`
	Thought          bool                  `json:"thought,omitempty"`
	ThoughtSignature string                `json:"thoughtSignature,omitempty"`
	FunctionCall     *wireFunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *wireFunctionResponse `json:"functionResponse,omitempty"`
}

type wireFunctionCall struct {
	ID           string           `json:"id,omitempty"`
	Name         string           `json:"name,omitempty"`
	Args         json.RawMessage  `json:"args,omitempty"`
	PartialArgs  []wirePartialArg `json:"partialArgs,omitempty"`
	WillContinue bool             `json:"willContinue,omitempty"`
	// compact is set by the fast path when Args has no white space
	// between its tokens.
	compact bool
}

type wirePartialArg struct {
	JSONPath     string          `json:"jsonPath"`
	StringValue  *string         `json:"stringValue,omitempty"`
	NumberValue  json.RawMessage `json:"numberValue,omitempty"`
	BoolValue    *bool           `json:"boolValue,omitempty"`
	NullValue    json.RawMessage `json:"nullValue,omitempty"`
	WillContinue bool            `json:"willContinue,omitempty"`
}

type wireFunctionResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type wireContent struct {
	Role  string     `json:"role,omitempty"`
	Parts []wirePart `json:"parts"`
}

type wireCandidate struct {
	Content      *wireContent `json:"content,omitempty"`
	FinishReason finishReason `json:"finishReason,omitempty"`
	Index        int          `json:"index"`
}

type wireUsage struct {
	PromptTokenCount     int                 `json:"promptTokenCount"`
	CandidatesTokenCount int                 `json:"candidatesTokenCount"`
	ThoughtsTokenCount   int                 `json:"thoughtsTokenCount,omitempty"`
	TotalTokenCount      int                 `json:"totalTokenCount"`
	PromptTokensDetails  []wireModalityCount `json:"promptTokensDetails,omitempty"`
}

// wireModalityCount is one entry of promptTokensDetails. The modality is
// kept as sent: recordings have both the enum name and its number.
type wireModalityCount struct {
	Modality   json.RawMessage `json:"modality"`
	TokenCount int             `json:"tokenCount"`
}

// usageOf is the usageMetadata the encoders write: the counts of u (zero
// when nil) with the prompt's text modality, as recorded bodies carry it.
func usageOf(u *core.Usage) *wireUsage {
	var c core.Usage
	if u != nil {
		c = *u
	}
	return &wireUsage{
		PromptTokenCount: c.InputTokens, CandidatesTokenCount: c.OutputTokens, TotalTokenCount: c.InputTokens + c.OutputTokens,
		PromptTokensDetails: []wireModalityCount{{Modality: json.RawMessage(`"TEXT"`), TokenCount: c.InputTokens}},
	}
}

type wirePromptFeedback struct {
	BlockReason finishReason `json:"blockReason,omitempty"`
}

type wireError struct {
	Code    json.RawMessage `json:"code,omitempty"`
	Message string          `json:"message"`
	Status  string          `json:"status,omitempty"`
}

type wireResponse struct {
	Candidates     []wireCandidate     `json:"candidates,omitempty"`
	PromptFeedback *wirePromptFeedback `json:"promptFeedback,omitempty"`
	UsageMetadata  *wireUsage          `json:"usageMetadata,omitempty"`
	ModelVersion   string              `json:"modelVersion,omitempty"`
	ResponseID     string              `json:"responseId,omitempty"`
	Error          *wireError          `json:"error,omitempty"`
}

// wireBody is a wireResponse as the encoders write a body or chunk that is
// not an error: modelVersion always, as every recorded one carries it.
type wireBody struct {
	Candidates     []wireCandidate     `json:"candidates,omitempty"`
	PromptFeedback *wirePromptFeedback `json:"promptFeedback,omitempty"`
	UsageMetadata  *wireUsage          `json:"usageMetadata,omitempty"`
	ModelVersion   string              `json:"modelVersion"`
	ResponseID     string              `json:"responseId,omitempty"`
	Error          *wireError          `json:"error,omitempty"`
}

// marshalBody writes w, an error alone as the API sends it, anything else
// with its modelVersion.
func marshalBody(w wireResponse) ([]byte, error) {
	if w.Error != nil {
		return json.Marshal(w)
	}
	return json.Marshal(wireBody(w))
}

// finishReason is a Gemini finish or block reason. It decodes both the
// enum name ("STOP") and the gRPC-gateway integer form (1) into the name.
type finishReason string

// finishReasonNames lists the generativelanguage v1beta Candidate.FinishReason
// enum by number (googleapis google/ai/generativelanguage/v1beta/generative_service.proto,
// as generated in google-cloud-python). Numbers past 12 are not listed
// because their values differ between API versions; they decode as
// "FINISH_REASON_<n>".
var finishReasonNames = []string{
	"FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION",
	"OTHER", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
	"MALFORMED_FUNCTION_CALL", "IMAGE_SAFETY", "UNEXPECTED_TOOL_CALL",
}

func (f *finishReason) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = finishReason(s)
		return nil
	}
	if string(b) == "null" {
		*f = ""
		return nil
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		return fmt.Errorf("%w: finish reason %s is neither a name nor an integer", core.ErrMalformed, b)
	}
	if n >= 0 && n < len(finishReasonNames) {
		*f = finishReason(finishReasonNames[n])
	} else {
		*f = finishReason("FINISH_REASON_" + strconv.Itoa(n))
	}
	return nil
}

// NormalizeFinish maps a Gemini finish reason to the canonical one. hasCalls
// says whether the candidate carried function calls and hasContent whether it
// carried any part at all: Gemini says STOP for a turn that calls tools
// (F02), which becomes tool_calls; a STOP with nothing in it (F05) becomes
// other, since it is no answer. Tool-call failures (F04) become error, never
// stop.
func NormalizeFinish(raw string, hasCalls, hasContent bool) core.FinishReason {
	switch raw {
	case "":
		return ""
	case "STOP":
		switch {
		case hasCalls:
			return core.FinishToolCalls
		case !hasContent:
			return core.FinishOther
		}
		return core.FinishStop
	case "MAX_TOKENS":
		return core.FinishLength
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "MODEL_ARMOR":
		return core.FinishContentFilter
	case "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS",
		"MISSING_THOUGHT_SIGNATURE":
		return core.FinishError
	}
	return core.FinishOther
}

// rawFinish gives the Gemini finish reason to send for a canonical one when
// the provider's own value is unknown.
func rawFinish(f core.FinishReason, provider string) string {
	if provider != "" {
		return provider
	}
	switch f {
	case "":
		return ""
	case core.FinishStop, core.FinishToolCalls:
		return "STOP"
	case core.FinishLength:
		return "MAX_TOKENS"
	case core.FinishContentFilter:
		return "SAFETY"
	case core.FinishError:
		return "MALFORMED_FUNCTION_CALL"
	}
	return "OTHER"
}

// responseCallID returns the id given to the k-th call (0-based, among
// the calls of the response) of a generateContent response when the
// functionCall carries none (Gemini 2, D01). It is GeneratedIDPrefix, a
// key of 12 hex digits and "_<k>". The key is a hash of the response's
// responseId when there is one, else of the call's name and arguments
// (compared as JSON values, so spacing and key order do not change it):
// the same bytes always give the same ids, a streamed response the ids of
// the same response whole, and two responses ids of their own, so that a
// history of several id-less turns has no duplicate ids. Hashing keeps the
// id short (OpenAI refuses ids over 40 characters) and within every
// protocol's id alphabet ([a-zA-Z0-9_-], Anthropic and Bedrock).
func responseCallID(responseID, name string, args json.RawMessage, k int) string {
	var out [48]byte
	return string(appendResponseCallID(out[:0], responseID, name, args, k))
}

// appendResponseCallID appends responseCallID's id to id, for a stream
// that keeps it in its own strings.
func appendResponseCallID(id []byte, responseID, name string, args json.RawMessage, k int) []byte {
	var in [160]byte
	b := in[:0]
	if responseID != "" {
		b = append(append(b, "responseId\x00"...), responseID...)
	} else {
		b = append(append(append(b, "call\x00"...), name...), 0)
		b = append(b, canonicalJSON(args)...)
	}
	sum := sha256.Sum256(b)
	id = append(id, GeneratedIDPrefix...)
	id = hex.AppendEncode(id, sum[:6])
	return strconv.AppendInt(append(id, '_'), int64(k), 10)
}

// callID is responseCallID, the id kept in strs.
func callID(strs *jsonscan.Strings, responseID, name string, args json.RawMessage, k int) string {
	var out [48]byte
	return strs.String(appendResponseCallID(out[:0], responseID, name, args, k))
}

// canonicalJSON returns raw re-encoded with sorted keys and no spacing, so
// that the same value gives the same bytes however it was written; raw
// itself when it is not JSON.
func canonicalJSON(raw json.RawMessage) []byte {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

// IsGeneratedID reports whether id was made up by this adapter rather than
// sent by the provider.
func IsGeneratedID(id string) bool { return strings.HasPrefix(id, GeneratedIDPrefix) }

// wireID returns the id to send for a call: provider ids are echoed (D02),
// generated ones are not.
func wireID(id string) string {
	if IsGeneratedID(id) {
		return ""
	}
	return id
}

func providerError(e *wireError) *core.ProviderError {
	code := strings.Trim(string(e.Code), `"`)
	return &core.ProviderError{Type: e.Status, Code: code, Message: e.Message}
}

func wireErrorFrom(e *core.ProviderError) *wireError {
	w := &wireError{Message: e.Message, Status: e.Type}
	if e.Code != "" {
		if _, err := strconv.Atoi(e.Code); err == nil {
			w.Code = json.RawMessage(e.Code)
		} else {
			w.Code, _ = json.Marshal(e.Code)
		}
	}
	return w
}

// syntaxError turns an encoding/json error into a DecodeError when it
// knows its offset, adding base to it.
func syntaxError(op string, base int64, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// SyntaxError.Offset counts the bytes read, the bad one included.
		off := se.Offset
		if off > 0 {
			off--
		}
		return wire.Placed(op, base+off, "", fmt.Errorf("%w: %v", core.ErrMalformed, err))
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		path := te.Field
		if path == "" {
			path = "(top level)"
		}
		return wire.Placed(op, base+te.Offset, "", fmt.Errorf("%w: value ending here, field %s: %v", core.ErrMalformed, path, err))
	}
	return fmt.Errorf("%s: %w: %v", op, core.ErrMalformed, err)
}

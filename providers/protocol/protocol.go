package protocol

import (
	"net/http"
	"regexp"

	"github.com/toolconform/conform/core"
)

// Protocol describes one wire protocol: every fact the rest of the tree
// needs about it, so that no package outside providers/ branches on a
// protocol's name. Each providers/<p> package exports its own as
// Protocol; providers.Describe returns it by name.
type Protocol struct {
	// Endpoint holds the HTTP facts and how a recorded URL or payload is
	// recognised; its Protocol field is the protocol's name.
	Endpoint
	// New returns a new adapter for the protocol.
	New func() core.Adapter
	// NewJSONArrayStream returns an adapter that writes a stream as one
	// JSON array; set exactly when Endpoint.JSONArrayStream is.
	NewJSONArrayStream func() core.Adapter
	// SSE says how the protocol's Server-Sent Events are framed.
	SSE SSE
	// Grading holds what a fake provider needs to grade a follow-up
	// request of the protocol.
	Grading Grading
	// Requirements returns the request options a recorded response body
	// depends on: the provider sends those bytes only to a request that
	// carries them. A body recorded at another endpoint than the
	// protocol's (a dialect the adapter also reads) depends on one no
	// request to the protocol's endpoint carries (Carried nil). Nil when
	// the protocol has none.
	Requirements func(body []byte) []Requirement
	// Errors says which HTTP status the API sends with each error body.
	Errors ErrorStatuses
	// FinishReasons is the protocol's own vocabulary of raw finish values
	// (core.Response.ProviderFinish as its decoder reads them), from its
	// API reference: what a fake provider may write, and nothing else.
	FinishReasons []string
}

// SSE is how a protocol frames its Server-Sent Events.
type SSE struct {
	// NamedEvents reports that every event carries an "event:" line
	// naming its type (Anthropic, OpenAI Responses, Cohere v2).
	NamedEvents bool
	// Done reports that a stream ends with "data: [DONE]".
	Done bool
	// Events is the event vocabulary of the stream, for code outside the
	// adapters that reads or edits stream bytes (failure reduction,
	// gateway stream checks).
	Events StreamEvents
}

// StreamEvents names the event vocabulary of an SSE stream that several
// protocols share or that code outside the adapters reads byte by byte.
type StreamEvents int

const (
	// EventsOwn: the protocol's own events, read only by its adapter.
	EventsOwn StreamEvents = iota
	// EventsMessages: Anthropic Messages events (message_start,
	// content_block_start/delta/stop, message_delta, message_stop).
	EventsMessages
	// EventsChatChunks: Chat Completions chunks (choices[].delta with
	// tool_calls by index), ending with data: [DONE].
	EventsChatChunks
)

// BodyShape names the shape rules a request body of the protocol is
// graded by (serve.GradeBody).
type BodyShape int

const (
	// ShapeNone: no shape rules beyond the adapter's decoding.
	ShapeNone BodyShape = iota
	// ShapeMessages: Anthropic Messages rules.
	ShapeMessages
	// ShapeConverse: Bedrock Converse rules, or Messages rules for an
	// InvokeModel body (one with anthropic_version).
	ShapeConverse
	// ShapeChat: Chat Completions rules.
	ShapeChat
	// ShapeCohere: Cohere v2 rules.
	ShapeCohere
)

// Grading is what a fake provider needs to grade a follow-up request of a
// protocol. Rule fields hold failure-mode ids (failuremodes).
type Grading struct {
	// Shape is the shape rules of a request body.
	Shape BodyShape
	// MissingResult is the failure mode of a call left without a result.
	MissingResult string
	// ResultsInOrder reports that tool results must come in the order of
	// the calls (G05).
	ResultsInOrder bool
	// ResultsNextMessage reports that every result must be in the message
	// right after the tool use (G01).
	ResultsNextMessage bool
	// SignedThinking reports that thinking blocks and their signatures
	// must come back unchanged in the assistant turn.
	SignedThinking bool
	// ThinkingEnabled reports whether a request body enables thinking,
	// for a protocol that requires signed thinking back only then; nil
	// means always.
	ThinkingEnabled func(body []byte) bool
	// ReasoningReplayed reports that reasoning a model sent must come back
	// with the calls, for models that ask for it.
	ReasoningReplayed bool
	// Plans reports that a tool plan must come back in the assistant turn.
	Plans bool
	// TranslatedID matches call ids a client may send back in place of
	// the served ones because the provider accepts no others (Mistral's
	// nine characters, D05); nil when ids must come back unchanged.
	TranslatedID *regexp.Regexp
	// ToolResultText reports that a tool result's content must be a
	// string, never a list of parts (G10).
	ToolResultText bool
	// ResultAnyKey reports that a tool result travels as an object whose
	// keys the client chooses, so that a result is graded after its one
	// key is unwrapped (Gemini's functionResponse.response).
	ResultAnyKey bool
	// ResultForms are the other forms the API takes a tool result's
	// content in, besides the one the adapter's encoder writes: gateway
	// grading sends some follow-ups in each, so that a gateway that
	// mishandles one form fails only the cases sent in it.
	ResultForms []ResultForm
	// ResponseIDPrefix is the prefix of the response ids the fake provider
	// makes up ("msg_" when empty).
	ResponseIDPrefix string
	// StoredResponses reports that responses are stored and a request may
	// continue one by id (previous_response_id, store).
	StoredResponses bool
	// Threads reports that a request may create or continue a thread
	// held by the provider (the "thread" parameter).
	Threads bool
}

// ResultForm is one form of a tool result's content in a request body.
type ResultForm struct {
	// Name says what the form is, such as "content as a string".
	Name string
	// Rewrite turns a request body as the protocol's encoder writes it
	// into one that gives every tool result's content in this form; the
	// adapter decodes both to the same request.
	Rewrite func(body []byte) ([]byte, error)
}

// Requirement is a request option a recorded response depends on.
type Requirement struct {
	// What the request must carry, as a reason a reader understands.
	What string
	// Carried reports whether the request carries it; nil means no
	// request can (the recording is not one response to one request).
	Carried func(r *http.Request, body []byte) bool
}

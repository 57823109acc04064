package core

import "encoding/json"

// Chunk is one partial update of one tool call during streaming, as a
// provider sent it, before any routing decision. Buffer turns chunks into
// complete calls.
//
// Routing: a chunk names its call by ID when the provider sends one (an empty
// ID means "none"), else by (Turn, Index) when HasIndex is set. A chunk with
// neither continues the most recently started call of its turn, the only
// reading that provider streams without ids or indexes allow (A06, A07).
//
// Index is a routing key and nothing more: the index the provider gave the
// call's chunks (Chat Completions tool_calls[].index, an Anthropic or
// Bedrock content block index, a Responses output index), which need not
// start at 0, be contiguous, or differ from the index of a text block
// (A21). Decoders set it as the wire says; stream encoders use it to tell
// calls apart and write it as the wire index where that index is free,
// else the next free one, so that every adapter accepts a call at Index 0
// after text.
type Chunk struct {
	Turn     int    `json:"turn,omitempty"`
	Index    int    `json:"index"`
	HasIndex bool   `json:"has_index,omitempty"`
	ID       string `json:"id,omitempty"`
	// ItemID is a second provider id for the same call (OpenAI Responses
	// item id); it routes like ID when ID is absent.
	ItemID string `json:"item_id,omitempty"`
	// Name is the tool name. Names are set, never concatenated (A10).
	Name string `json:"name,omitempty"`
	// ArgsDelta is argument text to append.
	ArgsDelta string `json:"args_delta,omitempty"`
	// Args, when set, is the call's complete argument text, replacing
	// whatever was accumulated (a whole call in one chunk, A14/A15, or
	// arguments that arrive only at the end, A17).
	Args *string `json:"args,omitempty"`
	// Patch holds key/value patches merged into the arguments object, for
	// protocols that stream arguments as fields (Vertex partialArgs).
	Patch map[string]json.RawMessage `json:"patch,omitempty"`
	// Start marks the chunk that opens a call.
	Start bool `json:"start,omitempty"`
	// Done marks the chunk that completes a call.
	Done bool `json:"done,omitempty"`
	// Signature is an opaque value to echo with the call (G13).
	Signature string `json:"signature,omitempty"`
}

// EventKind says what an Event carries.
type EventKind string

// The kinds of Event.
const (
	EventText     EventKind = "text"
	EventThinking EventKind = "thinking"
	// EventPlan is a delta of a tool plan (Cohere).
	EventPlan      EventKind = "plan"
	EventCallStart EventKind = "call_start"
	EventCallDelta EventKind = "call_delta"
	EventCallEnd   EventKind = "call_end"
	EventUsage     EventKind = "usage"
	EventFinish    EventKind = "finish"
	EventError     EventKind = "error"
)

// Event is the canonical stream event every stream decoder emits.
//
// Text, thinking and plan events carry their delta in Text (and a thinking
// signature in Signature). Call events carry the call's Chunk. Finish carries
// the normalised and raw finish reasons, Usage the token counts, Error the
// provider's error.
type Event struct {
	Kind      EventKind `json:"kind"`
	Text      string    `json:"text,omitempty"`
	Signature string    `json:"signature,omitempty"`
	// Data is an opaque payload of a thinking event (Anthropic redacted
	// thinking), and ItemID the provider's id of the item a text or
	// thinking event belongs to (OpenAI Responses reasoning items); both
	// end up on the Part the event builds.
	Data           string         `json:"data,omitempty"`
	ItemID         string         `json:"item_id,omitempty"`
	Chunk          *Chunk         `json:"chunk,omitempty"`
	Usage          *Usage         `json:"usage,omitempty"`
	Finish         FinishReason   `json:"finish_reason,omitempty"`
	ProviderFinish string         `json:"provider_finish_reason,omitempty"`
	Error          *ProviderError `json:"error,omitempty"`
	// ID and Model describe the response, on the first event that knows
	// them.
	ID    string `json:"id,omitempty"`
	Model string `json:"model,omitempty"`
}

// EventStream yields a stream's events one at a time. Next returns io.EOF
// after the last event; any other error ends the stream, and the events
// returned before it stand.
type EventStream interface {
	Next() (Event, error)
}

package bedrock

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/idmap"
	"github.com/toolconform/conform/providers/internal/wire"
)

// DefaultMaxFrameSize is the largest event-stream frame DecodeStream accepts
// unless WithMaxFrameSize says otherwise.
const DefaultMaxFrameSize = 1 << 20

// maxOpenBlocks bounds how many content blocks a stream may keep open at
// once, so that a hostile stream cannot grow the decoder's state without
// bound.
const maxOpenBlocks = 4096

// API selects the shape of the bodies the adapter writes. Decoding accepts
// both shapes whatever the setting.
type API int

// The Bedrock APIs the adapter speaks.
const (
	// Converse is the Converse and ConverseStream API, the default.
	Converse API = iota
	// InvokeAnthropic is InvokeModel and InvokeModelWithResponseStream
	// with an Anthropic Messages body, as Anthropic models on Bedrock
	// receive it.
	InvokeAnthropic
)

// Sentinel errors callers may branch on with errors.Is.
var (
	// ErrChecksum is returned, beside core.ErrMalformed, when a frame's
	// prelude or message CRC does not match its bytes.
	ErrChecksum = errors.New("checksum mismatch")
)

// DecodeError is every decode fault of the adapter: a body that is not the
// JSON the adapter expects, or a stream frame that breaks, with the byte
// offset of the fault (of the frame's first byte for a stream), the frame's
// event type and the JSON path of the field where known.
type DecodeError = wire.DecodeError

// streamError is a fault in the stream frame at byte off, of event type
// event when known.
func streamError(off int64, event string, err error) *DecodeError {
	e := wire.Placed("bedrock: decode stream", off, "", err)
	e.Event = event
	return e
}

// Option configures an Adapter.
type Option func(*Adapter)

// WithAPI selects the API whose bodies the adapter writes.
func WithAPI(api API) Option { return func(a *Adapter) { a.api = api } }

// WithMaxFrameSize sets the largest stream frame DecodeStream accepts.
func WithMaxFrameSize(n int) Option { return func(a *Adapter) { a.maxFrame = n } }

// KeepForeignIDs turns off the mapping of call ids Converse refuses: they
// are sent as they are, and Bedrock answers 400.
func KeepForeignIDs() Option { return func(a *Adapter) { a.IDMap = nil } }

// IDMap translates call ids between the canonical conversation and the
// wire (see Adapter.IDMap).
type IDMap = idmap.Map

// validID reports whether Converse accepts id as a toolUseId: 1 to 64
// characters of [a-zA-Z0-9_-] (API reference, ToolUseBlock).
func validID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Adapter is the Bedrock wire protocol. It implements core.Adapter.
type Adapter struct {
	// IDMap holds the ids mapped on encoding Converse requests: a call id
	// Converse refuses (over 64 characters, or outside [a-zA-Z0-9_-], D04)
	// is sent as "tooluse_" plus 22 base-62 characters derived from the
	// id, on the toolUse and its toolResult alike, and mapped back on
	// decoding requests. It is nil with KeepForeignIDs.
	IDMap    *IDMap
	api      API
	maxFrame int
}

var _ core.Adapter = (*Adapter)(nil)

// New returns a Bedrock adapter that writes Converse bodies unless an option
// says otherwise.
func New(opts ...Option) *Adapter {
	a := &Adapter{api: Converse, maxFrame: DefaultMaxFrameSize}
	a.IDMap = idmap.New(validID, func(id string, attempt int) string { return "tooluse_" + idmap.Hash(id, attempt, 22) }, 0)
	for _, o := range opts {
		o(a)
	}
	if a.maxFrame <= 0 {
		a.maxFrame = DefaultMaxFrameSize
	}
	return a
}

// Name returns "bedrock".
func (a *Adapter) Name() string { return "bedrock" }

// unmarshal decodes body into v with wire.StrictUnmarshal and turns a
// failure into a DecodeError naming the byte offset and field.
func unmarshal(op string, body []byte, v any) error {
	if off, field, err := wire.StrictUnmarshal(body, v); err != nil {
		return &DecodeError{Protocol: "bedrock", Op: op, Offset: off, Path: field, Err: err}
	}
	return nil
}

// objectArgs returns a call's arguments as a JSON object for the wire:
// empty and null arguments become {} (G15), anything that is not an object
// is core.ErrInvalidArguments.
func objectArgs(args json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid(t) || t[0] != '{' {
		return nil, core.ErrInvalidArguments
	}
	return json.RawMessage(t), nil
}

// callFromWire builds a call from wire input, which must be a JSON object.
// Absent and null input become {} (C06). A JSON string that holds an object
// (double-encoded input, C05) is unwrapped and the call marked Repaired,
// with the input as received in Original. Anything else is
// core.ErrInvalidArguments: such a call is never reported as complete.
func callFromWire(id, name string, in json.RawMessage) (core.Call, error) {
	c := core.Call{ID: id, Name: name}
	t := bytes.TrimSpace(in)
	switch {
	case len(t) == 0 || string(t) == "null":
		c.Arguments = json.RawMessage("{}")
	case t[0] == '{':
		c.Arguments = json.RawMessage(append([]byte(nil), t...))
	case t[0] == '"':
		var s string
		if err := json.Unmarshal(t, &s); err == nil {
			if inner := bytes.TrimSpace([]byte(s)); len(inner) > 0 && inner[0] == '{' && json.Valid(inner) {
				c.Arguments, c.Repaired, c.Original = json.RawMessage(inner), true, string(t)
				return c, nil
			}
		}
		return c, core.ErrInvalidArguments
	default:
		return c, core.ErrInvalidArguments
	}
	return c, nil
}

// finishFromStop normalises a Converse or Anthropic stop reason.
func finishFromStop(s string) core.FinishReason {
	switch s {
	case "end_turn", "stop_sequence", "pause_turn":
		return core.FinishStop
	case "tool_use":
		return core.FinishToolCalls
	case "max_tokens", "model_context_window_exceeded":
		return core.FinishLength
	case "guardrail_intervened", "content_filtered", "refusal":
		return core.FinishContentFilter
	case "":
		return ""
	}
	return core.FinishOther
}

// stopFromFinish gives the wire stop reason for a canonical finish when the
// provider's own value is not known.
func stopFromFinish(f core.FinishReason) string {
	switch f {
	case core.FinishStop:
		return "end_turn"
	case core.FinishToolCalls:
		return "tool_use"
	case core.FinishLength:
		return "max_tokens"
	case core.FinishContentFilter:
		return "content_filtered"
	case "":
		return ""
	}
	return string(f)
}

package core

import "errors"

// The sentinels of the conditions that mean the same in every protocol.
// Every adapter's decode and encode errors wrap one of them (inside an
// error naming the protocol, the operation and the byte offset or path),
// as do Buffer and Collect, so that a caller branches with errors.Is
// whatever the protocol. Conditions worded in one protocol's terms are
// that adapter's own sentinels.
var (
	// ErrMalformed reports input that is not well formed: bytes that are
	// not the protocol's wire format (not JSON, a field of the wrong type
	// or value, a broken frame), or an event Collect cannot use (a call
	// event without its Chunk, an unknown kind). ErrNotStream is a kind
	// of it.
	ErrMalformed = errors.New("malformed")
	// ErrTooLarge reports input past a size limit: a stream event, frame,
	// body or count of blocks past a decoder's limit, text, thinking and
	// plan deltas past Limits.MaxTextBytes; ErrArgumentsTooLarge and
	// ErrTooManyCalls are kinds of it.
	ErrTooLarge = errors.New("too large")
	// ErrTruncated reports a stream that ended, without an error, before
	// its protocol's end (Anthropic's message_stop, Ollama's done line, a
	// whole Bedrock frame) or, in Collect, before any finish event: cut
	// off, or not a stream of the protocol at all. What it carried stays
	// in the Response; the text may be incomplete.
	ErrTruncated = errors.New("stream ended early")
	// ErrInvalidArguments reports tool call arguments that are not a JSON
	// object: text that is not JSON, or that repair could only turn into
	// something else, such as a bare string. Providers reject such
	// arguments on replay (G09).
	ErrInvalidArguments = errors.New("tool call arguments are not a JSON object")
	// ErrUnsupported reports a canonical value the protocol cannot carry,
	// such as a schema keyword its API refuses.
	ErrUnsupported = errors.New("not supported by the protocol")
)

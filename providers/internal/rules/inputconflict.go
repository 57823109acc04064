package rules

import (
	"errors"

	"github.com/toolconform/conform/internal/jsonvalue"
)

// ErrInputConflict reports a tool_use whose start carries a populated input
// that its streamed input contradicts (A18): the one sentinel of Anthropic's
// stream and of Bedrock's InvokeModel stream, which carries Anthropic's
// events, each wrapped beside core.ErrMalformed.
var ErrInputConflict = errors.New("tool_use start input contradicts its streamed input")

// InputConflict reports whether the streamed input of a tool call
// contradicts the populated input its start event carried (A18, as
// Anthropic's content_block_start and Bedrock's InvokeModel stream send
// it): a member of start is missing from streamed, or has another value
// there. Deltas that repeat the start's input or extend it with more
// members do not conflict. Either side that is not exactly one JSON value
// is not compared and reports no conflict: the Buffer judges argument text
// that is not JSON (repaired or incomplete), as for any call.
func InputConflict(start, streamed []byte) bool {
	s, ok := jsonvalue.Decode(start)
	if !ok {
		return false
	}
	d, ok := jsonvalue.Decode(streamed)
	return ok && !jsonvalue.Within(s, d)
}

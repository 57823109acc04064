package oaichat

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolconform/conform/providers/internal/idmap"
	"github.com/toolconform/conform/providers/internal/wire"
)

// Sentinel errors callers branch on. Errors returned by the codec wrap one
// of them (or an sse error) inside an *Error that names the place.
var (
	// ErrInvalidJSON reports bytes that are not JSON.
	ErrInvalidJSON = errors.New("invalid JSON")
	// ErrBadField reports a field of the wrong type or with a value the
	// protocol does not allow.
	ErrBadField = errors.New("bad field")
	// ErrMissingCallID reports a tool result without the id of its call
	// (G06): Chat Completions pairs results with calls only by id.
	ErrMissingCallID = errors.New("tool result without tool_call_id")
	// ErrBadArguments reports tool-call arguments in a request that are not
	// JSON.
	ErrBadArguments = errors.New("tool-call arguments are not JSON")
	// ErrUnsupported reports a canonical value the wire format cannot
	// express.
	ErrUnsupported = errors.New("not expressible in chat completions")
	// ErrTooManyIDs reports an id map that reached its size limit.
	ErrTooManyIDs = idmap.ErrTooMany
)

// Error is a codec error with its place, wire.DecodeError: a byte offset
// in the body or stream (-1 when unknown) and a path (empty when unknown).
// The path is usually a JSON path such as
// choices[0].delta.tool_calls[1].function.arguments or
// messages[2].parts[0].kind, but for a strict tool schema EncodeRequest
// cannot rewrite it names the tool by index and name, tools[i] "name" (as
// in tools[1] "echo"), which is no JSON path.
type Error = wire.DecodeError

// jsonError turns an encoding/json error into an *Error whose offset is
// base plus the place wire.JSONPlace finds: the 0-based offset of the bad
// byte of a syntax error, the offset a type error names.
func jsonError(op string, base int64, err error) error {
	off, field, ok := wire.JSONPlace(err)
	var te *json.UnmarshalTypeError
	switch {
	case ok && errors.As(err, &te):
		return wire.Placed(op, base+off, field, fmt.Errorf("%w: %s cannot hold JSON %s", ErrBadField, te.Type, te.Value))
	case ok:
		return wire.Placed(op, base+off, "", fmt.Errorf("%w: %v", ErrInvalidJSON, err))
	}
	return wire.Placed(op, base, "", fmt.Errorf("%w: %v", ErrInvalidJSON, err))
}

// fieldError returns an *Error for a field at path.
func fieldError(op, path string, err error) error {
	return wire.Placed(op, -1, path, err)
}

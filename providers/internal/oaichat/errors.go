package oaichat

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/idmap"
	"github.com/toolconform/conform/providers/internal/wire"
)

// ErrTooManyIDs reports an id map that reached its size limit. Errors
// returned by the codec wrap it or one of core's sentinels inside a
// *DecodeError that names the place.
var ErrTooManyIDs = idmap.ErrTooMany

// DecodeError is a codec error with its place, wire.DecodeError: a byte offset
// in the body or stream (-1 when unknown) and a path (empty when unknown).
// The path is usually a JSON path such as
// choices[0].delta.tool_calls[1].function.arguments or
// messages[2].parts[0].kind, but for a strict tool schema EncodeRequest
// cannot rewrite it names the tool by index and name, tools[i] "name" (as
// in tools[1] "echo"), which is no JSON path.
type DecodeError = wire.DecodeError

// jsonError turns an encoding/json error into a *DecodeError whose offset is
// base plus the place wire.JSONPlace finds: the 0-based offset of the bad
// byte of a syntax error, the offset a type error names.
func jsonError(op string, base int64, err error) error {
	off, field, ok := wire.JSONPlace(err)
	var te *json.UnmarshalTypeError
	switch {
	case ok && errors.As(err, &te):
		return wire.Placed(op, base+off, field, fmt.Errorf("%w: %s cannot hold JSON %s", core.ErrMalformed, te.Type, te.Value))
	case ok:
		return wire.Placed(op, base+off, "", fmt.Errorf("%w: %v", core.ErrMalformed, err))
	}
	return wire.Placed(op, base, "", fmt.Errorf("%w: %v", core.ErrMalformed, err))
}

// fieldError returns a *DecodeError for a field at path.
func fieldError(op, path string, err error) error {
	return wire.Placed(op, -1, path, err)
}

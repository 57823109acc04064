package openairesponses

import (
	"errors"

	"github.com/toolconform/conform/providers/internal/wire"
)

// Sentinel errors callers can branch on with errors.Is.
var (
	// ErrMissingOutput reports a function_call without a
	// function_call_output later in the input (G07).
	ErrMissingOutput = errors.New("function_call without function_call_output")
	// ErrOrphanOutput reports a function_call_output whose function_call is
	// not in the input.
	ErrOrphanOutput = errors.New("function_call_output without function_call")
	// ErrDuplicateID reports two function calls with one call_id (D06).
	ErrDuplicateID = errors.New("duplicate call_id")
)

// protocolName names the protocol in errors.
const protocolName = "openai-responses"

// DecodeError is a failure to decode bytes. Offset is the byte offset of the
// fault in the body or stream (-1 when unknown); Path is the JSON path of the
// faulty value when known. It is the type every adapter that shares
// providers/internal/wire uses; its Protocol field says "openai-responses".
type DecodeError = wire.DecodeError

// HistoryError is a conversation that breaks the protocol's history rules.
// Message is the index in Request.Messages of the offending message and ID
// the call id concerned.
type HistoryError = wire.HistoryError

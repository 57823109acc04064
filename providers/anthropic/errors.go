package anthropic

import (
	"errors"

	"github.com/toolconform/conform/providers/internal/wire"
)

// Sentinel errors callers can branch on with errors.Is.
var (
	// ErrMissingResult reports a tool_use with no tool_result in the next
	// message (G01).
	ErrMissingResult = errors.New("tool_use without tool_result in the next message")
	// ErrOrphanResult reports a tool_result whose tool_use is not in the
	// previous message (G02).
	ErrOrphanResult = errors.New("tool_result without tool_use in the previous message")
	// ErrDuplicateID reports two tool calls, or two results, with one id.
	ErrDuplicateID = errors.New("duplicate tool call id")
)

// protocolName names the protocol in errors.
const protocolName = "anthropic"

// DecodeError is a failure to decode bytes. Offset is the byte offset of the
// fault in the body or stream (-1 when unknown); Path is the JSON path of the
// faulty value when known. It is the type every adapter that shares
// providers/internal/wire uses; its Protocol field says "anthropic".
type DecodeError = wire.DecodeError

// HistoryError is a conversation that breaks the protocol's history rules.
// Message is the index in Request.Messages of the offending message and ID
// the call id concerned.
type HistoryError = wire.HistoryError

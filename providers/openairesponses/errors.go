package openairesponses

import "github.com/toolconform/conform/providers/internal/wire"

// protocolName names the protocol in errors.
const protocolName = "openai-responses"

// DecodeError is a failure to decode bytes. Offset is the byte offset of the
// fault in the body or stream (-1 when unknown); Path is the JSON path of the
// faulty value when known. It is the type every adapter that shares
// providers/internal/wire uses; its Protocol field says "openai-responses".
type DecodeError = wire.DecodeError

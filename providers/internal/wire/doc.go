// Package wire holds the pieces of wire handling that several provider
// adapters share: a JSON string codec that keeps raw bytes, the error types
// that name a byte offset or JSON path, and an SSE event reader that turns
// the shared SSE decoder's errors into those types.
//
// Each adapter keeps its own sentinel errors (ErrMalformed, ErrTooLarge, ...)
// so that callers branch on the adapter they use; the error structs are
// shared and carry the protocol name, so an adapter re-exports them as type
// aliases (type DecodeError = wire.DecodeError) and errors.As keeps working
// with the adapter's name for the type.
//
// Rejected alternative: one set of sentinels for all adapters. It would make
// errors.Is(err, anthropic.ErrTruncated) true for an OpenAI Responses
// stream, which callers that hold several adapters could misread.
package wire

// Package wire holds the pieces of wire handling that several provider
// adapters share, each written once:
//
//   - UnquoteRaw and QuoteRaw, a JSON string codec that keeps bytes that
//     are not valid UTF-8, so that a character split between two stream
//     deltas reassembles exactly (B05), and AppendUnescaped, the unescaper
//     under UnquoteRaw that the Chat Completions fast path (oaichat) also
//     calls, with a reused buffer and its report of lone surrogates;
//   - DecodeError and HistoryError (carrying the protocol's name, a byte
//     offset, a JSON path, a message index and call id), OffsetError and
//     PathError, and JSONError, which turns an encoding/json error into a
//     DecodeError at the offset in the whole body;
//   - SSEReader, the shared SSE decoder with the adapters' error types, and
//     NextEvent, the Next loop of an SSE stream decoder;
//   - Queue, the events decoded from one wire event waiting for Next, with
//     the response id and model stamped on the first;
//   - ResponseMeta, Indexes and AppendCallArgs (which argument texts a call
//     delta or end chunk writes) for stream encoders;
//   - StrictUnmarshal (one JSON value, nothing after it, with the offset
//     and field of a fault), JSONPlace and WrapJSONError, which Bedrock and
//     Cohere use to place encoding/json errors in bodies and stream events;
//   - NotStream and StreamInput, how a stream decoder tells input of no
//     event of its protocol (core.ErrNotStream, at the offset of the first
//     unusable event) from blank input, the same whatever the read sizes;
//   - DecodeNumbers, JSONEqual, JSONWithin and InputConflict, the A18 rule
//     for a tool_use whose start carries input and whose deltas follow
//     (Anthropic, Bedrock InvokeModel);
//   - VendorError, VendorFallback and GuardStream: the error bodies vendors
//     send in place of a protocol's (an error object or string, detail,
//     message, lists of errors), which every adapter reports as provider
//     errors, whole or in answer to a streaming request;
//   - ThinkingAfterCall, the G12 check that no thinking part follows a
//     call in one assistant message (Anthropic, Bedrock).
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
//
// Not shared: the Cohere and Bedrock error structs (StreamError,
// FrameError, DecodeError), the Anthropic and Bedrock ThinkingOrderError
// types (their messages name the place and the block kinds in each
// protocol's words) and the Option types. The structs have the
// same shape but word their messages differently (an event or a frame; an
// offset of 0 shown or not), and merging them would change messages
// callers may match; what fills them (StrictUnmarshal) is shared. An
// Option is a func(*Adapter) of its own package's Adapter, one line that
// cannot be shared without a type parameter that would only add noise.
package wire

// Package wire holds the pieces of wire handling that several provider
// adapters share, each written once:
//
//   - UnquoteRaw and QuoteRaw, a JSON string codec that keeps bytes that
//     are not valid UTF-8, so that a character split between two stream
//     deltas reassembles exactly (B05), and AppendUnescaped, the unescaper
//     under UnquoteRaw that the Chat Completions fast path (oaichat) also
//     calls, with a reused buffer and its report of lone surrogates;
//   - DecodeError (carrying the protocol's name, a byte offset, an event
//     or frame type and a JSON path), Placed, which builds a DecodeError
//     from an operation named with its protocol, JSONError, which turns an
//     encoding/json error into a DecodeError at the offset in the whole
//     body, and History, which names the protocol in core's history errors;
//   - CheckToolChoice and CheckResultParts, which refuse a tool choice of no
//     known mode and a tool_result part without its result for the
//     encoders that would otherwise drop them (Bedrock, Cohere, Gemini,
//     Ollama);
//   - SSEReader, the shared SSE decoder with the adapters' error types;
//     SSEWriter, the writer of the Anthropic and OpenAI Responses stream
//     encoders, which keeps the first error;
//   - Queue, the events decoded from one wire event waiting for Next, with
//     the response id and model stamped on the first, and Pull, the Next
//     loop over it that Anthropic, OpenAI Responses, Gemini and Ollama
//     share;
//   - ResponseMeta, Indexes and AppendCallArgs (which argument texts a call
//     delta or end chunk writes) for stream encoders;
//   - StrictUnmarshal (one JSON value, nothing after it, with the offset
//     and field of a fault), JSONPlace and WrapJSONError, which Bedrock and
//     Cohere use to place encoding/json errors in bodies and stream events;
//   - NotStream and StreamInput, how a stream decoder tells input of no
//     event of its protocol (core.ErrNotStream, at the offset of the first
//     unusable event) from blank input, the same whatever the read sizes;
//   - InputConflict and ErrInputConflict, the A18 rule for a tool_use whose
//     start carries input and whose deltas follow (Anthropic, Bedrock
//     InvokeModel);
//   - VendorError, VendorFallback and GuardStream: the error bodies vendors
//     send in place of a protocol's (an error object or string, detail,
//     message, lists of errors), which every adapter reports as provider
//     errors, whole or in answer to a streaming request;
//   - ThinkingAfterCall, the G12 check that no thinking part follows a
//     call in one assistant message (Anthropic, Bedrock).
//
// Errors. A decode fault is a *DecodeError (protocol, operation, byte
// offset, event or frame type, JSON path, and the sentinel it wraps) in
// all eight adapters, each of which names it DecodeError (type DecodeError
// = wire.DecodeError) so that errors.As works with the adapter's name for
// the type. A history fault is a *core.HistoryError (protocol, message
// index, call id, failure-mode guard) wrapping core's sentinel of the rule,
// in all eight; History names the protocol in the ones core.CheckHistory
// returns, and an adapter's own rules say the rule in its words around
// the sentinel ("tool_use without tool_result in the next message").
//
// Sentinel policy. A condition that means the same in every protocol is one
// of core's sentinels, wrapped by every adapter alike: core.ErrMalformed
// (bytes that are not the protocol's wire format), core.ErrTooLarge (past a
// size limit), core.ErrTruncated (a stream that ended before its protocol's
// end), core.ErrInvalidArguments (arguments that are not a JSON object),
// core.ErrUnsupported (a value the protocol cannot carry), core.ErrNotStream
// (no event of the protocol, a kind of core.ErrMalformed),
// core.ErrInvalidUTF8 and core.ErrTooDeep (the text and nesting rules), the
// limits of core/limits.go and core's history sentinels (ErrMissingResult,
// ...). The message around the sentinel says it in the protocol's words
// ("stream ended early: no message_stop"). A condition worded in one
// protocol's terms is that adapter's own sentinel, wrapped beside core's
// (bedrock.ErrChecksum, a frame CRC, beside core.ErrMalformed;
// anthropic.ErrInputConflict, A18, likewise), so that errors.Is(err,
// bedrock.ErrChecksum) is never true of another protocol's stream while
// errors.Is(err, core.ErrMalformed) is true of every malformed one.
// providers/sentinels_test.go holds all eight adapters to this.
//
// Not shared: the Option types. An Option is a func(*Adapter) of its own
// package's Adapter, one line that cannot be shared without a type parameter
// that would only add noise.
package wire

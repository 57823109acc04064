// Package wire is the error family of the built-in adapters: DecodeError
// (protocol, operation, byte offset, event or frame type, JSON path, and
// the sentinel it wraps); Placed, which builds one from an operation named
// with its protocol; JSONError, JSONPlace, StrictUnmarshal and
// WrapJSONError, which place an encoding/json error at its offset in the
// whole body; History, which names the protocol in core's history errors;
// and CheckToolChoice, the one check of a tool choice's mode.
//
// The other pieces the adapters share live beside it, one job each:
// jsonstr (JSON strings that keep their bytes, and the text rule), sseio
// (SSE read and write), streamdec (the stream decoder's queue, pull loop
// and input), vendorerr (vendors' error bodies), streamenc (what stream
// encoders share), rules (A18 and G12, each applied by two adapters),
// jsonscan (the fast paths' scanner) and ndjson.
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
// size or count limit; the count limits core.ErrTooManyCalls and
// idmap.ErrTooMany are kinds of it, as core.ErrArgumentsTooLarge is),
// core.ErrTruncated (a stream that ended before its protocol's
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
package wire

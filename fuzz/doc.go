// Package fuzz holds the fuzz properties that span packages: an adapter's
// stream encoder and decoder together with core.Collect, and the recorded
// corpus of the cassettes package fed through every adapter. Targets that
// test one package live beside that package's code (core/repair,
// core.Buffer, sse, providers/<name>); docs/fuzzing.md
// lists them all and tells how to run them. The package has no API: it is
// only its tests, and nothing imports it.
//
// # Targets
//
// FuzzStreamRoundTrip draws a canonical stream — optional text, then up to
// three tool calls, each opened with its id and name, its argument text cut
// into deltas at fuzz-chosen points and closed, then a tool_calls finish —
// and, for the fuzz-chosen built-in adapter, encodes it with EncodeStream,
// decodes the bytes with DecodeStream in fuzz-chosen pieces and collects
// them with core.Collect. The collected response must have the same calls
// (names, ids, arguments compared as JSON values) and the same text, with
// nothing incomplete and no error. Argument text that is not a JSON object
// is wrapped as the string value of {"s": ...}, so every input is a valid
// call and no input is thrown away.
//
// FuzzRecordedSplit takes one of the streamed responses of the recorded
// corpus (every cassette in a folder named after a built-in adapter, every
// interaction whose response is streamed) and reads it through its adapter
// in pieces cut at fuzz-chosen points. The collected response and the error
// text must be those of reading the body whole.
//
// FuzzDecodeCollect gives arbitrary bytes to the fuzz-chosen adapter's
// stream decoder and collects the events, reading the bytes whole and again
// in fuzz-chosen pieces. It must not panic, and both reads must give the
// same response and error text; every call it
// reports complete has arguments that are a valid JSON object, with
// Original set when they were repaired and Arguments unset for a call left
// incomplete; a response with incomplete calls comes with an error, and an
// error names its event (a *core.StreamError). The decoder runs with its
// default limits, and a body whose size is past the fuzzer's input limit
// is never produced, so memory stays within what those limits allow.
//
// # Design
//
// One target spans all adapters, with the adapter chosen by a fuzz byte,
// rather than one target per adapter: a finding in one adapter's encoder
// often shows in another, CI time grows with the number of targets (each
// needs its own compile and baseline pass), and the per-adapter targets
// beside each package already fuzz each decoder's own byte-level rules.
//
// What an adapter cannot carry is left out of the drawn streams rather than
// compared loosely: text is valid UTF-8 (every wire format is JSON, which
// would replace bad bytes), call ids are plain ASCII, and names come from a
// small list of valid tool names. Gemini and Ollama write a call only at its
// end with its whole arguments, so for them the deltas test the encoder's
// accumulation, not the wire.
package fuzz

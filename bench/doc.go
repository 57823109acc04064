// Package bench measures how fast conform turns streamed tool calls into
// complete calls, against the peer Go SDKs, a naive decoder and the floor,
// on the same bytes in one benchmark run. It is its own module, so that
// the peer SDKs never enter conform's go.mod; bench/run reproduces the
// figures in README.md.
//
// # Streams
//
//   - (a) ChatStream: four parallel calls of about 2 KB of arguments each,
//     in 4-byte deltas interleaved round robin, every chunk with the full
//     envelope OpenAI sends (id, object, created, model, service_tier,
//     system_fingerprint, usage, choices with index, delta, logprobs and
//     finish_reason): 715,149 bytes in 2,088 events, checked by
//     TestGeneratedShape.
//   - (b) the same calls and deltas in Anthropic framing (AnthropicStream:
//     event: lines, input_json_delta by block index) and Responses framing
//     (ResponsesStream: function_call_arguments.delta by item id, then the
//     .done events and response.completed repeating the whole arguments,
//     as OpenAI sends them). The deltas stay interleaved in both: each
//     event names its block or item, so the wire allows it, though the
//     providers send blocks one after another in practice.
//   - (c) every streamed (text/event-stream) response body recorded in
//     the project's cassettes for openai-chat, anthropic and
//     openai-responses, one benchmark per protocol over all of them.
//
// Arguments are ASCII JSON holding quotes, backslashes and newlines, so
// every delta needs unescaping, as real ones do.
//
// # Subjects
//
// Every subject reads the body through a bytes.Reader and returns the calls
// (id, name, argument text) in the order they started:
//
//   - conform: core.Collect over the adapter's DecodeStream, which feeds
//     every call event to a core.Buffer (limits, routing, completion
//     checks included).
//   - openai-go: openai-go v3's packages/ssestream decoder and
//     ChatCompletionAccumulator, given an *http.Response built in memory.
//     For Responses, the same decoder into its stream event union with the
//     calls accumulated by hand (the SDK has no Responses accumulator).
//   - anthropic-sdk-go: its ssestream decoder and Message.Accumulate.
//   - go-openai: sashabaranov/go-openai's ChatCompletionStream, which it
//     builds only from an HTTP response: the client gets an in-memory
//     http.RoundTripper (memTransport) that answers with the body, so no
//     socket, server goroutine or loopback copy enters the figures. Its
//     per-stream cost includes encoding a one-message request and building
//     the http.Request, a few microseconds against a stream of hundreds of
//     kilobytes. Calls are accumulated by hand by tool call index.
//   - naive: bufio.Scanner lines, encoding/json into map[string]any for
//     each data payload, calls accumulated in maps.
//   - floor: lines split with bytes.IndexByte and nothing else. It rebuilds
//     no calls by definition; TestFloor checks that it counts every line.
//
// Before anything is timed, TestSubjectsAgreeGenerated checks that every
// subject rebuilds exactly the generated calls from every framing, and
// TestSubjectsAgreeCorpus that the corpus benchmarks include only the
// recorded streams from which every subject rebuilds conform's calls
// (Agreed); the others are listed with the reason, most of them streams a
// peer misreads (server tool calls, arguments only in .done events) or
// holding a provider error.
//
// # Figures
//
// MB/s comes from b.SetBytes with the body size; allocs/op and B/op are
// per stream; allocs/event divides the mallocs counted by runtime.MemStats
// across the timed loop by the SSE events of the stream. BenchmarkGrowth
// decodes one call of 1 KB, 64 KB, 1 MB and 16 MB of arguments (128-byte
// deltas, Buffer limits raised to 64 MB) and reports ns and bytes allocated
// per argument byte, which must stay flat as the size grows.
//
// # What made conform fast
//
// The first version decoded every chunk with encoding/json into the full
// wire struct and copied each SSE event's data into a string: about 27
// allocations per event. Profiles showed encoding/json and its allocations
// dominating, so providers/internal/oaichat gained a fast path (fast.go): a
// scanner over the common chunk shape (one text delta or one argument
// delta of one call, with the usual envelope) that allocates nothing per
// event. Anything outside that shape falls back to the general path, and
// tests compare the two on the whole corpus, on edge cases and under a
// fuzz target. Chunks come from slabs of 64, short strings from an
// append-only arena of 8 KB blocks (unsafe.String over bytes never written
// again), and providers/internal/sse gained NextRaw, which hands out each
// event's data without a copy. Rejected: reusing one Chunk for every event
// (a caller keeping events would see them change) and one string
// allocation per delta (one allocation per event, above the target).
package bench

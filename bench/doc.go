// Package bench measures how fast conform turns streamed tool calls into
// complete calls, against the official and other peer Go SDKs and a naive
// decoder, on the same bytes in one benchmark run. It is its own module, so that
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
//     event: lines, input_json_delta by block index), Responses framing
//     (ResponsesStream: function_call_arguments.delta by item id, then the
//     .done events and response.completed repeating the whole arguments,
//     as OpenAI sends them), Cohere framing (CohereStream: event: lines,
//     tool-call-delta by call index) and Bedrock ConverseStream framing
//     (BedrockStream: AWS event-stream frames with their three string
//     headers, toolUse input deltas by contentBlockIndex, each payload
//     with Bedrock's "p" padding). The deltas stay interleaved in all
//     four: each event names its block, item or call, so the wire allows
//     it, though the providers send them one after another in practice.
//   - the same four calls as Gemini and Ollama send calls, whole:
//     gemini-4x2KB (GeminiStream, one SSE chunk per call with its args
//     object and the usageMetadata, modelVersion and responseId envelope)
//     and ollama-4x2KB (OllamaStream, one /api/chat NDJSON line per call
//     and the done line); 4 and 5 events, so their allocations per event
//     are mostly the per-stream and per-call costs.
//   - the tiny stream (openai-chat-1x20B): one call of 20 bytes of
//     arguments (TinyCall) in one delta, 1,702 bytes in 6 events, where
//     per-stream setup is most of the cost.
//   - (c) every streamed response body recorded in the project's
//     cassettes (CorpusStreams) for openai-chat, anthropic,
//     openai-responses, gemini, cohere, bedrock, mistral and Google's
//     Interactions API (gemini-interactions, the cassettes' "other"
//     folder, decoded by gemini's DecodeInteractionStream): bodies sent as
//     text/event-stream, as AWS application/vnd.amazon.eventstream
//     (Bedrock) or as NDJSON, and Gemini streamGenerateContent bodies sent
//     without alt=sse, one JSON array under application/json. Two
//     benchmarks per protocol: "<protocol>-corpus", the bodies from which
//     every subject rebuilds conform's calls, with every subject; and
//     "<protocol>-corpus-all", every recorded body, with conform alone, so
//     that the bodies a peer misreads are measured too and no recorded
//     body goes untimed. There is no Ollama recording among the cassettes
//     (the Ollama package's NDJSON fixtures are constructed, not
//     recorded), so Ollama is measured on ollama-4x2KB only.
//
// Arguments are ASCII JSON holding quotes, backslashes and newlines, so
// every delta needs unescaping, as real ones do.
//
// # Subjects
//
// Every subject reads the body through an io.Reader and appends the calls
// (id, name, argument text) in the order they started to a slice it is
// given. What the harness does around a subject is the same for all and
// is left out where no user of any subject would do it: the reader over
// the body is one per subject, reset for each body (an HTTP response body
// for the subjects driven over HTTP); the slice of calls is the last
// run's, emptied; argument text a subject holds as bytes becomes a Call's
// string without a copy (argsText). What each subject does to get its
// calls, request and response building over HTTP included, is counted:
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
//   - genai (google.golang.org/genai) for Gemini: a Gemini API client
//     whose http.Client has a memTransport, Models.GenerateContentStream
//     with automatic continuation off, and every functionCall part taken
//     as one whole call. genai exports no decoder over an io.Reader; its
//     stream reader is reached only through a request of its own. It
//     reads SSE only, so the JSON-array bodies are left to corpus-all.
//   - aws-sdk-go-v2 (service/bedrockruntime) for Bedrock: a client with
//     static credentials, a base endpoint and a memTransport (request
//     serialised and SigV4-signed per stream). A Converse recording is
//     read with ConverseStream, the calls rebuilt from its tool-use
//     contentBlockStart and contentBlockDelta events; an
//     InvokeModelWithResponseStream recording (frames carrying
//     {"bytes": base64}) with InvokeModelWithResponseStream, each chunk's
//     Anthropic event decoded into a map as the naive Anthropic decoder
//     does, since the SDK leaves the payload to the caller. The SDK's
//     AWS event-stream decoder and CRC checks are what is measured.
//   - ollama (github.com/ollama/ollama/api, Ollama's own Go client) for
//     Ollama: a Client whose http.Client has a memTransport, Chat with a
//     callback taking every tool call of each ChatResponse as one whole
//     call, its arguments (an ordered map in the client) encoded with
//     json.Marshal. The client reads NDJSON with a bufio.Scanner over an
//     8 MB buffer it allocates for every request.
//   - conform-http: conform reached the way go-openai, genai, ollama and
//     aws-sdk-go-v2 are, an http.Client POST answered by a memTransport,
//     its DecodeStream reading the response body; conform's ratio to an
//     SDK driven over HTTP is conform-http's.
//   - naive: bufio.Scanner lines, encoding/json into map[string]any for
//     each data payload, calls accumulated in maps. For Gemini every named
//     functionCall part is one whole call, its args re-encoded with
//     json.Marshal (so Gemini arguments are compared as JSON values,
//     ArgsAsJSON, and an id-less call agrees with the id conform makes up,
//     GeneratedIDs); it reads neither the JSON-array form nor Vertex
//     partialArgs, which leaves those bodies to corpus-all. Cohere:
//     tool-call-start and tool-call-delta by index. Mistral streams
//     OpenAI's chunk format and gets the openai-chat naive decoder.
//     Gemini Interactions: step.start of a function_call step and
//     arguments_delta step.delta events by step index.
//     Bedrock (NaiveBedrock): its body is binary AWS event-stream frames,
//     which no line split reads, so the naive decoder reads them the
//     straightforward way, each frame into a new slice with
//     encoding/binary, both CRCs checked with hash/crc32, the headers into
//     a map, the payload into map[string]any, and an InvokeModel chunk's
//     base64 "bytes" decoded and read as an Anthropic event.
//
// cohere-go v2.15.3 (github.com/cohere-ai/cohere-go/v2, the only version
// the module proxy lists) was tried and is not a subject: the line
// splitter of its V2.ChatStream hands a data line cut by the end of its
// 4,096-byte buffer, or a lone blank line, to json.Unmarshal, which fails
// with "unexpected end of JSON input" on every recorded Cohere stream, read
// whole or one event per read (TestCohereGoFails; README.md gives the
// events), so it rebuilds no calls to compare. Mistral and Gemini
// Interactions have no official Go SDK in the race.
//
// The reference: before the streams, each pass times bytes.IndexByte
// splitting stream (a) into lines (Floor, which rebuilds nothing;
// TestFloor checks that it counts every line). It is shown once, as a
// measure of the machine in that pass, not as a bound for any subject.
//
// Before anything is timed, TestSubjectsAgreeGenerated checks that every
// subject rebuilds exactly the generated calls from every framing, and
// TestSubjectsAgreeCorpus that the corpus benchmarks include only the
// recorded streams from which every subject rebuilds conform's calls
// (Agreed); the others are listed with the reason, most of them streams a
// peer misreads (server tool calls, arguments only in .done events, Gemini
// partialArgs and JSON arrays) or holding a provider error.
// TestConformMatchesGoldens checks conform itself on every recorded
// streamed body of every protocol: the conform subject, as the benchmarks
// drive it, must rebuild the calls that the protocol's own package decodes
// from the same body outside this module, as its golden files under
// providers/<package>/testdata/golden record them (arguments compared as
// JSON values). TestCorpusAll checks that corpus-all holds every recorded
// body and that conform ends with an error only on a recorded provider
// error, which the benchmark then expects.
//
// # Figures
//
// cmd/table gives every ratio as the median of the per-pass ratios, with
// their min–max range: within a pass the subjects of a stream run
// back to back, so load that comes and goes cancels in the ratio. MB/s comes from b.SetBytes with the size of the bodies; allocs/op and
// B/op are per pass over all the bodies of a benchmark, and the "streams"
// metric is their number, by which cmd/table divides to give figures per
// stream. allocs/event divides the mallocs counted by runtime.MemStats
// across the timed loop by the events of the bodies: SSE events, AWS
// event-stream frames for Bedrock (Frames), array elements for a Gemini
// JSON array (ArrayElements). BenchmarkGrowth decodes one call of 1 KB,
// 64 KB, 1 MB and 16 MB of arguments (128-byte deltas, Buffer limits
// raised to 64 MB) and reports ns and bytes allocated per argument byte,
// which must stay flat as the size grows.
//
// Time cannot be tested on a shared machine, but memory can:
// TestGrowthMemoryLinear decodes the growth streams of 64 KB, 1 MB and
// 4 MB of arguments twice each (about a second of decoding here, more to
// build the streams) and fails if the bytes allocated per argument byte
// (runtime.MemStats.TotalAlloc around one decode, the less of the two,
// each after two garbage collections, which empty every sync.Pool, so
// that a decode pays for all it uses, as the first of a process does)
// rise from one size to the next by more than 10 %. The figure falls as
// sizes grow (fixed costs amortise, and the openai-chat decoder's copy of
// the arguments is capped at 1 MB), so the test catches superlinear
// growth, not a small linear term added later.
// TestGrowthCheckDetectsQuadratic shows that the measurement catches an
// accumulator that copies the whole text on every delta.
//
// # Running
//
// bench/run builds the test binary once and runs every benchmark in
// passes of -count 1 (ten by default), appended to results.txt with each
// pass's load average, instead of -count 10: with -count 10 each
// benchmark runs ten times back to back, so load that comes and goes on a
// shared machine lands on whichever subject is running; in passes, the
// subjects of a stream alternate and the drift spreads over all of them.
// benchstat reads the passes as samples of each benchmark.
//
// # Why the fast paths are shaped as they are
//
// Decoding every chunk with encoding/json into the full wire struct, with
// each SSE event's data copied into a string, costs about 27 allocations
// per event, and profiles show encoding/json and its allocations
// dominating. providers/internal/oaichat's fast path (fast.go) scans the
// common chunk shape (one text delta or one argument delta of one call,
// with the usual envelope) without allocating per event; anything outside
// that shape falls back to the general path, and tests compare the two on
// the whole corpus, on edge cases and under a fuzz target. Chunks come
// from slabs of 64, short strings from an append-only arena of 8 KB blocks
// (unsafe.String over bytes never written again), and sse's NextRaw hands
// out each event's data without a copy. Rejected: reusing one Chunk for
// every event (a caller keeping events would see them change) and one
// string allocation per delta (one allocation per event, above the
// target).
package bench

// Package adaptertest holds the test helpers the provider adapters share.
// It is a normal package so that several packages' _test.go files can
// import it; nothing else may.
//
// Recorded traffic:
//
//   - Recordings reads a protocol's recordings from the imported cassettes
//     of package cassettes (byte-exact copies of testdata/corpus), each
//     named by the corpus file it came from (SourceName), so golden files
//     keep their names. ResponseBodies, RequestBodies, LargestStream and
//     SeedCorpus pick bodies out of them.
//   - CheckCorpusGolden (SSE protocols, Summary) and CheckCorpusSummaries
//     (index-routed protocols, IndexSummary) compare every recorded
//     response with a golden file; CheckCorpusCollect and
//     CheckCorpusCollectByIndex compare core.Collect with the package's own
//     simple reading of the events; CheckCorpusRequests round-trips the
//     recorded requests.
//   - The Chat Completions dialects (openai-chat, mistral) keep golden files
//     of their own shape: ChatSummary with ChatCall, from
//     SummarizeChatResponse for bodies and AssembleChat (routing by id,
//     else index, else the last call) for streams; EventLog describes
//     every event for a golden file that pins down how a stream was cut.
//
// Properties (pgregory.net/rapid):
//
//   - CheckStreamRoundTrip, CheckResponseRoundTrip and
//     CheckRequestRoundTrip state decode ∘ encode = identity on values a
//     generator draws in the protocol's normal form; CheckParity states
//     that a response gives the same view whole and streamed, a provider
//     error and its finish reason included.
//   - SplitReader, DrawSplitReader and CheckSplitStreams state that a
//     decoder gives the same events however its input is cut.
//
// History rules: UserText, CallsMessage and ResultsMessage build the
// messages of a history test; CheckHistoryCases states that EncodeRequest
// encodes the sound histories and refuses the others with a
// *core.HistoryError naming the place and wrapping the rule's sentinel.
//
// Small tools: Drain and DrainN (a stream to its end, bounded), EquateJSON
// (a go-cmp option comparing json.RawMessage as JSON), Compact,
// ParseDropping, and CheckGolden with the -update flag (indented JSON
// under testdata/).
//
// The -update flag is defined here, once, so a test package that imports
// adaptertest must not define its own.
//
// Generators shared by the property tests: DrawText (short text that
// tests escaping), DrawArgs (a JSON object of arguments) and DrawCuts
// (argument text cut on rune boundaries into deltas); RecordedStreams
// gives the recorded streams for CheckSplitStreams.
//
// This package's own tests hold the checks that span all 8 adapters,
// which no adapter package may import: the same syntax-error offset from
// every DecodeResponse, a provider error with the same view whole and
// streamed (mid-stream too), an offset for input of no protocol, and a
// two-turn Gemini history replayed to Anthropic and OpenAI Responses.
//
// Not here: generators of whole canonical events, responses and requests.
// Each adapter keeps its own, because the normal forms differ in many
// small ways (index schemes, id formats, which part kinds and finish
// reasons exist), and a shared generator would need a switch for every
// one of them.
package adaptertest

// Package serve is conform's fake provider: an http.Handler on loopback
// that replays scenarios to real clients in every built-in wire protocol,
// with chaos options that stay within what the wire format allows, and
// grades the follow-up request a client sends with its tool results.
//
//	srv, err := serve.New(serve.Options{Scenarios: cases, Scenario: "openai-chat/streaming/A05-round-robin-interleaving"})
//	err = srv.Serve(ctx, "127.0.0.1:0") // prints "conform serve: listening on http://127.0.0.1:PORT"
//	v, ok := srv.Verdict("openai-chat/streaming/A05-round-robin-interleaving")
//
// # Which scenario is served
//
// Scenarios are named with their protocol first, as results are
// (protocol/category/case); a case declared once for every adapter
// (any/...) is served under each protocol's name. A request chooses its
// scenario, first match wins:
//
//  1. a path prefix /scenario/<protocol>/<category>/<case>/ before the
//     protocol's own path;
//  2. the header X-Conform-Scenario (it must agree with the prefix when
//     both are given);
//  3. the scenario the server was started with (Options.Scenario).
//
// The protocol is the scenario's; the path must be one of that protocol's
// paths (matched by suffix, see providers.MatchPath), so a prefix such as
// /openai/v1/chat/completions is fine, and Mistral, which shares the Chat
// Completions path, is chosen by naming a mistral/... scenario. A wrong path
// is a 404 that names the right one.
//
// # What is sent
//
// A first request (one without tool results) gets the scenario's response.
// Whether it streams is the protocol's choice: the path for Gemini
// (:streamGenerateContent, SSE with alt=sse, else the one JSON array) and
// Bedrock (/converse-stream), the request's stream flag otherwise (Ollama
// streams unless told not to). The bytes are the recorded or constructed
// provider bytes when their form fits the request; otherwise the adapter
// re-encodes the scenario (a stream collected into a whole response, a
// response written as a stream, a Gemini SSE recording written as an
// array). Only a stream the reference decoder reads to a finish of the
// protocol's own, with no error and no call left incomplete, has a whole
// form: asked whole, an API sends every call complete and a finish, so a
// request for a whole response to a broken stream (cut, unreadable, ending
// in an error, or whose end alone says it finished) is not applicable (see
// below), never answered with a body no API sends. Canonical any/... cases
// are always encoded by the adapter. What the adapters write carries every
// field that every recording of its kind carries, and finishes only with
// the protocol's vocabulary (Protocol.FinishReasons); TestServedFieldSets
// checks every answer against testdata/corpus, and
// testdata/fieldset-gaps.txt lists what is still written otherwise.
//
// A response case whose body the adapter reads as an error (the I03
// error bodies) is a refused request: it is answered, streamed or not, as
// the API answers a request it refuses before any stream starts, with an
// error status and the JSON body (Gemini's in the form of the request:
// the array to streamGenerateContent without alt=sse, else the object).
// The status is the protocol's rule (providers.Protocol.Errors): the
// body's own HTTP code, else the status the API documents for its error
// type or code, else for the documented body, else 400. Chaos does not
// apply to it (the verdict notes so). An error inside a stream, after a
// 200 and some events, is a stream case and is sent as one.
// Whatever is replayed is framed as the provider frames it. A recording
// that arrived as one JSON payload per line (a chunk fixture, which kept
// data lines only) gets back what it lost: Anthropic, OpenAI Responses and
// Cohere name every SSE event after its payload's type ("event:" lines),
// and Chat Completions and Mistral streams end with "data: [DONE]". An SSE
// recording whose last event lacks its closing blank line gets it, unless
// the scenario is a broken stream. The other bytes stay as recorded. A
// stream is written one event per write, each followed by a flush.
//
// # Options a recording depends on
//
// Some recordings hold what a provider sends only to a request that asks
// for it: Gemini enums as numbers ("finishReason": 1, for
// $alt=json;enum-encoding=int), Gemini partialArgs (for
// toolConfig.functionCallingConfig.streamFunctionCallArguments), Anthropic
// server tool blocks (server_tool_use and every *_tool_result, for a
// request that declares the server tool; MCP blocks, for mcp_servers),
// Bedrock toolUse blocks of type server_tool_use and their toolResult (for
// a request that declares the system tool), Anthropic thinking and
// redacted_thinking blocks (for thinking.type enabled or adaptive), Gemini
// thought parts (for generationConfig.thinkingConfig.includeThoughts) and
// Responses reasoning summaries (for reasoning.summary; a reasoning item
// with an empty summary, which reasoning models send to every request, is
// not gated). The protocol's rule decides by the block types the bytes
// hold, the recorded ones and the ones written (a whole form re-encoded
// from a stream), never by the scenario's name (TestNoUnaskedBlocksServed
// reads every answer sent). Such
// a scenario is served only to a request that carries the option; any
// other first request gets a 400 and the verdict's NotApplicable says why,
// so that a client run is counted not applicable, neither passed nor
// failed. A recording of another endpoint than the protocol's, which
// some adapters read as a dialect, applies to no request: Cohere Chat v1
// (/v1/chat; serve takes /v2/chat) and Bedrock InvokeModel (serve takes
// Converse and ConverseStream). Nor does an Anthropic recording of a whole
// programmatic tool-calling exchange (calls made and answered inside code
// execution, then end_turn).
//
// # Chaos
//
// Chaos (ParseChaos: "split=7,crlf,ping") changes only the framing, never
// the content: split cuts the bytes at seeded arbitrary boundaries (inside
// UTF-8 characters and between CR and LF included); crlf, ping (": ping"
// comments), keepalive (events whose only line is an empty "data:") and
// multiline (a JSON payload cut after commas over several data lines, which
// an SSE reader joins with LF) apply to SSE only and are noted in the
// verdict as not applicable elsewhere; delay sleeps after each write;
// disconnect drops the connection after half the events; error replaces
// the second half with the protocol's own error event (the adapter's
// EncodeStream of an error event; a non-streamed request gets a 500). The
// header X-Conform-Chaos replaces the server's options for one request.
//
// # Grading the follow-up
//
// A request that carries tool results or an assistant turn with calls is a
// follow-up. It is decoded with the adapter and checked by Grade against
// what the server last sent for that scenario (decoded from the bytes
// actually sent, so a stream cut by chaos counts only the calls it
// completed): every served call in the last assistant turn with the same
// id, name and arguments (as JSON), signatures echoed (G12 thinking,
// G13 calls), no call the stream left incomplete (B09), and one result per
// call after it, in call order for Anthropic, Bedrock and Gemini (G05),
// in the very next message for Anthropic and Bedrock (G01). Each problem
// names a failure mode of FAILURE-MODES.md. Reasoning served with the calls
// must come back on every assistant message with calls for the Chat
// Completions models whose provider refuses a history without it (G14:
// DeepSeek, chosen by model name, since the wire looks the same for
// providers that accept it), and a Cohere tool_plan must not come back as
// answer text (G16). Earlier tool rounds of the same turn (an agent loop
// sends no user message between rounds) are left out: the graded turn
// starts at the first assistant message carrying a served call's id. Where the provider sent
// no call id (Gemini 2, Ollama, D03 streams), the id conform made up is
// one the client cannot know: an id absent from the bytes served stands
// for the client's own, and the pairing is graded instead (each such call
// matched by name and arguments, distinct ids, D06, and every result
// naming the id the client gave its call, after it).
//
// With Options.Echo, which RunClient sets, each tool result must also be
// the echo of its call's arguments and not an error (GradeEcho, rule
// "echo"): the tool the client protocol asks a client program to run. The
// body of the graded follow-up is kept in the verdict.
//
// GradeBody reads the rules only the wire form shows, before the adapter
// decodes the body: blank text blocks (G11, Anthropic and Bedrock, which the
// adapters drop on decoding), Converse's shapes (G15: toolUse without input
// or with a non-object one, results in an assistant turn or not as a list,
// toolChoice none), tool results serialised as JSON text or, for Ollama,
// sent as a list (G10), and Cohere v1 fields and roles (G16). A body the
// adapter then refuses is still a graded follow-up: the rule is the
// problem, the refusal an error, and the rest it carries is graded from
// the body with those faults mended (a Converse toolResult content as a
// list, Ollama's parts joined), so one refusal never hides another fault. A first request that breaks one is
// refused with a 400, as the API refuses it, and graded. Reading the raw body in serve, rather than
// widening the canonical types, keeps the adapters' decoders lossless where
// it matters and the rules in one place. docs/client-protocol.md has the
// table of G01–G16, graded how or not graded and why. The answer to
// a follow-up is a short final text answer (Options.Answer), streamed or
// not as asked. Verdicts are kept per scenario and read with Verdicts,
// Verdict or GET /_conform/verdicts.
//
// Anthropic message threads (beta header message-threads-2026-08-12, as
// described in Anthropic's documentation): a request with "thread":
// {"type": "create"} stores the conversation with the reply under the
// reply's id; a request with {"type": "continue", "previous_message_id":
// ID} and only the new messages is graded as if the stored conversation
// came before them. The stored thread lives as long as the server; an
// unknown id is a 404 not_found_error. Only what the documentation says is
// modelled: no expiry, and system and tools are not re-checked.
//
// OpenAI Responses state (G08): every Responses answer, first response or
// final answer, is kept under the id written in its body (made up as
// resp_conformN when the scenario has none, so that a client can name it)
// with the conversation up to it, unless its request said "store": false.
// A request with previous_response_id is graded as the stored conversation
// followed by its input, as the API reads it. An id serve never issued, or
// one created with store false, is a G08 problem naming the id and a 400
// as from the API; a stored function_call or reasoning item sent again is a
// G08 problem ("Duplicate item"), and the request is then graded on its own
// input. The adapter's canonical request has no previous_response_id, so
// serve reads it from the body. Kept responses live as long as the server,
// at most MaxKeptResponses of them (a response past the limit is not kept,
// and the verdict notes it). A recorded response keeps its recorded id, so
// serving it again replaces the conversation kept under that id.
//
// # Failures reduced to their cause
//
// ReduceClient re-runs a client that failed a stream scenario on simpler
// variants of it (package reduce), each served by a fresh server as the
// scenario is, at most reduce.DefaultBudget (8) times, and returns the
// simplification with which the client passes and the smallest variant it
// still fails; RunClient's caller puts it in ClientRun.Reduction. A run
// that timed out or never sent its first request is not reduced.
//
// # Bounds
//
// Memory follows the scenarios, not the requests: a request that names no
// servable scenario keeps nothing; a verdict keeps at most
// MaxVerdictErrors errors, MaxVerdictProblems problems and MaxVerdictNotes
// notes (each cut at MaxVerdictText bytes, the rest counted) and the last
// follow-up body cut at MaxFollowUpBody; the kept threads and Responses
// conversations together hold at most MaxKeptBytes. The listener's server
// waits ReadHeaderTimeout for headers, ReadTimeout for a whole request and
// IdleTimeout on an idle connection, and reads at most MaxHeaderBytes of
// headers.
//
// The listener speaks HTTP/1.1 and HTTP/2 with prior knowledge (h2c),
// which some clients use for http:// URLs (Protocols).
//
// # Keys and logs
//
// Every API-key form is accepted and none is required: Authorization
// Bearer, x-api-key, api-key, x-goog-api-key and the key= query parameter.
// The log has one line per request with the method, the path (never the
// query) and the status; no header is ever logged.
//
// Rejected alternatives: serving by cassette matching (the go-vcr replayer)
// cannot re-frame streams or grade follow-ups; choosing the scenario by
// request content is ambiguous when several scenarios share a request.
package serve

// Package agent runs a tool-calling conversation against a provider over
// HTTP: it offers the tools to the model in one of four modes, reads the
// calls or the answer from each response, validates and (with approval
// where the policy asks) runs the calls, sends the results back, and
// repeats until an answer or a limit.
//
// # Modes and strategies
//
// A Strategy formats the canonical request for its Mode, extracts an
// Extraction from the response and validates each call (a tools.Validation):
//
//   - ModeNative sends Request.Tools through the provider's own tool
//     calling. When a response has no native calls but its text holds a
//     call to an offered tool in a <tool_call> or <tool_use> tag (F06:
//     the Hermes-style form models fall back to when native calling fails
//     in the serving stack), that call is read. Fenced and bare JSON are
//     not read in this mode: the model was never asked to write calls, so
//     a JSON object in its text is part of its answer (a user record with
//     a "name"), and reading it as a call would run a phantom tool and
//     lose the answer. Reading nothing at all was the other choice; it
//     would miss the F06 calls the tags do catch.
//   - ModeStructured sends no tools but a strict response_format. Its
//     schema (StepSchema) is an object {"step": …} whose step is an anyOf
//     of one branch per tool, {"tool": const name, "arguments": the tool's
//     schema rewritten for strict mode (H03)}, an answer branch and a
//     scratchpad branch. The anyOf sits one level down, not at the root,
//     because OpenAI strict mode requires the root schema to be an object
//     and rejects a root anyOf; the extractor reads a bare branch too.
//     Strict mode makes optional properties nullable, so a null for a
//     property the tool does not require is dropped before validation.
//     One call per step. A protocol with no place for a response format
//     (Bedrock Converse, found by encoding a request that asks for one and
//     decoding it back) gets the step schema as the input schema of one
//     tool, named StepSchemaName, with the tool choice forcing that tool:
//     the model writes its step as the tool's input, and the loop reads
//     that input as the step text, so extraction, validation and history
//     are the same as with a response format (the history replays steps as
//     text, not as calls of the step tool; text the model wrote beside
//     the step call is left out of its turn, and the trace keeps the
//     response as received). A model that answers in text anyway is read
//     as text. The other choice, refusing the mode over
//     such protocols, left Bedrock without the mode that keeps weak models
//     to the schema. Before sending, the loop still decodes its own
//     encoded request: a request whose response format the adapter drops
//     is ErrUnsupported, never a request that silently asks for nothing.
//   - ModeValidated and ModeParsed describe the tools in the system prompt
//     and read calls from the text: <tool_call>…</tool_call> and
//     <tool_use>…</tool_use> blocks (a fence inside is allowed), fenced
//     ```json blocks (the language tag in any case, or none), and bare
//     JSON objects that start a line. A call is an object whose first key
//     is "tool" (or "name") naming one of the request's tools, with
//     "arguments" (or "parameters", "input"); in a tag the arguments may
//     be left out and are then {}. The text around the calls is kept as
//     content. With no tools offered nothing is read. Validated
//     checks arguments against the tool's schema; Parsed only checks that
//     they are one JSON object, leaving the schema to Registry.Execute,
//     whose error goes back as a result. With Loop.TextFormat (a
//     textcalls format: Hermes, Qwen3-Coder, Mistral, …) the two modes
//     offer the tools in that format instead, write the history's calls in
//     it and read the response with its parser (NewTextStrategy): a call
//     the parser finds cut or malformed is a MalformedCall (its offset is
//     in the error), and an id counts only when the model wrote one.
//
// Text that starts like a call but cannot be read (bad JSON, an unclosed
// tag or fence: a truncated call) is a MalformedCall with its byte offset.
// It is never run and never dropped: the loop keeps it in the assistant
// turn, tells the model where it failed, and counts a retry. A tag starts
// a call when JSON follows it (an object or a fence), or an offered tool's
// name and "(" or "{" (another written form, reported as malformed), or
// nothing, where the text was cut right after it; a tag followed by
// anything else is prose that mentions it ("write <tool_call> and a JSON
// object"). A tag that starts a call but names a tool not offered is
// malformed, since the tag says a call was meant. Fenced or bare JSON
// starts a call only when its first key names an offered tool (or, cut
// off, could still name one); JSON about anything else, an object that
// names a tool but has no arguments (a tool's description), fences in
// other languages and objects in the middle of a line are prose and stay
// in the text. With tool choice none (F07) no strategy reads calls from
// the text: the text is the answer, whole.
//
// The text modes replay history as text: calls as the form they prompt
// for, results as <tool_result id=… tool=… error="true"> blocks in one
// user message per turn, so user and assistant turns alternate on every
// protocol. Calls read from text get ids call_<step>_<n>.
//
// Every call in the conversation has its own id. A call without one, or
// with one already used earlier in the conversation or in the same
// response, gets call_<step>_<n> (with _<k> added if that is taken) before
// the assistant turn is appended, and its result carries the same id; the
// trace's call entry notes a replaced id. Ollama sends no ids and its
// adapter numbers calls per response (ollama_call_0 on every turn), as do
// some streamed Chat Completions servers, so without this the history
// would hold two calls under one id and a result could not say which it
// answers. Gemini 2 sends no ids either, but its adapter's ids,
// gemini_call_<12 hex>_<k>, hash the responseId and so differ between
// responses; only a response without a responseId that makes the same
// calls as an earlier one gets the same ids again.
//
// # Capabilities
//
// ModeAuto resolves the mode from the model name through Capabilities: the
// longest case-insensitive prefix match among the user's entries (given
// with WithEntries or a JSON file with WithFile), and only when none
// matches, among the built-ins, so that a stale built-in entry can always
// be overridden (H05). Each table is tried with the whole name first,
// then with the part after the last "/" (a router path such as groq/ or
// accounts/fireworks/models/, or a Bedrock ARN), then with that part's
// Bedrock region and vendor prefixes taken off (us., eu., apac., global.,
// anthropic., meta., mistral., …): "us.anthropic.claude-3-7-sonnet-…"
// resolves as "claude-3-7-sonnet-…", since a prefix says where a model
// is served, not what it can do. The built-ins: gpt-4o, gpt-4.1 and
// o1/o3/o4 → structured; claude, gemini, llama, qwen, deepseek, the
// Mistral family (mistral, open-mistral, mixtral, ministral, codestral,
// devstral, magistral, pixtral) and router prefixes (openai/,
// meta-llama/, …) → native; anything else → validated.
// An entry also lists request parameters its models reject (H04:
// parallel_tool_calls on o-series models); Capabilities.Apply removes them
// from each request and the trace records what was left out.
//
// # The loop
//
// Loop.Run encodes each request with the adapter, posts it to
// Endpoint.BaseURL plus the protocol's path (Path; Gemini and Bedrock put
// the model and the streaming choice in the path), and decodes the reply,
// streamed replies through core.Collect. Response bodies are bounded
// (ErrBodyTooLarge). A response with incomplete calls (B09–B11) ends the
// run with ErrIncomplete; those calls never run. Calls are validated one
// by one; a failed validation goes back as an error result and counts a
// retry (ErrRetryLimit after MaxRetries turns in a row). Calls whose tool's
// risk the ApprovalPolicy names wait for the ApproveFunc; a refusal goes
// back as an error result. The rest run through Registry.ExecuteAll,
// results in call order: at once when every call is read-only and the
// request did not set parallel_tool_calls to false, else one at a time in
// the model's order, since calls with effects may depend on each other. Cancelling the context stops
// the HTTP exchange (a stream mid-body included) and the running tools,
// and Run returns the context's error. The Trace records requests as sent,
// responses, calls with their validation, refusals, results and the
// answer.
//
// A registry name the provider's own rules refuse (the adapter's
// core.NameRules: Cohere allows no dash, Gemini no leading digit) is sent
// under the name tools/names maps it to, in the tools, the tool choice and
// the history, and the provider's calls to that name run the registry's
// tool; the mapping is built from all the registry's names at once, so a
// valid name is never renamed.
//
// Tools that run programs (tools/command) run under Loop.Sandbox, a
// command.Config: a default sandbox policy for programs without their
// own, and the risk levels that require a sandbox. A call at such a level
// whose tool would run unsandboxed (a program without a policy, or a Go
// function tool, which runs in-process) is refused with
// ErrSandboxRequired after approval and never runs; a restriction this
// machine cannot enforce refuses the call too. The trace has a
// KindSandbox entry with each sandboxed call's report.
//
// Path builds a request path from the protocol's endpoint (providers.HTTP);
// the agent knows no protocol of its own.
//
// Package layout: one package, since strategies, capabilities and the loop
// share the Extraction and Mode vocabulary and none is used without the
// others; agent/fakeprovider is separate because the example program and
// other packages' tests need a loopback provider too.
package agent

// Package oaichat is the codec shared by the adapters whose wire format is
// OpenAI Chat Completions or close to it (openai-chat, mistral). A Config
// chooses the variations; the adapters wrap a Codec.
//
// # Requests
//
// Canonical messages map to wire messages as follows. A system message is a
// "system" message ("developer" is read as system; the difference is not
// modelled). A user message's text parts form one "user" message; its tool
// results, and those of a tool message, become one "tool" message each,
// keyed by tool_call_id, before the text. An assistant message's thinking
// parts are joined into the reasoning field (Config.ReasoningField, G14),
// its text parts form the content and its calls the tool_calls; content is
// left out when the message has calls and no text. Content with one text
// part is a string, with several an array of text parts, with none "" (G10);
// on reading, array parts other than text (images, audio) are dropped.
// Mistral's form, a {"type":"thinking","thinking":[text parts]} chunk in a
// content array, is read as a thinking part wherever content is read, and
// written instead of the reasoning field when Config.ThinkingInContent is
// set. Thinking signatures have no place on this wire and are dropped, and so
// is a result's IsError (a tool message has none); a result's Name is
// written as the tool message's name only with Config.ToolResultName
// (Mistral) and is always read.
// Call.ItemID is dropped too, and so are a part's Data (redacted thinking)
// and ItemID. Call.Signature is dropped unless Config.ThoughtSignatures is
// set, when it travels as the tool call's
// extra_content.google.thought_signature (G13, Gemini's OpenAI-compatible
// endpoint) and is read from there, or from extra_content.vertex.
//
// A plan part (Cohere's tool_plan) travels as thinking. A part a role
// cannot hold on this wire (a call in a user message, a result in an
// assistant message, text in a tool message) is refused with ErrUnsupported
// rather than dropped.
//
// A tool message without tool_call_id is refused on reading
// (ErrMissingCallID, G06). EncodeRequest refuses, naming every call and
// message at fault, a history the servers reject (ErrBadHistory): a call not
// answered by tool messages right after its assistant message (G01, G03), a
// result without a call id (G06), a result that answers no call of the
// assistant message before it (G02). DecodeRequest reads such histories as
// they are (it describes what a client sent); CheckHistory reports them,
// and optionally over-long ids (D04) and non-JSON arguments (G09), which
// EncodeRequest sends as they are. A problem of a rule core.CheckHistory
// shares also wraps its *core.HistoryError, so callers can branch on the
// core type for every adapter; two calls of one turn with one id (D06),
// which core.CheckHistory reports, are still sent. EncodeRequest sends each
// run of tool messages in the order of the calls before it (G05), since
// chat-template servers pair them by position; a turn that repeats an id
// keeps the order given. A tool name outside ^[a-zA-Z0-9_-]{1,64}$ is
// refused naming the tool (E01, E02; tools.NameMapper maps such names).
//
// Tools are function tools; a strict tool's schema is rewritten by
// StrictSchema on encoding (H03), so the wire always carries a schema
// strict mode accepts. tool_choice is a string or {type: function}; both
// "required" and Mistral's "any" read as required. parallel_tool_calls is
// written only when the request sets it (H04: some models reject even
// false). response_format json_schema maps to ResponseFormat; json_object
// and text are not modelled. max_tokens and max_completion_tokens both read
// into MaxTokens; Config.MaxTokensField picks the one written.
//
// # Arguments
//
// Tool-call arguments are a JSON string holding JSON. "" (C01) and null or
// absent (C06) mean a call without arguments: they become {}, which is how
// the core Buffer and Validate read them too, so that a streamed and a
// non-streamed response give the same calls (parity); it is not counted as
// a repair. An object where a string belongs (C04) is accepted and
// kept as its compact JSON text, which is no repair. A string that is not
// JSON is kept in a request as sent (Arguments nil, Original the text,
// G09: histories with such calls exist and are reported by CheckHistory),
// and puts a response's call in Response.Incomplete (Arguments nil,
// Original the text), never in the message.
//
// # Responses and streams
//
// Only choice 0 is decoded (A13: with n>1 the other choices are ignored, in
// responses and in streams alike; Chunk.Turn stays 0). Tool calls whose type
// is not "function" are provider-run and are not client calls. Finish
// reasons are normalised by FinishReason, keeping the raw value; "stop" with
// calls keeps the calls and the finish (F01), "tool_calls" without calls is
// reported as it is (F03). An error object, in a body or mid-stream, is a
// provider error (Response.Error, EventError), not a Go error.
//
// A stream is read with the sse package's FlushAtEOF option (providers often
// omit the final blank line) and ends at "data: [DONE]". [DONE] is the
// protocol's sign of a normal end: when no finish_reason came before it, the
// decoder emits a finish with Finish "other" and no provider reason, so that
// calls still open count as complete; a stream that ends without [DONE] (cut
// off) gets no such finish, and its open calls stay incomplete (B09-B11). Each chunk yields,
// in order: an error event, thinking and text deltas, one call event per
// tool_calls entry, a finish event, a usage event. A call entry becomes a
// Chunk with the index (HasIndex when the field is present and not null),
// the id and the name exactly as sent and the argument text as ArgsDelta;
// it is EventCallStart when it carries an id or a name, else EventCallDelta.
// The decoder does no routing: repeated ids (A04), missing indexes (A07),
// reused indexes (A02) and duplicate indexes in one chunk (A08) reach the
// Buffer as sent. One exception is made for B02, a gateway's final
// consolidated copy: an entry that repeats an id already seen, with the
// name, and arguments that are a complete JSON object equal as JSON to all
// the text streamed for that id so far, is emitted with Chunk.Args (replace)
// instead of ArgsDelta, so that the Buffer keeps the arguments once instead
// of repairing a doubled document. Only an identical copy qualifies, so the
// replacement never changes the arguments; cumulative resends (B01) and
// concatenated objects (B04) stay deltas. The text kept for this is bounded
// (1 MiB per stream; past it copies stay deltas). Chat Completions has no end-of-call marker, so no
// EventCallEnd is emitted; calls end with the stream. The response id and
// model go on the first event emitted. Usage-only chunks (choices: [],
// B13), choices without a delta, empty data lines, padded data and unknown
// fields and event types are accepted.
//
// EncodeStream writes one chunk per event, the first choice's delta carrying
// "role":"assistant" as real streams do (openai-node's stream helper insists
// on it), then "data: [DONE]" if the events
// hold a finish (without one the stream ends as a cut stream does). A finish
// "other" without a provider reason is written as [DONE] alone, the form the
// decoder reads it from. What else the wire cannot carry is normalised: a
// chunk's Turn, ItemID, Signature and Done, and an event's Signature, Data
// (redacted thinking) and ItemID are dropped;
// EventCallEnd without content writes nothing; Chunk.Args is written as the
// argument text; a call event is read back as a start exactly when it has an
// id or a name; plan deltas are written as reasoning and read back as
// thinking; empty text deltas and finish events without a reason write
// nothing worth reading back. Argument patches are refused (ErrUnsupported).
//
// # Ids
//
// Config.IDs, when set, maps ids the protocol rejects to valid ones on every
// encode (requests, responses, streams) and back on every decode, so that a
// canonical conversation keeps its own ids end to end (D04, D05).
//
// # Legacy function calling
//
// The pre-tools form (functions, function_call, role "function") is read
// everywhere and never written: a message's function_call is one call with
// the generated id "function_call_<12 hex digits>" (a hash of the response
// id, else of the call), a request's legacy calls get "function_call_<t>",
// t counting them, and a function message answers the open call of its
// name. EncodeRequest writes tools and tool_choice, which every server that
// reads tools accepts (legacy.go).
package oaichat

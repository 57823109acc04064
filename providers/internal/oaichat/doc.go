// Package oaichat is the codec shared by the adapters whose wire format is
// OpenAI Chat Completions or close to it (openai-chat, mistral). A Config
// chooses the variations; the adapters wrap a Codec.
//
// Requests. A user message's text parts form one "user" message and each
// tool result one "tool" message keyed by tool_call_id. An assistant's
// thinking is the reasoning field (Config.ReasoningField, G14), or a
// thinking chunk in content (Config.ThinkingInContent, Mistral); content with
// one text part is a string, with several an array, with none "" (G10). A
// part a role cannot hold here (a call in a user message, text in a tool
// message, a plan anywhere: as reasoning it would read back as thinking) is
// refused with core.ErrUnsupported, naming messages[i].parts[j].kind.
//
// EncodeRequest refuses, naming every call and message at fault, a history
// the servers reject (each problem a *core.HistoryError): a call not answered
// right after its message (G01, G03), a result without a call id (G06) or
// answering no call before it (G02), a tool name outside
// ^[a-zA-Z0-9_-]{1,64}$ (E01, E02; tools.NameMapper maps such names). It
// sends the results of a turn in the order of its calls (G05), since
// chat-template servers pair by position. DecodeRequest reads any history as
// sent; CheckHistory reports it. Strict tools get StrictSchema's rewrite
// (H03); parallel_tool_calls is written only when set (H04).
//
// What the wire cannot carry: the system/developer difference; thinking
// signatures, a part's Data and ItemID, Call.ItemID, Result.IsError; a
// call's Signature unless Config.ThoughtSignatures (G13, as
// extra_content.google.thought_signature); a result's Name unless
// Config.ToolResultName; response formats other than json_schema; content
// parts other than text.
//
// Arguments are a JSON string holding JSON. "" (C01), null or absent (C06)
// are {}, as the Buffer reads them, so streamed and whole responses agree;
// an object where a string belongs (C04) is kept as its JSON text. A string
// that is not JSON is kept in a request as sent (G09) and puts a response's
// call in Response.Incomplete.
//
// Responses and streams. Only choice 0 is read (A13). Tool calls whose type
// is not "function" are provider-run. Finish reasons keep the raw value;
// "stop" with calls keeps both (F01), "tool_calls" without calls is
// reported as it is (F03). An error object is a provider error
// (Response.Error, EventError).
//
// A stream is read with sse.FlushAtEOF and ends at "data: [DONE]", the
// protocol's normal end: with no finish_reason before it, a finish "other"
// is emitted so open calls count as complete; a stream cut before [DONE]
// leaves them incomplete (B09-B11). Each tool_calls entry becomes a Chunk
// with the index, id, name and argument text as sent; the decoder does no
// routing, so repeated ids (A04), missing (A07), reused (A02) and duplicate
// (A08) indexes reach the Buffer as sent. One exception: a gateway's final
// copy of a call (B02), the same id and name with arguments equal as JSON
// to all the text streamed for it, replaces the text instead of doubling
// it; cumulative resends (B01) and concatenations (B04) stay deltas. There
// is no end-of-call marker, so no EventCallEnd is emitted.
//
// A fast path (fast.go) reads the chunks of the common shape, text,
// reasoning, one tool call entry, finish reason and usage of choice 0, with
// jsonscan instead of encoding/json, and hands everything else to the
// general path, which yields the same events and errors (the differential
// tests and FuzzFastPath check it). It keeps the state of its scan before
// "choices": a chunk that begins with the same envelope bytes (id, object,
// created, model, fingerprint) is scanned from there, and an argument delta
// with the same bytes as the last one around its index and arguments is
// read by comparing them; any other byte sends the chunk through the whole
// scan. Once core.Collect has called ReuseEventText, the text, reasoning
// and argument deltas of a chunk's events are views of its data or of one
// reused buffer, and their Chunks come from reused storage, all given back
// when the next chunk is decoded: a call streamed in deltas costs the
// decoder no allocation per delta.
//
// EncodeStream writes the role on the first delta, as real streams do, and
// [DONE] when the events hold a finish; it documents its normal form.
// Argument patches are refused (core.ErrUnsupported). Config.IDs maps ids the
// protocol rejects on every encode and back on every decode (D04, D05). The
// legacy form (functions, function_call, role "function") is read, never
// written (legacy.go).
//
// Zero values are absent: a zero-valued function_call or tool call entry
// (no id, no name, no arguments), as servers that write every field send
// beside "tool_calls": null, is no call; a call without a name is never
// complete. A whole response's arguments get the verdict core.Buffer gives
// them streamed (rules.WholeArgs: {"a":1,} repaired and reported both
// ways). A message.content that is a JSON object is read as its compact
// JSON text and reported in Response.Deviations.
package oaichat

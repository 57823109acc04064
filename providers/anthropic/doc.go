// Package anthropic is the conform adapter for the Anthropic Messages API
// (/v1/messages): requests, responses and SSE streams, in both directions.
//
// Requests. The system field becomes a leading RoleSystem message (a system
// message after the first turn is an error on encoding). A user turn of
// tool_result blocks decodes as a RoleTool message; tool_result content is
// always written as text blocks. Thinking blocks keep their signature, and
// redacted_thinking its payload in Part.Data, in their place. EncodeRequest
// fails rather than send what Anthropic refuses:
//
//   - G01, G02: every tool_use needs a tool_result in the next message and
//     every tool_result a tool_use in the previous one (ValidateHistory; each
//     problem a *core.HistoryError, all reported together).
//   - E01, E02: a tool name outside ^[a-zA-Z0-9_-]{1,64}$ (tools.NameMapper
//     maps such names).
//   - G09: stored arguments that are not a JSON object (empty ones are {}).
//   - G11: empty and white-space-only text parts are dropped; a message left
//     empty is an error.
//   - G12: a thinking part after a tool call in the same assistant message
//     is a *core.HistoryError wrapping ErrThinkingOrder; signed thinking is
//     never reordered.
//   - A part its role has no place for (a plan; thinking or a call outside
//     an assistant message; a result in one; anything but text in a system
//     message) wraps core.ErrUnsupported and names messages[i].parts[j].kind,
//     in EncodeResponse too.
//
// One thing is repaired instead: tool_result blocks are put in the order of
// the tool_use blocks, before any text of the turn (G05; they pair by id).
//
// What the wire cannot carry: typed and server tools (web_search, computer,
// memory) have no ToolSpec and are dropped from decoded requests;
// ResponseFormat is output_format without its Name and Strict; a
// ParallelToolCalls without a ToolChoice is written with tool_choice auto.
//
// Responses. stop_reason end_turn and stop_sequence are stop, tool_use
// tool_calls, max_tokens and model_context_window_exceeded length, refusal
// content_filter, anything else other; ProviderFinish keeps the raw value.
// Provider-run blocks (server_tool_use, mcp_tool_use, *_tool_result) are not
// calls (F09). Duplicate tool_use ids are an error wrapping
// core.ErrDuplicateCallID (D06). An error body is Response.Error.
//
// Streams are read one SSE event at a time, bounded (WithMaxEventSize,
// WithMaxBlocks, core.ErrTooLarge); memory is one record per block, never the
// argument text. Chunks carry the block index and, on the start, the id and
// name as sent; the Buffer routes, so interleaved blocks (A19) come out as
// they arrived.
//
//   - input {} followed by an empty partial_json ends with Args "{}" (C02).
//   - A start with populated input (A18, I01): deltas, when any come, are
//     the arguments, never appended to it; deltas that drop or change a
//     member of it end the stream with a *DecodeError wrapping
//     ErrInputConflict, and the call is incomplete.
//   - Fragments are unquoted byte for byte, so split UTF-8 reassembles (B05).
//   - The end of the last stopped tool_use is held until the stream goes on;
//     if message_delta then says max_tokens, the call never ends (B11).
//   - A stream that ends before message_stop and without an error event is
//     core.ErrTruncated after its events; a malformed event is a *DecodeError
//     with its byte offset.
//
// The common events (block starts, deltas and stops, message start, delta
// and stop, ping) are read without encoding/json and without a copy of the
// event (fast.go); any other shape takes the general path, which gives the
// same events and errors.
//
// EncodeStream documents the normal form a stream round-trips to. A
// redacted_thinking block is one thinking event with its payload in
// Event.Data. docs/protocols.md gives the sources of the G12 rule and its
// one known limit.
package anthropic

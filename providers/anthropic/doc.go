// Package anthropic is the conform adapter for the Anthropic Messages API
// (/v1/messages): requests, responses and SSE streams, in both directions.
//
// # Requests
//
// The system field (a string or text blocks) becomes a leading RoleSystem
// message, one text part per block; on encoding, leading system messages
// become text blocks and a system message after the first turn is an error.
// A user message holding tool_result blocks decodes as a RoleTool message;
// RoleTool and RoleUser messages both encode as user turns. tool_result
// content may be a string or blocks on the wire; it is always written as
// text blocks. Thinking blocks keep their signature and redacted_thinking
// keeps its data (Part.Data), in their place in the message (G12): the
// encoder never reorders assistant content, so a signed thinking block that
// came before a tool_use goes back before it, and a thinking part after a
// tool call is refused (see G12 below).
//
// EncodeRequest enforces the history rules and fails rather than send a
// request Anthropic would reject:
//
//   - G01, G02: ValidateHistory (also exported) requires every tool_use to
//     have a tool_result in the next message and every tool_result to
//     answer a tool_use of the previous message; each problem is a
//     *HistoryError naming the message index and the call id, and all
//     problems are reported together. The rules every provider shares come
//     from core.CheckHistory, whose *core.HistoryError the problem wraps
//     beside this package's sentinel; the next-message rule and ids unique
//     over the whole conversation are Anthropic's own.
//   - E01, E02: a tool name outside ^[a-zA-Z0-9_-]{1,64}$ is refused,
//     naming the tool (tools.NameMapper maps such names).
//   - G05: tool_result blocks are reordered into the order of the preceding
//     tool_use blocks and written before any text of the turn. Reordering
//     was chosen over an error because the pairing is by id and unambiguous;
//     only the order is a wire rule.
//   - G11: empty and white-space-only text parts are dropped (the API
//     answers 400 "text content blocks must contain non-whitespace text"),
//     in system, user, assistant and tool_result content; a message left
//     empty is an error.
//   - G09: stored arguments that are not a JSON object are an error naming
//     the message and call; empty arguments are sent as {}.
//   - G12: a thinking part (signed, unsigned or redacted) after a tool call
//     in the same assistant message is a *ThinkingOrderError naming the
//     message, the part and the call before it, wrapping ErrThinkingOrder.
//
// The G12 decision and its sources. Anthropic's extended-thinking
// documentation (platform.claude.com, build-with-claude/thinking,
// "Preserving thinking blocks", and build-with-claude/thinking-tool-workflows)
// says to send the assistant message back exactly as received, and that the
// sequence of thinking blocks may not be rearranged, edited or partly
// dropped: a 400 follows. Every response it shows puts its thinking first
// and the tool_use blocks after; the reasoning that interleaved thinking
// adds after a tool result comes in the next response, that is the next
// assistant message, after the tool_result turn. With manual extended
// thinking the API also refuses a final assistant message that does not
// open with a thinking block: 400 "messages.N.content.0.type: Expected
// `thinking` or `redacted_thinking`, but found `tool_use`" (reported
// through the API, Vertex and Bedrock in anomalyco/opencode #3077 and
// mastra-ai/mastra #7799). So [tool_use, thinking, tool_use] is a history
// reordered or merged by the client, and it cannot be repaired: moving a
// signed block is exactly the rearranging the API refuses, and dropping it
// loses the reasoning. The encoder therefore fails rather than reorder,
// and the check runs on every assistant message, since the request does not
// say whether thinking is manual or adaptive. Known limit: the same
// documentation describes "progress update" thinking blocks on its newest
// models, each right before the tool_use it introduces, and a response cut
// by max_tokens soon after a call may end with one; a message that holds
// such a block after a call is refused too, since nothing in the canonical
// message tells it from a reordered one. conform serve grades follow-up
// requests by the same rule (signed thinking before the first call).
//
// Tools with a type other than "custom" (web_search_20250305,
// computer_20251124, memory, ...) are server or typed tools that the
// canonical ToolSpec cannot describe: DecodeRequest drops them. Calls to
// them that the client executes (computer, memory) still decode as
// tool_use calls. tool_choice auto/any/tool/none maps to
// auto/required/tool/none, and disable_parallel_tool_use to the negation of
// ParallelToolCalls; a ParallelToolCalls without a ToolChoice is written
// with tool_choice auto, so it decodes with ToolChoice auto. ResponseFormat
// maps to output_format {type: json_schema, schema}; its Name and Strict are
// not carried.
//
// # Responses
//
// stop_reason maps end_turn and stop_sequence to stop, tool_use to
// tool_calls, max_tokens and model_context_window_exceeded to length,
// refusal to content_filter, and pause_turn or anything else to other; the
// raw value stays in ProviderFinish. server_tool_use, mcp_tool_use and every
// *_tool_result block are provider-run and are dropped, so they never show
// among the calls. An error body becomes Response.Error. Duplicate tool_use
// ids are an error wrapping ErrDuplicateID (D06).
//
// # Streams
//
// DecodeStream pulls one SSE event at a time through the shared
// package sse decoder; an event larger than the limit
// (WithMaxEventSize) and more content blocks than WithMaxBlocks end the
// stream with an error wrapping ErrTooLarge. Memory holds one small record
// per content block, never the argument text. Chunks carry the block index
// (HasIndex) and, on the start, the tool_use id and name, exactly as sent;
// routing is left to the core Buffer, so interleaved blocks (A19) come out
// as they arrived.
//
//   - message_start gives the response id and model, attached to the first
//     event emitted; its usage is optional (B14) and only its input_tokens
//     are kept, to complete the usage of message_delta.
//   - tool_use starts: input {} followed by an empty partial_json (C02,
//     A18) gives a call whose end carries Args "{}". A start whose input is
//     already populated (I01) is held: if input_json_delta fragments follow,
//     they are the arguments (A18: never a concatenation of both) as long
//     as they repeat or extend the start's input, compared as JSON; if they
//     drop a member of it or change one, the stream ends at the block's
//     content_block_stop with a *DecodeError wrapping ErrMalformed and
//     ErrInputConflict that names the block index and the call id, and the
//     call is incomplete. If none follow, the end carries the start's input
//     as Args.
//   - Fragments are unquoted byte for byte, so a UTF-8 character split
//     between fragments reassembles exactly (B05).
//   - The call_end of the most recently stopped tool_use is held back until
//     the next event shows the message went on. If message_delta then says
//     max_tokens, the call never ends (B11): its arguments were cut by the
//     limit even though the block was stopped. Earlier calls keep their end.
//   - An error event emits EventError after the call_end of any stopped
//     block (complete calls are kept). ping and unknown events or fields are
//     ignored. A stream that ends before message_stop (and without an error
//     event) returns an error wrapping ErrTruncated after its events.
//   - Malformed JSON, or a delta or stop for a block that is not open, is a
//     *DecodeError with the byte offset of the event.
//
// EncodeStream writes the events back; the normal form it documents (what
// the wire cannot express) is what the round-trip property tests. A
// redacted_thinking block in a stream becomes one thinking event carrying
// the block's data in Event.Data, which core.Collect keeps as a part of its
// own (Part.Data), so it is replayed as redacted_thinking; EncodeStream
// writes such an event back as a redacted_thinking block. A thinking part
// without Data is never written as redacted thinking, whatever its ItemID
// (OpenAI Responses keeps its reasoning item ids there).
package anthropic

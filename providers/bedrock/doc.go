// Package bedrock is conform's adapter for Amazon Bedrock: the Converse and
// ConverseStream APIs, and InvokeModel / InvokeModelWithResponseStream with
// an Anthropic Messages body (what Anthropic models on Bedrock receive, and
// what most of the recorded traffic holds).
//
// Usage:
//
//	a := bedrock.New()                                   // writes Converse bodies
//	inv := bedrock.New(bedrock.WithAPI(bedrock.InvokeAnthropic)) // writes InvokeModel bodies
//	resp, err := a.DecodeResponse(body)                  // reads either shape
//
// # Decoding
//
// Decoding accepts both APIs whatever the adapter writes: a request with an
// anthropic_version field is an InvokeModel body; a response with content
// and no output is an Anthropic message; a body with only "message" (and
// perhaps "__type") is a Bedrock error body and becomes Response.Error, not
// a Go error. In streams, "chunk" frames carry a base64 Anthropic stream
// event in their "bytes" field and are decoded as such; every other frame is
// a ConverseStream event. The "p" padding field is ignored, as are unknown
// event types, unknown fields and unknown message types.
//
// Streams are read one frame at a time. The decoder reads each frame's
// 12-byte prelude itself, checks the prelude CRC, rejects frames larger than
// the maximum frame size (DefaultMaxFrameSize, WithMaxFrameSize) with
// ErrFrameTooLarge before reading them, then hands the whole frame to the
// AWS eventstream decoder, which checks the message CRC and parses the
// headers. Every framing fault (ErrTruncated, ErrChecksum, ErrBadFrame,
// ErrFrameTooLarge) is a *FrameError carrying the byte offset of the
// frame's first byte. Memory is one frame buffer plus one entry per open
// content block (at most 4096, ErrTooManyBlocks), and the delta text of a
// tool_use whose start carried input (A18, bounded, see below).
//
// Exception frames (:message-type exception) become EventError with the
// :exception-type header as the error type; error frames (:message-type
// error) become EventError with the :error-code header as the code.
//
// Call chunks carry the contentBlockIndex exactly as sent (HasIndex set),
// negative values included (A11); the id and name travel on the start chunk
// only, as on the wire. The decoder does no routing. It keeps a few facts
// per open block: its kind, whether any input arrived, and for an
// InvokeModel tool_use whose start carried input, that input and the delta
// text (A18, below). A toolUse block that closes with no input delta at all
// (C02), or whose only deltas are null or empty (C06), ends with Args "{}"
// on its end chunk, so that a no-argument call is never finished with empty
// text. Input fragments are passed on exactly as
// received, including raw control characters or bad escapes (B07): repair,
// if any, is the Buffer's job and is reported there. A toolUse input delta
// that is a JSON object rather than a string (C04, seen from gateways) is
// taken as its JSON text.
//
// In non-streamed bodies a toolUse input must be a JSON object: absent or
// null input is {} (C06); a JSON string holding an object (double-encoded,
// C05) is unwrapped and the call marked Repaired with the input as received
// in Original; any other input is an error naming its JSON path, never a
// call.
//
// Provider-run tools are not client calls: in Anthropic bodies
// (server_tool_use and its result blocks) and in Converse, where a toolUse
// (or a ConverseStream contentBlockStart.start.toolUse) of type
// "server_tool_use" and the toolResult answering it are Bedrock's own (Nova
// web grounding, Nova code interpreter), they are dropped from responses
// and decoded requests and their streamed input is not emitted.
//
// A call cut by the token limit is never a call to run (B11), and streamed
// and whole messages agree on it. In a body (DecodeResponse) whose stop
// reason is max_tokens or model_context_window_exceeded and whose last
// block is a client toolUse (tool_use), that call goes to
// Response.Incomplete with its input as received in Original: the body
// holds the input as a parsed object, so a prefix such as {"path":"a.md"}
// of {"path":"a.md","body":"..."} looks complete. Earlier calls were
// finished before the model went on, and stand. The stream decoder applies
// the same rule to the block written last: the end chunk of a stopped
// client tool block is held back until the next frame. Content written
// after it (a contentBlockStart or contentBlockDelta of any block, an
// InvokeModel content_block_start or content_block_delta), a stop for
// another reason (messageStop, message_delta with stop_reason), usage
// (metadata, which Converse sends after messageStop, or a message_delta
// without a stop reason), an exception or error frame, or the clean end of
// the input (no stop reason, as a body without one) lets it through. A
// token-limit stop drops it, so the call never ends and core.Collect
// reports it incomplete; Args the end would have carried (a start's input,
// or "{}" for a call without input deltas) come as an input delta instead,
// so Original holds the input so far as in a body. The stop of another
// block (a text block closed late) is not content and lets nothing
// through. A stream that breaks (a *FrameError) drops the held end: the
// frames that would say how the message ended are lost. Input cut mid-JSON
// is incomplete either way, since the Buffer cannot finish it.
//
// An InvokeModel tool_use start may already carry its input (A18, I01,
// seen from proxies) and input_json_delta fragments may follow. The start's
// input is the call's input only when no delta comes (it ends on Args);
// otherwise the deltas are the input, never appended to the start's (which
// gave {"a":1}{"a":1}). Deltas that repeat the start's input or extend it
// with more members are right. Deltas that drop a member of the start's
// input or give it another value leave no way to tell which is the call:
// taking either would lose data silently, so the stream ends at the
// block's content_block_stop with a *FrameError wrapping ErrMalformed and
// ErrInputConflict that names the block index and the call id; the call
// has no end and is incomplete, calls completed before it stand. The check
// compares JSON as JSON (key order, white space and number spelling make
// no difference); delta text that is not JSON is not compared but left to
// the Buffer, which reports it repaired or incomplete. The delta text kept
// for the check is bounded by core.DefaultMaxArgBytes (an error wrapping
// core.ErrArgumentsTooLarge); other blocks keep none.
//
// # Encoding
//
// Converse requests: system messages become the system list (one block per
// text part); consecutive canonical messages that map to the same wire role
// are merged into one turn, since Converse wants roles to alternate and tool
// results in a user turn (G15). Decoding splits a user turn back where it
// changes between tool results and other content, so results come back in a
// RoleTool message. A no-argument call is sent with input {} (never null or
// a string, G15); arguments that are not a JSON object are refused with
// ErrInvalidArguments rather than sent. A tool result's text part whose Data
// holds a JSON object is sent as a {json} block, and a {json} block decodes
// to a text part with the JSON in both Text and Data.
//
// What Bedrock answers with a 400 is refused before sending, on both APIs:
// a history core.CheckHistory faults (a call without a result, an orphan
// result, a result without a call id: G01, G02, G03, G06; the
// *core.HistoryError is wrapped, and checked after the parts so that a
// fault inside one part is named by its path first), and a tool name
// outside ^[a-zA-Z0-9_-]{1,64}$ (E01, E02; tools.NameMapper maps such
// names). Empty and white-space-only text parts are left out of a request
// (system text, every turn's text and plan parts, tool-result text), since
// Converse and Anthropic reject such text blocks (G11: "text content blocks
// must contain non-whitespace text"); a response is written as given.
// The tool results of a user turn are put in the order of the calls they
// answer (G05), in the slots the results held.
//
// Reasoning keeps its place (G12): a thinking part after a tool call in
// the same assistant message is refused on both APIs with a
// *ThinkingOrderError naming the message, the part and the call before
// it, wrapping ErrThinkingOrder; the encoder never moves reasoning to
// make the message acceptable. Claude on Bedrock applies Anthropic's rule:
// an assistant turn is sent back as the model produced it, its reasoning
// before its toolUse blocks (reasoning after a tool result arrives in the
// next assistant turn), and with extended thinking a final assistant turn
// that does not open with reasoning is a 400 "Expected `thinking` or
// `redacted_thinking`, but found `tool_use`", which Bedrock returns as a
// ValidationException (anomalyco/opencode #3077). The Bedrock API
// reference (ReasoningTextBlock) describes the signature as a hash over the
// conversation that fails the request if the messages are tampered with,
// so reordering signed reasoning is no repair. The anthropic package
// documentation gives the Anthropic sources and the one known limit
// (progress-update blocks of the newest models between parallel calls).
//
// Tool choice "none" has no Converse form. When the history holds no tool
// calls or results, the tools are dropped, so the model cannot call one;
// otherwise Converse requires toolConfig, so the tools stay and toolChoice
// is left out (the model may still call a tool). Either way it decodes as
// no tool choice. The alternative, always dropping the tools, was rejected
// because Bedrock refuses a history with toolUse blocks and no toolConfig.
//
// Not expressible in a Converse body, and dropped: the model (it travels in
// the URL), stream (ConverseStream is a separate endpoint),
// parallel_tool_calls and response_format. The InvokeModel body keeps
// parallel_tool_calls=false as tool_choice.disable_parallel_tool_use.
//
// EncodeStream writes real frames with CRCs using the AWS encoder. What an
// Event can say but the wire cannot is normalised (see EncodeStream): plan
// deltas are written as text, text and thinking go in a block whose index
// avoids the open tool blocks, a thinking event with both text and
// signature becomes two events, Converse frames carry no response id or
// model, and InvokeModel streams carry no input token count before the end.
// Invalid UTF-8 in a delta becomes U+FFFD, since frames carry JSON strings.
// Redacted reasoning is a thinking part with the payload in Part.Data in
// requests and responses, and in streams a thinking event with the payload
// in Event.Data (Converse reasoningContent.redactedContent, or an InvokeModel
// redacted_thinking block), which core.Collect turns into that part.
package bedrock

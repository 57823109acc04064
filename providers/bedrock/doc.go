// Package bedrock is conform's adapter for Amazon Bedrock: the Converse and
// ConverseStream APIs, and InvokeModel / InvokeModelWithResponseStream with
// an Anthropic Messages body.
//
//	a := bedrock.New()                                           // writes Converse bodies
//	inv := bedrock.New(bedrock.WithAPI(bedrock.InvokeAnthropic)) // writes InvokeModel bodies
//	resp, err := a.DecodeResponse(body)                          // reads either shape
//
// Decoding reads both APIs whatever the adapter writes: an anthropic_version
// field marks an InvokeModel request, content without output an Anthropic
// message, a body with only "message" a Bedrock error (Response.Error). In a
// stream, a "chunk" frame carries a base64 Anthropic event and every other
// frame is a ConverseStream event; exception and error frames become
// EventError. Frames are read ahead into one reused buffer, taken one at a
// time and bounded (DefaultMaxFrameSize); a framing fault is a *DecodeError
// with the byte offset of its frame.
//
// The stream decoder has a fast path and a general one, which give the same
// events and errors. The fast path reads a frame in place: its prelude and
// message CRC-32 over the buffer's bytes, its headers by comparing names
// as bytes, and the payloads of the common events (tool input, text and
// reasoning deltas, block starts and stops, messageStop, metadata, and the
// Anthropic events inside InvokeModel chunks) with the shared scanner
// (providers/internal/jsonscan), without encoding/json and without an
// allocation per event; tool input and text deltas, InvokeModel chunk
// payloads and Anthropic content_block_delta events are matched in the byte
// shape Bedrock and Anthropic write them before any key is looked up. A
// stream's first storage (events, chunks, blocks 0-3, string arena) is in
// the decoder itself. A frame whose headers the AWS event-stream decoder
// would not read whole, or whose CRC fails, goes to that decoder, and any
// other payload shape to encoding/json. fast_test.go checks the two paths
// against each other on every recorded stream, whole, cut at every byte and
// in random reads, and FuzzFastPath on fuzzed input.
//
// Decisions, by failure mode:
//
//   - Chunks carry contentBlockIndex as sent, negative ones included (A11);
//     the Buffer routes them.
//   - A toolUse with no input delta, or only null or empty ones, ends with
//     Args "{}" (C02, C06). In a body, absent or null input is {}, a JSON
//     string holding an object is unwrapped and reported Repaired (C05), and
//     any other non-object input is an error naming its JSON path.
//   - Input fragments pass as received (B07); an object where a string
//     belongs is taken as its JSON text (C04).
//   - An InvokeModel tool_use start that already carries input (A18, I01):
//     deltas, when any come, are the input, never appended to the start's;
//     deltas that drop or change a member of it end the stream with a
//     *DecodeError wrapping ErrInputConflict, and the call is incomplete.
//   - Text in an InvokeModel chunk follows the UTF-8 rule of every stream:
//     a character split between two deltas comes out whole (B05), any other
//     byte that is not UTF-8 ends the stream with core.ErrInvalidUTF8.
//   - A client toolUse cut by max_tokens or model_context_window_exceeded is
//     never a call (B11): in a body it goes to Response.Incomplete; in a
//     stream its end is held back until a later frame shows the message
//     went on.
//   - Provider-run tools (server_tool_use blocks and their results, Nova
//     grounding and code interpreter) are not client calls (F09).
//
// Encoding refuses what Bedrock answers with a 400: a history
// core.CheckHistory faults (G01-G03, G06), a tool name outside
// ^[a-zA-Z0-9_-]{1,64}$ (E01, E02; tools.NameMapper maps such names),
// arguments that are not a JSON object, and a thinking part after a tool call
// in the same assistant message (G12, a *core.HistoryError wrapping
// ErrThinkingOrder: signed reasoning is never moved). It merges consecutive
// turns of one wire role (G15), leaves out empty and white-space-only text
// (G11), and puts the results of a turn in the order of its calls (G05).
//
// What the wire cannot carry:
//
//   - Converse: the model (it is in the URL), stream (a separate endpoint),
//     parallel_tool_calls and response_format. InvokeModel keeps
//     parallel_tool_calls=false as disable_parallel_tool_use.
//   - Tool choice "none": the tools are dropped when the history holds no
//     calls, else kept without toolChoice (Bedrock refuses toolUse blocks
//     without toolConfig); it decodes as no choice.
//   - Plan parts and events (Cohere's tool plan): EncodeRequest,
//     EncodeResponse and EncodeStream refuse them with core.ErrUnsupported,
//     as any part a role has no place for, rather than send them as answer
//     text (G16).
//   - Streams (EncodeStream lists the normal form): Converse frames carry no response id or model, InvokeModel streams no
//     input token count before the end, invalid UTF-8 becomes U+FFFD.
//
// Redacted reasoning is a thinking part with its payload in Part.Data
// (Event.Data in streams). docs/protocols.md has the sources behind G12 and
// the B11 hold-back rule.
package bedrock

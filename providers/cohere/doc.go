// Package cohere is conform's adapter for the Cohere v2 chat API
// (/v2/chat), in both directions: requests, responses and SSE streams.
// Chat v1 (/v1/chat) responses and NDJSON streams are read too, told apart
// by the body (v1.go); the encoders write v2.
//
//	a := cohere.New()
//	body, err := a.EncodeRequest(req)
//	stream := a.DecodeStream(resp.Body)
//
// A tool_plan is the model's statement of what it will call: it is a
// PartPlan (EventPlan in streams), never answer text, and is sent back as
// tool_plan (G16). Call arguments are a JSON string kept byte for byte: ""
// and "null" are {} (C06); a JSON string holding an object is unwrapped and
// reported Repaired (C05); anything else that is not an object, truncated
// arguments included, is an error naming the JSON path, never a call.
//
// Tool results are one "tool" message per result whose content is a list:
// a text part whose Data holds a JSON object is a document with that data,
// other text a text block, as clients send them. A document with string
// data decodes as plain text.
//
// Streams are read one SSE event at a time (FlushAtEOF), the type taken
// from the payload's "type", else the event name; "[DONE]", citations and
// unknown events are ignored. The common events are read without
// encoding/json (fast.go) and the rest by encoding/json, with the same
// events and errors; text, plan and argument strings keep bytes that are
// not UTF-8 for jsonstr.CheckText to refuse. Chunks carry the index as sent; a call whose
// start and end carry no argument text ends with Args "{}" (C02). A fault
// is a *DecodeError with a byte offset; input holding no v2 chat event wraps
// core.ErrNotStream. Events and open calls are bounded (WithMaxEventSize,
// core.ErrTooLarge; core.ErrTooManyCalls).
//
// What the wire cannot carry:
//
//   - Tool choice "auto" is the default and not written. A named tool
//     choice (F08) is sent as REQUIRED with only that tool offered, the one
//     way to force it, and decodes as required with one tool.
//   - strict_tools is request-wide: written only when every tool is strict.
//   - response_format loses its name and strictness; parallel_tool_calls
//     and thinking signatures are dropped.
//   - A part its role has no place for (thinking, a plan or a call outside
//     an assistant message; a result outside a tool message; anything but a
//     result in one) is refused by EncodeRequest and EncodeResponse with
//     core.ErrUnsupported, naming messages[i].parts[j].kind.
//   - EncodeStream drops the model and error types and codes, and holds
//     usage until message-end.
//
// Finish reasons: COMPLETE and STOP_SEQUENCE are stop, TOOL_CALL tool_calls,
// MAX_TOKENS and ERROR_LIMIT length, ERROR_TOXIC content_filter, ERROR and
// TIMEOUT error, anything else other; ProviderFinish keeps the raw value.
package cohere

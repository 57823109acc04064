// Package cohere is conform's adapter for the Cohere v2 chat API
// (/v2/chat), in both directions: requests, responses and SSE streams.
// Chat v1 (/v1/chat) responses and NDJSON streams are read too, told apart
// by the body (v1.go); the encoders write v2.
//
// Usage:
//
//	a := cohere.New()
//	body, err := a.EncodeRequest(req)
//	stream := a.DecodeStream(resp.Body)
//
// # Tool plans, calls and results (G16)
//
// A tool_plan is the model's statement of what it will call; it is kept as
// a PartPlan (EventPlan in streams), never as answer text, and is sent back
// as tool_plan on the assistant turn. Calls carry their arguments as a JSON
// string; the string is kept byte for byte. Arguments "" or "null" are a
// call without arguments and become {} (C06), both in responses and in
// streams; a JSON string holding an object (double-encoded, C05) is
// unwrapped and the call marked Repaired with the text as received in
// Original; arguments that are not a JSON object, truncated ones included,
// are an error naming the JSON path (message.tool_calls[i].function.arguments),
// never a call. Calls being encoded must have object arguments too.
//
// Tool results are sent as one "tool" message per result, with content as
// a list of content objects, as clients really send them (the corpus
// holds langchain-cohere's [{"type":"document","document":{"data":{...}}}]).
// A result's text part whose Data holds a JSON object is a document with
// that object as its data; other text parts are {"type":"text"} blocks.
// Decoding reverses this: a document with object data becomes a text part
// with the JSON in both Text and Data; a document with string data becomes
// plain text (its document-ness and any document id are not modelled).
//
// # Streams
//
// DecodeStream reads the SSE stream with package sse one event
// at a time (FlushAtEOF, since some streams end without a blank line) and
// takes the event type from each payload's "type" field, falling back to
// the SSE event name: api.cohere.com sends both, the vercel-ai fixtures
// only the payload. "data: [DONE]" is ignored. message-start's empty
// arrays carry nothing; the response id is put on the
// first event emitted. tool-call-start gives a start chunk with the id,
// name and any first argument text; tool-call-delta gives argument
// fragments; tool-call-end gives the end chunk. Chunks carry the index
// exactly as sent. A call whose start and end carry no argument text, or
// only "null" before any other text (C06), ends with Args "{}" (C02).
// citation-* and other unknown events are ignored; message-end gives usage
// (the model's tokens, else the billed units), a stream error (delta.error)
// and the finish reason, in that order.
//
// Every stream fault is a *StreamError with a byte offset: for SSE framing
// faults the offset of the fault, for a bad payload the offset of the event
// with the byte inside its data in the message. Input that is not blank
// but holds no v2 chat event (only unknown events, comments, "[DONE]" or
// text that is no SSE at all) is not a stream of the protocol: a
// *StreamError wrapping core.ErrNotStream at the first event the decoder
// could not use, or byte 0. Events are limited in size
// (WithMaxEventSize, ErrEventTooLarge); memory is one event plus one counter
// per open call (at most 4096, ErrTooManyCalls).
//
// # What the wire cannot express
//
// Requests: tool choice "auto" is Cohere's default and is not written, so
// it decodes as no tool choice; a named tool choice (F08) is sent as
// REQUIRED with only the named tool offered, the one way to force it rather
// than silently downgrade it, and decodes as "required" with one tool;
// strict_tools is request-wide, so it is written only when every tool is
// strict and decodes onto every tool; response_format is json_object with
// the schema, without the format's name or strictness; parallel_tool_calls
// does not exist and is dropped; thinking signatures are dropped.
//
// Streams: EncodeStream writes an "event:" line and a "type" field for every
// event; thinking signatures, the model and error types and codes are
// dropped; usage is held until the next message-end; a call's Args on its
// end chunk is written as a delta, except "{}" for a call without argument
// text, which decodes back by itself.
//
// Finish reasons: COMPLETE and STOP_SEQUENCE are stop, TOOL_CALL is
// tool_calls, MAX_TOKENS and ERROR_LIMIT are length, ERROR_TOXIC is
// content_filter, ERROR and TIMEOUT are error, anything else is other; the
// raw value is kept in ProviderFinish.
package cohere

// Package ollama is the conform adapter for Ollama's native /api/chat
// protocol: JSON requests and responses, NDJSON streams.
//
//	a := ollama.New()
//	resp, err := a.DecodeResponse(body)
//	stream := a.DecodeStream(httpResp.Body) // one JSON object per line
//
// The wire format follows the Ollama API documentation (docs/api.md,
// "Generate a chat completion", with tools) and the Ollama blog post
// "Streaming responses with tool calling" (ollama.com/blog/streaming-tool).
// There is no Ollama recording in the corpus; the test bytes are
// constructed from those documents.
//
// # Requests
//
// {model, messages:[{role, content, thinking?, tool_calls?, tool_name?,
// tool_call_id?}], tools:[{type:"function", function:{name, description,
// parameters}}], stream, format, options}. Roles map one to one. An
// assistant message's text parts are joined into content and its thinking
// parts into thinking (Ollama has one of each per message, and no thinking
// signature), so several text parts decode as one. A canonical tool message
// becomes one "tool" message per result; consecutive tool messages decode
// as one canonical tool message. Ollama keys results by tool_name; newer
// versions also send ids, echoed as tool_call_id. Decoding pairs a tool
// message with a call by tool_call_id, else by tool_name (first unanswered
// call of that name), else by position.
//
// Ollama streams unless told otherwise, so stream is always written and an
// absent stream decodes as true. MaxTokens is options.num_predict; other
// options are ignored. ResponseFormat is format: its schema, or "json" when
// the schema is empty (a format "json" decodes to a ResponseFormat without
// schema); the format has no name or strict flag. Ollama has no tool_choice
// and no parallel_tool_calls: they are not written and decode as nil. A
// tool choice that forces a call (required, or a named tool) is refused by
// EncodeRequest with an error wrapping errors.ErrUnsupported (F08): sending
// the request without it would let the model answer in text while the
// caller believes a call is forced. The results of one tool turn are sent
// in call order (G05), since chat templates pair them by position.
//
// # Responses and streams
//
// Tool calls arrive whole: in a stream, one line carries one or several
// complete calls (A15), which become EventCallStart + EventCallEnd with the
// whole Args and no deltas. Arguments are JSON objects, not strings (C04).
// A string holding a JSON object (C05, double encoding, seen from some
// models) is accepted by DecodeResponse and DecodeRequest, unwrapped, and
// reported: Call.Repaired is set and Call.Original keeps the string. A
// stream Chunk has no field to report a repair, so DecodeStream passes such
// arguments as sent (the JSON string) and leaves the repair, and its report,
// to the Buffer; this differs from DecodeResponse on purpose, since an
// unreported repair is never allowed. A string that does not hold an
// object, or any other non-object, is an error naming the call.
//
// Ids: Ollama sends none (or "id" in newer versions). Calls without one get
// "ollama_call_<k>" (k counting the calls of the response or stream) in
// responses and "ollama_call_<t>_<k>" in requests (t counting the assistant messages); encoders
// never send generated ids. Calls are never de-duplicated: two identical
// calls in one turn are two calls with two ids (D07). function.index, when
// sent, routes a stream chunk beside the id.
//
// done_reason: "stop" with calls is tool_calls (Ollama says stop when the
// model called tools), "stop" otherwise stop, "length" length, anything
// else (load, unload) other; the raw value is kept. Usage is
// prompt_eval_count and eval_count, sent only on the done line. An error
// body or line {"error": "..."} becomes Response.Error or EventError. A
// body with done false is a stream line, not a whole response: DecodeResponse
// returns what it carried with an error wrapping core.ErrNoFinish, as
// Collect does for a stream that ends before its done line. Calls arrive
// whole, so at such a cut the calls received are complete (as Gemini's);
// the response is not.
//
// Streams are read line by line (providers/internal/ndjson) with a maximum
// line size (DefaultMaxLine, WithMaxLine; ErrTooLarge); a malformed line is
// an *OffsetError naming the byte offset where the fault is. Blank lines are
// skipped; unknown fields are ignored.
//
// EncodeStream writes one line per event (a call at its end event, whole),
// the finish as the done line with the usage seen before it; what the wire
// cannot express is dropped: usage without a finish, the response id, calls
// without an end.
package ollama

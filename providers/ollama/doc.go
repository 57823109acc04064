// Package ollama is the conform adapter for Ollama's native /api/chat
// protocol: JSON requests and responses, NDJSON streams.
//
//	a := ollama.New()
//	resp, err := a.DecodeResponse(body)
//	stream := a.DecodeStream(httpResp.Body) // one JSON object per line
//
// The wire format follows Ollama's API documentation ("Generate a chat
// completion") and its blog post on streaming tool calls; the corpus holds
// no Ollama recording, so the test bytes are built from those documents.
//
// Requests. An assistant message has one content and one thinking field, so
// several text parts decode as one. Results are keyed by tool_name (newer
// versions also echo tool_call_id); decoding pairs a result by
// tool_call_id, else tool_name, else position, and encoding sends a turn's
// results in call order (G05). stream is always written, since Ollama
// streams unless told otherwise. A tool choice that forces a call
// (required, a named tool) is refused with an error wrapping
// core.ErrUnsupported and errors.ErrUnsupported (F08): sending it without
// would let the model answer in text while the caller believes a call is
// forced.
//
// What the wire cannot carry: tool_choice and parallel_tool_calls (decoded
// as nil); thinking signatures; ResponseFormat's name and strictness (format
// is the schema, or "json"); options other than num_predict (MaxTokens).
// A part its role has no place for (a plan; thinking or a call outside an
// assistant message; anything but a result in a tool message) is refused by
// EncodeRequest and EncodeResponse with core.ErrUnsupported, naming
// messages[i].parts[j].kind.
//
// Responses and streams. Calls arrive whole (A15): each becomes a call
// start and end with whole Args. Arguments are objects, not strings (C04).
// A string holding an object (C05) is unwrapped and reported Repaired by
// DecodeResponse and DecodeRequest; DecodeStream passes it as sent, leaving
// the repair and its report to the Buffer, since a Chunk cannot report one.
// Anything else is an error naming the call.
//
// Calls without an id get "ollama_call_<k>" ("ollama_call_<t>_<k>" in
// requests), never sent back; identical calls in one turn stay two calls
// (D07). done_reason "stop" with calls is tool_calls. A body with done
// false is a stream line: DecodeResponse returns what it carried with an
// error wrapping core.ErrTruncated.
//
// Streams are read line by line, each line bounded (DefaultMaxLine,
// core.ErrTooLarge); a malformed line is a *DecodeError with its byte offset.
// A fast path (fast.go) reads lines of the common shape (content,
// thinking, whole tool calls, the done line) with jsonscan, without
// encoding/json; anything else goes to encoding/json, with the same events
// and errors (TestFastPathStreams, FuzzFastPath). The stream vouches
// (VouchArgs) for arguments sent as objects, which the line's decoding
// checked; once core.Collect has called ReuseEventText, the chunks of a
// line's calls and their arguments come from storage given back when the
// next line is read, the arguments views of the line where they need no
// compacting (TestCollectReused, TestCollectVouched). The decoder goes back
// to a sync.Pool at the end of its stream.
// EncodeStream writes a call whole at its end event, or at a finish that
// ends it as core.Collect does, and the finish as the done line; a call
// nothing ends is an error naming it, unless an error event says the
// stream failed; usage without a finish and the response id are dropped.
// Every line and done body carries model and created_at (a fixed epoch
// time), and a done one total_duration 0 and its counts (zero without
// usage), as the documented shape has them.
// EncodeRequest follows core.CheckHistory as the other adapters do: a
// call without a result, an orphan result or a result without an id is
// refused (G01-G03, G06). A zero-valued tool call entry is absent; a call
// without a name is never complete.
package ollama

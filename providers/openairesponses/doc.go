// Package openairesponses is the conform adapter for the OpenAI Responses
// API (/v1/responses): requests, responses and typed SSE streams, in both
// directions.
//
// Requests. Input items map to canonical messages: user to RoleUser; system,
// developer and instructions to RoleSystem; a run of reasoning,
// function_call and assistant message items to one RoleAssistant message; a
// run of function_call_output items to one RoleTool message. A
// function_call carries its item id (fc_, Call.ItemID) and its call id
// (call_, Call.ID) each in its own field (D08). A reasoning item is one
// thinking part per summary entry, with the item id in Part.ItemID and
// encrypted_content in Part.Signature. A strict tool's schema is rewritten
// for strict mode (H03, oaichat.StrictSchema).
//
// EncodeRequest is stateless replay: it sends the whole conversation and
// fails with a *core.HistoryError when a function_call has no output after it
// (G07), an output has no call, a call id repeats, or stored arguments are
// not JSON (G09). Stateful replay (G08) is EncodeRequestAfter(req, id): it
// sends only the messages after the last assistant message, whose items the
// server already holds, and checks that its calls get outputs.
//
// What the wire cannot carry: the difference between system and developer;
// Result.IsError and Result.Name; another provider's reasoning (thinking
// parts with neither ItemID nor Signature are dropped on encoding);
// built-in tools, which are dropped from decoded requests; tool_choice
// forms other than auto, none, required and one function; refusals. A part
// its role has no place for (a plan; thinking or a call outside an
// assistant message; a result in one or in a system message) is refused
// with core.ErrUnsupported, naming messages[i].parts[j].kind.
//
// Responses. Provider-run items (web_search_call, file_search_call,
// code_interpreter_call, mcp_call, ...) are dropped, and so are the items the
// client runs but a canonical Call cannot describe (local_shell_call,
// apply_patch_call, computer_call, custom_tool_call). A function_call whose
// status is incomplete goes to Response.Incomplete; its arguments get the
// verdict core.Buffer gives them streamed (empty text is {}, C01; text it
// repairs is Repaired; text it cannot repair, and a call without a name,
// incomplete); a zero-valued item is absent; an object is taken as its JSON
// text (C04); two calls with one call_id are an
// error wrapping core.ErrDuplicateCallID (D06). Finish: completed is
// tool_calls with a call and stop without; incomplete for max_output_tokens
// is length (B11), for content_filter content_filter; failed is error.
//
// Streams are read one SSE event at a time, bounded (WithMaxEventSize,
// WithMaxItems, core.ErrTooLarge); memory is one record per call, never the
// argument text.
//
//   - output_item.added of a function_call is the call start, with the item
//     id, call id and output_index (A16); deltas carry item_id and
//     output_index as sent, and the Buffer routes them.
//   - function_call_arguments.done ends the call with the complete
//     arguments (A17: they may arrive only there); an output_item.done whose
//     status is incomplete does not end it, nor does response.incomplete
//     (B11).
//   - A failed response gives its finish before its error event, so a client
//     that stops at the error keeps the raw status.
//   - A stream with no terminal event is core.ErrTruncated after its events;
//     input holding no Responses event at all wraps core.ErrNotStream;
//     malformed JSON is a *DecodeError with the event's byte offset.
//
// The deltas (fast.go) and the envelope events (envelope.go) are read
// without encoding/json and without a copy of the event; any shape they
// are not sure of takes encoding/json, which gives the same events and
// errors.
//
// EncodeStream writes the full output and usage into the terminal event, as
// OpenAI does, because openai-node and openai-go read the final response
// from it; DecodeStream reads the answer from the deltas and item events
// only.
package openairesponses

// Package openairesponses is the conform adapter for the OpenAI Responses
// API (/v1/responses): requests, responses and typed SSE streams, in both
// directions.
//
// # Requests
//
// input items map to canonical messages as follows. Message items of role
// user become RoleUser messages; system and developer become RoleSystem (the
// two roles are not told apart), and so does instructions, as the first
// message. Assistant-side items (reasoning, function_call and assistant
// message items) that follow each other form one RoleAssistant message, and
// function_call_output items that follow each other one RoleTool message;
// two canonical assistant (or tool) messages in a row therefore come back as
// one. On encoding, system messages are written as input items of role
// system (instructions is never written), text as input_text or
// output_text parts, and the function_call item carries the item id (fc_…,
// Call.ItemID, only when known) and the call id (call_…, Call.ID) each in
// its own field (D08). function_call_output takes the result's text: a
// string for one part, a list of input_text parts for several; Result.IsError
// and Result.Name have no place on the wire and are dropped.
//
// Reasoning items become thinking parts, one per summary entry (one empty
// part when there is none), each with the item id (rs_…) in Part.ItemID and
// encrypted_content in Part.Signature; consecutive thinking parts with the
// same ItemID and Signature are written back as one reasoning item. Thinking
// parts with neither (another provider's reasoning, such as Anthropic
// redacted thinking, whose payload is in Part.Data) cannot be replayed and
// are dropped on encoding. The item id is never kept in Part.Data, so
// another adapter never mistakes it for an opaque payload of its own.
//
// Tools are function tools {type, name, description, parameters, strict};
// built-in tools (web_search, file_search, computer_use, ...) are not
// client tools and are dropped on decoding. strict is always written; an
// absent strict decodes as false. A strict tool's schema is rewritten by the
// openai-chat adapter's oaichat.StrictSchema (H03): additionalProperties
// false on every object, every property required, optional ones nullable.
// tool_choice maps auto/none/required and {type: function, name}; other
// forms (allowed_tools, hosted tool types) decode as no choice.
// text.format json_schema maps to ResponseFormat; max_output_tokens to
// MaxTokens.
//
// EncodeRequest is stateless replay: it sends the whole conversation and
// fails with a *HistoryError (message index and call id) when a
// function_call has no function_call_output anywhere after it (G07), when
// an output has no call, on duplicate call ids, or when stored arguments
// are not valid JSON (G09). A reasoning or message item between a call and
// its output is allowed. ValidateHistory runs the same checks alone.
//
// The canonical Request has no previous_response_id, so stateful replay
// (G08) has its own entry point, EncodeRequestAfter(req, id): it sends only
// the messages after the last assistant message, since the server already
// stores that message's items and re-sending them is a "Duplicate item"
// error. It checks that every call of that assistant message gets an output
// and that every output answers a known call; it cannot check that the
// server still holds the response or that the stored history equals req.
// DecodeRequest ignores previous_response_id.
//
// # Responses
//
// Output items: message (output_text; refusals are not modelled), reasoning
// (as above), function_call (both ids). Built-in items — web_search_call,
// file_search_call, code_interpreter_call, image_generation_call, mcp_call,
// tool_search_call, program — are run by the provider and dropped; so are
// local_shell_call, apply_patch_call, computer_call and custom_tool_call,
// which the client runs but the canonical Call (JSON arguments for a named
// function) cannot represent. A function_call whose status is incomplete
// or whose arguments are not JSON goes to Response.Incomplete, never to
// the calls; empty arguments are repaired to {} with Repaired set (C01);
// object-typed arguments (C04) are taken as their JSON text. Two calls with
// one call_id are an error wrapping ErrDuplicateID (D06).
//
// The finish reason comes from status: completed is tool_calls when the
// output has a function call and stop otherwise; incomplete with reason
// max_output_tokens is length (B11), content_filter is content_filter, any
// other reason other; failed is error; cancelled and the rest are other.
// ProviderFinish keeps the status, or the incomplete reason. An error body
// ({"error": {...}}) or a response's error object sets Response.Error.
//
// # Streams
//
// DecodeStream pulls one SSE event at a time through the shared
// package sse decoder, with an event size limit
// (WithMaxEventSize) and a limit on function calls (WithMaxItems), both
// reported with ErrTooLarge. Memory holds one small record per function
// call, never argument text.
//
//   - response.created gives the id and model, attached to the first event.
//   - response.output_item.added of a function_call is the call start:
//     Chunk.ItemID is the item id, Chunk.ID the call_id, Chunk.Index the
//     output_index (A16); arguments already in the item are its first
//     delta. A second start with a call_id already seen is an error (D06).
//   - function_call_arguments.delta gives Chunk{ItemID, Index, ArgsDelta}
//     exactly as routed by the provider, by item_id and output_index; the
//     core Buffer does the routing.
//   - function_call_arguments.done ends the call with the complete
//     arguments in Chunk.Args (A17: they may arrive only there); an
//     output_item.done for a call not yet ended ends it the same way, and
//     one whose status is incomplete does not.
//   - output_text.delta gives text (refusals are not modelled);
//     reasoning_summary_text.delta and reasoning_text.delta give thinking
//     with the reasoning item id in Event.ItemID; a reasoning item's
//     output_item.done gives its encrypted_content as a thinking signature
//     with the same ItemID. core.Collect puts the id on the thinking part,
//     as DecodeResponse does.
//   - response.completed, response.incomplete and response.failed give the
//     usage and the finish as for bodies; a call still open at
//     response.incomplete stays open (B11). An error event, or the error of
//     a failed response when no error event came first, is one EventError.
//     A failed response's finish (FinishError, raw "failed") comes before
//     its error event, so that a client that stops at the error, as
//     core.Collect does, still has the raw status that DecodeResponse gives
//     for the same response.
//   - Unknown events and fields (obfuscation, sequence_number, built-in
//     tool progress) are ignored. A stream that ends without a terminal
//     event or error returns ErrTruncated after its events. Input that is
//     not blank but holds no Responses event at all is no stream of the
//     protocol: a *DecodeError wrapping ErrMalformed and core.ErrNotStream
//     at the first event it could not use, or byte 0. Malformed JSON is a
//     *DecodeError naming the byte offset of the event.
//
// Argument and text deltas are unquoted byte for byte, so UTF-8 split
// between deltas reassembles exactly. EncodeStream documents the normal
// form that round-trips.
//
// EncodeStream writes the full output (items built from the events) and
// usage into the terminal event, as OpenAI does, because SDKs such as
// openai-node and openai-go take the final response from it. DecodeStream
// still reads the answer from the deltas and item events only, so a
// recorded stream whose terminal output disagrees with its deltas decodes
// as its deltas say.
package openairesponses

// Package gemini is the conform adapter for Google's Gemini generateContent
// and streamGenerateContent protocol (Gemini API and Vertex AI).
//
//	a := gemini.New()
//	resp, err := a.DecodeResponse(body)
//	stream := a.DecodeStream(httpResp.Body)
//
// Requests. System messages go to systemInstruction; assistant turns are
// "model" contents. A call's Signature (Gemini 3 thoughtSignature, G13) is
// kept on decode and written back on the same part. Tools pass through
// SanitizeSchema (H01, H02); a schema Gemini cannot express is an error
// naming the tool and the schema path. Both camelCase and snake_case field
// names are read; camelCase is written.
//
// Tool results: Gemini pairs them with calls by position, so the results
// of a turn are written in the order of its calls (G05); a count mismatch,
// an unknown call id or a call without a result is a *core.HistoryError
// (G04). functionResponse.response must be an object: a JSON
// object result is sent as is, other text as {"result": text}, an error
// result as {"error": text} (Gemini has no is_error flag); decoding reverses
// exactly these shapes.
//
// Ids. Provider ids (Gemini 3) are echoed (D02). A call without one gets
// "gemini_call_<key>_<k>": k its position in the response, key a hash of
// the responseId, else of the call's name and arguments. So parallel calls
// (D01) and the calls of different responses get distinct ids, and the same
// bytes, streamed or not, always give the same ids. Generated ids are never
// sent back to Gemini.
//
// What the wire cannot carry: ResponseFormat's Name and Strict;
// ParallelToolCalls; tool choice ANY with several allowed names decodes as
// required; the model travels in the URL (and as "models/<name>" in the
// body when set); only candidates[0] is read. A part its role has no place
// for (a plan; a thought or a call outside a model turn; anything but a
// result in a tool message) is refused by EncodeRequest and EncodeResponse
// with core.ErrUnsupported, naming messages[i].parts[j].kind.
//
// Finish reasons (NormalizeFinish): STOP with calls is tool_calls, streamed
// or not (F02); STOP with no content is other (F05);
// MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS and
// MISSING_THOUGHT_SIGNATURE are error (F04); the safety family is
// content_filter; MAX_TOKENS is length. The integer form is read through the
// v1beta enum numbering. An error body is Response.Error.
//
// Streams are SSE (alt=sse) or one JSON array, told apart by the first
// byte and read element by element, never whole; each event is bounded
// (DefaultMaxEventSize, core.ErrTooLarge), and malformed bytes give an
// *DecodeError. The array's elements are found by their brackets and
// strings (frame.go), with the errors and offsets of encoding/json's
// Decoder, which frames them in the tests (TestFramesLikeOracle,
// FuzzArrayForm). A functionCall arrives whole and becomes a call start and
// end with no index (A15); chunks route by id. usageMetadata is cumulative,
// so the last one is emitted once at the end, then the finish. A fast path
// (fast.go) reads chunks of the common shape with jsonscan, without
// encoding/json; anything else goes to encoding/json, with the same events
// and errors (TestFastPathCorpus, FuzzFastPath). Both streams vouch
// (VouchArgs) for the arguments of calls sent whole, which their decoding
// checked; once core.Collect has called ReuseEventText, the chunks of a
// chunk's call events, the arguments of its calls sent whole and the text
// of its parts come from storage given back when the next chunk is
// decoded, views of its bytes where they need no change (TestCollectReused,
// TestCollectInteractionsReused).
//
// Vertex streamed arguments (streamFunctionCallArguments: partialArgs
// pieces with a JSON path and willContinue) are assembled by the decoder
// into one object, bounded (the JSON it writes and the bytes its pieces
// carry by DefaultMaxArgsSize, its paths by core.MaxDepth segments), and
// emitted whole at the call's end; a call still open when the
// stream ends, or when another named call starts, never ends (B09-B11).
// functionCall.args after pieces must agree with them (the same JSON text
// compacted, core.Buffer's rule for a final after deltas), else the stream
// ends with an error wrapping core.ErrConflict that names both. A
// zero-valued functionCall is absent, and a call without a name never
// complete.
// The pieces are kept in a store the decoder reuses for its calls and,
// pooled, for later streams: a call's pieces cost no allocation of their
// own once it has grown, only the string of the arguments kept.
//
// EncodeStream documents its normal form: plan becomes text, a call is
// written whole at its end event, or at a finish that ends it as
// core.Collect does; a call nothing ends is an error naming it, unless an
// error event says the stream failed.
//
// The Interactions API (/v1beta/interactions, testdata/corpus/other) is a
// different protocol: DecodeInteraction and DecodeInteractionStream read
// its responses and streams (the stream's common events through a fast path
// of their own, interactfast.go); it has no encoders, since the corpus
// holds no request. docs/protocols.md has the sources for partialArgs and the id
// scheme's reasons.
package gemini

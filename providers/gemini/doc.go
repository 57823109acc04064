// Package gemini is the conform adapter for Google's Gemini generateContent
// and streamGenerateContent protocol (Gemini API and Vertex AI).
//
//	a := gemini.New()
//	resp, err := a.DecodeResponse(body)
//	stream := a.DecodeStream(httpResp.Body)
//
// # Requests
//
// System messages go to systemInstruction (all of them, in order, as text
// parts; DecodeRequest gives one system message first). Assistant turns are
// "model" contents; thinking parts are {thought:true, text,
// thoughtSignature}; a call is {functionCall:{id?, name, args},
// thoughtSignature?}. The call's Signature (Gemini 3 thoughtSignature, G13)
// is kept on decode and written back on encode, on the same part.
//
// Tool results: consecutive tool messages make one "user" content with one
// functionResponse per functionCall of the model turn before it, in the
// order of the calls, whatever the order of the results (G05: Gemini pairs
// positionally). A count mismatch, a result for an unknown call id or a
// call without a result is an EncodeRequest error wrapping ErrHistory and
// naming the turns (G04). Provider call ids (Gemini 3) are echoed in
// functionResponse.id (D02); ids the adapter generated (GeneratedIDPrefix)
// are never sent. functionResponse.response must be an object: a result
// whose text is a JSON object is sent as that object, any other text as
// {"result": text}, an error result as {"error": text}; decoding reverses
// exactly these three shapes and keeps any other object as its JSON text.
// Gemini has no is_error flag, so {"error": "..."} is the convention.
//
// Tools are sent as functionDeclarations whose parameters went through
// SanitizeSchema (H01, H02); a tool whose schema cannot be expressed is an
// EncodeRequest error naming the tool and the schema path. A tool schema of
// {} or null is sent without parameters. Decoding keeps the declared
// parameters (or parametersJsonSchema) as they are.
//
// tool_choice: auto → AUTO, none → NONE, required → ANY, a named tool →
// ANY with allowedFunctionNames [name]. ANY with several allowed names
// decodes as required (the names are not modelled). response_format is
// written as responseMimeType application/json plus responseJsonSchema
// (decoding also reads responseSchema); Gemini has no schema name, so
// ResponseFormat.Name and Strict do not survive. max_tokens is
// generationConfig.maxOutputTokens. The model travels in the URL; when
// Request.Model is set it is also written as "model": "models/<name>" (the
// gRPC-gateway body field), and decoding strips "models/". Stream (the URL
// method) and ParallelToolCalls (no Gemini equivalent) are not written and
// decode as their zero values.
//
// The protobuf JSON mapping accepts snake_case field names as well as
// camelCase; DecodeRequest reads both (llm-gemini sends function_call and
// function_response). EncodeRequest writes camelCase.
//
// # Responses
//
// Only candidates[0] is read. Calls without an id (Gemini 2) get the
// generated id "gemini_call_<key>_<k>", k being the call's 0-based position
// among the calls of the response and key 12 hex digits of a hash of the
// response's responseId, or, for a response without one, of the call's
// name and arguments (as JSON values). So two id-less parallel calls to the
// same function get distinct ids (D01); the calls of two responses get
// distinct ids too, so that a history of several id-less turns re-encodes
// for Anthropic or OpenAI, which refuse a repeated id; the same bytes
// always give the same ids, and a streamed response the ids of the same
// response unstreamed. A streamed partialArgs call with neither id nor
// responseId has its call_start held back until its arguments are complete
// (or it is abandoned), since its id depends on them. Without a
// responseId, two responses that make the same calls in the same order get
// the same ids: stability allows nothing else, and the Gemini API and
// Vertex send a responseId with every response. The ids are short
// and within [a-zA-Z0-9_] for every protocol's id rules. Generated ids are
// never sent back to Gemini (EncodeRequest leaves functionCall.id and
// functionResponse.id out for them). In a decoded request the generated id
// is "gemini_call_<t>_<k>", t counting the model turns, unique in the
// conversation, and an
// id-less functionResponse is paired with the first unanswered call of the
// same name in the model turn before it.
//
// Finish reasons (NormalizeFinish): Gemini says STOP for a turn that calls
// tools, streamed or not; conform normalises STOP with calls to tool_calls
// (F02), so streaming and non-streaming agree. STOP with no content at all
// (no part, or only empty text) is other, not stop: it is no answer (F05).
// MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS and
// MISSING_THOUGHT_SIGNATURE are error, never stop (F04). SAFETY,
// RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII and the image variants
// are content_filter; MAX_TOKENS is length; anything else is other. The
// gRPC-gateway integer form ("finishReason": 1, as in the langchaingo
// recordings) is decoded through the generativelanguage v1beta enum
// numbering (0–12; googleapis generative_service.proto as generated in
// google-cloud-python) and ProviderFinish holds the enum name; larger
// numbers, whose meaning differs between API versions, become
// "FINISH_REASON_<n>" and other. A response without candidates but with
// promptFeedback.blockReason is content_filter with the block reason as
// ProviderFinish. Usage: InputTokens is promptTokenCount, OutputTokens is
// candidatesTokenCount + thoughtsTokenCount (what is billed as output).
// An error body {"error":{code,message,status}} becomes Response.Error
// (Type status, Code code) with finish error.
//
// A text part may carry a thoughtSignature (Gemini 3 puts one on the last
// part of a turn, often with empty text); it is kept as the text part's
// Signature, and in streams as the Signature of an EventText.
//
// # Streams
//
// DecodeStream reads either form of streamGenerateContent: SSE (alt=sse,
// each data: a GenerateContentResponse, framed by package sse)
// or the one-JSON-array form ("[{…},\r\n{…}]"), read element by element
// with encoding/json's Decoder tokens, never the whole body at once. The
// first non-space byte decides ('[' array, '{' a bare sequence of objects,
// anything else SSE). Each event (SSE block or array element) is limited to
// DefaultMaxEventSize bytes (WithMaxEventSize); past it the error wraps
// ErrTooLarge. Malformed bytes give an *OffsetError with the byte offset
// in the stream.
//
// Events: text and thought parts become EventText and EventThinking; empty
// text without a signature is dropped. A complete functionCall part (args
// whole; several in one chunk or one per chunk, A15) becomes EventCallStart
// (Chunk with ID, Name, Signature, Start) followed by EventCallEnd (Chunk
// with ID, Done and Args). Gemini sends no call index, so chunks carry no
// index; they route by ID, which is the provider's id or the generated one
// above. usageMetadata is cumulative in every chunk: the last one is
// emitted as one EventUsage at the end of the stream, followed by one
// EventFinish normalised as above over the whole stream. The response id
// and model ride on the first event. A chunk {"error": …} becomes
// EventError. Unknown fields are ignored.
//
// Vertex streamed function-call arguments (functionCallingConfig
// streamFunctionCallArguments) arrive as a functionCall with a name and
// willContinue: true, then functionCall parts without a name carrying
// partialArgs, each {jsonPath, stringValue | numberValue | boolValue |
// nullValue, willContinue}, and finally a functionCall part without
// willContinue (often empty: {}). jsonPath is an RFC 9535 JSON Path such as
// "$.recipe.steps[1]"; a piece whose willContinue is true says that the
// next piece for the same path continues the same string value. Sources:
// googleapis js-genai types.FunctionCall and types.PartialArg
// (googleapis.github.io/js-genai/release_docs/interfaces/types.PartialArg.html)
// and java-genai FunctionCallingConfig.streamFunctionCallArguments, plus
// the vercel/ai recordings in the corpus (google-stream-tool-call-arguments,
// google-vertex-stream-tool-call-arguments-nested). The decoder assembles
// the pieces itself into an object (keys in arrival order; array indexes
// must not skip), up to DefaultMaxArgsSize bytes (WithMaxArgsSize,
// ErrTooLarge), and emits EventCallStart when the call opens and
// EventCallEnd with the whole Args when it closes. It does not use
// Chunk.Patch, which merges whole top-level keys and cannot express
// appending to a string at a nested path, nor ArgsDelta, whose text would
// have to be re-serialised JSON prefixes. A call still open when the
// stream ends, or when another named call starts, gets no EventCallEnd, so
// the Buffer reports it incomplete rather than complete (B09–B11).
//
// EncodeStream writes SSE (or the array form with WithJSONArrayStream): one
// chunk per text, thinking or plan event (plan becomes plain text, since
// Gemini has none), one complete functionCall part per call at its end
// event (ArgsDelta text and Patch keys are accumulated, Args replaces
// them), usage and finish in the last chunk, ID and model on every chunk.
// What the wire cannot express is normalised: a call without an end event
// is not written; a finish is written as ProviderFinish when set, else as
// the Gemini value of Finish, and decodes normalised again.
//
// # Interactions API
//
// The Gemini "Interactions" API (POST /v1beta/interactions; responses with
// typed steps, SSE streams of step.start / step.delta / step.stop events;
// the files in testdata/corpus/other) is a different protocol. Its
// responses and streams are decoded by DecodeInteraction and
// DecodeInteractionStream, outside the core.Adapter interface; requests
// and encoders are not written (the corpus holds responses only).
package gemini

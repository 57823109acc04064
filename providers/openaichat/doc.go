// Package openaichat is the openai-chat adapter: OpenAI Chat Completions
// (/v1/chat/completions) and the many servers that speak it (Azure,
// OpenRouter, Groq, xAI, DeepSeek, vLLM, llama.cpp, gateways).
//
// The codec is shared with the mistral adapter in providers/internal/oaichat,
// whose package documentation states every mapping and normalisation; the
// choices particular to this adapter are:
//
//   - Thinking (DeepSeek reasoning_content, G14) is read from
//     reasoning_content or OpenRouter's reasoning, and written back as
//     reasoning_content (ReasoningField changes that). OpenRouter's
//     reasoning_details, which carries signatures, is not modelled.
//   - max_tokens is written unless MaxCompletionTokens is given; both are read.
//   - Streaming requests carry stream_options.include_usage=true.
//   - D04: call ids longer than 40 characters (Responses fc_ and ws_ ids,
//     OpenRouter ids) are mapped on encoding to "call_" plus 24 base-62
//     characters derived from the id by SHA-256, remembered in
//     Adapter.IDMap and mapped back on decoding, so a conversation replayed
//     from another provider is accepted and keeps its ids. KeepLongIDs turns
//     this off. We map rather than leave because OpenAI rejects such ids
//     with 400 string_above_max_length and the mapping is invisible to the
//     canonical side.
//   - G13: Gemini's OpenAI-compatible endpoint puts a Gemini 3 thought
//     signature on each tool call as extra_content.google.thought_signature
//     (Vertex AI: extra_content.vertex) and refuses the next turn unless it
//     is echoed. Decoding makes it the call's Signature, in responses,
//     requests and streams; EncodeRequest writes a call's Signature back as
//     extra_content.google.thought_signature on the same tool call (the
//     vertex namespace is not remembered), and so does EncodeResponse. The
//     shared codec reads it (oaichat.Config.ThoughtSignatures) where it
//     reads the rest of the tool call: in a stream it is the Signature of
//     the chunk it came with, routed like any chunk (by id, else by index),
//     so a signature-only entry after the call's fragments still lands on
//     its call; a chunk with extra_content leaves the fast path for the
//     general one. EncodeStream does not write signatures.
//   - A13: with n>1 only choice 0 is decoded, in responses and streams.
//   - Streams are read with sse.FlushAtEOF.
//
// CheckHistory lists the history problems the API rejects (G03, G06, D04)
// and StrictSchema is the strict-mode schema rewrite (H03).
package openaichat

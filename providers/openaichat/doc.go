// Package openaichat is the openai-chat adapter: OpenAI Chat Completions
// (/v1/chat/completions) and the many servers that speak it (Azure,
// OpenRouter, Groq, xAI, DeepSeek, vLLM, llama.cpp, gateways).
//
// The codec is shared with the mistral adapter in providers/internal/oaichat,
// whose package documentation states every mapping and normalisation; the
// choices particular to this adapter are:
//
//   - Thinking (G14) is read from reasoning_content or OpenRouter's
//     reasoning and written as reasoning_content (ReasoningField changes
//     that); reasoning_details, which carries signatures, is not modelled.
//   - max_tokens is written unless MaxCompletionTokens is given; both are
//     read. Streaming requests carry stream_options.include_usage=true.
//   - D04: OpenAI refuses call ids longer than 40 characters (400
//     string_above_max_length), so such ids (Responses fc_ ids, OpenRouter
//     ids) are mapped on encoding to "call_" plus 24 base-62 characters of
//     their SHA-256, kept in Adapter.IDMap and mapped back on decoding.
//     KeepLongIDs turns this off.
//   - G13: Gemini's OpenAI-compatible endpoint puts a Gemini 3 thought
//     signature on each tool call (extra_content.google, or .vertex on
//     Vertex AI) and refuses the next turn without it. It is the call's
//     Signature in responses, requests and streams, routed like any chunk,
//     and is written back as extra_content.google.thought_signature by
//     EncodeRequest and EncodeResponse; EncodeStream does not write it.
//   - A13: with n>1 only choice 0 is decoded, in responses and streams.
//
// CheckHistory lists the history problems the API rejects (G03, G06, D04)
// and StrictSchema is the strict-mode schema rewrite (H03).
package openaichat

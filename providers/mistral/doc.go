// Package mistral is the mistral adapter: Mistral's /v1/chat/completions,
// whose wire format is close to OpenAI Chat Completions. The codec is shared
// with openai-chat in providers/internal/oaichat, whose package
// documentation states every mapping and normalisation; the choices
// particular to Mistral are:
//
//   - A14: Mistral streams each tool call whole in one delta, usually with
//     no index. Such an entry becomes one EventCallStart whose Chunk has the
//     id, the name and the complete arguments as ArgsDelta and HasIndex
//     false; the Buffer routes it by id. OpenAI-style incremental deltas
//     (id and name first, argument fragments after, with indexes), which
//     Mistral-compatible servers also send, decode the same way as in
//     openai-chat. No EventCallEnd is emitted in either case.
//   - D05: call ids must be exactly 9 characters [A-Za-z0-9]. Ids from
//     other providers are mapped on every encode and back on every decode
//     through Adapter.IDMap; ids that are already valid are left alone.
//   - tool_choice required is written as "any", the value Mistral has
//     always accepted; "required" is read too.
//   - Streaming requests carry no stream_options (Mistral sends usage on the
//     last chunk by itself). Error bodies in Mistral's top-level form
//     ({"object":"error","message":...}) are read as provider errors.
//   - Thinking: Magistral and reasoning-effort models send content as an
//     array of chunks, {"type":"thinking","thinking":[{"type":"text",...}]}
//     then {"type":"text",...}; the thinking chunk is read as a thinking part
//     (EventThinking in streams) and thinking is written back the same way,
//     since Mistral refuses fields it does not know, such as
//     reasoning_content (which is still read).
//   - A tool message carries the tool's name (Result.Name) as Mistral's
//     documentation shows.
//   - Streams are read with sse.FlushAtEOF.
package mistral

// Package proxy is conform's reference gateway: an http.Handler that
// takes requests in one wire protocol (the front), translates them with
// conform's own adapters into another (the upstream), sends them on, and
// translates the answer back.
//
//	h, err := proxy.New(proxy.Options{Front: "anthropic", Upstream: "gemini", UpstreamURL: "http://127.0.0.1:8080"})
//	http.Serve(ln, h)
//
// A request is decoded with the front adapter's DecodeRequest and encoded
// with the upstream adapter's EncodeRequest, without the plan parts (a
// Cohere tool_plan) when the upstream protocol has no place for them, which
// is logged; the path, the stream choice
// (a body flag or, for Gemini and Bedrock, the path), the content types and
// the key header of each side come from providers.Endpoint. A whole
// response is decoded with the upstream adapter and encoded with the
// front's.
//
// A stream is decoded event by event with the upstream adapter's
// DecodeStream. To a front whose adapter writes a stream as it arrives
// (EncodeLiveStream: Chat Completions, Mistral, Anthropic) it is
// translated event by event, each write flushed to the client, and only
// this is held back: a call's argument text until the chunk that names
// it (the front's clients need the name in a call's first chunk, A09);
// the finish until the upstream stream ends (a later turn of the same
// stream, as a Responses stream of several responses has, may still add
// calls); and, for a front that writes one content block at a time
// (Anthropic), the other blocks' events while a call's block is open,
// at most 32 MiB of them. The Anthropic encoder itself writes
// message_start with what came before the first block, and a tool_use
// start once its call's first argument text or end is known. The
// translation checks call chunks with a core.Buffer, so it keeps the
// calls' arguments (within core's limits) and the thinking before the
// first call (for the follow-up), never the text. The other fronts
// (Bedrock and OpenAI Responses, which number calls among their blocks
// and items; Gemini and Ollama, which write calls whole; Cohere) have no
// live encoder yet: their streams are collected with core.Collect to the
// end of the upstream stream and then written, within Collect's limits
// (16 MiB of text, 256 calls, 4 MiB of arguments a call); past them the
// answer is the front's error body.
//
// Timeouts are idle timeouts (Options): the listener bounds the wait for
// a request's headers, each read of its body and an idle keep-alive
// connection (Server); the upstream exchange bounds each wait for the
// upstream, never its whole length, so a long generation that keeps
// sending is never cut.
//
// The model of the upstream request is the front request's (from its body,
// or its path for Gemini and Bedrock), or the upstream protocol's default
// model when the front request names none. The upstream key is read from
// the upstream protocol's key environment variables (providers.Endpoint
// KeyEnv), else Options.Key. Headers named X-Conform-* are passed upstream
// unchanged, so that a request can choose the scenario conform serve
// replays.
//
// Nothing the upstream sent is lost without the client being told. An
// upstream error body (any status but 200) is read by the upstream
// adapter and written as the front protocol's error body, with the
// upstream's status; an error the proxy meets itself is the front's
// error body too (type proxy_error, or the front's type for the status).
// A call lost upstream — arguments cut or invalid, a call past a limit, a
// stream cut before its finish, unreadable, or idle past the timeout —
// ends a stream with the front's error event after what arrived whole
// (calls that arrived whole get their finish first, so that the client
// closes them), and fails a whole response with 502; only a length or content_filter finish, which says
// itself that the turn was cut, is passed on with the calls it cut left
// out (B11).
package proxy

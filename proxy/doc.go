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
// front's. A stream is decoded event by event with the upstream adapter's
// DecodeStream and, because the adapters' EncodeStream takes a stream's
// whole event list, the events are collected to the end of the upstream
// stream and encoded in the front protocol then: the client receives a
// valid stream of its protocol, but not before the upstream one has ended.
// A real gateway streams as it goes; this one trades latency for encoders
// that are exactly the ones conform grades. An upstream stream that fails
// midway is passed on as the events received followed by an error event,
// which the front encoder writes as its protocol's error.
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
// stream cut before its finish or unreadable — ends a stream with the
// front's error event after what arrived whole, and fails a whole
// response with 502; only a length or content_filter finish, which says
// itself that the turn was cut, is passed on with the calls it cut left
// out (B11).
package proxy

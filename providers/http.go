package providers

import (
	"fmt"
	"slices"
	"strings"
)

// Endpoint is the HTTP face of one wire protocol: where its requests go,
// how a stream is asked for and how the API key travels. Adapters stay free
// of HTTP; the fake provider (package serve) and the recorder (package
// record) read these facts from here.
type Endpoint struct {
	// Protocol is the adapter name, as Lookup takes it.
	Protocol string
	// Method is the HTTP method of every request.
	Method string
	// Path is the request path below the base URL. "{model}" stands for
	// the model id where the protocol puts it in the path.
	Path string
	// StreamPath is the path of a streaming request when the protocol
	// chooses streaming by path (Gemini, Bedrock); empty when streaming is
	// a flag in the request body.
	StreamPath string
	// StreamQuery is the query a streaming request adds ("alt=sse").
	StreamQuery string
	// ContentType is the media type of request and whole-response bodies.
	ContentType string
	// StreamContentType is the media type of a streamed response.
	StreamContentType string
	// KeyHeader is the header that carries the API key, with KeyPrefix
	// before the key ("Bearer "). Empty for Bedrock, whose requests are
	// signed (SigV4) rather than keyed.
	KeyHeader string
	KeyPrefix string
	// ExtraHeaders are headers the API requires beside the key.
	ExtraHeaders map[string]string
	// KeyEnv lists the environment variables that hold the key, in the
	// order the provider's own SDKs read them.
	KeyEnv []string
	// BaseURL is the public API's base URL.
	BaseURL string
	// DefaultModel is a model to use when a request names none.
	DefaultModel string
	// StreamDefault reports that a request without a stream flag streams
	// (Ollama).
	StreamDefault bool
	// BlockIndexes reports that a stream numbers a call by its position
	// among the content blocks (Anthropic, Bedrock) or output items
	// (OpenAI Responses), text and thinking included, rather than among
	// the calls.
	BlockIndexes bool
}

// endpoints is the literal table of HTTP facts, one row per protocol.
var endpoints = []Endpoint{
	{
		Protocol: "anthropic", Method: "POST", Path: "/v1/messages",
		ContentType: "application/json", StreamContentType: "text/event-stream",
		KeyHeader: "x-api-key", ExtraHeaders: map[string]string{"anthropic-version": "2023-06-01"}, BlockIndexes: true,
		KeyEnv: []string{"ANTHROPIC_API_KEY"}, BaseURL: "https://api.anthropic.com",
		DefaultModel: "claude-sonnet-4-6", // not in the deprecated list of the pinned @anthropic-ai/sdk
	},
	{
		Protocol: "bedrock", Method: "POST", Path: "/model/{model}/converse", StreamPath: "/model/{model}/converse-stream",
		ContentType: "application/json", StreamContentType: "application/vnd.amazon.eventstream", BlockIndexes: true,
		KeyEnv: []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"}, BaseURL: "https://bedrock-runtime.us-east-1.amazonaws.com",
		DefaultModel: "anthropic.claude-haiku-4-5-20251001-v1:0",
	},
	{
		Protocol: "cohere", Method: "POST", Path: "/v2/chat",
		ContentType: "application/json", StreamContentType: "text/event-stream",
		KeyHeader: "Authorization", KeyPrefix: "Bearer ",
		KeyEnv: []string{"CO_API_KEY", "COHERE_API_KEY"}, BaseURL: "https://api.cohere.com",
		DefaultModel: "command-a-03-2025",
	},
	{
		Protocol: "gemini", Method: "POST", Path: "/v1beta/models/{model}:generateContent", StreamPath: "/v1beta/models/{model}:streamGenerateContent",
		StreamQuery: "alt=sse", ContentType: "application/json", StreamContentType: "text/event-stream",
		KeyHeader: "x-goog-api-key",
		KeyEnv:    []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, BaseURL: "https://generativelanguage.googleapis.com",
		DefaultModel: "gemini-2.5-flash",
	},
	{
		Protocol: "mistral", Method: "POST", Path: "/v1/chat/completions",
		ContentType: "application/json", StreamContentType: "text/event-stream",
		KeyHeader: "Authorization", KeyPrefix: "Bearer ",
		KeyEnv: []string{"MISTRAL_API_KEY"}, BaseURL: "https://api.mistral.ai",
		DefaultModel: "mistral-small-latest",
	},
	{
		Protocol: "ollama", Method: "POST", Path: "/api/chat",
		ContentType: "application/json", StreamContentType: "application/x-ndjson",
		KeyHeader: "Authorization", KeyPrefix: "Bearer ",
		KeyEnv: []string{"OLLAMA_API_KEY"}, BaseURL: "http://localhost:11434",
		DefaultModel: "qwen3", StreamDefault: true,
	},
	{
		Protocol: "openai-chat", Method: "POST", Path: "/v1/chat/completions",
		ContentType: "application/json", StreamContentType: "text/event-stream",
		KeyHeader: "Authorization", KeyPrefix: "Bearer ",
		KeyEnv: []string{"OPENAI_API_KEY"}, BaseURL: "https://api.openai.com",
		DefaultModel: "gpt-4o-mini",
	},
	{
		Protocol: "openai-responses", Method: "POST", Path: "/v1/responses", BlockIndexes: true,
		ContentType: "application/json", StreamContentType: "text/event-stream",
		KeyHeader: "Authorization", KeyPrefix: "Bearer ",
		KeyEnv: []string{"OPENAI_API_KEY"}, BaseURL: "https://api.openai.com",
		DefaultModel: "gpt-4o-mini",
	},
}

// HTTP returns the HTTP facts of the named protocol. An unknown name is an
// error that lists the known ones.
func HTTP(protocol string) (Endpoint, error) {
	for _, e := range endpoints {
		if e.Protocol == protocol {
			return e, nil
		}
	}
	return Endpoint{}, fmt.Errorf("unknown protocol %q; known: %s", protocol, strings.Join(Names(), ", "))
}

// Endpoints returns the HTTP facts of every built-in protocol, in name
// order.
func Endpoints() []Endpoint { return slices.Clone(endpoints) }

// URL returns the URL of a request to base (a base URL such as BaseURL; a
// final slash is dropped) for model, streaming or not.
//
// A base URL whose path already ends with the leading segments of the
// protocol's path, as the usual OPENAI_BASE_URL form http://host/v1 does,
// does not get them twice: http://host/v1 gives
// http://host/v1/chat/completions, and a Gemini base ending in /v1beta
// gives .../v1beta/models/{model}:generateContent. Only whole segments of
// the base URL's path count, never its host.
func (e Endpoint) URL(base, model string, stream bool) string {
	p := e.Path
	if stream && e.StreamPath != "" {
		p = e.StreamPath
	}
	base = strings.TrimRight(base, "/")
	p = trimShared(base, p)
	u := base + strings.ReplaceAll(p, "{model}", model)
	if stream && e.StreamQuery != "" {
		u += "?" + e.StreamQuery
	}
	return u
}

// trimShared returns p without its leading segments that the path of base
// already ends with, longest overlap first. Segments holding a
// placeholder ("{model}") never count.
func trimShared(base, p string) string {
	bpath := base
	if i := strings.Index(base, "://"); i >= 0 {
		// The path starts at the first slash after the host.
		rest := base[i+len("://"):]
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			return p
		}
		bpath = rest[j:]
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	n := 0
	for n < len(segs) && !strings.Contains(segs[n], "{") {
		n++
	}
	for k := n; k > 0; k-- {
		lead := "/" + strings.Join(segs[:k], "/")
		if strings.HasSuffix(bpath, lead) {
			return strings.TrimPrefix(p, lead)
		}
	}
	return p
}

// Route is what a request path says about the protocol it speaks.
type Route struct {
	// Protocols lists the protocols served at the path, in name order
	// (Mistral and OpenAI Chat Completions share theirs).
	Protocols []string
	// Model is the model id taken from the path (Gemini, Bedrock), or "".
	Model string
	// ByPath reports that the path itself chooses streaming or not, and
	// Stream which.
	ByPath bool
	Stream bool
	// Prefix is the part of the path before the protocol's own path, such
	// as "/openai" in "/openai/v1/chat/completions".
	Prefix string
}

// MatchPath returns the route of a request path (unescaped, without the
// query). Paths match by suffix, so any prefix a gateway or SDK puts in
// front is allowed.
func MatchPath(path string) (Route, bool) {
	for _, s := range []struct {
		suffix    string
		protocols []string
	}{
		{"/v1/chat/completions", []string{"mistral", "openai-chat"}},
		{"/chat/completions", []string{"mistral", "openai-chat"}},
		{"/v1/responses", []string{"openai-responses"}},
		{"/responses", []string{"openai-responses"}},
		{"/v1/messages", []string{"anthropic"}},
		{"/v2/chat", []string{"cohere"}},
		{"/api/chat", []string{"ollama"}},
	} {
		if prefix, ok := strings.CutSuffix(path, s.suffix); ok {
			return Route{Protocols: s.protocols, Prefix: prefix}, true
		}
	}
	// Gemini: .../models/{model}:generateContent or :streamGenerateContent.
	for _, verb := range []string{":generateContent", ":streamGenerateContent"} {
		rest, ok := strings.CutSuffix(path, verb)
		if !ok {
			continue
		}
		i := strings.LastIndex(rest, "/models/")
		if i < 0 {
			return Route{}, false
		}
		model := rest[i+len("/models/"):]
		if model == "" || strings.Contains(model, "/") {
			return Route{}, false
		}
		prefix := rest[:i]
		// Drop the API version segment (v1, v1beta) from the prefix.
		if j := strings.LastIndex(prefix, "/"); j >= 0 && strings.HasPrefix(prefix[j+1:], "v1") {
			prefix = prefix[:j]
		}
		return Route{Protocols: []string{"gemini"}, Model: model, ByPath: true, Stream: verb == ":streamGenerateContent", Prefix: prefix}, true
	}
	// Bedrock: .../model/{id}/converse or /converse-stream.
	for _, verb := range []string{"/converse", "/converse-stream"} {
		rest, ok := strings.CutSuffix(path, verb)
		if !ok {
			continue
		}
		i := strings.LastIndex(rest, "/model/")
		if i < 0 {
			return Route{}, false
		}
		model := rest[i+len("/model/"):]
		if model == "" || strings.Contains(model, "/") {
			return Route{}, false
		}
		return Route{Protocols: []string{"bedrock"}, Model: model, ByPath: true, Stream: verb == "/converse-stream", Prefix: rest[:i]}, true
	}
	return Route{}, false
}

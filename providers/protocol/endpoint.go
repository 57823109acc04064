package protocol

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Framing is how a protocol frames a streamed response.
type Framing int

const (
	// FramingSSE is Server-Sent Events (text/event-stream).
	FramingSSE Framing = iota + 1
	// FramingNDJSON is one JSON object a line (Ollama).
	FramingNDJSON
	// FramingEventStream is AWS event-stream binary frames (Bedrock).
	FramingEventStream
)

// Endpoint is the HTTP face of one wire protocol: where its requests go,
// how a stream is asked for, how the API key travels, and how a recorded
// URL or response payload is recognised as this protocol's.
type Endpoint struct {
	// Protocol is the protocol's name, as providers.Lookup takes it.
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
	// JSONArrayStream reports that a streaming request without
	// StreamQuery is answered with one JSON array of chunks (Gemini).
	JSONArrayStream bool
	// ContentType is the media type of request and whole-response bodies.
	ContentType string
	// StreamContentType is the media type of a streamed response, and
	// Framing how its events are framed.
	StreamContentType string
	Framing           Framing
	// KeyHeader is the header that carries the API key, with KeyPrefix
	// before the key ("Bearer "). Empty when requests are signed.
	KeyHeader string
	KeyPrefix string
	// SigV4Service is the AWS service name requests are signed for with
	// SigV4 rather than keyed (Bedrock's "bedrock"); empty when keyed.
	SigV4Service string
	// KeyOptional reports that the usual server (a local one) takes
	// requests without a key (Ollama).
	KeyOptional bool
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

	// Routes are the path suffixes a fake provider answers for the
	// protocol, beside Path and StreamPath when those hold "{model}".
	// Protocols that share a route (Mistral and Chat Completions) are
	// told apart by the caller.
	Routes []string
	// HostMarks are host fragments that mark a recorded URL as this
	// protocol's whatever its path ("bedrock-runtime").
	HostMarks []string
	// PathMarks are path fragments, and PathSuffixes path endings, that
	// mark a recorded URL as this protocol's; they are read after every
	// protocol's HostMarks.
	PathMarks    []string
	PathSuffixes []string
	// WeakHostMarks are host fragments read after every path rule, for a
	// provider that also serves other protocols' paths (Cohere's
	// compatibility API speaks Chat Completions).
	WeakHostMarks []string
	// Recognise reports whether the first JSON payload of a response is
	// this protocol's; nil when the shape is another protocol's too
	// (Mistral's is Chat Completions').
	Recognise func(Payload) bool
}

// Payload is a response's first JSON object, by key.
type Payload map[string]json.RawMessage

// String returns the string value of key, or "".
func (p Payload) String(key string) string {
	var s string
	if raw, ok := p[key]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

// Has reports whether every key is present (null counts).
func (p Payload) Has(keys ...string) bool {
	for _, k := range keys {
		if _, ok := p[k]; !ok {
			return false
		}
	}
	return true
}

// Endpoints returns the HTTP facts of every protocol, in name order: the
// built-in adapters' and those the importer alone reads.
func Endpoints() []Endpoint { return slices.Clone(endpoints) }

// Lookup returns the HTTP facts of the named protocol. An unknown name is
// an error that lists the known ones.
func Lookup(name string) (Endpoint, error) {
	for _, e := range endpoints {
		if e.Protocol == name {
			return e, nil
		}
	}
	return Endpoint{}, fmt.Errorf("unknown protocol %q; known: %s", name, strings.Join(Names(), ", "))
}

// Names returns the names of every protocol of Endpoints, sorted.
func Names() []string {
	names := make([]string, len(endpoints))
	for i, e := range endpoints {
		names[i] = e.Protocol
	}
	slices.Sort(names)
	return names
}

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

// Host returns the host of BaseURL.
func (e Endpoint) Host() string {
	u, err := url.Parse(e.BaseURL)
	if err != nil {
		return ""
	}
	return u.Host
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

// GuessURL guesses the protocol of a recorded request from its URL, and
// returns "" when the URL says nothing clear. Rules are read in tiers
// across every protocol: HostMarks, PathMarks, PathSuffixes, then
// WeakHostMarks.
func GuessURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	tiers := []func(Endpoint) bool{
		func(e Endpoint) bool { return containsAny(host, e.HostMarks) },
		func(e Endpoint) bool { return containsAny(u.Path, e.PathMarks) },
		func(e Endpoint) bool {
			return slices.ContainsFunc(e.PathSuffixes, func(s string) bool { return strings.HasSuffix(u.Path, s) })
		},
		func(e Endpoint) bool { return containsAny(host, e.WeakHostMarks) },
	}
	for _, match := range tiers {
		for _, e := range endpoints {
			if match(e) {
				return e.Protocol
			}
		}
	}
	return ""
}

func containsAny(s string, marks []string) bool {
	return slices.ContainsFunc(marks, func(m string) bool { return strings.Contains(s, m) })
}

// GuessBody guesses the protocol of a response from its first JSON
// payload, and returns "" when the shape is not one a protocol recognises.
func GuessBody(first []byte) string {
	var obj Payload
	if err := json.Unmarshal(first, &obj); err != nil {
		return ""
	}
	for _, e := range endpoints {
		if e.Recognise != nil && e.Recognise(obj) {
			return e.Protocol
		}
	}
	return ""
}

// MustLookup returns the HTTP facts of the named protocol, and panics when
// there is no row for it: a descriptor naming an unknown protocol is a
// programmer's error, found when the program starts.
func MustLookup(name string) Endpoint {
	e, err := Lookup(name)
	if err != nil {
		panic("protocol: " + err.Error())
	}
	return e
}

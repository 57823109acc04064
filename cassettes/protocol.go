package cassettes

import (
	"bytes"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
)

// endpoint is where a protocol's requests usually go.
type endpoint struct {
	host string
	// path and streamPath are the request paths of a plain and of a
	// streamed call; "{model}" is replaced by the model name when the
	// fixture names one.
	path, streamPath string
}

// endpoints lists the usual request target of every protocol the importer
// can give a response-only fixture a request for.
var endpoints = map[string]endpoint{
	"openai-chat":         {"api.openai.com", "/v1/chat/completions", "/v1/chat/completions"},
	"openai-responses":    {"api.openai.com", "/v1/responses", "/v1/responses"},
	"anthropic":           {"api.anthropic.com", "/v1/messages", "/v1/messages"},
	"gemini":              {"generativelanguage.googleapis.com", "/v1beta/models/{model}:generateContent", "/v1beta/models/{model}:streamGenerateContent?alt=sse"},
	"cohere":              {"api.cohere.com", "/v2/chat", "/v2/chat"},
	"bedrock":             {"bedrock-runtime.us-east-1.amazonaws.com", "/model/{model}/converse", "/model/{model}/converse-stream"},
	"mistral":             {"api.mistral.ai", "/v1/chat/completions", "/v1/chat/completions"},
	"ollama":              {"localhost:11434", "/api/chat", "/api/chat"},
	"google-interactions": {"generativelanguage.googleapis.com", "/v1beta/interactions", "/v1beta/interactions"},
}

// Protocols returns the names of the protocols the importer knows, sorted.
func Protocols() []string {
	names := make([]string, 0, len(endpoints))
	for name := range endpoints {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// knownProtocol reports whether name is in the endpoint table.
func knownProtocol(name string) bool {
	_, ok := endpoints[name]
	return ok
}

// GuessProtocol guesses the wire protocol of a request from its URL, and
// returns "" when the URL says nothing clear.
func GuessProtocol(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	path := u.Path
	switch {
	case strings.Contains(host, "bedrock-runtime"):
		return "bedrock"
	case strings.Contains(path, "/publishers/anthropic/"), strings.HasSuffix(path, ":rawPredict"), strings.HasSuffix(path, ":streamRawPredict"):
		return "anthropic"
	case strings.HasSuffix(path, ":generateContent"), strings.HasSuffix(path, ":streamGenerateContent"):
		return "gemini"
	case strings.HasSuffix(path, "/interactions"):
		return "google-interactions"
	case strings.Contains(host, "mistral.ai"):
		return "mistral"
	case strings.HasSuffix(path, "/chat/completions"):
		return "openai-chat"
	case strings.HasSuffix(path, "/responses"):
		return "openai-responses"
	case strings.HasSuffix(path, "/messages"):
		return "anthropic"
	case strings.HasSuffix(path, "/v2/chat"), strings.Contains(host, "cohere"):
		return "cohere"
	case strings.HasSuffix(path, "/api/chat"):
		return "ollama"
	}
	return ""
}

// guessProtocolFromBody guesses the protocol of a response-only fixture
// from its first JSON payload, and returns "" when the shape is not one it
// knows. Guessing from the file name would be wrong for fixtures such as an
// Anthropic model served through an OpenAI-compatible endpoint.
func guessProtocolFromBody(first []byte) string {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(first, &obj); err != nil {
		return ""
	}
	str := func(key string) string {
		var s string
		if raw, ok := obj[key]; ok {
			_ = json.Unmarshal(raw, &s)
		}
		return s
	}
	if len(obj) == 1 {
		for key := range obj {
			switch key {
			case "messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata":
				return "bedrock"
			}
		}
	}
	object, typ := str("object"), str("type")
	switch {
	case strings.HasPrefix(object, "chat.completion"):
		return "openai-chat"
	case object == "response", strings.HasPrefix(typ, "response."):
		return "openai-responses"
	case obj["event_type"] != nil, obj["outputs"] != nil && obj["status"] != nil:
		return "google-interactions"
	case obj["candidates"] != nil:
		return "gemini"
	case typ == "message", typ == "ping", strings.HasPrefix(typ, "message_"), strings.HasPrefix(typ, "content_block_"):
		return "anthropic"
	case strings.HasPrefix(typ, "message-"), strings.HasPrefix(typ, "content-"), strings.HasPrefix(typ, "tool-"), strings.HasPrefix(typ, "citation-"):
		return "cohere"
	case obj["finish_reason"] != nil && obj["message"] != nil:
		return "cohere"
	case obj["output"] != nil && obj["stopReason"] != nil:
		return "bedrock"
	case obj["done"] != nil && obj["message"] != nil:
		return "ollama"
	}
	return ""
}

// modelOf returns the model a fixture's first JSON payload names, looking at
// the usual fields of every protocol, or "".
func modelOf(first []byte) string {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(first), &obj); err != nil {
		return ""
	}
	for _, key := range []string{"model", "modelVersion"} {
		var s string
		if raw, ok := obj[key]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	for _, key := range []string{"message", "response", "interaction"} {
		if raw, ok := obj[key]; ok {
			if m := modelOf(raw); m != "" {
				return m
			}
		}
	}
	return ""
}

package protocol

import "strings"

// endpoints is the literal table of HTTP facts, one row per protocol, in
// name order. It sits in this leaf package, apart from the adapters, so
// that packages below them (cassettes) can read it.
var endpoints = []Endpoint{
	{
		Protocol: "anthropic", Method: "POST", Path: "/v1/messages",
		ContentType: "application/json", StreamContentType: "text/event-stream", Framing: FramingSSE,
		KeyHeader: "x-api-key", ExtraHeaders: map[string]string{"anthropic-version": "2023-06-01"}, BlockIndexes: true,
		KeyEnv: []string{"ANTHROPIC_API_KEY"}, BaseURL: "https://api.anthropic.com",
		DefaultModel: "claude-sonnet-4-6", // not in the deprecated list of the pinned @anthropic-ai/sdk
		Routes:       []string{"/v1/messages"},
		// Vertex AI serves Claude at .../publishers/anthropic/...:rawPredict.
		PathMarks:    []string{"/publishers/anthropic/"},
		PathSuffixes: []string{":rawPredict", ":streamRawPredict", "/messages"},
		Recognise: func(p Payload) bool {
			typ := p.String("type")
			return typ == "message" || typ == "ping" || strings.HasPrefix(typ, "message_") || strings.HasPrefix(typ, "content_block_")
		},
	},
	{
		Protocol: "bedrock", Method: "POST", Path: "/model/{model}/converse", StreamPath: "/model/{model}/converse-stream",
		ContentType: "application/json", StreamContentType: "application/vnd.amazon.eventstream", Framing: FramingEventStream,
		BlockIndexes: true, SigV4Service: "bedrock",
		KeyEnv: []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"}, BaseURL: "https://bedrock-runtime.us-east-1.amazonaws.com",
		DefaultModel: "anthropic.claude-haiku-4-5-20251001-v1:0",
		HostMarks:    []string{"bedrock-runtime"},
		Recognise: func(p Payload) bool {
			if len(p) == 1 {
				for _, k := range []string{"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"} {
					if p.Has(k) {
						return true
					}
				}
			}
			return p.Has("output", "stopReason")
		},
	},
	{
		Protocol: "cohere", Method: "POST", Path: "/v2/chat",
		ContentType: "application/json", StreamContentType: "text/event-stream", Framing: FramingSSE,
		KeyHeader: "Authorization", KeyPrefix: "Bearer ",
		KeyEnv: []string{"CO_API_KEY", "COHERE_API_KEY"}, BaseURL: "https://api.cohere.com",
		DefaultModel:  "command-a-03-2025",
		Routes:        []string{"/v2/chat"},
		PathSuffixes:  []string{"/v2/chat"},
		WeakHostMarks: []string{"cohere"},
		Recognise: func(p Payload) bool {
			typ := p.String("type")
			for _, prefix := range []string{"message-", "content-", "tool-", "citation-"} {
				if strings.HasPrefix(typ, prefix) {
					return true
				}
			}
			return p.Has("finish_reason", "message")
		},
	},
	{
		Protocol: "gemini", Method: "POST", Path: "/v1beta/models/{model}:generateContent", StreamPath: "/v1beta/models/{model}:streamGenerateContent",
		StreamQuery: "alt=sse", JSONArrayStream: true,
		ContentType: "application/json", StreamContentType: "text/event-stream", Framing: FramingSSE,
		KeyHeader: "x-goog-api-key",
		KeyEnv:    []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, BaseURL: "https://generativelanguage.googleapis.com",
		DefaultModel: "gemini-2.5-flash",
		PathSuffixes: []string{":generateContent", ":streamGenerateContent"},
		Recognise:    func(p Payload) bool { return p.Has("candidates") },
	},
	{
		// The Gemini Interactions API: read by the importer and decoded by
		// the gemini package, no adapter of its own.
		Protocol: "google-interactions", Method: "POST", Path: "/v1beta/interactions",
		ContentType: "application/json", StreamContentType: "text/event-stream", Framing: FramingSSE,
		KeyHeader: "x-goog-api-key",
		KeyEnv:    []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, BaseURL: "https://generativelanguage.googleapis.com",
		PathSuffixes: []string{"/interactions"},
		Recognise:    func(p Payload) bool { return p.Has("event_type") || p.Has("outputs", "status") },
	},
	{
		Protocol: "mistral", Method: "POST", Path: "/v1/chat/completions",
		ContentType: "application/json", StreamContentType: "text/event-stream", Framing: FramingSSE,
		KeyHeader: "Authorization", KeyPrefix: "Bearer ",
		KeyEnv: []string{"MISTRAL_API_KEY"}, BaseURL: "https://api.mistral.ai",
		DefaultModel: "mistral-small-latest",
		Routes:       []string{"/v1/chat/completions", "/chat/completions"},
		HostMarks:    []string{"mistral.ai"},
	},
	{
		Protocol: "ollama", Method: "POST", Path: "/api/chat",
		ContentType: "application/json", StreamContentType: "application/x-ndjson", Framing: FramingNDJSON,
		KeyHeader: "Authorization", KeyPrefix: "Bearer ", KeyOptional: true,
		KeyEnv: []string{"OLLAMA_API_KEY"}, BaseURL: "http://localhost:11434",
		DefaultModel: "qwen3", StreamDefault: true,
		Routes:       []string{"/api/chat"},
		PathSuffixes: []string{"/api/chat"},
		Recognise:    func(p Payload) bool { return p.Has("done", "message") },
	},
	{
		Protocol: "openai-chat", Method: "POST", Path: "/v1/chat/completions",
		ContentType: "application/json", StreamContentType: "text/event-stream", Framing: FramingSSE,
		KeyHeader: "Authorization", KeyPrefix: "Bearer ",
		KeyEnv: []string{"OPENAI_API_KEY"}, BaseURL: "https://api.openai.com",
		DefaultModel: "gpt-4o-mini",
		Routes:       []string{"/v1/chat/completions", "/chat/completions"},
		PathSuffixes: []string{"/chat/completions"},
		Recognise:    func(p Payload) bool { return strings.HasPrefix(p.String("object"), "chat.completion") },
	},
	{
		Protocol: "openai-responses", Method: "POST", Path: "/v1/responses", BlockIndexes: true,
		ContentType: "application/json", StreamContentType: "text/event-stream", Framing: FramingSSE,
		KeyHeader: "Authorization", KeyPrefix: "Bearer ",
		KeyEnv: []string{"OPENAI_API_KEY"}, BaseURL: "https://api.openai.com",
		DefaultModel: "gpt-4o-mini",
		Routes:       []string{"/v1/responses", "/responses"},
		PathSuffixes: []string{"/responses"},
		Recognise: func(p Payload) bool {
			return p.String("object") == "response" || strings.HasPrefix(p.String("type"), "response.")
		},
	},
}

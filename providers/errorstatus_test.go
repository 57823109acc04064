package providers

import (
	"testing"
)

// TestErrorStatus checks each protocol's Errors rule on error bodies as
// the API documents them, each decoded by the protocol's own adapter: the
// status the rule gives is the one the API sends with the body.
func TestErrorStatus(t *testing.T) {
	for _, tc := range []struct {
		protocol, body string
		want           int
	}{
		{"anthropic", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, 529},
		{"anthropic", `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, 401},
		{"anthropic", `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}`, 400},
		{"anthropic", `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, 429},
		{"openai-chat", `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, 401},
		{"openai-chat", `{"error":{"message":"Missing required parameter: 'messages'.","type":"invalid_request_error","param":"messages","code":null}}`, 400},
		{"openai-chat", `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, 429},
		{"openai-chat", `{"detail":[{"loc":["body","model"],"msg":"field required","type":"value_error.missing"}]}`, 422},
		{"openai-responses", `{"error":{"message":"The model 'gpt-9' does not exist","type":"invalid_request_error","param":"model","code":"model_not_found"}}`, 404},
		{"mistral", `{"detail": "Invalid API Key"}`, 401},
		{"mistral", `{"object":"error","message":"Rate limit exceeded","type":"rate_limit_error","param":null,"code":null}`, 429},
		{"gemini", `{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}`, 429},
		{"gemini", `{"error":{"message":"Permission denied","status":"PERMISSION_DENIED"}}`, 403},
		{"bedrock", `{"message":"The security token included in the request is invalid."}`, 403},
		{"bedrock", `{"__type":"ThrottlingException","message":"Too many requests, please wait before trying again."}`, 429},
		{"cohere", `{"message":"invalid api token"}`, 401},
		{"cohere", `{"message":"invalid request: message must be at least 1 token long or tool results must be specified."}`, 400},
		{"ollama", `{"error":"model 'llama3.2' not found"}`, 404},
		{"ollama", `{"error":"missing request body"}`, 400},
	} {
		a, err := Lookup(tc.protocol)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := a.DecodeResponse([]byte(tc.body))
		if err != nil || resp.Error == nil {
			t.Errorf("%s %s: the adapter does not read an error (%v)", tc.protocol, tc.body, err)
			continue
		}
		p, _ := Describe(tc.protocol)
		if got := p.Errors.Status([]byte(tc.body), resp.Error); got != tc.want {
			t.Errorf("%s %s (decoded %+v): status %d, want %d", tc.protocol, tc.body, *resp.Error, got, tc.want)
		}
	}
}

package serve

import (
	"net/http/httptest"
	"testing"

	"github.com/toolconform/conform/scenarios"
)

// TestRequirements checks which request carries which option.
func TestRequirements(t *testing.T) {
	gemini := requirementsOf("gemini", &scenarios.Scenario{Body: []byte(`{"candidates":[{"finishReason": 1,"content":{"parts":[{"functionCall":{"name":"f","partialArgs":[]}}]}}]}`)})
	anthropic := requirementsOf("anthropic", &scenarios.Scenario{Body: []byte(`{"content":[{"type":"server_tool_use","id":"srv_1","name":"tool_search_tool_regex","input":{}}]}`)})
	tests := []struct {
		desc  string
		reqs  []requirement
		url   string
		body  string
		unmet bool
	}{
		{"gemini, nothing asked", gemini, "/v1beta/models/m:generateContent", `{}`, true},
		{"gemini, int enums only", gemini, "/v1beta/models/m:generateContent?%24alt=json%3Benum-encoding%3Dint", `{}`, true},
		{"gemini, both, query escaped", gemini, "/v1beta/models/m:generateContent?%24alt=json%3Benum-encoding%3Dint", `{"toolConfig":{"functionCallingConfig":{"streamFunctionCallArguments":true}}}`, false},
		{"gemini, both, query raw", gemini, "/v1beta/models/m:generateContent?alt=sse&$alt=json;enum-encoding=int", `{"toolConfig":{"functionCallingConfig":{"streamFunctionCallArguments":true}}}`, false},
		{"anthropic, a custom tool of that name is not the server tool", anthropic, "/v1/messages", `{"tools":[{"name":"tool_search_tool_regex","input_schema":{}}]}`, true},
		{"anthropic, the server tool declared", anthropic, "/v1/messages", `{"tools":[{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}]}`, false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("POST", tt.url, nil)
		if got := unmet(tt.reqs, r, []byte(tt.body)); (got != "") != tt.unmet {
			t.Errorf("%s: unmet = %q, want unmet %v", tt.desc, got, tt.unmet)
		}
	}
	if len(gemini) != 2 || len(anthropic) != 1 {
		t.Errorf("%d gemini and %d anthropic requirements, want 2 and 1", len(gemini), len(anthropic))
	}
}

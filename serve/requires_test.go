package serve

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
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

// TestServedAsTheAPISends pins which request a scenario's bytes answer: a
// recording of another endpoint than the protocol's (Cohere Chat v1,
// Bedrock InvokeModel) answers none, and a stream with no finish has no
// whole form; every other scenario is served, whole and streamed. Each
// case is a real request over loopback.
func TestServedAsTheAPISends(t *testing.T) {
	const (
		served        = "served"
		notApplicable = "not applicable"
		notRouted     = "404"
	)
	const (
		invoke     = "bedrock/recorded/fantasy__TestBedrockCommon--bedrock-anthropic-claude-haiku-4-5--tool_streaming-0"
		converse   = "bedrock/recorded/vercel-ai__amazon-bedrock-json-other-tool.1.chunks.txt-0"
		v1Whole    = "cohere/response/F02-v1-tool-calls-complete"
		v1Stream   = "cohere/streaming/F02-v1-ndjson-tool-calls"
		cohereCut  = "cohere/streaming/B09-stream-cut-before-tool-call-end"
		geminiCut  = "gemini/streaming/B09-stream-cut-inside-chunk"
		chatCut    = "openai-chat/streaming/B09-stream-cut-after-valid-prefix"
		unreadable = "openai-chat/streaming/I03-malformed-chunk-is-a-decode-error"
	)
	tests := []struct {
		scenario, path string
		stream         bool
		want           string
	}{
		{v1Whole, "/v2/chat", false, notApplicable},
		{v1Whole, "/v2/chat", true, notApplicable},
		{v1Stream, "/v2/chat", true, notApplicable},
		{v1Stream, "/v2/chat", false, notApplicable},
		{v1Stream, "/v1/chat", true, notRouted},
		{"cohere/response/C04-object-arguments", "/v2/chat", false, served},
		{"cohere/streaming/A05-interleaved-tool-call-deltas", "/v2/chat", true, served},
		{"cohere/streaming/A05-interleaved-tool-call-deltas", "/v2/chat", false, served},
		{invoke, "/model/m/converse-stream", true, notApplicable},
		{invoke, "/model/m/converse", false, notApplicable},
		{invoke, "/model/m/invoke-with-response-stream", true, notRouted},
		{converse, "/model/m/converse-stream", true, served},
		{converse, "/model/m/converse", false, served},
		{cohereCut, "/v2/chat", true, served},
		{cohereCut, "/v2/chat", false, notApplicable},
		{geminiCut, "/v1beta/models/m:streamGenerateContent?alt=sse", true, served},
		{geminiCut, "/v1beta/models/m:streamGenerateContent", true, served},
		{geminiCut, "/v1beta/models/m:generateContent", false, notApplicable},
		{chatCut, "/v1/chat/completions", true, served},
		{chatCut, "/v1/chat/completions", false, notApplicable},
		{unreadable, "/v1/chat/completions", false, notApplicable},
		{"openai-chat/streaming/A05-round-robin-interleaving", "/v1/chat/completions", false, served},
	}
	s, ts := newServer(t, Options{})
	for _, tt := range tests {
		e, ok := s.index[tt.scenario]
		if !ok {
			t.Fatalf("no servable scenario %s", tt.scenario)
		}
		a, err := providers.Lookup(e.protocol)
		if err != nil {
			t.Fatal(err)
		}
		body, err := a.EncodeRequest(&core.Request{
			Model:     "m",
			Messages:  []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("call the tools")}}},
			Tools:     ClientTools(e.sc),
			MaxTokens: 100,
			Stream:    tt.stream,
		})
		if err != nil {
			t.Fatal(err)
		}
		s.mu.Lock()
		delete(s.verdicts, tt.scenario)
		s.mu.Unlock()
		resp, err := http.Post(ts.URL+ScenarioPrefix+tt.scenario+tt.path, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		v, _ := s.Verdict(tt.scenario)
		var got string
		switch {
		case resp.StatusCode == http.StatusOK && v.Served == 1:
			got = served
		case resp.StatusCode == http.StatusBadRequest && v.NotApplicable != "" && v.Served == 0:
			got = notApplicable
		case resp.StatusCode == http.StatusNotFound:
			got = notRouted
		default:
			got = fmt.Sprintf("status %d, served %d, not applicable %q: %.200s", resp.StatusCode, v.Served, v.NotApplicable, answer)
		}
		if got != tt.want {
			t.Errorf("%s at %s (stream %v): %s, want %s", tt.scenario, tt.path, tt.stream, got, tt.want)
		}
	}
}

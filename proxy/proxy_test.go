package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestPlansOnlyWhereTheUpstreamHasAPlace sends a Cohere follow-up whose
// assistant turn holds a tool_plan through the proxy over loopback: to a
// Gemini upstream, which has no place for a plan, it goes without the plan
// and the proxy logs that it left it out; to a Cohere upstream it goes as
// tool_plan.
func TestPlansOnlyWhereTheUpstreamHasAPlace(t *testing.T) {
	const followUp = `{"model":"command-a","stream":false,"messages":[` +
		`{"role":"user","content":"weather?"},` +
		`{"role":"assistant","tool_plan":"I will look up the weather","tool_calls":[{"id":"c1","type":"function","function":{"name":"weather","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"sunny"}]}],` +
		`"tools":[{"type":"function","function":{"name":"weather","description":"d","parameters":{"type":"object"}}}]}`
	answers := map[string]string{
		"gemini": `{"candidates":[{"content":{"role":"model","parts":[{"text":"sunny"}]},"finishReason":"STOP"}]}`,
		"cohere": `{"id":"r","message":{"role":"assistant","content":[{"type":"text","text":"sunny"}]},"finish_reason":"COMPLETE"}`,
	}
	tests := []struct {
		upstream string
		plan     bool   // the upstream request carries the plan
		log      string // a line the proxy logs, "" for none about plans
	}{
		{"gemini", false, "1 plan part(s) of the cohere request left out: gemini has no place for a plan (G16)"},
		{"cohere", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.upstream, func(t *testing.T) {
			var mu sync.Mutex
			var sent []byte
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				sent = b
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, answers[tt.upstream])
			}))
			defer up.Close()
			var log bytes.Buffer
			px, err := New(Options{Front: "cohere", Upstream: tt.upstream, UpstreamURL: up.URL, Log: &log})
			if err != nil {
				t.Fatal(err)
			}
			front := httptest.NewServer(px)
			defer front.Close()
			resp, err := http.Post(front.URL+"/v2/chat", "application/json", strings.NewReader(followUp))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s\nlog:\n%s", resp.StatusCode, body, log.String())
			}
			mu.Lock()
			defer mu.Unlock()
			if got := bytes.Contains(sent, []byte("I will look up the weather")); got != tt.plan {
				t.Errorf("upstream request carries the plan: %v, want %v\n%s", got, tt.plan, sent)
			}
			if !bytes.Contains(sent, []byte("sunny")) {
				t.Errorf("upstream request lost the tool result:\n%s", sent)
			}
			gotLog := strings.Contains(log.String(), "plan part(s)")
			if gotLog != (tt.log != "") || !strings.Contains(log.String(), tt.log) {
				t.Errorf("log:\n%s\nwant a line %q", log.String(), tt.log)
			}
		})
	}
}

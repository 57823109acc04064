package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"testing"

	"github.com/toolconform/conform/gateway"
	"github.com/toolconform/conform/proxy"
	"github.com/toolconform/conform/serve"
)

// rewriteUpstream is a gateway's way of writing an Anthropic request that
// the API reads as the reference proxy's: every input schema with empty
// properties, required and $defs, the default tool choice written out,
// and no thinking blocks sent back to a follow-up that does not enable
// thinking (the first turn enables it).
func rewriteUpstream(body []byte) []byte {
	var req map[string]any
	if json.Unmarshal(body, &req) != nil {
		return body
	}
	tools, _ := req["tools"].([]any)
	for _, t := range tools {
		if tool, ok := t.(map[string]any); ok {
			if s, ok := tool["input_schema"].(map[string]any); ok {
				for k, v := range map[string]any{"properties": map[string]any{}, "required": []any{}, "$defs": map[string]any{}} {
					if _, ok := s[k]; !ok {
						s[k] = v
					}
				}
			}
		}
	}
	if _, ok := req["tool_choice"]; !ok && len(tools) > 0 {
		req["tool_choice"] = map[string]any{"type": "auto"}
	}
	msgs, _ := req["messages"].([]any)
	if len(msgs) == 1 {
		// Thinking on for the first turn only: Anthropic sends thinking
		// blocks only to a request that enables thinking, and requires
		// them back only from one that does.
		req["thinking"] = map[string]any{"type": "adaptive"}
	}
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		blocks, ok := msg["content"].([]any)
		if !ok {
			continue
		}
		var kept []any
		for _, b := range blocks {
			if blk, _ := b.(map[string]any); blk["type"] != "thinking" && blk["type"] != "redacted_thinking" {
				kept = append(kept, b)
			}
		}
		msg["content"] = kept
	}
	out, _ := json.Marshal(req)
	return out
}

// TestNoStricterThanTheAPI grades a gateway that writes what the API reads
// as the same request, and an answer whose finish the scenario leaves to
// the adapter: schemas with empty keywords, the default tool choice
// written out and signed thinking left out of a follow-up that does not
// enable thinking pass (openai-chat>anthropic), and so does an empty
// Gemini STOP answered as end_turn (anthropic>gemini F05).
func TestNoStricterThanTheAPI(t *testing.T) {
	up, err := gateway.NewUpstream(builtin(t), serve.Chaos{})
	if err != nil {
		t.Fatal(err)
	}
	upURL := listen(t, up)
	rewriter := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		body = rewriteUpstream(body)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		r.Header.Del("Content-Length")
		up.ServeHTTP(w, r)
	})
	px, err := proxy.New(proxy.Options{Front: "openai-chat", Upstream: "anthropic", UpstreamURL: listen(t, rewriter)})
	if err != nil {
		t.Fatal(err)
	}
	target := gateway.Target{Front: "openai-chat", Upstream: "anthropic", URL: listen(t, px)}
	check := func(results []gateway.Result) {
		t.Helper()
		for _, r := range results {
			if r.Status != gateway.StatusPass {
				t.Errorf("%s: %s %s", r.Name, r.Status, r.Reason)
				for _, p := range r.Problems {
					t.Errorf("\t%s", p)
				}
			}
		}
	}
	check(gateway.Run(context.Background(), up, target, []string{"anthropic/response/D07-text-and-two-calls", "anthropic/streaming/G12-thinking-then-tool-use"}))

	gx, err := proxy.New(proxy.Options{Front: "anthropic", Upstream: "gemini", UpstreamURL: upURL})
	if err != nil {
		t.Fatal(err)
	}
	stopReason := regexp.MustCompile(`"stop_reason":"[a-z_]*"`)
	endTurn := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		gx.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(stopReason.ReplaceAll(rec.Body.Bytes(), []byte(`"stop_reason":"end_turn"`)))
	})
	check(gateway.Run(context.Background(), up, gateway.Target{Front: "anthropic", Upstream: "gemini", URL: listen(t, endTurn)}, []string{"gemini/response/F05-stop-without-parts"}))
}

// TestLimitCallCarried grades A12, a complete call on index 1,000,000,000
// that conform's decoder cuts at its own limit, through a gateway that
// keys calls by a map and numbers them from 0 as it writes them on (here
// a pass-through that renumbers the one call): it passes, where it failed
// B09 when the cap was taken for a wire rule.
func TestLimitCallCarried(t *testing.T) {
	up, err := gateway.NewUpstream(builtin(t), serve.Chaos{})
	if err != nil {
		t.Fatal(err)
	}
	upURL := listen(t, up)
	target, err := url.Parse(upURL)
	if err != nil {
		t.Fatal(err)
	}
	pass := httputil.NewSingleHostReverseProxy(target)
	pass.ModifyResponse = func(r *http.Response) error {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return err
		}
		b = bytes.ReplaceAll(b, []byte(`"index":1000000000`), []byte(`"index":0`))
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		r.Header.Del("Content-Length")
		return nil
	}
	results := gateway.Run(context.Background(), up, gateway.Target{Front: "openai-chat", Upstream: "openai-chat", URL: listen(t, pass)}, []string{"openai-chat/streaming/A12-huge-index"})
	for _, r := range results {
		if r.Status != gateway.StatusPass && r.Status != gateway.StatusNotApplicable {
			t.Errorf("%s: %s %s", r.Name, r.Status, r.Reason)
			for _, p := range r.Problems {
				t.Errorf("\t%s", p)
			}
		}
		if r.Stream && r.ByFailing {
			t.Errorf("%s: passed by failing, want carried: %q", r.Name, r.Held)
		}
	}
}

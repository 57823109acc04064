package gateway_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/gateway"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/proxy"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
)

// refused are scenarios serve answers with an error status and a whole
// JSON error body, to a streamed request too.
var refused = map[string]string{
	"cohere":      "cohere/response/I03-detail-error-body",
	"gemini":      "gemini/response/I03-error-array",
	"openai-chat": "openai-chat/response/I03-fastapi-validation-detail",
	"bedrock":     "bedrock/response/I03-aws-message-body",
}

// TestRefusedUpstream grades gateways in front of an upstream that
// refuses the request: the reference proxy, which passes the error status
// on, passes whole and streamed; a gateway that answers such a refusal
// with 200 and an answer without error fails I03.
func TestRefusedUpstream(t *testing.T) {
	up, err := gateway.NewUpstream(builtin(t), serve.Chaos{})
	if err != nil {
		t.Fatal(err)
	}
	upURL := listen(t, up)
	for q, name := range refused {
		px, err := proxy.New(proxy.Options{Front: "anthropic", Upstream: q, UpstreamURL: upURL})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			gw       http.Handler
			wantPass bool
		}{{px, true}, {swallowErrors(t, px), false}} {
			target := gateway.Target{Front: "anthropic", Upstream: q, URL: listen(t, tc.gw)}
			results := gateway.Run(context.Background(), up, target, []string{name})
			if len(results) != 2 {
				t.Fatalf("%s: %d results, want whole and stream", name, len(results))
			}
			for _, r := range results {
				switch {
				case tc.wantPass && r.Status != gateway.StatusPass:
					t.Errorf("%s through the reference proxy: %s %s %v", r.Name, r.Status, r.Reason, r.Problems)
				case !tc.wantPass && (r.Status != gateway.StatusFail || !slices.ContainsFunc(r.Problems, func(p scenarios.Problem) bool { return p.Rule == "I03" })):
					t.Errorf("%s through a gateway that answers refusals with 200: %s %v, want an I03 failure", r.Name, r.Status, r.Problems)
				case !tc.wantPass && len(r.Problems) != 1:
					t.Errorf("%s through a gateway that answers refusals with 200: problems %v, want the one I03 problem", r.Name, r.Problems)
				}
			}
		}
	}
}

// swallowErrors wraps an Anthropic gateway so that an answer with an
// error status becomes a 200 with an empty message that ends its turn,
// whole or streamed as the request asked: a well-formed answer that hides
// the refusal.
func swallowErrors(t *testing.T, gw http.Handler) http.Handler {
	a, err := providers.Lookup("anthropic")
	if err != nil {
		t.Fatal(err)
	}
	resp := &core.Response{ID: "msg_swallowed", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{}}, Finish: core.FinishStop}
	whole, err := a.EncodeResponse(resp)
	if err != nil {
		t.Fatal(err)
	}
	var stream bytes.Buffer
	if err := a.EncodeStream(&stream, providers.ResponseEvents("anthropic", resp)); err != nil {
		t.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, r)
		if rec.Code == http.StatusOK {
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Write(rec.Body.Bytes())
			return
		}
		req, err := a.DecodeRequest(body)
		if err == nil && req.Stream {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(stream.Bytes())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(whole)
	})
}

package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/gateway"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/proxy"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
)

var (
	loadOnce sync.Once
	loaded   []*scenarios.Scenario
	loadErr  error
)

func builtin(t *testing.T) []*scenarios.Scenario {
	t.Helper()
	loadOnce.Do(func() { loaded, loadErr = scenarios.LoadBuiltin(scenarios.VCRResolver(cassettes.Load)) })
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
}

// listen serves h on a loopback port until the test ends.
func listen(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// subset are the cases every pair is graded on: calls streamed
// interleaved, multibyte text and arguments, a call without argument
// events, text with two calls, and a stop finish with calls.
var subset = []string{
	"any/streaming/A05-round-robin-interleaving",
	"any/streaming/B05-multibyte-arguments-and-text",
	"any/streaming/C02-call-without-argument-events",
	"any/response/D07-text-and-two-calls",
	"any/streaming/F01-calls-with-stop-finish",
}

// TestReferenceProxy grades the reference gateway over every (front,
// upstream) pair on the subset: every applicable case must pass.
func TestReferenceProxy(t *testing.T) {
	cases := builtin(t)
	up, err := gateway.NewUpstream(cases, serve.Chaos{})
	if err != nil {
		t.Fatal(err)
	}
	upURL := listen(t, up)
	for _, q := range providers.Names() {
		var names []string
		for _, n := range up.Names(q) {
			for _, s := range subset {
				if strings.TrimPrefix(n, q+"/") == strings.TrimPrefix(s, "any/") {
					names = append(names, n)
				}
			}
		}
		if len(names) == 0 {
			t.Fatalf("no case of the subset is servable in %s", q)
		}
		for _, p := range providers.Names() {
			t.Run(p+">"+q, func(t *testing.T) {
				px, err := proxy.New(proxy.Options{Front: p, Upstream: q, UpstreamURL: upURL})
				if err != nil {
					t.Fatal(err)
				}
				target := gateway.Target{Front: p, Upstream: q, URL: listen(t, px)}
				graded := 0
				for _, r := range gateway.Run(context.Background(), up, target, names) {
					switch r.Status {
					case gateway.StatusPass:
						graded++
					case gateway.StatusNotApplicable:
						t.Logf("%s: not applicable: %s", r.Name, r.Reason)
					default:
						graded++
						t.Errorf("%s: %s", r.Name, r.Status)
						for _, pr := range r.Problems {
							t.Errorf("\t%s", pr)
						}
						for _, ev := range r.Evidence {
							t.Logf("\t%s: %s", ev.What, ev.Bytes)
						}
					}
				}
				if graded == 0 {
					t.Errorf("no case graded")
				}
			})
		}
	}
}

// TestTargetModel checks that every request sent through the gateway,
// the first and the follow-up, carries the target's model name.
func TestTargetModel(t *testing.T) {
	up, err := gateway.NewUpstream(builtin(t), serve.Chaos{})
	if err != nil {
		t.Fatal(err)
	}
	upURL := listen(t, up)
	px, err := proxy.New(proxy.Options{Front: "openai-chat", Upstream: "openai-chat", UpstreamURL: upURL})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var models []string
	front := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Error(err)
		}
		var req struct {
			Model string `json:"model"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("request body: %v", err)
		}
		mu.Lock()
		models = append(models, req.Model)
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		px.ServeHTTP(w, r)
	})
	target := gateway.Target{Front: "openai-chat", Upstream: "openai-chat", URL: listen(t, front), Model: "model-from-the-spec"}
	for _, r := range gateway.Run(context.Background(), up, target, []string{"openai-chat/response/D07-text-and-two-calls"}) {
		if r.Status != gateway.StatusPass {
			t.Errorf("%s: %s %v", r.Name, r.Status, r.Problems)
		}
	}
	// Whole and streamed, each with its follow-up.
	want := []string{"model-from-the-spec", "model-from-the-spec", "model-from-the-spec", "model-from-the-spec"}
	if diff := cmp.Diff(want, models); diff != "" {
		t.Errorf("models of the requests (-want +got):\n%s", diff)
	}
}

// TestNotApplicableUpstreamAnswers grades the reference gateway on the
// scenarios serve has no faithful answer for: a recording of another
// endpoint than the upstream protocol's (Cohere Chat v1, Bedrock
// InvokeModel) is not applicable whole or streamed, and a cut stream is
// not applicable whole, since no whole response lacks a finish, but is
// graded streamed.
func TestNotApplicableUpstreamAnswers(t *testing.T) {
	up, err := gateway.NewUpstream(builtin(t), serve.Chaos{})
	if err != nil {
		t.Fatal(err)
	}
	upURL := listen(t, up)
	names := map[string][]string{
		"cohere":  {"cohere/response/F02-v1-tool-calls-complete", "cohere/streaming/F02-v1-ndjson-tool-calls", "cohere/streaming/B09-stream-cut-before-tool-call-end"},
		"bedrock": {"bedrock/recorded/fantasy__TestBedrockCommon--bedrock-anthropic-claude-opus-4-6--tool_streaming-0", "bedrock/streaming/B09-frame-cut"},
	}
	na, pass := gateway.StatusNotApplicable, gateway.StatusPass
	want := map[string]string{
		"openai-chat>cohere/response/F02-v1-tool-calls-complete":                                                              na,
		"openai-chat>cohere/response/F02-v1-tool-calls-complete stream":                                                       na,
		"openai-chat>cohere/streaming/F02-v1-ndjson-tool-calls":                                                               na,
		"openai-chat>cohere/streaming/F02-v1-ndjson-tool-calls stream":                                                        na,
		"openai-chat>cohere/streaming/B09-stream-cut-before-tool-call-end":                                                    na,
		"openai-chat>cohere/streaming/B09-stream-cut-before-tool-call-end stream":                                             pass,
		"openai-chat>bedrock/recorded/fantasy__TestBedrockCommon--bedrock-anthropic-claude-opus-4-6--tool_streaming-0":        na,
		"openai-chat>bedrock/recorded/fantasy__TestBedrockCommon--bedrock-anthropic-claude-opus-4-6--tool_streaming-0 stream": na,
		"openai-chat>bedrock/streaming/B09-frame-cut":                                                                         na,
		"openai-chat>bedrock/streaming/B09-frame-cut stream":                                                                  pass,
	}
	got := map[string]string{}
	for _, q := range []string{"cohere", "bedrock"} {
		px, err := proxy.New(proxy.Options{Front: "openai-chat", Upstream: q, UpstreamURL: upURL})
		if err != nil {
			t.Fatal(err)
		}
		target := gateway.Target{Front: "openai-chat", Upstream: q, URL: listen(t, px)}
		for _, r := range gateway.Run(context.Background(), up, target, names[q]) {
			got[r.Name] = r.Status
			if r.Status == gateway.StatusNotApplicable && !strings.HasPrefix(r.Reason, "serve: ") {
				t.Errorf("%s: not applicable for another reason than serve's: %s", r.Name, r.Reason)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}

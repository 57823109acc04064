package gateway_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

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

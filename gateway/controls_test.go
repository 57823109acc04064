package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/gateway"
	"github.com/toolconform/conform/proxy"
	"github.com/toolconform/conform/serve"
)

// TestControls grades a cut stream, which a gateway passes by saying the
// turn failed, beside a good stream: through the reference proxy the pass
// counts, with the good case as its control; through a gateway that sends
// every streamed request upstream and then answers 502 (it reads no
// stream at all), both streamed cases pass or fail alike by its errors, and
// the cut stream's pass is not counted.
func TestControls(t *testing.T) {
	up, err := gateway.NewUpstream(builtin(t), serve.Chaos{})
	if err != nil {
		t.Fatal(err)
	}
	upURL := listen(t, up)
	px, err := proxy.New(proxy.Options{Front: "openai-chat", Upstream: "bedrock", UpstreamURL: upURL})
	if err != nil {
		t.Fatal(err)
	}
	noStreams := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		px.ServeHTTP(rec, r)
		if rec.Header().Get("Content-Type") == "text/event-stream" {
			http.Error(w, `{"error":{"message":"cannot read the upstream stream"}}`, http.StatusBadGateway)
			return
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
	names := []string{"bedrock/streaming/B09-frame-cut", "bedrock/response/D07-text-and-two-calls"}
	const cut = "openai-chat>bedrock/streaming/B09-frame-cut stream"
	for _, tt := range []struct {
		name       string
		h          http.Handler
		wantStatus string
		wantCtrl   string
	}{
		{"reference proxy", px, gateway.StatusPass, "openai-chat>bedrock/response/D07-text-and-two-calls stream"},
		{"a gateway that reads no stream", noStreams, gateway.StatusNotCounted, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			results := gateway.Run(context.Background(), up, gateway.Target{Front: "openai-chat", Upstream: "bedrock", URL: listen(t, tt.h)}, names)
			var byFailing []string
			for _, r := range results {
				if r.ByFailing {
					byFailing = append(byFailing, r.Name)
				}
			}
			if diff := cmp.Diff([]string{cut}, byFailing); diff != "" {
				t.Errorf("passes by failing (-want +got):\n%s", diff)
			}
			n := gateway.ApplyControls(results)
			for _, r := range results {
				if r.Name != cut {
					continue
				}
				if r.Status != tt.wantStatus || r.Control != tt.wantCtrl {
					t.Errorf("%s: status %q control %q, want %q %q (reason %q)", r.Name, r.Status, r.Control, tt.wantStatus, tt.wantCtrl, r.Reason)
				}
				if r.Status == gateway.StatusNotCounted && (n != 1 || !strings.HasPrefix(r.Reason, "not counted: the gateway fails the control: ")) {
					t.Errorf("discounted %d, reason %q", n, r.Reason)
				}
			}
		})
	}
}

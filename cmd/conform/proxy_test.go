package main

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/toolconform/conform/serve"
)

// TestServeUntilH2C checks that the reference proxy's listener (serveUntil)
// answers HTTP/2 with prior knowledge (h2c) as well as HTTP/1.1.
func TestServeUntilH2C(t *testing.T) {
	ln, err := serve.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serveUntil(ctx, ln, &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Proto) })})
	}()
	defer func() { cancel(); <-done }()
	h2c := &http.Transport{Protocols: new(http.Protocols)}
	h2c.Protocols.SetUnencryptedHTTP2(true)
	defer h2c.CloseIdleConnections()
	h1 := &http.Transport{}
	defer h1.CloseIdleConnections()
	for want, rt := range map[string]*http.Transport{"HTTP/2.0": h2c, "HTTP/1.1": h1} {
		req, _ := http.NewRequest("GET", serve.URL(ln)+"/", nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != want {
			t.Errorf("request over %s was served as %q", want, got)
		}
	}
}

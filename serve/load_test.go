package serve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestLoad runs 200 concurrent streaming clients against Serve on
// loopback, with split writes and delays: every stream must arrive whole,
// and once the server is shut down no goroutine may be left behind.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped in -short mode")
	}
	const clients = 200
	const name = "anthropic/streaming/A19-interleaved-content-blocks"
	before := runtime.NumGoroutine()

	s, err := New(Options{Scenarios: builtin(t), Scenario: name, Chaos: Chaos{Split: true, Seed: 5, Delay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := URL(ln) + "/v1/messages"
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.ServeListener(ctx, ln) }()

	tr := &http.Transport{MaxConnsPerHost: clients, MaxIdleConnsPerHost: clients}
	hc := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	body := `{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	get := func() ([]byte, error) {
		resp, err := hc.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			return nil, fmt.Errorf("status %d", resp.StatusCode)
		}
		return io.ReadAll(resp.Body)
	}
	want := s.index[name].sc.Body
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	start := time.Now()
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := get()
			if err != nil {
				errs <- err
				return
			}
			if !bytes.Equal(got, want) {
				errs <- fmt.Errorf("stream of %d bytes differs from the %d recorded", len(got), len(want))
			}
		}()
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n < 5 {
			t.Error(err)
		}
		n++
	}
	if n > 0 {
		t.Errorf("%d of %d streams failed", n, clients)
	}
	t.Logf("%d streams of %d bytes in %s", clients, len(want), time.Since(start).Round(time.Millisecond))
	if v, _ := s.Verdict(name); v.Served != clients {
		t.Errorf("verdict counts %d served, want %d", v.Served, clients)
	}

	tr.CloseIdleConnections()
	cancel()
	if err := <-served; err != nil {
		t.Errorf("shutdown: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<16)
		buf = buf[:runtime.Stack(buf, true)]
		t.Errorf("%d goroutines before, %d after shutdown:\n%s", before, after, buf)
	}
}

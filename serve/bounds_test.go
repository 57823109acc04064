package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestFloodKeepsNothing sends what once grew the server without bound:
// thousands of requests naming unknown scenarios with long names, and
// thousands of refused requests for a known one. What the server retains
// is counted, before and after: unknown names keep nothing, and a known
// scenario's verdict keeps at most MaxVerdictErrors errors of at most
// MaxVerdictText bytes.
func TestFloodKeepsNothing(t *testing.T) {
	const name = "openai-chat/streaming/A05-round-robin-interleaving"
	s, ts := newServer(t, Options{})
	post := func(scenario, body string) {
		req, _ := http.NewRequest("POST", ts.URL+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set(ScenarioHeader, scenario)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	entries0, bytes0 := s.retained()
	long := strings.Repeat("x", 20<<10)
	for i := range 2000 {
		post(fmt.Sprintf("openai-chat/streaming/%d-%s", i, long), "{}")
	}
	if entries, bytes := s.retained(); entries != entries0 || bytes != bytes0 {
		t.Errorf("after 2000 unknown names: %d entries, %d bytes retained; want %d, %d", entries, bytes, entries0, bytes0)
	}
	bad := "{" + strings.Repeat(`"k":1,`, 10<<10)
	for range 500 {
		post(name, bad)
	}
	v, _ := s.Verdict(name)
	if len(v.Errors) != MaxVerdictErrors || v.ErrorsDropped != 500-MaxVerdictErrors {
		t.Errorf("500 refused requests: %d errors kept, %d dropped; want %d, %d", len(v.Errors), v.ErrorsDropped, MaxVerdictErrors, 500-MaxVerdictErrors)
	}
	entries, bytes := s.retained()
	if limit := bytes0 + len(name) + MaxVerdictErrors*(MaxVerdictText+64); entries != entries0+1 || bytes > limit {
		t.Errorf("after 500 refused requests: %d entries, %d bytes retained; want %d, at most %d", entries, bytes, entries0+1, limit)
	}
}

// TestKeptConversationsBounded creates Anthropic threads and Responses
// conversations past the byte budget: the kept bytes never pass it, and
// the verdict says a conversation was not kept. The cases are canonical
// ones, whose responses get a new id every time.
func TestKeptConversationsBounded(t *testing.T) {
	const thread = "anthropic/streaming/A05-round-robin-interleaving"
	const responses = "openai-responses/streaming/A05-round-robin-interleaving"
	s, ts := newServer(t, Options{})
	s.maxKeptBytes = 200 << 10
	text := strings.Repeat("y", 30<<10)
	for i := range 20 {
		req, _ := http.NewRequest("POST", ts.URL+"/v1/messages", strings.NewReader(fmt.Sprintf(`{"model":"m","max_tokens":10,"thread":{"type":"create"},"messages":[{"role":"user","content":"%d %s"}]}`, i, text)))
		req.Header.Set(ScenarioHeader, thread)
		req.Header.Set("anthropic-beta", ThreadsBeta)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		p := poster{t: t, ts: ts, name: responses, protocol: "openai-responses"}
		if status, data := p.post(fmt.Sprintf(`{"model":"m","input":"%d %s"}`, i, text), false); status != 200 {
			t.Fatalf("responses: status %d: %s", status, data)
		}
	}
	s.mu.Lock()
	kept, nThreads, nResponses := s.keptBytes, len(s.threads), len(s.responses)
	s.mu.Unlock()
	if kept > s.maxKeptBytes || nThreads+nResponses >= 40 {
		t.Errorf("kept %d bytes in %d threads and %d responses; want at most %d bytes and fewer than 40", kept, nThreads, nResponses, s.maxKeptBytes)
	}
	for _, n := range []string{thread, responses} {
		v, _ := s.Verdict(n)
		if !strings.Contains(strings.Join(v.Notes, "\n"), "not kept") {
			t.Errorf("%s: notes %q do not say a conversation was not kept: %+v", n, v.Notes, v)
		}
	}
}

// TestSlowBodyTimesOut sends a request whose body never finishes: the
// server closes the connection once its read timeout passes, rather than
// holding it as long as the client trickles bytes.
func TestSlowBodyTimesOut(t *testing.T) {
	s, err := New(Options{Scenarios: builtin(t)})
	if err != nil {
		t.Fatal(err)
	}
	s.readTimeout = 200 * time.Millisecond
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeListener(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
	// The test's own bound, far above the server's: reaching it means the
	// server never closed the connection.
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	_, err = io.ReadAll(bufio.NewReader(conn))
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server held a connection whose body never arrived: %v", err)
	}
}

// TestServerTimeouts checks the timeouts and header bound of the server
// Serve runs.
func TestServerTimeouts(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := s.httpServer()
	if hs.ReadHeaderTimeout != ReadHeaderTimeout || hs.ReadTimeout != ReadTimeout || hs.IdleTimeout != IdleTimeout || hs.MaxHeaderBytes != MaxHeaderBytes {
		t.Errorf("http.Server timeouts %v %v %v, header bound %d; want %v %v %v, %d", hs.ReadHeaderTimeout, hs.ReadTimeout, hs.IdleTimeout, hs.MaxHeaderBytes, ReadHeaderTimeout, ReadTimeout, IdleTimeout, MaxHeaderBytes)
	}
}

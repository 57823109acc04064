package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// listen serves px.Server() on a loopback port until the test ends.
func listen(t *testing.T, px *Proxy) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := px.Server()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// closedWithin reports whether the server closes conn before limit, after
// any answer it writes.
func closedWithin(t *testing.T, conn net.Conn, limit time.Duration) bool {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(limit))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// TestListenerTimeouts holds a connection to the proxy in each of the
// three ways a client can stall — headers never finished, a body that
// stops, a keep-alive connection left idle — and sees the proxy close it
// after its timeout, long before the client would have given up.
func TestListenerTimeouts(t *testing.T) {
	px, err := New(Options{Front: "openai-chat", Upstream: "openai-chat", UpstreamURL: "http://127.0.0.1:1",
		HeaderTimeout: 200 * time.Millisecond, BodyTimeout: 200 * time.Millisecond, IdleTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	addr := listen(t, px)
	const limit = 20 * time.Second // the client's patience; each timeout is 200 ms
	tests := []struct {
		name, send string
		answer     string // the start of the answer, "" for none
	}{
		{"header", "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n", ""},
		{"body", "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"model\":", "HTTP/1.1 400"},
		{"idle", "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 404"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			io.WriteString(conn, tt.send)
			br := bufio.NewReader(conn)
			if tt.answer != "" {
				conn.SetReadDeadline(time.Now().Add(limit))
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("no answer: %v", err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if got := fmt.Sprintf("HTTP/1.1 %d", resp.StatusCode); got != tt.answer {
					t.Fatalf("answer %s, want %s", got, tt.answer)
				}
			}
			if !closedWithin(t, &bufConn{Conn: conn, r: br}, limit) {
				t.Fatalf("the proxy still holds the connection after %v", limit)
			}
		})
	}
}

// bufConn reads what a bufio.Reader kept before the connection.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// slowChat is an openai-chat upstream that streams n text chunks, gap
// apart, then a finish; with stall it stops after the first chunk and
// holds the connection until the client leaves.
func slowChat(n int, gap time.Duration, stall bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for i := range n {
			fmt.Fprintf(w, "data: {\"id\":\"r\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"part %d \"}}]}\n\n", i)
			fl.Flush()
			if stall {
				<-r.Context().Done()
				return
			}
			select {
			case <-time.After(gap):
			case <-r.Context().Done():
				return
			}
		}
		io.WriteString(w, "data: {\"id\":\"r\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}
}

// TestUpstreamIdleTimeout streams from an upstream for longer than the
// upstream idle timeout in chunks that come more often than it: the answer
// is whole. An upstream that stalls after its first chunk is abandoned
// after the timeout, and the answer ends in the front's error.
func TestUpstreamIdleTimeout(t *testing.T) {
	const idle = 600 * time.Millisecond
	tests := []struct {
		name    string
		handler http.HandlerFunc
		wantErr bool
	}{
		{"steady", slowChat(20, 60*time.Millisecond, false), false}, // 1.2 s in all
		{"stalled", slowChat(20, 0, true), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := httptest.NewServer(tt.handler)
			defer up.Close()
			px, err := New(Options{Front: "anthropic", Upstream: "openai-chat", UpstreamURL: up.URL, UpstreamIdleTimeout: idle})
			if err != nil {
				t.Fatal(err)
			}
			addr := listen(t, px)
			ep, _ := providers.HTTP("anthropic")
			resp, err := http.Post(ep.URL("http://"+addr, ep.DefaultModel, true), ep.ContentType, bytes.NewReader(frontRequest(t, "anthropic", true)))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			a, _ := providers.Lookup("anthropic")
			r, _ := core.Collect(a.DecodeStream(bytes.NewReader(got)))
			if (r.Error != nil) != tt.wantErr {
				t.Fatalf("error %v, want one: %v\n%s", r.Error, tt.wantErr, got)
			}
			if tt.wantErr && !strings.Contains(r.Error.Message, "upstream idle") {
				t.Errorf("error %q does not name the idle timeout", r.Error.Message)
			}
			if !tt.wantErr && (r.Finish != core.FinishStop || !strings.Contains(r.Message.Text(), "part 19")) {
				t.Errorf("finish %q, text %q: not the whole stream", r.Finish, r.Message.Text())
			}
		})
	}
}

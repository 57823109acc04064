package proxy

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// chatChunk is one Chat Completions stream chunk.
func chatChunk(body string) string { return "data: " + body + "\n\n" }

// chatCallChunks writes n calls, each in a start chunk and one argument
// chunk, the last one's arguments cut after cut bytes (cut < 0 keeps
// them whole).
func chatCallChunks(n, cut int) string {
	var b strings.Builder
	for i := range n {
		args := fmt.Sprintf(`{"city":"Paris %d"}`, i)
		if i == n-1 && cut >= 0 {
			args = args[:cut]
		}
		fmt.Fprintf(&b, "data: {\"id\":\"r\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":%d,\"id\":\"call_%d\",\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"\"}}]}}]}\n\n", i, i)
		fmt.Fprintf(&b, "data: {\"id\":\"r\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":%d,\"function\":{\"arguments\":%q}}]}}]}\n\n", i, args)
	}
	return b.String()
}

const chatToolFinish = `{"id":"r","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`

// lossCases are upstream answers (openai-chat) that the proxy cannot pass
// on whole: each must end the client's answer with the front's error form.
var lossCases = []struct {
	name   string
	stream string // the SSE body, "" when the case has no streamed form
	whole  string // the whole body, "" when it has no whole form
}{
	{
		name:   "second-call-truncated",
		stream: "data: {\"id\":\"r\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n" + chatCallChunks(2, 9) + chatChunk(chatToolFinish) + "data: [DONE]\n\n",
		whole: `{"id":"r","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` +
			`{"id":"call_0","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}},` +
			`{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Pa"}}]},"finish_reason":"tool_calls"}]}`,
	},
	{
		name:   "300-calls",
		stream: chatCallChunks(300, -1) + chatChunk(chatToolFinish) + "data: [DONE]\n\n",
	},
	{
		name:   "cut-before-finish",
		stream: chatCallChunks(2, -1),
	},
}

// frontRequest is a one-message request in the front protocol.
func frontRequest(t testing.TB, front string, stream bool) []byte {
	t.Helper()
	a, err := providers.Lookup(front)
	if err != nil {
		t.Fatal(err)
	}
	ep, _ := providers.HTTP(front)
	b, err := a.EncodeRequest(&core.Request{
		Model:     ep.DefaultModel,
		Messages:  []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("weather?")}}},
		Tools:     []core.ToolSpec{{Name: "weather", Description: "d", InputSchema: []byte(`{"type":"object"}`)}},
		MaxTokens: 100,
		Stream:    stream,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// roundTrip sends a request in front through a proxy to an upstream
// (openai-chat) that answers every request with body, over loopback, and
// returns the answer.
func roundTrip(t *testing.T, front string, stream bool, body string) (*http.Response, []byte) {
	t.Helper()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if !stream {
			w.Header().Set("Content-Type", "application/json")
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(up.Close)
	return post(t, front, "openai-chat", up.URL, stream)
}

// post sends a request in front through a fresh proxy to upURL.
func post(t *testing.T, front, upstream, upURL string, stream bool) (*http.Response, []byte) {
	t.Helper()
	px, err := New(Options{Front: front, Upstream: upstream, UpstreamURL: upURL})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(px)
	t.Cleanup(srv.Close)
	ep, _ := providers.HTTP(front)
	resp, err := http.Post(ep.URL(srv.URL, ep.DefaultModel, stream), ep.ContentType, bytes.NewReader(frontRequest(t, front, stream)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, got
}

// TestLostCallsEndInTheFrontsError sends each loss case through the proxy
// to every front, streamed and whole: the answer is the front's error
// form — a stream whose decoded response has an error (its stream error
// event), or an error status whose body the front's adapter reads as an
// error — and never a clean turn.
func TestLostCallsEndInTheFrontsError(t *testing.T) {
	for _, tc := range lossCases {
		for _, front := range providers.Names() {
			for _, stream := range []bool{true, false} {
				body := tc.whole
				if stream {
					body = tc.stream
				}
				if body == "" {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/stream=%v", tc.name, front, stream), func(t *testing.T) {
					resp, got := roundTrip(t, front, stream, body)
					a, _ := providers.Lookup(front)
					if resp.StatusCode != http.StatusOK {
						r, err := a.DecodeResponse(got)
						if err != nil || r.Error == nil {
							t.Fatalf("status %d with a body the %s adapter does not read as an error (%v):\n%s", resp.StatusCode, front, err, got)
						}
						return
					}
					if !stream {
						t.Fatalf("status 200 for a whole answer that lost a call:\n%s", got)
					}
					r, _ := core.Collect(a.DecodeStream(bytes.NewReader(got)))
					if r.Error == nil {
						t.Fatalf("the stream ends without an error (finish %q, %d calls):\n%.2000s", r.Finish, len(r.Calls()), got)
					}
				})
			}
		}
	}
}

// TestUpstreamErrorsInTheFrontsShape answers every request with an
// openai-chat rate-limit error: each front gets status 429 and a body its
// own adapter reads as that error.
func TestUpstreamErrorsInTheFrontsShape(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"Rate limit reached","type":"rate_limit_exceeded","param":null,"code":"rate_limit_exceeded"}}`)
	}))
	defer up.Close()
	for _, front := range providers.Names() {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/stream=%v", front, stream), func(t *testing.T) {
				resp, got := post(t, front, "openai-chat", up.URL, stream)
				if resp.StatusCode != http.StatusTooManyRequests {
					t.Fatalf("status %d, want 429: %s", resp.StatusCode, got)
				}
				a, _ := providers.Lookup(front)
				r, err := a.DecodeResponse(got)
				if err != nil || r.Error == nil || !strings.Contains(r.Error.Message, "Rate limit reached") {
					t.Fatalf("the %s adapter reads %s as %+v, %v; want the upstream's error", front, got, r, err)
				}
			})
		}
	}
}

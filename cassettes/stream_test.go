package cassettes

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestSplitStream(t *testing.T) {
	tests := []struct {
		name, contentType, body string
		want                    []string
	}{
		{"sse", "text/event-stream; charset=utf-8", "data: a\n\nevent: x\ndata: b\n\n", []string{"data: a\n\n", "event: x\ndata: b\n\n"}},
		{"sse crlf and trailing partial", "text/event-stream", "data: a\r\n\r\ndata: b", []string{"data: a\r\n\r\n", "data: b"}},
		{"sse leading blank lines", "text/event-stream", "\n\ndata: a\n\n", []string{"\n", "\n", "data: a\n\n"}},
		{"ndjson", "application/x-ndjson", "{\"a\":1}\n{\"b\":2}\n", []string{"{\"a\":1}\n", "{\"b\":2}\n"}},
		{"json", "application/json", "[{\"a\":1},\n{\"b\":2}]", []string{"[{\"a\":1},\n{\"b\":2}]"}},
		{"frames, bad tail", "application/vnd.amazon.eventstream", "\x00\x00\x00\x10............\x00\x00\x00\xffshort", []string{"\x00\x00\x00\x10............", "\x00\x00\x00\xffshort"}},
		{"empty", "text/event-stream", "", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range SplitStream(tt.contentType, []byte(tt.body)) {
			got = append(got, string(p))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: pieces (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestSplitStreamJoins: for any body and content type, the pieces are not
// empty and join back to the body.
func TestSplitStreamJoins(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ct := rapid.SampledFrom([]string{"text/event-stream", "application/vnd.amazon.eventstream", "application/x-ndjson", "application/json", "", ";;"}).Draw(t, "content type")
		body := rapid.SliceOf(rapid.SampledFrom([]byte("data: x\r\n\x00\x10"))).Draw(t, "body")
		pieces := SplitStream(ct, body)
		for k, p := range pieces {
			if len(p) == 0 {
				t.Fatalf("piece %d is empty", k)
			}
		}
		if joined := bytes.Join(pieces, nil); !bytes.Equal(joined, body) {
			t.Fatalf("pieces join to %q, want %q", joined, body)
		}
	})
}

// flushCounter counts the flushes of a handler.
type flushCounter struct {
	*httptest.ResponseRecorder
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++ }

// TestReplayHandlerStreams replays recorded SSE and event-stream bodies and
// checks each event and frame was flushed on its own.
func TestReplayHandlerStreams(t *testing.T) {
	for _, tt := range []struct {
		name   string
		events int
	}{
		{"anthropic/fantasy__TestAnthropicCommon--claude-sonnet-4--tool_streaming.yaml", 0},
		{"bedrock/vercel-ai__amazon-bedrock-json-other-tool.1.chunks.txt.yaml", 6},
		{"mistral/vercel-ai__mistral-tool-call.chunks.txt.yaml", 2},
	} {
		c, err := Load(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := NewReplayer(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		first := c.Interactions[0]
		want := tt.events
		if want == 0 { // count the SSE events of the recording independently
			want = strings.Count(first.Response.Body, "\n\n")
		}
		req := httptest.NewRequest(first.Request.Method, first.Request.URL, strings.NewReader(first.Request.Body))
		w := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
		ReplayHandler(rec).ServeHTTP(w, req)
		rec.Stop()
		if w.Code != http.StatusOK || w.Body.String() != first.Response.Body {
			t.Errorf("%s: status %d, body equal %v", tt.name, w.Code, w.Body.String() == first.Response.Body)
		}
		if w.flushes != want || want < 2 {
			t.Errorf("%s: %d flushes, want one per event (%d)", tt.name, w.flushes, want)
		}
	}
}

package vendorerr

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/toolconform/conform/core"
)

func TestFromBody(t *testing.T) {
	tests := []struct {
		name string
		body string
		want *core.ProviderError // nil: not an error body
	}{
		{"mistral detail", `{"detail": "Invalid API Key"}`, &core.ProviderError{Message: "Invalid API Key"}},
		{"fastapi validation list", `{"detail":[{"loc":["body","messages",0,"role"],"msg":"field required","type":"value_error.missing"},{"loc":["body","model"],"msg":"str type expected","type":"type_error.str"}]}`,
			&core.ProviderError{Message: "body.messages.0.role: field required; body.model: str type expected"}},
		{"xai error string", `{"code": "invalid-argument", "error": "Incorrect API key provided: xa***. You can obtain an API key from https://console.x.ai."}`,
			&core.ProviderError{Code: "invalid-argument", Message: "Incorrect API key provided: xa***. You can obtain an API key from https://console.x.ai."}},
		{"openai object", `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			&core.ProviderError{Type: "invalid_request_error", Code: "invalid_api_key", Message: "Incorrect API key provided"}},
		{"google rpc status", `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`,
			&core.ProviderError{Code: "400", Message: "API key not valid. Please pass a valid API key."}},
		{"google array", `[{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7s"}]}}]`,
			&core.ProviderError{Code: "429", Message: "Resource exhausted"}},
		{"aws message", `{"message":"The security token included in the request is invalid."}`, &core.ProviderError{Message: "The security token included in the request is invalid."}},
		{"aws Message and __type", `{"__type":"com.amazon.coral.service#AccessDeniedException","Message":"User is not authorized"}`,
			&core.ProviderError{Type: "com.amazon.coral.service#AccessDeniedException", Message: "User is not authorized"}},
		{"errors list", `{"errors":[{"message":"first"},{"message":"second"}]}`, &core.ProviderError{Message: "first; second"}},
		{"errors of text", `{"errors":["first","second"]}`, &core.ProviderError{Message: "first; second"}},
		{"anthropic", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, &core.ProviderError{Type: "overloaded_error", Message: "Overloaded"}},
		{"mistral object error", `{"object":"error","message":"Unauthorized","type":"invalid_request_error","param":null,"code":null}`,
			&core.ProviderError{Type: "invalid_request_error", Message: "Unauthorized"}},

		{"a success body", `{"id":"x","message":{"role":"assistant","content":"hi"}}`, nil},
		{"an extra key", `{"detail":"x","choices":[]}`, nil},
		{"message not text", `{"message":{"role":"assistant"}}`, nil},
		{"empty message", `{"error":""}`, nil},
		{"no message", `{"code":400}`, nil},
		{"an array with a success item", `[{"error":{"message":"x"}},{"candidates":[]}]`, nil},
		{"empty array", `[]`, nil},
		{"not JSON", `{"detail": "cut`, nil},
		{"not an object", `"Invalid API Key"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, FromBody([]byte(tt.body))); diff != "" {
				t.Errorf("FromBody(%s) (-want +got):\n%s", tt.body, diff)
			}
		})
	}
}

// failing is a stream decoder that reads its input n bytes at a time, as
// a frame decoder does, and fails before its first event.
type failing struct {
	r io.Reader
	n int
}

func (f *failing) Next() (core.Event, error) {
	buf := make([]byte, f.n)
	io.ReadFull(f.r, buf)
	return core.Event{}, io.ErrUnexpectedEOF
}

// passing yields one text event and ends.
type passing struct{ done bool }

func (p *passing) Next() (core.Event, error) {
	if p.done {
		return core.Event{}, io.ErrUnexpectedEOF
	}
	p.done = true
	return core.Event{Kind: core.EventText, Text: "x"}, nil
}

func TestGuardStream(t *testing.T) {
	pe := &core.ProviderError{Message: "Invalid API Key"}
	// Bodies longer than the bytes a Guard keeps in place.
	longJSON := `{"error": {"type": "invalid_request_error", "message": "` + strings.Repeat("x", 1500) + `"}}`
	longPE := FromBody([]byte(longJSON))
	if longPE == nil {
		t.Fatal("the long error body is no vendor error")
	}
	tests := []struct {
		name   string
		in     string
		decode func(io.Reader) core.EventStream
		want   *core.ProviderError // nil: the decoder's own error
	}{
		{"a JSON body read 12 bytes at a time", `{"detail": "Invalid API Key"}`, func(r io.Reader) core.EventStream { return &failing{r, 12} }, pe},
		{"a JSON body read whole", `{"detail": "Invalid API Key"}`, func(r io.Reader) core.EventStream { return &failing{r, 4096} }, pe},
		{"an SSE event cut by a line that is no data line", "data: {\"detail\":\n data: \"Invalid API Key\"}\n\n", func(r io.Reader) core.EventStream { return &failing{r, 4096} }, nil},
		{"an SSE event on one line", "event: error\ndata: {\"detail\": \"Invalid API Key\"}\n\n", func(r io.Reader) core.EventStream { return &failing{r, 4096} }, pe},
		{"an SSE event of which the decoder read 1 byte", "event: error\ndata: {\"detail\": \"Invalid API Key\"}\n\n", func(r io.Reader) core.EventStream { return &failing{r, 1} }, pe},
		{"an SSE event followed by another, read whole", "data: {\"detail\": \"Invalid API Key\"}\n\ndata: {}\n\n", func(r io.Reader) core.EventStream { return &failing{r, 4096} }, pe},
		{"an indented JSON body read 6 bytes at a time", "{\n  \"detail\": \"Invalid API Key\"\n}\n", func(r io.Reader) core.EventStream { return &failing{r, 6} }, pe},
		{"a JSON error line before another line, read whole", "{\"detail\": \"Invalid API Key\"}\n{\"done\": true}\n", func(r io.Reader) core.EventStream { return &failing{r, 4096} }, pe},
		{"a JSON body cut short", `{"detail": "Invalid API Key"`, func(r io.Reader) core.EventStream { return &failing{r, 5} }, nil},
		{"not an error body", `{"detail": "x", "id": 1}`, func(r io.Reader) core.EventStream { return &failing{r, 4096} }, nil},
		{"an error after an event stays the decoder's", `{"detail": "Invalid API Key"}`, func(io.Reader) core.EventStream { return &passing{} }, nil},
		{"an SSE block without data before the error event", "event: ping\n\nevent: error\ndata: {\"detail\": \"Invalid API Key\"}\n\n", func(r io.Reader) core.EventStream { return &failing{r, 4096} }, pe},
		{"a long JSON body read whole", longJSON, func(r io.Reader) core.EventStream { return &failing{r, 4096} }, longPE},
		{"a long JSON body read 700 bytes at a time", longJSON, func(r io.Reader) core.EventStream { return &failing{r, 700} }, longPE},
		{"a long SSE event followed by another", "event: error\ndata: " + longJSON + "\n\ndata: {}\n\n", func(r io.Reader) core.EventStream { return &failing{r, 4096} }, longPE},
		{"a long SSE event of which the decoder read 10 bytes", "event: error\ndata: " + longJSON + "\n\ndata: {}\n\n", func(r io.Reader) core.EventStream { return &failing{r, 10} }, longPE},
		{"a long SSE event cut short", "event: error\ndata: " + longJSON, func(r io.Reader) core.EventStream { return &failing{r, 4096} }, longPE},
		{"a long SSE event of which the unit is not whole", "event: error\ndata: " + longJSON[:1200] + "\n\n", func(r io.Reader) core.EventStream { return &failing{r, 4096} }, nil},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/one byte reads %v", tt.name, oneByte), func(t *testing.T) {
				var r io.Reader = strings.NewReader(tt.in)
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				guardCase(t, GuardStream(r, tt.decode), tt.want)
			})
		}
	}
}

// guardCase reads a guarded stream and checks the provider error it
// yields (none when want is nil) and the error that ends it.
func guardCase(t *testing.T, s core.EventStream, want *core.ProviderError) {
	t.Helper()
	var got *core.ProviderError
	var last error
	for range 4 {
		ev, err := s.Next()
		if err != nil {
			last = err
			break
		}
		if ev.Kind == core.EventError {
			got = ev.Error
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("provider error (-want +got):\n%s", diff)
	}
	wantLast := io.ErrUnexpectedEOF
	if want != nil {
		wantLast = io.EOF
	}
	if last != wantLast {
		t.Errorf("stream ended with %v, want %v", last, wantLast)
	}
}

// TestJSONValueEnd checks jsonValueEnd against a byte-by-byte scan of
// strings, escapes and brackets on random bodies.
func TestJSONValueEnd(t *testing.T) {
	byteScan := func(b []byte) int {
		depth, inString, escaped := 0, false, false
		for i, c := range b {
			switch {
			case inString && escaped:
				escaped = false
			case inString && c == '\\':
				escaped = true
			case inString && c == '"':
				inString = false
			case inString:
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return 0
	}
	rapid.Check(t, func(t *rapid.T) {
		alphabet := []byte(`{}[]"\ a:,`)
		n := rapid.IntRange(0, 40).Draw(t, "n")
		b := []byte{'{'}
		for range n {
			b = append(b, rapid.SampledFrom(alphabet).Draw(t, "byte"))
		}
		if got, want := jsonValueEnd(b), byteScan(b); got != want {
			t.Fatalf("jsonValueEnd(%q) = %d, want %d", b, got, want)
		}
	})
}

// reading reads n bytes, then yields one text event and ends as failing
// does.
type reading struct {
	r    io.Reader
	n    int
	done bool
}

func (d *reading) Next() (core.Event, error) {
	if d.done {
		return core.Event{}, io.ErrUnexpectedEOF
	}
	d.done = true
	io.ReadFull(d.r, make([]byte, d.n))
	return core.Event{Kind: core.EventText, Text: "x"}, nil
}

// TestGuardReusesKeptBytes: a stream whose first unit outgrew the bytes a
// Guard keeps in place hands the buffer they grew into to the next Guard
// once its first event came; long error bodies guarded after such streams,
// of other lengths, still give their own error.
func TestGuardReusesKeptBytes(t *testing.T) {
	for i, n := range []int{1500, 3000, 1100, 2500, 1300} {
		event := "data: {\"text\": \"" + strings.Repeat("y", n) + "\"}\n\n"
		guardCase(t, GuardStream(strings.NewReader(event), func(r io.Reader) core.EventStream { return &reading{r: r, n: len(event)} }), nil)
		body := `{"error": {"type": "invalid_request_error", "message": "` + strings.Repeat(string(rune('a'+i)), n+i*7) + `"}}`
		want := FromBody([]byte(body))
		if want == nil {
			t.Fatalf("body %d is no vendor error", i)
		}
		guardCase(t, GuardStream(strings.NewReader(body), func(r io.Reader) core.EventStream { return &failing{r, 4096} }), want)
	}
}

package adaptertest_test

// Checks that span every built-in adapter. They live here, beside the
// helpers, because no adapter package may import another, while this test
// package may import them all (none of them imports adaptertest outside
// its own tests).

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/providers/anthropic"
	"github.com/toolconform/conform/providers/gemini"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"github.com/toolconform/conform/providers/internal/wire"
	"github.com/toolconform/conform/providers/openairesponses"
	"pgregory.net/rapid"
)

// offsetOf returns the byte offset an adapter's decode error names: every
// built-in adapter's decode error is a *wire.DecodeError.
func offsetOf(err error) (int64, bool) {
	var de *wire.DecodeError
	if errors.As(err, &de) {
		return de.Offset, true
	}
	return 0, false
}

// TestSyntaxErrorOffsetsAgree feeds the same malformed bodies to every
// adapter's DecodeResponse and checks that each names the same byte: the
// 0-based offset of the bad byte, in its error value and in its text.
func TestSyntaxErrorOffsetsAgree(t *testing.T) {
	tests := []struct {
		name string
		body string
		want int64
	}{
		{"bad value", `{"a": x}`, 6},
		{"bad first byte", `x`, 0},
		{"bad byte after a nested value", `{"a": {"b": [1, 2]}, "c": tru}`, 29},
		{"missing colon", `{"a" 1}`, 5},
		{"bad byte on the second line", "{\n  \"a\": 1,\n  \"b\": ]\n}", 19},
	}
	adapters := providers.All()
	if len(adapters) != 8 {
		t.Fatalf("%d built-in adapters, want 8", len(adapters))
	}
	for _, tt := range tests {
		for _, a := range adapters {
			t.Run(tt.name+"/"+a.Name(), func(t *testing.T) {
				resp, err := a.DecodeResponse([]byte(tt.body))
				if err == nil {
					t.Fatalf("DecodeResponse(%q) = %+v, no error", tt.body, resp)
				}
				off, ok := offsetOf(err)
				if !ok {
					t.Fatalf("error %q (%T) carries no offset", err, err)
				}
				if off != tt.want {
					t.Errorf("error %q names byte %d, want %d", err, off, tt.want)
				}
				if !strings.Contains(err.Error(), fmt.Sprintf(" %d: ", tt.want)) {
					t.Errorf("error text %q does not name byte %d", err, tt.want)
				}
			})
		}
	}
}

// foreignStreams returns bodies of no protocol, each well-formed in some
// framing: plain text, an SSE event of no adapter's protocol, a JSON line
// of no adapter's protocol, and an AWS eventstream frame of an unknown
// event type.
func foreignStreams(t *testing.T) map[string][]byte {
	var frame bytes.Buffer
	m := eventstream.Message{
		Headers: eventstream.Headers{
			{Name: ":message-type", Value: eventstream.StringValue("event")},
			{Name: ":event-type", Value: eventstream.StringValue("zz")},
			{Name: ":content-type", Value: eventstream.StringValue("application/json")},
		},
		Payload: []byte(`{"x":1}`),
	}
	if err := eventstream.NewEncoder().Encode(&frame, m); err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"text":              []byte("hello world"),
		"sse event":         []byte("event: zz\ndata: {\"x\":1}\n\n"),
		"json line":         []byte("{\"x\":1}\n"),
		"eventstream frame": frame.Bytes(),
	}
}

// framingErrors are the adapters whose decoders may refuse foreign bytes as
// a framing or syntax error at byte 0 (text that is no binary frame or JSON
// line) rather than with core.ErrNotStream, which they give for well-formed
// frames or lines of no protocol; the SSE adapters read any text as SSE and
// must say core.ErrNotStream.
var framingErrors = map[string]bool{"bedrock": true, "ollama": true}

// TestNotAStreamNamesAnOffset feeds every adapter's DecodeStream bodies of
// no protocol and checks that the error names byte 0 (the first event it
// cannot use), wrapping core.ErrNotStream in the SSE adapters, and that
// empty input is not such an error.
func TestNotAStreamNamesAnOffset(t *testing.T) {
	bodies := foreignStreams(t)
	for _, a := range providers.All() {
		for name, body := range bodies {
			t.Run(a.Name()+"/"+name, func(t *testing.T) {
				_, err := adaptertest.Drain(a.DecodeStream(bytes.NewReader(body)))
				off, ok := offsetOf(err)
				if err == nil || !ok || off != 0 {
					t.Fatalf("error %v (offset %d, %v), want one naming byte 0", err, off, ok)
				}
				if !framingErrors[a.Name()] && !errors.Is(err, core.ErrNotStream) {
					t.Errorf("error %v, want one wrapping core.ErrNotStream", err)
				}
				if want := "at byte 0"; !strings.Contains(err.Error(), want) {
					t.Errorf("error %q names no byte 0", err)
				}
			})
		}
		t.Run(a.Name()+"/empty", func(t *testing.T) {
			if _, err := adaptertest.Drain(a.DecodeStream(strings.NewReader(""))); err != nil {
				t.Errorf("empty input: %v, want a clean empty stream", err)
			}
		})
	}
}

// TestNotAStreamReadSizes checks that every adapter gives the same error,
// or none, for a body of no protocol or a blank one whether it reads the
// body whole or one byte at a time.
func TestNotAStreamReadSizes(t *testing.T) {
	bodies := []string{"\u00a0\n", "\n\u2028", "  \n\nhello", "event: zz\ndata: {}\n\n", " \r\n"}
	for _, a := range providers.All() {
		t.Run(a.Name(), func(t *testing.T) {
			for _, body := range bodies {
				_, whole := adaptertest.Drain(a.DecodeStream(strings.NewReader(body)))
				_, bytewise := adaptertest.Drain(a.DecodeStream(adaptertest.SplitReader([]byte(body))))
				if fmt.Sprint(whole) != fmt.Sprint(bytewise) {
					t.Errorf("%q: whole %v, one byte at a time %v", body, whole, bytewise)
				}
			}
		})
	}
}

// drawError draws a provider error whose fields every protocol can carry
// both in a whole error body and in a stream: a message, and a type for
// the protocols that have one. Protocols without a type or code field
// (Cohere, Ollama) get only the message.
func drawError(t *rapid.T, protocol string) *core.ProviderError {
	pe := &core.ProviderError{Message: rapid.StringMatching(`[a-zA-Z0-9 .,'"\\é]{1,24}`).Draw(t, "message")}
	switch protocol {
	case "cohere", "ollama":
	case "openai-chat", "mistral", "openai-responses":
		pe.Code = rapid.SampledFrom([]string{"", "server_error", "rate_limit_exceeded"}).Draw(t, "code")
	default:
		pe.Type = rapid.SampledFrom([]string{"overloaded_error", "api_error", "UNAVAILABLE", "ThrottlingException"}).Draw(t, "type")
	}
	return pe
}

// TestStreamErrorParity states, for all 8 adapters, that a provider error
// gives a client the same view sent whole (an error body) and streamed (an
// error event the adapter's EncodeStream writes), finish_reason "error"
// included, and that an error after some text and a completed call keeps
// both and still ends in finish_reason "error" (a streamed error used to
// give "").
// Every built-in protocol can carry an error mid-stream (a data: {"error"}
// chunk, an error event, an error chunk or line, or a Bedrock exception
// frame), so none is exempt.
func TestStreamErrorParity(t *testing.T) {
	for _, a := range providers.All() {
		t.Run(a.Name(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				pe := drawError(t, a.Name())
				resp := &core.Response{Message: core.Message{Role: core.RoleAssistant}, Finish: core.FinishError, Error: pe}
				adaptertest.CheckParity(t, a, resp, []core.Event{{Kind: core.EventError, Error: pe}})

				text := adaptertest.DrawText(t, "text")
				evs := []core.Event{{Kind: core.EventText, Text: text}}
				args := string(adaptertest.DrawArgs(t, "args"))
				withCall := rapid.Bool().Draw(t, "call")
				if withCall {
					evs = append(evs,
						core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "call_1", HasIndex: true, Index: 1, Name: "get_weather", Start: true}},
						core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: "call_1", HasIndex: true, Index: 1, Args: &args, Done: true}})
				}
				evs = append(evs, core.Event{Kind: core.EventError, Error: pe})
				var buf bytes.Buffer
				if err := a.EncodeStream(&buf, evs); err != nil {
					t.Fatalf("encode stream: %v", err)
				}
				wireBytes := buf.String()
				got, err := core.Collect(a.DecodeStream(&buf))
				var gotPE *core.ProviderError
				if !errors.As(err, &gotPE) {
					t.Fatalf("collect error %v, want the provider error\n%s", err, wireBytes)
				}
				if got.Text() != text || got.Finish != core.FinishError || got.Error == nil {
					t.Fatalf("mid-stream error: text %q finish %q error %+v; want %q, error, an error\n%s", got.Text(), got.Finish, got.Error, text, wireBytes)
				}
				switch {
				case withCall && chatDialect[a.Name()]:
					// Chat Completions has no end of a call but the
					// finish_reason, which an error takes the place of:
					// the call stays open, and must not be reported
					// complete.
					if len(got.Calls()) != 0 || len(got.Incomplete) != 1 || got.Incomplete[0].Name != "get_weather" {
						t.Fatalf("a call cut by an error: calls %+v, incomplete %+v; want none, and get_weather incomplete\n%s", got.Calls(), got.Incomplete, wireBytes)
					}
				case withCall:
					calls := got.Calls()
					if len(calls) != 1 || calls[0].Name != "get_weather" || string(adaptertest.Compact(t, calls[0].Arguments)) != args {
						t.Fatalf("a failed stream must keep the call it completed: got %+v, want get_weather %s\n%s", calls, args, wireBytes)
					}
				}
				whole, err := a.DecodeResponse(mustEncode(t, a, resp))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(whole.Error, got.Error); diff != "" {
					t.Fatalf("mid-stream error vs error body (-whole +streamed):\n%s\n%s", diff, wireBytes)
				}
			})
		})
	}
}

// chatDialect names the Chat Completions protocols, whose calls end only
// with the finish_reason.
var chatDialect = map[string]bool{"openai-chat": true, "mistral": true}

func mustEncode(t *rapid.T, a core.Adapter, resp *core.Response) []byte {
	body, err := a.EncodeResponse(resp)
	if err != nil {
		t.Fatalf("encode response: %v", err)
	}
	return body
}

// TestGeminiIDsReplayAcrossProviders decodes two Gemini 2 responses whose
// calls carry no id (D01), the second a repeat of the first's call, builds
// the two-turn history a client would, and encodes it for Anthropic and
// OpenAI Responses, which refuse a repeated call id, and back for Gemini,
// which must not be sent the ids conform made up.
func TestGeminiIDsReplayAcrossProviders(t *testing.T) {
	turn := func(responseID string) string {
		rid := ""
		if responseID != "" {
			rid = `,"responseId":"` + responseID + `"`
		}
		return `{"candidates":[{"content":{"role":"model","parts":[
			{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}},
			{"functionCall":{"name":"get_time","args":{"zone":"CET"}}}]},"finishReason":"STOP"}]` + rid + `}`
	}
	tests := []struct {
		name          string
		first, second string
	}{
		{"with responseId", turn("resp-A"), turn("resp-B")},
		{"first without responseId", turn(""), turn("resp-B")},
	}
	g := gemini.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r1, err := g.DecodeResponse([]byte(tt.first))
			if err != nil {
				t.Fatal(err)
			}
			r2, err := g.DecodeResponse([]byte(tt.second))
			if err != nil {
				t.Fatal(err)
			}
			again, err := g.DecodeResponse([]byte(tt.first))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(r1.Calls(), again.Calls(), adaptertest.EquateJSON()); diff != "" {
				t.Errorf("the same bytes gave other ids (-first +again):\n%s", diff)
			}
			seen := map[string]bool{}
			msgs := []core.Message{adaptertest.UserText("weather and time in Paris, twice")}
			for _, r := range []*core.Response{r1, r2} {
				var ids []string
				for _, c := range r.Calls() {
					if !gemini.IsGeneratedID(c.ID) {
						t.Errorf("id %q is not a generated id", c.ID)
					}
					if seen[c.ID] {
						t.Errorf("id %q repeats across turns", c.ID)
					}
					seen[c.ID] = true
					ids = append(ids, c.ID)
				}
				msgs = append(msgs, r.Message, adaptertest.ResultsMessage(ids...))
			}
			if len(seen) != 4 {
				t.Fatalf("%d distinct ids, want 4", len(seen))
			}
			req := &core.Request{Model: "m", Messages: msgs}
			for _, a := range []core.Adapter{anthropic.New(), openairesponses.New()} {
				if _, err := a.EncodeRequest(req); err != nil {
					t.Errorf("%s: encode the two-turn history: %v", a.Name(), err)
				}
			}
			body, err := g.EncodeRequest(req)
			if err != nil {
				t.Fatalf("gemini: encode the two-turn history: %v", err)
			}
			if bytes.Contains(body, []byte(gemini.GeneratedIDPrefix)) {
				t.Errorf("gemini request sends generated ids back:\n%s", body)
			}
		})
	}
}

// hiddenMethods hides a stream's optional methods from core.Collect.
type hiddenMethods struct{ core.EventStream }

// TestCollectedResponsesOutliveTheirStreams collects, for every built-in
// adapter, every recorded stream of its protocol and one its own encoder
// writes, and checks each Response after a second Collect of its drained
// stream and after every stream was collected once more, read in pieces,
// against the Response collected with the stream's optional methods
// hidden: a decoder whose Response memory (core.ResponseMemory) is given
// twice, or lies in memory a later stream reuses, fails it.
func TestCollectedResponsesOutliveTheirStreams(t *testing.T) {
	args := `{"city":"Paris","days":[1,2]}`
	written := []core.Event{
		{Kind: core.EventText, Text: "Checking."},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: 0, HasIndex: true, ID: "call_1", Name: "weather"}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 0, HasIndex: true, ID: "call_1", ArgsDelta: args}},
		{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: 0, HasIndex: true, ID: "call_1"}},
		{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 7, OutputTokens: 9}},
		{Kind: core.EventFinish, Finish: core.FinishToolCalls},
	}
	for _, a := range providers.All() {
		t.Run(a.Name(), func(t *testing.T) {
			var buf bytes.Buffer
			if err := a.EncodeStream(&buf, written); err != nil {
				t.Fatal(err)
			}
			bodies := [][]byte{buf.Bytes()}
			if a.Name() != "ollama" { // no recorded Ollama traffic
				bodies = append(bodies, adaptertest.RecordedStreams(t, a.Name())...)
			}
			type collected struct {
				resp *core.Response
				err  string
			}
			want := make([]collected, len(bodies))
			got := make([]collected, len(bodies))
			for i, body := range bodies {
				resp, err := core.Collect(hiddenMethods{a.DecodeStream(bytes.NewReader(body))})
				want[i] = collected{resp, fmt.Sprint(err)}
			}
			for i, body := range bodies {
				s := a.DecodeStream(bytes.NewReader(body))
				resp, err := core.Collect(s)
				got[i] = collected{resp, fmt.Sprint(err)}
				if again, _ := core.Collect(s); again == resp {
					t.Errorf("body %d: a second Collect of its stream returned the same Response", i)
				}
			}
			for _, body := range bodies {
				core.Collect(a.DecodeStream(adaptertest.SplitReader(body, 1, 7, 300, 64, 2, 33)))
			}
			for i := range bodies {
				if diff := cmp.Diff(want[i], got[i], cmp.AllowUnexported(collected{})); diff != "" {
					t.Errorf("body %d, after the later streams (-methods hidden +collected):\n%s", i, diff)
				}
			}
		})
	}
}

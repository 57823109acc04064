package oaichat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// TestZeroValuedCallsAreAbsent: a server that serialises every field of its
// response type sends a zero-valued legacy function_call (and zero-valued
// audio and custom objects) beside "tool_calls": null; that is no call
// (issue 28: it came out as a call named "" with the id
// function_call_c1f80b4f20db), whether the message holds text or real calls.
func TestZeroValuedCallsAreAbsent(t *testing.T) {
	c := New(Config{Name: "openai-chat"})
	const zero = `"function_call":{"name":"","arguments":""},"audio":{"id":"","data":"","expires_at":0,"transcript":""},"refusal":"","annotations":[]`
	bodies := map[string]string{
		"text": `{"id":"r1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hello","tool_calls":null,` + zero + `},"finish_reason":"stop"}]}`,
		"call": `{"id":"r1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` +
			`{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}},` +
			`{"id":"","type":"","function":{"name":"","arguments":""},"custom":{"name":"","input":""}}],` + zero + `},"finish_reason":"tool_calls"}]}`,
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			resp, err := c.DecodeResponse([]byte(body))
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if name == "call" {
				want = 1
			}
			if got := resp.Calls(); len(got) != want || len(resp.Incomplete) != 0 {
				t.Errorf("calls %+v, incomplete %+v; want %d call and none incomplete", got, resp.Incomplete, want)
			}
		})
	}
	// The same zero values in a stream's deltas open no call either.
	stream := "data: " + `{"id":"r1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"hi","tool_calls":null,"function_call":{"name":"","arguments":""}},"finish_reason":null}]}` + "\n\n" +
		"data: " + `{"id":"r1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"","tool_calls":[{"index":0,"id":"","type":"","function":{"name":"","arguments":""}}],"function_call":{"name":"","arguments":""}},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	resp, err := core.Collect(c.DecodeStream(strings.NewReader(stream)))
	if err != nil || len(resp.Calls()) != 0 || len(resp.Incomplete) != 0 || resp.Text() != "hi" {
		t.Errorf("stream: %v; calls %+v, incomplete %+v, text %q", err, resp.Calls(), resp.Incomplete, resp.Text())
	}
}

// TestCallWithoutNameIsIncomplete: a tool call with arguments but no name
// is never complete, in a whole response as in a stream.
func TestCallWithoutNameIsIncomplete(t *testing.T) {
	c := New(Config{Name: "openai-chat"})
	body := `{"id":"r1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"","arguments":"{\"a\":1}"}}]},"finish_reason":"tool_calls"}]}`
	resp, err := c.DecodeResponse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Calls()) != 0 || len(resp.Incomplete) != 1 || resp.Incomplete[0].Original != `{"a":1}` {
		t.Errorf("calls %+v, incomplete %+v; want the call incomplete with its text", resp.Calls(), resp.Incomplete)
	}
}

// TestOneVerdictWholeAndStreamed: the same argument bytes get the same
// outcome whole and streamed: {"a":1,} is repaired and reported both ways
// (issue 28: whole, it went to incomplete with no reason).
func TestOneVerdictWholeAndStreamed(t *testing.T) {
	c := New(Config{Name: "openai-chat"})
	for _, args := range []string{`{"a":1,}`, `{"a":1}{"a":1}`, `{"a":`, `not json`, ``, `{"a":1}`} {
		q, _ := json.Marshal(args)
		body := `{"id":"r1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":` + string(q) + `}}]},"finish_reason":"tool_calls"}]}`
		whole, err := c.DecodeResponse([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		stream := "data: " + `{"id":"r1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":` + string(q) + `}}]},"finish_reason":null}]}` + "\n\n" +
			"data: " + `{"id":"r1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
		streamed, _ := core.Collect(c.DecodeStream(strings.NewReader(stream)))
		type verdict struct {
			Calls, Incomplete []core.Call
		}
		if diff := cmp.Diff(verdict{whole.Calls(), whole.Incomplete}, verdict{streamed.Calls(), streamed.Incomplete}); diff != "" {
			t.Errorf("arguments %q: whole and streamed differ (-whole +streamed):\n%s", args, diff)
		}
	}
}

// TestContentObjectIsText: a message.content that is a JSON object (a
// vendor's structured-output answer) is read as its compact JSON text and
// reported as a deviation; the finish and usage stay (issue 28: the whole
// body was refused).
func TestContentObjectIsText(t *testing.T) {
	c := New(Config{Name: "openai-chat"})
	body := `{"id":"r1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":{"city": "Paris", "days": [1, 2]}},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}`
	resp, err := c.DecodeResponse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := &core.Response{
		ID: "r1", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart(`{"city":"Paris","days":[1,2]}`)}},
		Finish: core.FinishStop, ProviderFinish: "stop", Usage: &core.Usage{InputTokens: 3, OutputTokens: 4},
		Deviations: []string{"choices[0].message.content is a JSON object, not a string or an array of parts: read as its compact JSON text"},
	}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

package subprocess

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// jsonEqual compares raw JSON as JSON: key order and white space never
// make a difference.
var jsonEqual = cmp.Transformer("parseJSON", func(raw json.RawMessage) any {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	return v
})

// The example adapter in examples/adapter-python is driven for real here: it
// proves the protocol works across languages.
const pythonAdapter = "python3 ../../examples/adapter-python/adapter.py"

func requirePython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("python3 is needed to run the example adapter: %v", err)
	}
}

func start(t *testing.T, command string, opts ...Option) *Adapter {
	t.Helper()
	requirePython(t)
	a, err := Start(command, opts...)
	if err != nil {
		t.Fatalf("Start(%q): %v", command, err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func drain(t *testing.T, s core.EventStream) ([]core.Event, error) {
	t.Helper()
	var events []core.Event
	for {
		ev, err := s.Next()
		if err == io.EOF {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
}

func TestPythonAdapterDecodesStream(t *testing.T) {
	a := start(t, pythonAdapter)
	if got, want := a.Name(), "openai-chat"; got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
	// Two calls interleaved on their indexes, CRLF line ends, a comment
	// and a usage-only chunk.
	body := ": keep-alive\r\n\r\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"function\":{\"name\":\"add\",\"arguments\":\"\"}}]}}]}\r\n\r\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"function\":{\"name\":\"mul\",\"arguments\":\"{\\\"x\\\"\"}}]}}]}\r\n\r\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"a\\\":1}\"}}]}}]}\r\n\r\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\r\n\r\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":5}}\r\n\r\n" +
		"data: [DONE]\r\n\r\n"
	got, err := drain(t, a.DecodeStream(strings.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Event{
		{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: 0, HasIndex: true, ID: "call_a", Name: "add"}},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: 1, HasIndex: true, ID: "call_b", Name: "mul", ArgsDelta: `{"x"`}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 0, HasIndex: true, ArgsDelta: `{"a":1}`}},
		{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "tool_calls"},
		{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 3, OutputTokens: 5}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestPythonAdapterDecodesResponseAndEncodesRequest(t *testing.T) {
	a := start(t, pythonAdapter)
	resp, err := a.DecodeResponse([]byte(`{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get","arguments":"{\"k\":\"v\"}"}}]},"finish_reason":"stop"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Call{{ID: "c1", Name: "get", Arguments: []byte(`{"k":"v"}`)}}
	if diff := cmp.Diff(want, resp.Calls(), jsonEqual); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if resp.Finish != core.FinishStop || resp.ProviderFinish != "stop" {
		t.Errorf("finish = %q (%q), want stop (stop): calls with stop keep their calls (F01) and their reason", resp.Finish, resp.ProviderFinish)
	}

	body, err := a.EncodeRequest(&core.Request{
		Model:    "m",
		Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}},
		Tools:    []core.ToolSpec{{Name: "get", InputSchema: []byte(`{"type":"object"}`)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"tools": [{"type": "function"`) {
		t.Errorf("encoded request has no function tools: %s", body)
	}
}

func TestDecodeErrorCarriesOffset(t *testing.T) {
	a := start(t, pythonAdapter)
	_, err := a.DecodeResponse([]byte(`{"choices": [}`))
	var ae *AnswerError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v is not an *AnswerError", err)
	}
	if ae.Offset == nil || *ae.Offset != 13 {
		t.Errorf("offset = %v, want 13; error: %v", ae.Offset, err)
	}
	if !strings.Contains(err.Error(), "at byte 13") {
		t.Errorf("error %q does not name the byte offset", err)
	}
}

// TestUnsupportedOperation: an operation the child lists and then refuses
// fails with errors.ErrUnsupported, a refusal, not a missing operation.
func TestUnsupportedOperation(t *testing.T) {
	a := start(t, "python3 testdata/misbehave.py refuse")
	_, err := a.DecodeResponse([]byte(`{}`))
	if !errors.Is(err, errors.ErrUnsupported) || errors.Is(err, core.ErrNotImplemented) {
		t.Errorf("DecodeResponse error = %v, want errors.ErrUnsupported", err)
	}
}

// fired is a deadline that has already passed: a test that replaces
// Adapter.after with it learns of a hang from the child's silence at once,
// instead of waiting out a clock.
func fired(time.Duration) <-chan time.Time {
	c := make(chan time.Time, 1)
	c <- time.Time{}
	return c
}

// TestMisbehavingChildFailsOneQuestion checks that a child that crashes,
// writes garbage or answers the wrong question fails that question only,
// and that the next question gets a fresh child; and that a child that
// hangs fails its question and is not asked again.
func TestMisbehavingChildFailsOneQuestion(t *testing.T) {
	for _, tc := range []struct {
		mode      string
		want      []string // the error of each of two questions
		newChilds bool
	}{
		{"crash", []string{"exited without answering", "exited without answering"}, true},
		{"hang", []string{"no answer before the deadline", "not asked: the adapter hung earlier (decode_response: no answer before the deadline"}, false},
		{"garbage", []string{"the answer is not valid", "the answer is not valid"}, true},
		{"wrong-id", []string{"the answer is for question", "the answer is for question"}, true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			a := start(t, "python3 testdata/misbehave.py "+tc.mode)
			if tc.mode == "hang" {
				a.after = fired
			}
			for try, want := range tc.want {
				_, err := a.DecodeResponse([]byte("{}"))
				var se *Error
				if !errors.As(err, &se) {
					t.Fatalf("try %d: error %v is not a *subprocess.Error", try, err)
				}
				if !strings.Contains(err.Error(), want) {
					t.Errorf("try %d: error %q does not say %q", try, err, want)
				}
			}
			if tc.mode == "crash" {
				_, err := a.DecodeResponse([]byte("{}"))
				if err == nil || !strings.Contains(err.Error(), "crashing on purpose") {
					t.Errorf("error %v does not carry the child's stderr", err)
				}
			}
		})
	}
}

// TestUnlistedOperationIsNotImplemented: an operation missing from the
// hello answer is not implemented (the case is not graded), which is not a
// refusal.
func TestUnlistedOperationIsNotImplemented(t *testing.T) {
	a := start(t, "python3 testdata/misbehave.py echo")
	if a.Implements(core.OpEncodeStream) || !a.Implements(core.OpDecodeStream) {
		t.Errorf("Implements: encode stream %v, decode stream %v; want false, true", a.Implements(core.OpEncodeStream), a.Implements(core.OpDecodeStream))
	}
	err := a.EncodeStream(io.Discard, nil)
	if !errors.Is(err, core.ErrNotImplemented) || errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("EncodeStream error = %v, want core.ErrNotImplemented", err)
	}
}

func TestEchoChildAnswersRepeatedly(t *testing.T) {
	a := start(t, "python3 testdata/misbehave.py echo")
	for i := range 20 {
		body := strings.Repeat("x", i)
		resp, err := a.DecodeResponse([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Text(); got != body {
			t.Fatalf("question %d: text %q, want %q", i, got, body)
		}
	}
}

func TestStartFailures(t *testing.T) {
	requirePython(t)
	for _, tc := range []struct {
		command string
		want    string
	}{
		// Exited: whether the question's write breaks the pipe or the read
		// finds no answer first, the error says the adapter exited.
		{"exit 0", "hello: the adapter exited without answering (exit status 0)"},
		{"exit 3", "hello: the adapter exited without answering (exit status 3)"},
		{`python3 -c 'import sys; sys.stdin.readline(); print("{\"id\": 1, \"ops\": []}")'`, `no "name"`},
		{`python3 -c 'import sys; sys.stdin.readline(); print("{\"id\": 1, \"name\": \"x\", \"ops\": [\"fly\"]}")'`, `unknown operation "fly"`},
	} {
		a, err := Start(tc.command, WithTimeout(5*time.Second))
		if err == nil {
			a.Close()
			t.Errorf("Start(%q) succeeded, want an error saying %q", tc.command, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Start(%q) error %q does not say %q", tc.command, err, tc.want)
		}
	}
}

func TestNoGoroutineLeftAfterClose(t *testing.T) {
	requirePython(t)
	before := runtime.NumGoroutine()
	for _, mode := range []string{"echo", "hang", "crash"} {
		a, err := Start("python3 testdata/misbehave.py " + mode)
		if err != nil {
			t.Fatal(err)
		}
		a.after = fired
		_, _ = a.DecodeResponse([]byte("{}"))
		a.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after Close:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// TestStreamErrorKeepsEvents: an error answer to decode_stream yields the
// events decoded before the fault, then the error, worded as a decoder's.
func TestStreamErrorKeepsEvents(t *testing.T) {
	a := start(t, pythonAdapter)
	body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_c\n\n"
	got, err := drain(t, a.DecodeStream(strings.NewReader(body)))
	if err == nil || !strings.Contains(err.Error(), "decode stream: at byte ") || !strings.Contains(err.Error(), "(event at byte 125)") {
		t.Errorf("error = %v, want a decode stream error naming the event at byte 125", err)
	}
	if len(got) != 1 || got[0].Kind != core.EventCallStart || got[0].Chunk == nil || got[0].Chunk.ID != "c1" {
		t.Errorf("events %+v, want the call start before the fault", got)
	}
}

package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolconform/conform/core"

	"github.com/google/go-cmp/cmp"
)

func execRegistry(t testing.TB) *Registry {
	t.Helper()
	r := testRegistry(t)
	add := func(name string, h Handler, opts ...ToolOption) {
		t.Helper()
		tool, err := NewRawTool(name, "", json.RawMessage(`{"type":"object"}`), h, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	add("wait", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	add("stubborn", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		<-release // ignores its context; returns only when the test ends
		return json.RawMessage(`"late"`), nil
	})
	add("boom", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		panic("kaboom")
	})
	add("big", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(strings.Repeat("x", 100)), nil
	})
	add("accents", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage("ééééé"), nil
	})
	add("fail", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New(strings.Repeat("e", 50))
	})
	counted := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	add("bad_output", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"n":"x"}`), nil
	}, WithOutputSchema(counted))
	add("text_output", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`plain text`), nil
	}, WithOutputSchema(counted))
	add("good_output", func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"n":3}`), nil
	}, WithOutputSchema(counted))
	addTool := func(tool *Tool, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	addTool(NewTool("pointers", "", func(_ context.Context, in *weatherIn) (*weatherOut, error) {
		if in.City == "nowhere" {
			return nil, nil
		}
		return &weatherOut{TempC: float64(len(in.City))}, nil
	}))
	return r
}

func textResult(id, name, text string, isErr bool) core.Result {
	return core.Result{CallID: id, Name: name, Content: []core.Part{core.TextPart(text)}, IsError: isErr}
}

func TestExecute(t *testing.T) {
	r := execRegistry(t)
	short := ExecOptions{Timeout: 30 * time.Millisecond}
	tests := []struct {
		name string
		call core.Call
		opts ExecOptions
		want core.Result
	}{
		{"ok", core.Call{ID: "c1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}, ExecOptions{},
			textResult("c1", "get_weather", `{"temp_c":21.5}`, false)},
		{"C01 empty arguments run", core.Call{ID: "c2", Name: "get_time", Arguments: json.RawMessage(``)}, ExecOptions{},
			textResult("c2", "get_time", `"noon"`, false)},
		{"unknown tool", core.Call{ID: "c3", Name: "get_wether"}, ExecOptions{},
			textResult("c3", "get_wether", `unknown tool "get_wether"; did you mean "get_weather"?; available tools: accents, bad_output, big, boom, fail, get_time, get_weather, good_output, pointers, search, stubborn, text_output, wait`, true)},
		{"invalid arguments", core.Call{ID: "c4", Name: "get_weather", Arguments: json.RawMessage(`{"unit":"k"}`)}, ExecOptions{},
			textResult("c4", "get_weather", `arguments do not match the schema of "get_weather": /city: missing; /unit: value must be one of "c", "f"`, true)},
		{"malformed arguments", core.Call{ID: "c5", Name: "get_weather", Arguments: json.RawMessage(`{"city":`)}, ExecOptions{},
			textResult("c5", "get_weather", `arguments of "get_weather" are not valid JSON: at byte 8: unexpected end of JSON input`, true)},
		{"handler error", core.Call{ID: "c6", Name: "get_weather", Arguments: json.RawMessage(`{"city":""}`)}, ExecOptions{},
			textResult("c6", "get_weather", `tool "get_weather" failed: no city`, true)},
		{"typed decode error", core.Call{ID: "c7", Name: "search", Arguments: json.RawMessage(`{"query":"q","limit":1e400}`)}, ExecOptions{},
			textResult("c7", "search", `tool "search" failed: decode arguments: json: cannot unmarshal number 1e400 into Go struct field searchIn.limit of type int`, true)},
		{"timeout, handler honours context", core.Call{ID: "c8", Name: "wait"}, short,
			textResult("c8", "wait", `tool "wait" timed out after 30ms`, true)},
		{"timeout, handler ignores context", core.Call{ID: "c9", Name: "stubborn"}, short,
			textResult("c9", "stubborn", `tool "stubborn" timed out after 30ms`, true)},
		{"panic", core.Call{ID: "c10", Name: "boom"}, ExecOptions{},
			textResult("c10", "boom", `tool "boom" panicked: kaboom`, true)},
		{"truncated output", core.Call{ID: "c11", Name: "big"}, ExecOptions{MaxOutputBytes: 10},
			textResult("c11", "big", "xxxxxxxxxx\n[output truncated: 10 of 100 bytes]", false)},
		{"truncated on a rune boundary", core.Call{ID: "c12", Name: "accents"}, ExecOptions{MaxOutputBytes: 3},
			textResult("c12", "accents", "é\n[output truncated: 2 of 10 bytes]", false)},
		{"output at the limit", core.Call{ID: "c13", Name: "big"}, ExecOptions{MaxOutputBytes: 100},
			textResult("c13", "big", strings.Repeat("x", 100), false)},
		{"no limit", core.Call{ID: "c14", Name: "big"}, ExecOptions{MaxOutputBytes: -1},
			textResult("c14", "big", strings.Repeat("x", 100), false)},
		{"error text truncated too", core.Call{ID: "c15", Name: "fail"}, ExecOptions{MaxOutputBytes: 20},
			textResult("c15", "fail", `tool "fail" failed: `+"\n[output truncated: 20 of 70 bytes]", true)},
		{"output does not match its schema", core.Call{ID: "c16", Name: "bad_output"}, ExecOptions{},
			textResult("c16", "bad_output", `tool "bad_output" returned output that does not match its output schema: /n: got string, want integer`, true)},
		{"output not JSON", core.Call{ID: "c17", Name: "text_output"}, ExecOptions{},
			textResult("c17", "text_output", `tool "text_output" returned output that is not JSON, but it has an output schema: invalid character 'p' looking for beginning of value`, true)},
		{"output matches its schema", core.Call{ID: "c18", Name: "good_output"}, ExecOptions{},
			textResult("c18", "good_output", `{"n":3}`, false)},
		{"pointer input and output", core.Call{ID: "c20", Name: "pointers", Arguments: json.RawMessage(`{"city":"Oslo"}`)}, ExecOptions{},
			textResult("c20", "pointers", `{"temp_c":4}`, false)},
		{"nil pointer output", core.Call{ID: "c21", Name: "pointers", Arguments: json.RawMessage(`{"city":"nowhere"}`)}, ExecOptions{},
			textResult("c21", "pointers", `tool "pointers" returned output that does not match its output schema: got null, want object`, true)},
		{"no timeout", core.Call{ID: "c19", Name: "get_time"}, ExecOptions{Timeout: -1},
			textResult("c19", "get_time", `"noon"`, false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := executeOrHang(t, func() core.Result { return r.ExecuteWith(context.Background(), tt.call, tt.opts) })
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ExecuteWith mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// executeOrHang runs f and fails the test if it has not returned after 10
// seconds, which only happens if execution waits for a handler that ignores
// its context.
func executeOrHang(t *testing.T, f func() core.Result) core.Result {
	t.Helper()
	done := make(chan core.Result, 1)
	go func() { done <- f() }()
	select {
	case r := <-done:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("execution waited for a handler that ignores its context")
		return core.Result{}
	}
}

func TestExecuteDefaults(t *testing.T) {
	r := execRegistry(t)
	got := r.Execute(context.Background(), core.Call{ID: "a", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Rome"}`)})
	if diff := cmp.Diff(textResult("a", "get_weather", `{"temp_c":21.5}`, false), got); diff != "" {
		t.Errorf("Execute mismatch (-want +got):\n%s", diff)
	}
	var o ExecOptions
	if o.timeout() != DefaultTimeout || o.maxOutput() != DefaultMaxOutputBytes || o.concurrency() != DefaultConcurrency {
		t.Errorf("zero ExecOptions: %v %v %v", o.timeout(), o.maxOutput(), o.concurrency())
	}
}

func TestExecuteCancelled(t *testing.T) {
	r := execRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := r.Execute(ctx, core.Call{ID: "a", Name: "get_time"})
	if diff := cmp.Diff(textResult("a", "get_time", `tool "get_time" was not run: context canceled`, true), got); diff != "" {
		t.Errorf("before start (-want +got):\n%s", diff)
	}

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	got = r.Execute(ctx, core.Call{ID: "b", Name: "wait"})
	if diff := cmp.Diff(textResult("b", "wait", `tool "wait" was cancelled: context canceled`, true), got); diff != "" {
		t.Errorf("during the call (-want +got):\n%s", diff)
	}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	got = executeOrHang(t, func() core.Result { return r.Execute(ctx, core.Call{ID: "c", Name: "stubborn"}) })
	if diff := cmp.Diff(textResult("c", "stubborn", `tool "stubborn" was cancelled: context canceled`, true), got); diff != "" {
		t.Errorf("handler ignoring its context (-want +got):\n%s", diff)
	}
}

func TestExecuteOnPanic(t *testing.T) {
	r := execRegistry(t)
	var gotCall core.Call
	var gotValue any
	var gotStack string
	r.ExecuteWith(context.Background(), core.Call{ID: "p", Name: "boom"}, ExecOptions{
		OnPanic: func(c core.Call, v any, stack []byte) { gotCall, gotValue, gotStack = c, v, string(stack) },
	})
	if gotCall.ID != "p" || gotValue != "kaboom" || !strings.Contains(gotStack, "execRegistry") {
		t.Errorf("OnPanic got call %q, value %v, stack without the handler:\n%s", gotCall.ID, gotValue, gotStack)
	}
}

func TestExecuteAll(t *testing.T) {
	r := NewRegistry()
	var running, peak atomic.Int32
	allThree := make(chan struct{})
	var closeOnce sync.Once
	tool, err := NewTool("sleepy", "", func(_ context.Context, in struct {
		N int `json:"n"`
	}) (int, error) {
		cur := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		if cur == 3 {
			closeOnce.Do(func() { close(allThree) })
		}
		if in.N < 3 {
			// The first three calls run together: each waits until all
			// three are in, which proves the calls run in parallel.
			select {
			case <-allThree:
			case <-time.After(10 * time.Second):
				return 0, errors.New("the first three calls never ran together")
			}
		}
		// Later calls finish first, so order comes from the index, not
		// from completion.
		time.Sleep(time.Duration(20-in.N) * time.Millisecond)
		if in.N == 7 {
			panic("seven")
		}
		return in.N * in.N, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Add(tool); err != nil {
		t.Fatal(err)
	}
	var calls []core.Call
	var want []core.Result
	for i := range 20 {
		id := fmt.Sprint("call_", i)
		calls = append(calls, core.Call{ID: id, Name: "sleepy", Arguments: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))})
		switch i {
		case 7:
			want = append(want, textResult(id, "sleepy", `tool "sleepy" panicked: seven`, true))
		default:
			want = append(want, textResult(id, "sleepy", fmt.Sprint(i*i), false))
		}
	}
	calls = append(calls, core.Call{ID: "x", Name: "nope"})
	want = append(want, textResult("x", "nope", `unknown tool "nope"; available tools: sleepy`, true))

	got := r.ExecuteAll(context.Background(), calls, ExecOptions{Concurrency: 3})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ExecuteAll mismatch (-want +got):\n%s", diff)
	}
	if p := peak.Load(); p != 3 {
		t.Errorf("peak concurrency = %d, want 3 with Concurrency 3", p)
	}
}

func TestExecuteAllCancelled(t *testing.T) {
	r := execRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := []core.Call{{ID: "a", Name: "get_time"}, {ID: "b", Name: "wait"}, {ID: "c", Name: "get_time"}}
	got := r.ExecuteAll(ctx, calls, ExecOptions{Concurrency: 1})
	want := []core.Result{
		textResult("a", "get_time", `tool "get_time" was not run: context canceled`, true),
		textResult("b", "wait", `tool "wait" was not run: context canceled`, true),
		textResult("c", "get_time", `tool "get_time" was not run: context canceled`, true),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ExecuteAll mismatch (-want +got):\n%s", diff)
	}
	if got := r.ExecuteAll(context.Background(), nil, ExecOptions{}); len(got) != 0 {
		t.Errorf("ExecuteAll(nil) = %v", got)
	}
}

func TestTruncateOutput(t *testing.T) {
	tests := []struct {
		s     string
		limit int
		want  string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc\n[output truncated: 3 of 4 bytes]"},
		{"abc", 0, "\n[output truncated: 0 of 3 bytes]"},
		{"€", 2, "\n[output truncated: 0 of 3 bytes]"},
		{"a€", 3, "a\n[output truncated: 1 of 4 bytes]"},
		{"abc", -1, "abc"},
	}
	for _, tt := range tests {
		if got := truncateOutput([]byte(tt.s), tt.limit); got != tt.want {
			t.Errorf("truncateOutput(%q, %d) = %q, want %q", tt.s, tt.limit, got, tt.want)
		}
	}
}

// TestExecuteGoexit runs a handler that calls runtime.Goexit, as t.FailNow
// does: ExecuteWith returns an error result that says so, with no timeout
// (it used to wait forever) and with one (it used to report a timeout).
func TestExecuteGoexit(t *testing.T) {
	r := NewRegistry()
	tool, err := NewRawTool("quit", "", json.RawMessage(`{"type":"object"}`), func(context.Context, json.RawMessage) (json.RawMessage, error) {
		runtime.Goexit()
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Add(tool); err != nil {
		t.Fatal(err)
	}
	want := `tool "quit": ` + ErrHandlerExited.Error()
	for _, timeout := range []time.Duration{-1, 0, time.Hour} {
		res := r.ExecuteWith(context.Background(), core.Call{ID: "c1", Name: "quit", Arguments: json.RawMessage(`{}`)}, ExecOptions{Timeout: timeout})
		if diff := cmp.Diff(textResult("c1", "quit", want, true), res); diff != "" {
			t.Errorf("Timeout %v: result (-want +got):\n%s", timeout, diff)
		}
	}
}

// outputCapSize is the output of the tools of outputCapRegistry, far above
// MaxOutputBytes.
const outputCapSize = 32 << 20

// outputCapRegistry holds tools whose output is outputCapSize bytes: raw
// (text), raw_schema (a JSON object checked by an output schema), typed
// (a struct encoded as JSON) and typed_text (a string).
func outputCapRegistry(tb testing.TB) *Registry {
	tb.Helper()
	big := bytes.Repeat([]byte("x"), outputCapSize)
	quoted := append(append([]byte(`{"data":"`), big...), `"}`...)
	schemaOut := json.RawMessage(`{"type":"object","properties":{"data":{"type":"string"}}}`)
	raw := func(out []byte) Handler {
		return func(context.Context, json.RawMessage) (json.RawMessage, error) { return out, nil }
	}
	type bigOut struct {
		Data string `json:"data"`
	}
	data := string(big)
	typed, err := NewTool("typed", "", func(context.Context, struct{}) (bigOut, error) { return bigOut{Data: data}, nil })
	if err != nil {
		tb.Fatal(err)
	}
	r := NewRegistry()
	for _, tool := range []struct {
		name string
		h    Handler
		opts []ToolOption
	}{
		{"raw", raw(big), nil},
		{"raw_schema", raw(quoted), []ToolOption{WithOutputSchema(schemaOut)}},
	} {
		rt, err := NewRawTool(tool.name, "", json.RawMessage(`{"type":"object"}`), tool.h, tool.opts...)
		if err != nil {
			tb.Fatal(err)
		}
		if err := r.Add(rt); err != nil {
			tb.Fatal(err)
		}
	}
	typedText, err := NewTool("typed_text", "", func(context.Context, struct{}) (string, error) { return data, nil })
	if err != nil {
		tb.Fatal(err)
	}
	for _, tool := range []*Tool{typed, typedText} {
		if err := r.Add(tool); err != nil {
			tb.Fatal(err)
		}
	}
	return r
}

// TestExecuteStopsAtOutputCap runs tools whose output is far above
// MaxOutputBytes: the result says so or holds the output cut to the cap.
// What ExecuteWith allocates past the cap is measured by
// BenchmarkExecuteOutputCap.
func TestExecuteStopsAtOutputCap(t *testing.T) {
	r := outputCapRegistry(t)
	tests := []struct {
		name     string
		wantText string // the start of the result's text
		isError  bool
	}{
		{"raw", "xxxx", false},
		{"raw_schema", `tool "raw_schema" returned 33554443 bytes of output, more than the limit of 65536: output too large`, true},
		{"typed", `tool "typed" returned 33554443 bytes of output`, true},
		{"typed_text", `"xxxx`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := r.Execute(context.Background(), core.Call{ID: "c", Name: tt.name, Arguments: json.RawMessage(`{}`)})
			text := res.Content[0].Text
			if res.IsError != tt.isError || !strings.HasPrefix(text, tt.wantText) {
				t.Errorf("result IsError %v, text %.200q; want IsError %v, text starting %q", res.IsError, text, tt.isError, tt.wantText)
			}
			if len(text) > DefaultMaxOutputBytes+100 {
				t.Errorf("result text of %d bytes, above the cap of %d", len(text), DefaultMaxOutputBytes)
			}
		})
	}
}

// BenchmarkExecuteOutputCap measures the bytes Execute allocates for an
// output of outputCapSize bytes (B/op): past the cap the Registry neither
// copies nor parses it: raw, raw_schema and typed_text stay under 1 MiB,
// and typed under the output's size, what encoding/json's buffer takes to
// encode the struct (json.Marshal, the output check and the copy to text
// took 5 times the output or more).
//
//	go test -run '^$' -bench ExecuteOutputCap -benchtime 5x ./tools
func BenchmarkExecuteOutputCap(b *testing.B) {
	r := outputCapRegistry(b)
	for _, name := range []string{"raw", "raw_schema", "typed", "typed_text"} {
		b.Run(name, func(b *testing.B) {
			call := core.Call{ID: "c", Name: name, Arguments: json.RawMessage(`{}`)}
			b.ReportAllocs()
			for b.Loop() {
				r.Execute(context.Background(), call)
			}
		})
	}
}

func BenchmarkExecute(b *testing.B) {
	r := testRegistry(b)
	call := core.Call{ID: "c", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}
	b.ReportAllocs()
	for b.Loop() {
		r.Execute(context.Background(), call)
	}
}

func BenchmarkExecuteAll(b *testing.B) {
	r := testRegistry(b)
	calls := make([]core.Call, 16)
	for i := range calls {
		calls[i] = core.Call{ID: fmt.Sprint(i), Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}
	}
	b.ReportAllocs()
	for b.Loop() {
		r.ExecuteAll(context.Background(), calls, ExecOptions{Concurrency: 4})
	}
}

// TestHandlerSeesItsCall checks that a handler finds its own call in its
// context, and that a tool keeps the program WithProgram gave it.
func TestHandlerSeesItsCall(t *testing.T) {
	type prog struct{ argv string }
	seen := make(chan core.Call, 1)
	tool, err := NewRawTool("which", "", json.RawMessage(`{"type":"object"}`), func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		c, ok := CallFromContext(ctx)
		if !ok {
			return nil, errors.New("no call in the context")
		}
		seen <- c
		return json.RawMessage(`{}`), nil
	}, WithProgram(&prog{"echo"}))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := tool.Program().(*prog); !ok || p.argv != "echo" {
		t.Errorf("Program() = %#v, want the *prog given", tool.Program())
	}
	if _, ok := CallFromContext(context.Background()); ok {
		t.Error("CallFromContext found a call in a bare context")
	}
	r := NewRegistry()
	if err := r.Add(tool); err != nil {
		t.Fatal(err)
	}
	call := core.Call{ID: "call_7", Name: "which", Arguments: json.RawMessage(`{}`)}
	if res := r.Execute(context.Background(), call); res.IsError {
		t.Fatalf("error result: %s", res.Text())
	}
	if diff := cmp.Diff(call, <-seen); diff != "" {
		t.Errorf("call in the handler's context (-want +got):\n%s", diff)
	}
}

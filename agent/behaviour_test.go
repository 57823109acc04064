package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/agent"
	"github.com/toolconform/conform/agent/fakeprovider"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/tools"
)

func runLoop(t *testing.T, protocol string, mode agent.Mode, stream bool, reg *tools.Registry, turns []turn, edit func(*agent.Loop)) (*agent.Outcome, *fakeprovider.Server, error) {
	t.Helper()
	adapter, err := providers.Lookup(protocol)
	if err != nil {
		t.Fatal(err)
	}
	srv := fakeprovider.New(adapter, scriptedFor(protocol, mode, turns)...)
	t.Cleanup(srv.Close)
	loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL, Client: srv.Client()},
		Registry: reg, Model: "fake-model", Mode: mode, Stream: stream}
	if edit != nil {
		edit(loop)
	}
	out, err := loop.Run(context.Background(), []core.Message{user("go")})
	return out, srv, err
}

func traceText(out *agent.Outcome) string {
	var b strings.Builder
	out.Trace.Write(&b)
	return b.String()
}

// TestRefusedApproval runs, for every protocol and mode, a destructive call
// the approval callback refuses: the tool never runs, the callback is asked
// once with the tool's risk, and the model gets an error result saying so.
func TestRefusedApproval(t *testing.T) {
	for _, protocol := range providers.Names() {
		for _, mode := range agent.Modes {
			t.Run(protocol+"/"+string(mode), func(t *testing.T) {
				f := newFixture(t)
				var asked []string
				turns := []turn{
					{calls: []core.Call{{ID: "callDEL01", Name: "delete_file", Arguments: json.RawMessage(`{"path":"/etc/hosts"}`)}}},
					{text: "I did not delete it."},
				}
				out, srv, err := runLoop(t, protocol, mode, protocol == "anthropic", f.reg, turns, func(l *agent.Loop) {
					l.Approve = func(ctx context.Context, c core.Call, risk tools.Risk) (bool, error) {
						asked = append(asked, fmt.Sprintf("%s %s %s", c.Name, c.Arguments, risk))
						return false, nil
					}
				})
				if err != nil {
					t.Fatalf("Run: %v\n%s", err, traceText(out))
				}
				if diff := cmp.Diff([]string{`delete_file {"path":"/etc/hosts"} destructive`}, asked); diff != "" {
					t.Errorf("approvals asked (-want +got):\n%s", diff)
				}
				if n := f.deletes.Load(); n != 0 {
					t.Errorf("delete_file ran %d times after a refusal", n)
				}
				got := srv.Received()
				if len(got) != 2 {
					t.Fatalf("provider received %d requests, want 2", len(got))
				}
				_, results := lastResults(t, mode, got[1].Request)
				if len(results) != 1 || !strings.Contains(results[0].Text(), `the user refused to run "delete_file"`) {
					t.Fatalf("follow-up results %+v, want the refusal", results)
				}
				if diff := cmp.Diff([]agent.EntryKind{agent.KindRequest, agent.KindResponse, agent.KindCall, agent.KindRefused,
					agent.KindRequest, agent.KindResponse, agent.KindAnswer}, out.Trace.Kinds()); diff != "" {
					t.Errorf("trace (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestApprovedRuns checks that an approved destructive call runs, and that
// a policy can ask for read-only calls too.
func TestApprovedRuns(t *testing.T) {
	f := newFixture(t)
	var asked []tools.Risk
	turns := []turn{
		{calls: []core.Call{
			{ID: "call00001", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)},
			{ID: "call00002", Name: "delete_file", Arguments: json.RawMessage(`{"path":"/tmp/x"}`)},
		}},
		{text: "done"},
	}
	_, _, err := runLoop(t, "openai-chat", agent.ModeNative, false, f.reg, turns, func(l *agent.Loop) {
		l.Policy = agent.ApprovalPolicy{tools.RiskReadOnly: true, tools.RiskDestructive: true}
		l.Approve = func(ctx context.Context, c core.Call, risk tools.Risk) (bool, error) {
			asked = append(asked, risk)
			return true, nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]tools.Risk{tools.RiskReadOnly, tools.RiskDestructive}, asked); diff != "" {
		t.Errorf("approvals (-want +got):\n%s", diff)
	}
	if f.deletes.Load() != 1 || f.weather.Load() != 1 {
		t.Errorf("runs: delete %d, weather %d; want 1 each", f.deletes.Load(), f.weather.Load())
	}
}

// TestApproveError checks that an error from the callback ends the loop
// and the call does not run.
func TestApproveError(t *testing.T) {
	f := newFixture(t)
	boom := errors.New("approval service down")
	turns := []turn{{calls: []core.Call{{ID: "call00001", Name: "delete_file", Arguments: json.RawMessage(`{"path":"x"}`)}}}}
	_, _, err := runLoop(t, "anthropic", agent.ModeNative, false, f.reg, turns, func(l *agent.Loop) {
		l.Approve = func(context.Context, core.Call, tools.Risk) (bool, error) { return false, boom }
	})
	if !errors.Is(err, boom) || f.deletes.Load() != 0 {
		t.Fatalf("got %v with %d deletes, want the callback's error and none", err, f.deletes.Load())
	}
}

// TestParallelResultsInCallOrder runs three calls whose tools finish in
// reverse order, for every protocol: they run at once (the slowest waits
// for the others to start) and the follow-up lists the results in call
// order.
func TestParallelResultsInCallOrder(t *testing.T) {
	for _, protocol := range providers.Names() {
		t.Run(protocol, func(t *testing.T) {
			reg := tools.NewRegistry()
			var started sync.WaitGroup
			started.Add(3)
			tool, err := tools.NewTool("wait", "Waits.", func(ctx context.Context, in struct {
				MS int `json:"ms"`
			}) (map[string]int, error) {
				started.Done()
				started.Wait() // all three must be running at once
				time.Sleep(time.Duration(in.MS) * time.Millisecond)
				return map[string]int{"ms": in.MS}, nil
			}, tools.WithRisk(tools.RiskReadOnly))
			if err != nil {
				t.Fatal(err)
			}
			if err := reg.Add(tool); err != nil {
				t.Fatal(err)
			}
			var calls []core.Call
			for i, ms := range []int{30, 15, 1} {
				calls = append(calls, core.Call{ID: fmt.Sprintf("callPAR0%d", i+1), Name: "wait", Arguments: json.RawMessage(fmt.Sprintf(`{"ms":%d}`, ms))})
			}
			out, srv, err := runLoop(t, protocol, agent.ModeNative, true, reg, []turn{{calls: calls}, {text: "ok"}}, func(l *agent.Loop) {
				l.Exec = tools.ExecOptions{Concurrency: 3, Timeout: 5 * time.Second}
			})
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, traceText(out))
			}
			ids, results := lastResults(t, agent.ModeNative, srv.Received()[1].Request)
			var gotIDs, gotText []string
			for _, r := range results {
				gotIDs = append(gotIDs, r.CallID)
				gotText = append(gotText, r.Text())
			}
			if diff := cmp.Diff(ids, gotIDs); diff != "" {
				t.Errorf("result ids against call ids (-calls +results):\n%s", diff)
			}
			if diff := cmp.Diff([]string{`{"ms":30}`, `{"ms":15}`, `{"ms":1}`}, gotText); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRetryLimit checks that a model that keeps failing validation is
// stopped after MaxRetries corrections, with ErrRetryLimit, and that no
// invalid call ever ran.
func TestRetryLimit(t *testing.T) {
	for _, mode := range []agent.Mode{agent.ModeNative, agent.ModeValidated, agent.ModeStructured} {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t)
			var turns []turn
			for i := range 5 {
				turns = append(turns, turn{calls: []core.Call{{ID: fmt.Sprintf("callBAD0%d", i), Name: "get_weather", Arguments: json.RawMessage(`{}`)}}})
			}
			out, srv, err := runLoop(t, "openai-chat", mode, false, f.reg, turns, func(l *agent.Loop) { l.MaxRetries = 2 })
			if !errors.Is(err, agent.ErrRetryLimit) {
				t.Fatalf("got %v, want ErrRetryLimit\n%s", err, traceText(out))
			}
			if n := len(srv.Received()); n != 3 {
				t.Errorf("model called %d times, want 3 (the first try and 2 retries)", n)
			}
			if f.weather.Load() != 0 {
				t.Errorf("an invalid call ran")
			}
		})
	}
}

// TestMalformedTextCallIsReportedAndRetried checks that a call the model
// wrote but that cannot be read is never run, is reported to the model
// with its offset, and that the corrected call then runs.
func TestMalformedTextCallIsReportedAndRetried(t *testing.T) {
	for _, mode := range []agent.Mode{agent.ModeValidated, agent.ModeParsed} {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t)
			adapter, _ := providers.Lookup("anthropic")
			srv := fakeprovider.New(adapter,
				*textResp("Checking.\n<tool_call>{\"tool\": \"get_weather\", \"arguments\": {\"city\": </tool_call>"),
				*textResp("<tool_call>{\"tool\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}</tool_call>"),
				*textResp("Cold."),
			)
			defer srv.Close()
			loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL}, Registry: f.reg, Model: "m", Mode: mode}
			out, err := loop.Run(context.Background(), []core.Message{user("Oslo?")})
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, traceText(out))
			}
			if out.Answer != "Cold." || f.weather.Load() != 1 {
				t.Errorf("answer %q, weather runs %d", out.Answer, f.weather.Load())
			}
			second := srv.Received()[1].Request
			last := second.Messages[len(second.Messages)-1].Text()
			if !strings.Contains(last, "Your tool call at byte 10 could not be read and was not run") {
				t.Errorf("follow-up does not report the malformed call: %q", last)
			}
			prev := second.Messages[len(second.Messages)-2].Text()
			if !strings.Contains(prev, `{"city": </tool_call>`) {
				t.Errorf("the model's own malformed text was not kept in its turn: %q", prev)
			}
		})
	}
}

func textResp(s string) *core.Response {
	return &core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart(s)}}, Finish: core.FinishStop}
}

func TestStepLimit(t *testing.T) {
	f := newFixture(t)
	var turns []turn
	for i := range 3 {
		turns = append(turns, turn{calls: []core.Call{{ID: fmt.Sprintf("callSTP0%d", i), Name: "get_weather", Arguments: json.RawMessage(`{"city":"x"}`)}}})
	}
	_, _, err := runLoop(t, "ollama", agent.ModeNative, true, f.reg, turns, func(l *agent.Loop) { l.MaxSteps = 3 })
	if !errors.Is(err, agent.ErrStepLimit) || f.weather.Load() != 3 {
		t.Fatalf("got %v after %d runs, want ErrStepLimit after 3", err, f.weather.Load())
	}
}

// TestScratchpadContinues checks that a structured scratchpad step is
// recorded and the loop asks the model to go on.
func TestScratchpadContinues(t *testing.T) {
	f := newFixture(t)
	adapter, _ := providers.Lookup("openai-chat")
	srv := fakeprovider.New(adapter, *textResp(`{"step":{"scratchpad":"need weather"}}`), *textResp(`{"step":{"answer":"fine"}}`))
	defer srv.Close()
	loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL}, Registry: f.reg, Model: "gpt-4o"}
	out, err := loop.Run(context.Background(), []core.Message{user("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Mode != agent.ModeStructured || out.Answer != "fine" {
		t.Errorf("mode %s answer %q", out.Mode, out.Answer)
	}
	if diff := cmp.Diff([]agent.EntryKind{agent.KindRequest, agent.KindResponse, agent.KindScratchpad,
		agent.KindRequest, agent.KindResponse, agent.KindAnswer}, out.Trace.Kinds()); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// TestRejectedParamLeftOut checks H04 end to end: the request for an
// o-series model arrives without parallel_tool_calls, and the trace says
// it was left out.
func TestRejectedParamLeftOut(t *testing.T) {
	f := newFixture(t)
	no := false
	for _, model := range []string{"o3-mini", "gpt-4o"} {
		adapter, _ := providers.Lookup("openai-chat")
		srv := fakeprovider.New(adapter, core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("hi")}}})
		loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL}, Registry: f.reg, Model: model,
			Mode: agent.ModeNative, ParallelToolCalls: &no}
		out, err := loop.Run(context.Background(), []core.Message{user("hi")})
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		sent := strings.Contains(string(srv.Received()[0].Body), `"parallel_tool_calls"`)
		if want := model == "gpt-4o"; sent != want {
			t.Errorf("%s: parallel_tool_calls sent = %v, want %v", model, sent, want)
		}
		if want := !sent; want != (len(out.Trace.Entries[0].Removed) == 1) {
			t.Errorf("%s: trace removed = %v", model, out.Trace.Entries[0].Removed)
		}
	}
}

// TestHTTPErrors checks a non-2xx reply and an unknown protocol.
func TestHTTPErrors(t *testing.T) {
	f := newFixture(t)
	adapter, _ := providers.Lookup("cohere")
	srv := fakeprovider.New(adapter) // empty script: every request gets 500
	defer srv.Close()
	loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL}, Registry: f.reg, Model: "command-a"}
	_, err := loop.Run(context.Background(), []core.Message{user("hi")})
	var he *agent.HTTPError
	if !errors.As(err, &he) || he.Status != 500 || !strings.Contains(he.Body, "no scripted response") {
		t.Fatalf("got %v, want an HTTPError 500", err)
	}
	if _, err := agent.Path("grpc", "m", false); !errors.Is(err, agent.ErrUnknownProtocol) {
		t.Errorf("Path of an unknown protocol: %v", err)
	}
}

// TestBodyLimit checks that a reply over the endpoint's limit is an error,
// streamed or not, never a cut body taken as complete.
func TestBodyLimit(t *testing.T) {
	for _, stream := range []bool{false, true} {
		f := newFixture(t)
		adapter, _ := providers.Lookup("openai-chat")
		srv := fakeprovider.New(adapter, *textResp(strings.Repeat("long answer ", 200)))
		loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL, MaxBodyBytes: 300}, Registry: f.reg, Model: "m", Stream: stream}
		_, err := loop.Run(context.Background(), []core.Message{user("hi")})
		srv.Close()
		if !errors.Is(err, agent.ErrBodyTooLarge) {
			t.Errorf("stream=%v: got %v, want ErrBodyTooLarge", stream, err)
		}
	}
}

// settleGoroutines waits for the goroutine count to come back to base.
func settleGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			n := runtime.Stack(buf, true)
			t.Fatalf("%d goroutines left, want at most %d:\n%s", runtime.NumGoroutine(), base, buf[:n])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCancelDuringSlowTool cancels the context while a tool runs: the
// tool, which returns only when its context ends, sees the cancel, Run
// returns context.Canceled and no goroutine is left behind.
func TestCancelDuringSlowTool(t *testing.T) {
	base := runtime.NumGoroutine()
	reg := tools.NewRegistry()
	running := make(chan struct{})
	toolDone := make(chan struct{})
	slow, err := tools.NewTool("slow", "Takes forever.", func(ctx context.Context, in struct{}) (struct{}, error) {
		defer close(toolDone)
		close(running)
		<-ctx.Done()
		return struct{}{}, ctx.Err()
	}, tools.WithRisk(tools.RiskReadOnly))
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(slow)
	adapter, _ := providers.Lookup("openai-chat")
	srv := fakeprovider.New(adapter, scripted(agent.ModeNative, []turn{{calls: []core.Call{{ID: "call00001", Name: "slow", Arguments: json.RawMessage(`{}`)}}}})...)
	client := srv.Client()
	loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL, Client: client}, Registry: reg, Model: "m", Mode: agent.ModeNative}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-running; cancel() }()
	_, err = loop.Run(ctx, []core.Message{user("go")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	<-toolDone
	client.CloseIdleConnections()
	srv.Close()
	settleGoroutines(t, base)
}

// TestCancelMidStream cancels while the provider is half way through a
// stream and then stalls until the client goes away: Run returns
// context.Canceled, with no goroutine left, for every protocol.
func TestCancelMidStream(t *testing.T) {
	for _, protocol := range providers.Names() {
		t.Run(protocol, func(t *testing.T) {
			base := runtime.NumGoroutine()
			f := newFixture(t)
			adapter, _ := providers.Lookup(protocol)
			srv := fakeprovider.New(adapter, *textResp(strings.Repeat("a long streamed answer ", 50)))
			srv.StallAt(1)
			client := srv.Client()
			loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL, Client: client}, Registry: f.reg,
				Model: "m", Mode: agent.ModeNative, Stream: true}
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				for len(srv.Received()) == 0 {
					time.Sleep(time.Millisecond)
				}
				time.Sleep(20 * time.Millisecond) // let the first half arrive
				cancel()
			}()
			_, err := loop.Run(ctx, []core.Message{user("go")})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("got %v, want context.Canceled", err)
			}
			client.CloseIdleConnections()
			srv.Close()
			settleGoroutines(t, base)
		})
	}
}

// TestTruncatedCallsNeverRun checks B09–B11 through the loop: a stream
// that ends inside a call, and an Anthropic body cut by max_tokens in the
// middle of a tool_use, end the run with an error, and the call never runs.
func TestTruncatedCallsNeverRun(t *testing.T) {
	t.Run("stream cut inside a call", func(t *testing.T) {
		f := newFixture(t)
		adapter, _ := providers.Lookup("openai-chat")
		var buf strings.Builder
		err := adapter.EncodeStream(&buf, []core.Event{
			{Kind: core.EventCallStart, ID: "r1", Model: "m", Chunk: &core.Chunk{Index: 0, HasIndex: true, ID: "call00001", Name: "get_weather", Start: true}},
			{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 0, HasIndex: true, ArgsDelta: `{"city":"Par`}},
		})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, buf.String())
		}))
		defer srv.Close()
		loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL}, Registry: f.reg, Model: "m", Mode: agent.ModeNative, Stream: true}
		out, err := loop.Run(context.Background(), []core.Message{user("go")})
		if err == nil || f.weather.Load() != 0 {
			t.Fatalf("got %v with %d runs; want an error and no run\n%s", err, f.weather.Load(), traceText(out))
		}
	})
	t.Run("bedrock structured step tool cut inside its input", func(t *testing.T) {
		f := newFixture(t)
		adapter, _ := providers.Lookup("bedrock")
		var buf strings.Builder
		err := adapter.EncodeStream(&buf, []core.Event{
			{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: 0, HasIndex: true, ID: "tooluse_1", Name: agent.StepSchemaName, Start: true}},
			{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 0, HasIndex: true, ArgsDelta: `{"step":{"tool":"get_weather","arguments":{"city":"Par`}},
		})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
			io.WriteString(w, buf.String())
		}))
		defer srv.Close()
		loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL}, Registry: f.reg, Model: "m", Mode: agent.ModeStructured, Stream: true}
		out, err := loop.Run(context.Background(), []core.Message{user("go")})
		if err == nil || f.weather.Load() != 0 {
			t.Fatalf("got %v with %d runs; want an error and no run\n%s", err, f.weather.Load(), traceText(out))
		}
	})
	t.Run("anthropic max_tokens inside tool_use", func(t *testing.T) {
		f := newFixture(t)
		resp := core.Response{Model: "m", Finish: core.FinishLength, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{
			core.CallPart(core.Call{ID: "toolu_01", Name: "get_weather", Arguments: json.RawMessage(`{}`)}),
		}}}
		_, _, err := runLoop(t, "anthropic", agent.ModeNative, false, f.reg, []turn{}, func(l *agent.Loop) {
			srv := fakeprovider.New(l.Adapter, resp)
			t.Cleanup(srv.Close)
			l.Endpoint.BaseURL = srv.URL
		})
		if !errors.Is(err, agent.ErrIncomplete) || f.weather.Load() != 0 {
			t.Fatalf("got %v with %d runs; want ErrIncomplete and no run", err, f.weather.Load())
		}
	})
}

// TestSideEffectsRunInOrder checks that calls with side effects run one at
// a time in call order, and that parallel_tool_calls false does the same
// for read-only calls.
func TestSideEffectsRunInOrder(t *testing.T) {
	for _, tc := range []struct {
		name     string
		risk     tools.Risk
		parallel *bool
		wantMax  int32
	}{
		{"side effects", tools.RiskSideEffects, nil, 1},
		{"read-only with parallel_tool_calls false", tools.RiskReadOnly, new(false), 1},
		{"read-only", tools.RiskReadOnly, nil, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := tools.NewRegistry()
			var mu sync.Mutex
			var order []int
			var now, peak atomic.Int32
			tool, err := tools.NewTool("step", "A step.", func(ctx context.Context, in struct {
				N int `json:"n"`
			}) (struct{}, error) {
				if v := now.Add(1); v > peak.Load() {
					peak.Store(v)
				}
				time.Sleep(20 * time.Millisecond)
				mu.Lock()
				order = append(order, in.N)
				mu.Unlock()
				now.Add(-1)
				return struct{}{}, nil
			}, tools.WithRisk(tc.risk))
			if err != nil {
				t.Fatal(err)
			}
			reg.Add(tool)
			var calls []core.Call
			for i := range 3 {
				calls = append(calls, core.Call{ID: fmt.Sprintf("callSEQ0%d", i), Name: "step", Arguments: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))})
			}
			_, _, err = runLoop(t, "openai-chat", agent.ModeNative, false, reg, []turn{{calls: calls}, {text: "ok"}}, func(l *agent.Loop) {
				l.ParallelToolCalls = tc.parallel
				l.Exec = tools.ExecOptions{Concurrency: 3}
			})
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantMax == 1 {
				if peak.Load() != 1 || !cmp.Equal(order, []int{0, 1, 2}) {
					t.Errorf("peak %d order %v; want one at a time in order", peak.Load(), order)
				}
			} else if peak.Load() < 2 {
				t.Errorf("read-only calls never overlapped (peak %d)", peak.Load())
			}
		})
	}
}

// TestProviderErrorEndsRun checks that an error the provider reports inside
// a stream ends the run with that error, for every protocol.
func TestProviderErrorEndsRun(t *testing.T) {
	for _, protocol := range providers.Names() {
		t.Run(protocol, func(t *testing.T) {
			f := newFixture(t)
			adapter, _ := providers.Lookup(protocol)
			var buf strings.Builder
			if err := adapter.EncodeStream(&buf, []core.Event{
				{Kind: core.EventText, Text: "partial", ID: "r1", Model: "m"},
				{Kind: core.EventError, Error: &core.ProviderError{Type: "overloaded_error", Message: "try later"}},
			}); err != nil {
				t.Fatalf("%s cannot encode an error event: %v", protocol, err)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, buf.String())
			}))
			defer srv.Close()
			loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL}, Registry: f.reg, Model: "m", Mode: agent.ModeNative, Stream: true}
			out, err := loop.Run(context.Background(), []core.Message{user("go")})
			if err == nil || !strings.Contains(err.Error(), "try later") {
				t.Fatalf("got %v, want the provider's error\n%s", err, traceText(out))
			}
			if out.Answer != "" {
				t.Errorf("an errored stream gave the answer %q", out.Answer)
			}
		})
	}
}

// TestThinkingReplayed checks G12 through the loop: Anthropic's signed
// thinking before a tool_use is sent back unchanged, before the call, on
// the follow-up.
func TestThinkingReplayed(t *testing.T) {
	for _, stream := range []bool{false, true} {
		f := newFixture(t)
		adapter, _ := providers.Lookup("anthropic")
		first := core.Response{ID: "msg1", Model: "claude-sonnet-4", Finish: core.FinishToolCalls, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{
			{Kind: core.PartThinking, Text: "I need the weather.", Signature: "sig-123"},
			core.CallPart(core.Call{ID: "toolu_01", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)}),
		}}}
		srv := fakeprovider.New(adapter, first, *textResp("Cold."))
		loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL}, Registry: f.reg, Model: "claude-sonnet-4", Stream: stream}
		out, err := loop.Run(context.Background(), []core.Message{user("Oslo?")})
		srv.Close()
		if err != nil {
			t.Fatalf("stream=%v: %v\n%s", stream, err, traceText(out))
		}
		msgs := srv.Received()[1].Request.Messages
		var asst core.Message
		for _, m := range msgs {
			if m.Role == core.RoleAssistant {
				asst = m
			}
		}
		var kinds []string
		for _, p := range asst.Parts {
			kinds = append(kinds, string(p.Kind)+":"+p.Signature)
		}
		if diff := cmp.Diff([]string{"thinking:sig-123", "tool_call:"}, kinds); diff != "" {
			t.Errorf("stream=%v: replayed assistant parts (-want +got):\n%s", stream, diff)
		}
	}
}

// TestHeadersAndPaths checks what goes on the wire besides the body: the
// endpoint's headers (an API key), the protocol's extra headers, the
// content type, and the path, which for Gemini and Bedrock carries the
// model and the streaming choice.
func TestHeadersAndPaths(t *testing.T) {
	for _, tc := range []struct {
		protocol, model string
		stream          bool
		wantPath        string
		wantHeader      [2]string
	}{
		{"anthropic", "claude-sonnet-4", false, "/v1/messages", [2]string{"Anthropic-Version", "2023-06-01"}},
		{"openai-chat", "gpt-4o", true, "/v1/chat/completions", [2]string{"Content-Type", "application/json"}},
		{"gemini", "models/gemini-2.5-flash", true, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", [2]string{"Content-Type", "application/json"}},
		{"gemini", "gemini-2.5-flash", false, "/v1beta/models/gemini-2.5-flash:generateContent", [2]string{"Content-Type", "application/json"}},
		{"bedrock", "anthropic.claude-3-5-haiku-20241022-v1:0", true, "/model/anthropic.claude-3-5-haiku-20241022-v1:0/converse-stream", [2]string{"Content-Type", "application/json"}},
		{"ollama", "qwen3", false, "/api/chat", [2]string{"Content-Type", "application/json"}},
	} {
		t.Run(tc.protocol+"/"+tc.wantPath, func(t *testing.T) {
			f := newFixture(t)
			adapter, _ := providers.Lookup(tc.protocol)
			var gotPath string
			var gotHeader http.Header
			fake := fakeprovider.New(adapter, *textResp("hi"))
			defer fake.Close()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotPath, gotHeader = r.URL.RequestURI(), r.Header.Clone()
				fake.Config.Handler.ServeHTTP(w, r)
			}))
			defer srv.Close()
			loop := &agent.Loop{Adapter: adapter, Registry: f.reg, Model: tc.model, Mode: agent.ModeNative, Stream: tc.stream,
				Endpoint: agent.Endpoint{BaseURL: srv.URL + "/", Header: http.Header{"X-Api-Key": {"secret"}}}}
			out, err := loop.Run(context.Background(), []core.Message{user("hi")})
			if err != nil || out.Answer != "hi" {
				t.Fatalf("Run: %v, answer %q", err, out.Answer)
			}
			if gotPath != tc.wantPath {
				t.Errorf("path %q, want %q", gotPath, tc.wantPath)
			}
			if got := gotHeader.Get("X-Api-Key"); got != "secret" {
				t.Errorf("api key header %q", got)
			}
			if got := gotHeader.Get(tc.wantHeader[0]); got != tc.wantHeader[1] {
				t.Errorf("%s: %q, want %q", tc.wantHeader[0], got, tc.wantHeader[1])
			}
		})
	}
}

// TestWrittenDataIsAnAnswer checks F06 from the other side, for every
// protocol in the modes that read calls from text: an answer that holds
// JSON with a "name" key, or prose that mentions the call tag, is the
// answer, whole. No phantom tool is called, nothing is retried.
func TestWrittenDataIsAnAnswer(t *testing.T) {
	answers := []string{
		"Here is the user record:\n```json\n{\"name\": \"Alice\", \"email\": \"alice@example.com\"}\n```",
		"Here is the user record:\n```JSON\n{\"name\": \"Alice\", \"arguments\": [\"--verbose\"]}\n```",
		"To call a tool, write <tool_call> and a JSON object.",
		"Wrap a call in <tool_use> … </tool_use>.",
		"The tool you asked about:\n{\"name\": \"get_weather\", \"description\": \"Current weather in a city.\"}",
	}
	for _, protocol := range providers.Names() {
		for _, mode := range []agent.Mode{agent.ModeNative, agent.ModeValidated, agent.ModeParsed} {
			t.Run(protocol+"/"+string(mode), func(t *testing.T) {
				for i, text := range answers {
					f := newFixture(t)
					adapter, _ := providers.Lookup(protocol)
					srv := fakeprovider.New(adapter, *textResp(text))
					loop := &agent.Loop{Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL}, Registry: f.reg,
						Model: "fake-model", Mode: mode, Stream: i%2 == 1}
					out, err := loop.Run(context.Background(), []core.Message{user("Show me Alice's record.")})
					srv.Close()
					if err != nil {
						t.Fatalf("answer %d: Run: %v\n%s", i, err, traceText(out))
					}
					if out.Answer != text {
						t.Errorf("answer %d: got %q, want the text whole: %q", i, out.Answer, text)
					}
					if n := len(srv.Received()); n != 1 {
						t.Errorf("answer %d: model called %d times, want 1", i, n)
					}
					if diff := cmp.Diff([]agent.EntryKind{agent.KindRequest, agent.KindResponse, agent.KindAnswer}, out.Trace.Kinds()); diff != "" {
						t.Errorf("answer %d: trace (-want +got):\n%s", i, diff)
					}
				}
			})
		}
	}
}

// TestCallIDsUniqueAcrossSteps runs, for every protocol, streamed and not,
// three steps of calls: the first and third under the same id, the second
// and third also with calls without ids. Providers that send no ids or number them per
// response (Gemini, Ollama, streamed Chat Completions) give the same id on
// every step. Every call in the conversation must end up with its own id,
// each result must answer its call under that id, and what the provider
// receives last must keep them apart. (Repeats within one response are
// refused by most adapters; assignIDs' own test covers them.)
func TestCallIDsUniqueAcrossSteps(t *testing.T) {
	weather := func(id, city string) core.Call {
		return core.Call{ID: id, Name: "get_weather", Arguments: json.RawMessage(fmt.Sprintf(`{"city":%q}`, city))}
	}
	turns := []turn{
		{calls: []core.Call{weather("callSAME1", "Oslo")}},
		{calls: []core.Call{weather("", "Rome")}},
		{calls: []core.Call{weather("callSAME1", "Baku"), weather("", "Lima")}},
		{text: "Done."},
	}
	for _, protocol := range providers.Names() {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", protocol, stream), func(t *testing.T) {
				f := newFixture(t)
				out, srv, err := runLoop(t, protocol, agent.ModeNative, stream, f.reg, turns, nil)
				if err != nil {
					t.Fatalf("Run: %v\n%s", err, traceText(out))
				}
				if n := f.weather.Load(); n != 4 {
					t.Errorf("get_weather ran %d times, want 4", n)
				}
				checkIDs(t, "conversation", out.Messages, 4)
				got := srv.Received()
				if len(got) != 4 {
					t.Fatalf("provider received %d requests, want 4", len(got))
				}
				checkIDs(t, "last request as received", got[3].Request.Messages, 4)
			})
		}
	}
}

// checkIDs checks that msgs hold want calls with distinct non-empty ids,
// and that the results after each assistant turn answer its calls, in
// order, under their ids.
func checkIDs(t *testing.T, what string, msgs []core.Message, want int) {
	t.Helper()
	var all []string
	for i, m := range msgs {
		if m.Role != core.RoleAssistant {
			continue
		}
		var ids, answered []string
		for _, c := range m.Calls() {
			ids = append(ids, c.ID)
		}
		all = append(all, ids...)
		for _, r := range msgs[i+1:] {
			if r.Role == core.RoleAssistant {
				break
			}
			for _, res := range r.Results() {
				answered = append(answered, res.CallID)
			}
		}
		if diff := cmp.Diff(ids, answered); diff != "" {
			t.Errorf("%s: message %d: result ids against call ids (-calls +results):\n%s", what, i, diff)
		}
	}
	seen := map[string]bool{}
	for _, id := range all {
		if id == "" || seen[id] {
			t.Errorf("%s: call ids %q: %q is empty or repeated", what, all, id)
		}
		seen[id] = true
	}
	if len(all) != want {
		t.Errorf("%s: %d calls (%q), want %d", what, len(all), all, want)
	}
}

// formatDropper is an adapter that keeps a response format in the probe
// request the loop sends itself, but drops it from real requests: an
// adapter whose behaviour depends on the request.
type formatDropper struct{ core.Adapter }

func (d formatDropper) DecodeRequest(b []byte) (*core.Request, error) {
	req, err := d.Adapter.DecodeRequest(b)
	if err == nil && req.Model != "probe" {
		req.ResponseFormat = nil
	}
	return req, err
}

// TestDroppedResponseFormatRefused checks the guard behind the step-tool
// choice: a structured request whose response format the adapter drops is
// ErrUnsupported before anything is sent, never a request that asks for
// nothing.
func TestDroppedResponseFormatRefused(t *testing.T) {
	f := newFixture(t)
	adapter, _ := providers.Lookup("openai-chat")
	srv := fakeprovider.New(adapter, *textResp(`{"step":{"answer":"hi"}}`))
	defer srv.Close()
	loop := &agent.Loop{Adapter: formatDropper{adapter}, Endpoint: agent.Endpoint{BaseURL: srv.URL}, Registry: f.reg,
		Model: "m", Mode: agent.ModeStructured}
	_, err := loop.Run(context.Background(), []core.Message{user("hi")})
	if !errors.Is(err, agent.ErrUnsupported) {
		t.Fatalf("got %v, want ErrUnsupported", err)
	}
	if n := len(srv.Received()); n != 0 {
		t.Errorf("provider received %d requests, want none", n)
	}
}

//go:build linux

package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
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
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
	"github.com/toolconform/conform/tools"
	"github.com/toolconform/conform/tools/command"
	"github.com/toolconform/conform/tools/sandbox"
)

// TestLoopSandboxedPrograms runs the loop against conform serve, whose
// scenario's response calls, in one turn, program tools that each try one
// thing the sandbox must stop, and a destructive Go function tool that the
// loop's configuration requires to be sandboxed. Every program runs under
// the loop's default policy; the results sent back name each refusal,
// serve grades the follow-up as passing, and the trace has each call's
// report.
func TestLoopSandboxedPrograms(t *testing.T) {
	policy := sandbox.Policy{Env: []string{"PATH"}, Limits: sandbox.Limits{AddressSpace: 2 << 30, Processes: 16}}
	c, err := sandbox.Prepare(context.Background(), policy, "/bin/true")
	if errors.Is(err, sandbox.ErrUnavailable) {
		t.Skipf("refused on this machine, as it must be: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	c.Cleanup()
	prog := filepath.Join(t.TempDir(), "prog")
	if out, err := exec.Command("go", "build", "-o", prog, "../tools/sandbox/testdata/prog").CombinedOutput(); err != nil {
		t.Fatalf("build prog: %v\n%s", err, out)
	}
	t.Setenv("CONFORM_TEST_API_KEY", "planted-secret")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	defer ln.Close()
	outside, err := os.MkdirTemp("", "agent-sandbox-outside-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(outside)
	if err := os.Chmod(outside, 0o777); err != nil {
		t.Fatal(err)
	}

	reg := tools.NewRegistry()
	empty := json.RawMessage(`{"type":"object"}`)
	programs := map[string][]string{
		"connect": {"net", ln.Addr().String()},
		"env":     {"env"},
		"write":   {"write", filepath.Join(outside, "escaped")},
		"alloc":   {"alloc", "8589934592"},
		"fork":    {"fork", "64"},
		"hold":    {"hold"},
	}
	for name, args := range programs {
		tool, err := command.New(name, "test program", empty, command.Program{Argv: append([]string{prog}, args...)}, tools.WithRisk(tools.RiskReadOnly))
		if err != nil {
			t.Fatal(err)
		}
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	var deleted atomic.Int32
	del, err := tools.NewTool("delete_file", "Delete a file.", func(ctx context.Context, in deleteIn) (deleteOut, error) {
		deleted.Add(1)
		return deleteOut{Deleted: true}, nil
	}, tools.WithRisk(tools.RiskDestructive))
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Add(del); err != nil {
		t.Fatal(err)
	}

	names := []string{"connect", "env", "write", "alloc", "fork", "hold", "delete_file"}
	var calls []core.Call
	for i, n := range names {
		args := `{}`
		if n == "delete_file" {
			args = `{"path":"/etc/passwd"}`
		}
		calls = append(calls, core.Call{ID: "call" + string(rune('A'+i)), Name: n, Arguments: json.RawMessage(args)})
	}
	adapter, err := providers.Lookup("openai-chat")
	if err != nil {
		t.Fatal(err)
	}
	sc := callsScenario(t, calls)
	name := sc.NameFor("openai-chat")
	srv, err := serve.New(serve.Options{Scenarios: []*scenarios.Scenario{sc}, Scenario: name})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	var mu sync.Mutex
	observed := map[string]bool{}
	holdEnded := make(chan struct{})
	loop := &agent.Loop{
		Adapter:  adapter,
		Endpoint: agent.Endpoint{BaseURL: ts.URL, Client: ts.Client()},
		Registry: reg,
		Model:    "fake-model",
		Mode:     agent.ModeNative,
		Stream:   true,
		Exec:     tools.ExecOptions{Timeout: 3 * time.Second, Concurrency: len(calls)},
		Approve:  func(context.Context, core.Call, tools.Risk) (bool, error) { return true, nil },
		Sandbox: command.Config{
			Default: &policy,
			Require: map[tools.Risk]bool{tools.RiskDestructive: true},
			Observe: func(c core.Call, _ sandbox.Report) {
				mu.Lock()
				defer mu.Unlock()
				observed[c.Name] = true
				if c.Name == "hold" {
					close(holdEnded)
				}
			},
		},
	}
	out, err := loop.Run(context.Background(), []core.Message{user("Try everything.")})
	if err != nil {
		var b strings.Builder
		out.Trace.Write(&b)
		t.Fatalf("Run: %v\ntrace:\n%s", err, b.String())
	}
	if v, _ := srv.Verdict(name); !v.Graded || !v.Pass {
		t.Errorf("serve's verdict on the follow-up: graded %v, pass %v, problems %v, errors %v", v.Graded, v.Pass, v.Problems, v.Errors)
	}
	texts := map[string]string{}
	for _, m := range out.Messages {
		for _, r := range m.Results() {
			texts[r.CallID] = r.Text()
		}
	}
	want := map[string]string{
		"callA": `tool "connect" failed: exited with status 3: denied: ENETUNREACH`,
		"callC": `tool "write" failed: exited with status 3: denied: ENOENT`,
		"callD": `tool "alloc" failed: exited with status 3: denied: ENOMEM`,
		"callE": `tool "fork" failed: exited with status 3: denied: EAGAIN`,
		"callF": `tool "hold" timed out after 3s`,
		"callG": `sandbox required: "delete_file" (risk: destructive) would run without a sandbox, which this agent requires for destructive tools; it was not run`,
	}
	env := texts["callB"]
	delete(texts, "callB")
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("results the provider received (-want +got):\n%s", diff)
	}
	if strings.Contains(env, "planted-secret") || !strings.Contains(env, "PATH=") {
		t.Errorf("env result: %q", env)
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the host listener accepted %d connections", n)
	}
	if n := deleted.Load(); n != 0 {
		t.Errorf("delete_file ran %d times", n)
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the write outside the working directory happened: %v", err)
	}
	var reported []string
	for _, e := range out.Trace.Entries {
		if e.Kind == agent.KindSandbox {
			reported = append(reported, e.Call.Name)
			if e.Sandbox.Limits != policy.Limits || e.Sandbox.Network != sandbox.NetworkNone || !e.Sandbox.NewRoot {
				t.Errorf("report of %s: %s", e.Call.Name, e.Sandbox)
			}
		}
	}
	// hold timed out: the registry answered before its run ended, so
	// the trace has no report for it.
	if diff := cmp.Diff([]string{"connect", "env", "write", "alloc", "fork"}, reported); diff != "" {
		t.Errorf("trace sandbox entries (-want +got):\n%s", diff)
	}
	<-holdEnded // the timed-out run reports once its processes are gone
}

// callsScenario is a conform serve case whose response makes calls.
func callsScenario(t *testing.T, calls []core.Call) *scenarios.Scenario {
	t.Helper()
	var parts, want []string
	for _, c := range calls {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, `{"kind":"tool_call","call":`+string(b)+`}`)
		want = append(want, string(b))
	}
	txt := "The model calls program tools that the sandbox must stop.\n\nseverity: MUST\nguards: D07\nprotocols: *\nkind: response\n" +
		"-- canonical-response.json --\n" +
		`{"message":{"role":"assistant","parts":[` + strings.Join(parts, ",") + `]},"finish_reason":"tool_calls"}` + "\n" +
		"-- want/calls.json --\n[" + strings.Join(want, ",") + "]\n"
	sc, err := scenarios.Parse("any/response/sandboxed-programs", "sandboxed-programs.txtar", []byte(txt), nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestLoopSandboxUnavailable runs the loop with a default policy this
// "machine" cannot enforce (a probe without user namespaces): the program
// is refused before it runs, and the model is told why.
func TestLoopSandboxUnavailable(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	tool, err := command.New("touch", "test program", json.RawMessage(`{"type":"object"}`),
		command.Program{Argv: []string{"/bin/sh", "-c", "echo ran > " + marker}}, tools.WithRisk(tools.RiskReadOnly))
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := reg.Add(tool); err != nil {
		t.Fatal(err)
	}
	adapter, err := providers.Lookup("anthropic")
	if err != nil {
		t.Fatal(err)
	}
	call := core.Call{ID: "toolu_1", Name: "touch", Arguments: json.RawMessage(`{}`)}
	srv := fakeprovider.New(adapter, scripted(agent.ModeNative, []turn{{calls: []core.Call{call}}, {text: "Done."}})...)
	defer srv.Close()
	missing := errors.New("disabled by the test's probe")
	loop := &agent.Loop{
		Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: srv.URL, Client: srv.Client()},
		Registry: reg, Model: "fake-model", Mode: agent.ModeNative,
		Sandbox: command.Config{Default: &sandbox.Policy{Probe: func() sandbox.Facilities { return sandbox.Facilities{UserNS: missing} }}},
	}
	if _, err := loop.Run(context.Background(), []core.Message{user("Touch it.")}); err != nil {
		t.Fatal(err)
	}
	_, results := lastResults(t, agent.ModeNative, srv.Received()[1].Request)
	want := `tool "touch" failed: sandbox restriction unavailable: user namespace: disabled by the test's probe`
	if len(results) != 1 || results[0].Text() != want {
		t.Errorf("results %+v, want one with %q", results, want)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the program ran: %v", err)
	}
}

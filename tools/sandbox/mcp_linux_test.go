package sandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolconform/conform/agent"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
	"github.com/toolconform/conform/tools"
	"github.com/toolconform/conform/tools/command"
	"github.com/toolconform/conform/tools/mcp"
	"github.com/toolconform/conform/tools/sandbox"
)

// sandboxedMCP builds testdata/mcpserver, starts it in a sandbox under p
// and connects to it over stdio as "fenced". The session is closed and
// the sandbox cleaned up when the test ends.
func sandboxedMCP(t *testing.T, p sandbox.Policy) (*mcp.Server, *sandbox.Command) {
	t.Helper()
	bin := filepath.Join(filepath.Dir(prog), "mcpserver")
	if _, err := os.Stat(bin); err != nil {
		if out, err := exec.Command("go", "build", "-o", bin, "./testdata/mcpserver").CombinedOutput(); err != nil {
			t.Fatalf("build testdata/mcpserver: %v\n%s", err, out)
		}
	}
	c := prepare(t, context.Background(), p, bin)
	var stderr strings.Builder
	c.Cmd.Stderr = &stderr
	s, err := mcp.ConnectCommand(context.Background(), "fenced", c.Cmd)
	if err != nil {
		c.Cleanup()
		t.Fatalf("connect: %v; server's stderr: %s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if err := c.Cleanup(); err != nil {
			t.Error(err)
		}
	})
	return s, c
}

// hostListener opens a listener on the host's 127.0.0.1 and counts what
// it accepts; each accept is also sent on the channel, if there is room.
func hostListener(t *testing.T) (string, *atomic.Int32, <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	events := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
			select {
			case events <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String(), &accepted, events
}

func mcpRegistry(t *testing.T, s *mcp.Server, opts ...tools.ToolOption) *tools.Registry {
	t.Helper()
	ts, err := s.Tools(context.Background(), append([]tools.ToolOption{tools.WithNameMapper(tools.NewNameMapper())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	for _, tool := range ts {
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// TestMCPServerInSandbox starts an MCP server over stdio in the sandbox,
// with its own loopback, and calls its tools: it cannot reach a listener
// on the host's loopback, cannot see a planted key, cannot write outside
// its working directory. Each call's error result names the errno.
func TestMCPServerInSandbox(t *testing.T) {
	t.Setenv("CONFORM_TEST_API_KEY", "planted-secret")
	addr, accepted, events := hostListener(t)
	outside, err := os.MkdirTemp("", "sandbox-mcp-outside-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(outside)
	if err := os.Chmod(outside, 0o777); err != nil {
		t.Fatal(err)
	}
	// The outside directory is given read-only: seen, not writable.
	s, c := sandboxedMCP(t, sandbox.Policy{Network: sandbox.NetworkLoopback, Env: []string{"PATH"}, Paths: []sandbox.Path{{Path: outside}}})
	rep := c.Report
	reg := mcpRegistry(t, s)
	ctx := context.Background()
	// The same server outside the sandbox reaches the listener and sees
	// the key.
	plain, err := mcp.ConnectCommand(ctx, "plain", exec.Command(filepath.Join(filepath.Dir(prog), "mcpserver")))
	if err != nil {
		t.Fatal(err)
	}
	plainReg := mcpRegistry(t, plain)
	if res := plainReg.Execute(ctx, core.Call{ID: "1", Name: "plain_connect", Arguments: json.RawMessage(fmt.Sprintf(`{"addr":%q}`, addr))}); res.Text() != "connected" {
		t.Errorf("unsandboxed connect: %q", res.Text())
	}
	if res := plainReg.Execute(ctx, core.Call{ID: "2", Name: "plain_env", Arguments: json.RawMessage(`{}`)}); !strings.Contains(res.Text(), "planted-secret") {
		t.Errorf("unsandboxed env lacks the planted key: %q", res.Text())
	}
	if err := plain.Close(); err != nil {
		t.Fatal(err)
	}
	<-events // the unsandboxed connection, counted
	before := accepted.Load()
	for _, tc := range []struct {
		tool, args, want string
		isError          bool
	}{
		{"fenced_connect", fmt.Sprintf(`{"addr":%q}`, addr), `tool "fenced_connect" failed: mcp server "fenced": tool "connect" returned an error: denied: ECONNREFUSED`, true},
		{"fenced_write", fmt.Sprintf(`{"path":%q}`, filepath.Join(outside, "escaped")), `tool "fenced_write" failed: mcp server "fenced": tool "write" returned an error: denied: EROFS`, true},
		{"fenced_env", `{}`, fmt.Sprintf("HOME=%s\nPATH=%s\nTMPDIR=%s", rep.WorkDir, os.Getenv("PATH"), rep.WorkDir), false},
	} {
		res := reg.Execute(ctx, core.Call{ID: tc.tool, Name: tc.tool, Arguments: json.RawMessage(tc.args)})
		if res.IsError != tc.isError || res.Text() != tc.want {
			t.Errorf("%s: got error=%v %q, want error=%v %q", tc.tool, res.IsError, res.Text(), tc.isError, tc.want)
		}
	}
	if n := accepted.Load() - before; n != 0 {
		t.Errorf("the host listener accepted %d connections from the sandbox", n)
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the write outside happened: %v", err)
	}
}

// fencedScenario is a case for conform serve whose response calls the
// sandboxed MCP server's connect and env tools.
const fencedScenario = `The model calls two tools of an MCP server running in a sandbox.

severity: MUST
guards: D07
protocols: *
kind: response
-- canonical-response.json --
{
 "message":{"role":"assistant","parts":[
  {"kind":"tool_call","call":{"id":"call_connect_1","name":"fenced_connect","arguments":{"addr":"ADDR"}}},
  {"kind":"tool_call","call":{"id":"call_env_2","name":"fenced_env","arguments":{}}}
 ]},
 "finish_reason":"tool_calls"
}
-- want/calls.json --
[
 {"id":"call_connect_1","name":"fenced_connect","arguments":{"addr":"ADDR"}},
 {"id":"call_env_2","name":"fenced_env","arguments":{}}
]
`

// TestMCPServerInSandboxAgentLoop runs the agent loop against conform
// serve, for every protocol, streamed and not, with the tools of the
// sandboxed MCP server: serve's response calls connect (to the host's
// loopback listener) and env; the results sent back say ECONNREFUSED and
// hold no planted key, and serve grades the follow-up as passing. The loop
// requires a sandbox at every risk level: the tools pass, marked with
// tools.WithProgram(the sandbox's Command); the same tools unmarked are
// refused.
func TestMCPServerInSandboxAgentLoop(t *testing.T) {
	t.Setenv("CONFORM_TEST_API_KEY", "planted-secret")
	addr, accepted, _ := hostListener(t)
	s, c := sandboxedMCP(t, sandbox.Policy{Network: sandbox.NetworkLoopback, Env: []string{"PATH"}})
	reg := mcpRegistry(t, s, tools.WithProgram(c))
	unmarked := mcpRegistry(t, s)
	requireAll := command.Config{Require: map[tools.Risk]bool{tools.RiskReadOnly: true, tools.RiskSideEffects: true, tools.RiskDestructive: true}}
	sc, err := scenarios.Parse("any/response/fenced-mcp", "fenced-mcp.txtar", []byte(strings.ReplaceAll(fencedScenario, "ADDR", addr)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, protocol := range providers.Names() {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", protocol, stream), func(t *testing.T) {
				adapter, err := providers.Lookup(protocol)
				if err != nil {
					t.Fatal(err)
				}
				name := sc.NameFor(protocol)
				srv, err := serve.New(serve.Options{Scenarios: []*scenarios.Scenario{sc}, Scenario: name})
				if err != nil {
					t.Fatal(err)
				}
				ts := httptest.NewServer(srv)
				defer ts.Close()
				loop := &agent.Loop{
					Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: ts.URL, Client: ts.Client()},
					Registry: reg, Model: "fake-model", Mode: agent.ModeNative, Stream: stream,
					Approve: func(context.Context, core.Call, tools.Risk) (bool, error) { return true, nil },
					Sandbox: requireAll,
				}
				out, err := loop.Run(context.Background(), []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("Try it.")}}})
				if err != nil {
					var b strings.Builder
					out.Trace.Write(&b)
					t.Fatalf("Run: %v\ntrace:\n%s", err, b.String())
				}
				if v, _ := srv.Verdict(name); !v.Graded || !v.Pass {
					t.Errorf("serve's verdict on the follow-up: graded %v, pass %v, problems %v, errors %v", v.Graded, v.Pass, v.Problems, v.Errors)
				}
				byName := map[string]core.Result{}
				for _, m := range out.Messages {
					for _, r := range m.Results() {
						byName[r.Name] = r
					}
				}
				if r := byName["fenced_connect"]; !r.IsError || !strings.HasSuffix(r.Text(), "denied: ECONNREFUSED") {
					t.Errorf("connect result: error=%v %q", r.IsError, r.Text())
				}
				if r := byName["fenced_env"]; r.IsError || strings.Contains(r.Text(), "planted-secret") || !strings.Contains(r.Text(), "PATH=") {
					t.Errorf("env result: error=%v %q", r.IsError, r.Text())
				}
			})
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the host listener accepted %d connections", n)
	}
	// The same tools without tools.WithProgram cannot show they are
	// sandboxed, and the requirement refuses them.
	t.Run("unmarked", func(t *testing.T) {
		adapter, err := providers.Lookup("anthropic")
		if err != nil {
			t.Fatal(err)
		}
		name := sc.NameFor("anthropic")
		srv, err := serve.New(serve.Options{Scenarios: []*scenarios.Scenario{sc}, Scenario: name})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		defer ts.Close()
		loop := &agent.Loop{
			Adapter: adapter, Endpoint: agent.Endpoint{BaseURL: ts.URL, Client: ts.Client()},
			Registry: unmarked, Model: "fake-model", Mode: agent.ModeNative,
			Approve: func(context.Context, core.Call, tools.Risk) (bool, error) { return true, nil },
			Sandbox: requireAll,
		}
		out, err := loop.Run(context.Background(), []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("Try it.")}}})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range out.Messages {
			for _, r := range m.Results() {
				n++
				if !r.IsError || !strings.HasPrefix(r.Text(), agent.ErrSandboxRequired.Error()+": ") {
					t.Errorf("%s: got error=%v %q, want a refusal", r.Name, r.IsError, r.Text())
				}
			}
		}
		if n != 2 {
			t.Errorf("%d results, want 2", n)
		}
	})
}

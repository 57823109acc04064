//go:build linux

package command_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/tools"
	"github.com/toolconform/conform/tools/command"
	"github.com/toolconform/conform/tools/sandbox"
)

// prog is tools/sandbox/testdata/prog, built once by TestMain.
var prog string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "command-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	prog = filepath.Join(dir, "prog")
	if out, err := exec.Command("go", "build", "-o", prog, "../sandbox/testdata/prog").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build prog: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var citySchema = json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)

// sandboxOrSkip returns p when this machine can enforce it; otherwise it
// checks the refusal and skips.
func sandboxOrSkip(t *testing.T, p sandbox.Policy) *sandbox.Policy {
	t.Helper()
	c, err := sandbox.Prepare(context.Background(), p, prog, "echo")
	if errors.Is(err, sandbox.ErrUnavailable) {
		t.Skipf("refused on this machine, as it must be: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	c.Cleanup()
	return &p
}

func registry(t *testing.T, ts ...*tools.Tool) *tools.Registry {
	t.Helper()
	r := tools.NewRegistry()
	for _, tool := range ts {
		if err := r.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func mustTool(t *testing.T, name string, p command.Program, opts ...tools.ToolOption) *tools.Tool {
	t.Helper()
	tool, err := command.New(name, "test tool", citySchema, p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// TestCommandTool runs command tools through a registry, sandboxed and
// not: the arguments reach standard input as validated, standard output
// is the result, a non-zero exit is an error result with standard error.
func TestCommandTool(t *testing.T) {
	for _, sandboxed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sandboxed=%v", sandboxed), func(t *testing.T) {
			var policy *sandbox.Policy
			if sandboxed {
				policy = sandboxOrSkip(t, sandbox.Policy{})
			}
			reg := registry(t,
				mustTool(t, "echo", command.Program{Argv: []string{prog, "echo"}, Sandbox: policy}),
				mustTool(t, "fail", command.Program{Argv: []string{prog, "fail"}, Sandbox: policy}))
			ctx := context.Background()
			for _, tc := range []struct {
				call    core.Call
				want    string
				isError bool
			}{
				{core.Call{ID: "1", Name: "echo", Arguments: json.RawMessage(`{ "city" : "Paris" }`)}, `{"city":"Paris"}`, false},
				{core.Call{ID: "2", Name: "echo", Arguments: json.RawMessage(`{"town":"Paris"}`)}, "", true},
				{core.Call{ID: "3", Name: "fail", Arguments: json.RawMessage(`{"city":"Atlantis"}`)}, `tool "fail" failed: exited with status 1: no such city`, true},
			} {
				res := reg.Execute(ctx, tc.call)
				if res.IsError != tc.isError || (tc.want != "" && res.Text() != tc.want) {
					t.Errorf("call %s: got error=%v %q, want error=%v %q", tc.call.ID, res.IsError, res.Text(), tc.isError, tc.want)
				}
			}
		})
	}
}

// TestOutputLimit floods standard output: the run stops at the limit,
// keeping exactly the limit's bytes.
func TestOutputLimit(t *testing.T) {
	for _, sandboxed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sandboxed=%v", sandboxed), func(t *testing.T) {
			p := command.Program{Argv: []string{prog, "flood"}, MaxOutputBytes: 1000}
			if sandboxed {
				p.Sandbox = sandboxOrSkip(t, sandbox.Policy{})
			}
			out, err := p.Run(context.Background(), json.RawMessage(`{}`))
			if !errors.Is(err, command.ErrOutputLimit) {
				t.Fatalf("got %v, want ErrOutputLimit", err)
			}
			if len(out.Stdout) != 1000 {
				t.Errorf("kept %d bytes, want 1000", len(out.Stdout))
			}
		})
	}
}

// TestRegistryOutputLimit floods standard output through a registry: the
// registry's MaxOutputBytes is the program's limit.
func TestRegistryOutputLimit(t *testing.T) {
	reg := registry(t, mustTool(t, "flood", command.Program{Argv: []string{prog, "flood"}}))
	res := reg.ExecuteWith(context.Background(), core.Call{ID: "1", Name: "flood", Arguments: json.RawMessage(`{"city":"x"}`)}, tools.ExecOptions{MaxOutputBytes: 1000})
	if want := `tool "flood" failed: program output passed the limit: 1000 bytes`; !res.IsError || res.Text() != want {
		t.Errorf("got %q, want %q", res.Text(), want)
	}
}

// TestTimeoutKillsEverything runs a program whose child holds its pipes
// and sleeps: Run returns at the timeout with ErrTimeout, and neither
// process is left, checked by the host pids found, while they ran, by a
// marker in their command lines.
func TestTimeoutKillsEverything(t *testing.T) {
	for _, sandboxed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sandboxed=%v", sandboxed), func(t *testing.T) {
			marker := fmt.Sprintf("marker-%d-%v", os.Getpid(), sandboxed)
			p := command.Program{Argv: []string{prog, "hold", marker}}
			if sandboxed {
				p.Sandbox = sandboxOrSkip(t, sandbox.Policy{})
			}
			found := make(chan []int, 1)
			go func() {
				for range 300 {
					if pids := processesWith(marker); len(pids) == 2 {
						found <- pids
						return
					}
					time.Sleep(10 * time.Millisecond)
				}
				found <- nil
			}()
			// The timeout must outlast the start of two Go programs.
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			_, err := p.Run(ctx, json.RawMessage(`{}`))
			if !errors.Is(err, command.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("got %v, want ErrTimeout from the deadline", err)
			}
			pids := <-found
			if len(pids) != 2 {
				t.Fatal("the program and its child were never seen on the host")
			}
			for _, pid := range pids {
				if state := processState(t, pid); state != "" {
					t.Errorf("pid %d left behind: %s", pid, state)
				}
			}
		})
	}
}

// processesWith returns the host pids whose command line holds s.
func processesWith(s string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if strings.Contains(string(b), s) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// processState returns "" for a pid that is no process or a process that
// has ended: a zombie, which its reaper (not this test) has yet to
// collect, or one exiting (PF_EXITING), whose SIGKILL cannot be undone.
// Otherwise it returns the process's /proc stat line.
func processState(t *testing.T, pid int) string {
	t.Helper()
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return ""
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if errors.Is(err, os.ErrNotExist) {
		return ""
	} else if err != nil {
		t.Fatal(err)
	}
	const pfExiting = 0x4
	// After the command name in parentheses: state, ppid, pgrp, session,
	// tty_nr, tpgid, flags.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	var flags uint64
	fmt.Sscan(fields[6], &flags)
	if fields[0] == "Z" || fields[0] == "X" || flags&pfExiting != 0 {
		return ""
	}
	return string(b)
}

// TestSandboxThroughRegistry runs sandboxed command tools through a
// registry with a Config in the context: a program trying the host's
// loopback listener and one printing its environment, a default policy
// for a program without one, and the reports observed per call.
func TestSandboxThroughRegistry(t *testing.T) {
	policy := sandboxOrSkip(t, sandbox.Policy{Env: []string{"PATH"}})
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
	reg := registry(t,
		mustTool(t, "connect", command.Program{Argv: []string{prog, "net", ln.Addr().String()}, Sandbox: policy}),
		mustTool(t, "env", command.Program{Argv: []string{prog, "env"}}))
	reports := map[string]sandbox.Report{}
	ctx := command.WithConfig(context.Background(), command.Config{
		Default: policy,
		Observe: func(c core.Call, r sandbox.Report) { reports[c.ID] = r },
	})
	res := reg.ExecuteWith(ctx, core.Call{ID: "c1", Name: "connect", Arguments: json.RawMessage(`{"city":"x"}`)}, tools.ExecOptions{Concurrency: 1})
	if want := `tool "connect" failed: exited with status 3: denied: ENETUNREACH`; !res.IsError || res.Text() != want {
		t.Errorf("connect: got %q, want %q", res.Text(), want)
	}
	res = reg.Execute(ctx, core.Call{ID: "c2", Name: "env", Arguments: json.RawMessage(`{"city":"x"}`)})
	if res.IsError || strings.Contains(res.Text(), "planted-secret") || !strings.Contains(res.Text(), "PATH=") {
		t.Errorf("env under the default policy: %q", res.Text())
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the host listener accepted %d connections", n)
	}
	if diff := cmp.Diff([]string{"c1", "c2"}, slices.Sorted(maps.Keys(reports))); diff != "" {
		t.Errorf("observed calls (-want +got):\n%s", diff)
	}
	if r := reports["c2"]; r.Network != sandbox.NetworkNone || !r.NewRoot || !r.Seccomp || !r.NoCapabilities || !r.PIDNamespace {
		t.Errorf("report of c2: %s", r)
	}
	for id, r := range reports {
		if _, err := os.Stat(r.WorkDir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: working directory %q still there: %v", id, r.WorkDir, err)
		}
	}
}

// TestRegistryTimeout runs the holding program through a registry with a
// timeout: the result says it timed out, and the run reports its end
// (Observe) once its processes are gone.
func TestRegistryTimeout(t *testing.T) {
	policy := sandboxOrSkip(t, sandbox.Policy{})
	reg := registry(t, mustTool(t, "hold", command.Program{Argv: []string{prog, "hold"}, Sandbox: policy}))
	ended := make(chan core.Call, 1)
	var workDir string
	ctx := command.WithConfig(context.Background(), command.Config{Observe: func(c core.Call, r sandbox.Report) {
		workDir = r.WorkDir
		ended <- c
	}})
	res := reg.ExecuteWith(ctx, core.Call{ID: "h1", Name: "hold", Arguments: json.RawMessage(`{"city":"x"}`)}, tools.ExecOptions{Timeout: 500 * time.Millisecond})
	if want := `tool "hold" timed out after 500ms`; !res.IsError || res.Text() != want {
		t.Errorf("got %q, want %q", res.Text(), want)
	}
	if c := <-ended; c.ID != "h1" {
		t.Errorf("observed call %q, want h1", c.ID)
	}
	if _, err := os.Stat(workDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("working directory %q still there when the run reported its end: %v", workDir, err)
	}
}

// TestRequired refuses an unsandboxed program at a risk level the Config
// requires a sandbox for, before it runs, and runs one at another level.
func TestRequired(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	reg := registry(t,
		mustTool(t, "rm", command.Program{Argv: []string{prog, "write", marker}}, tools.WithRisk(tools.RiskDestructive)),
		mustTool(t, "look", command.Program{Argv: []string{prog, "echo"}}, tools.WithRisk(tools.RiskReadOnly)))
	ctx := command.WithConfig(context.Background(), command.Config{Require: map[tools.Risk]bool{tools.RiskDestructive: true}})
	res := reg.Execute(ctx, core.Call{ID: "1", Name: "rm", Arguments: json.RawMessage(`{"city":"x"}`)})
	if want := `tool "rm" was not run: sandbox required: destructive tools must run in a sandbox, and "rm" would not (its program has no sandbox policy, and the configuration no default)`; res.Text() != want {
		t.Errorf("got %q, want %q", res.Text(), want)
	}
	// Run directly, outside a registry, the program refuses too.
	rm, _ := reg.Lookup("rm")
	if _, err := rm.Program().(*command.Program).Run(ctx, json.RawMessage(`{}`)); !errors.Is(err, command.ErrSandboxRequired) {
		t.Errorf("Program.Run: got %v, want ErrSandboxRequired", err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused program ran: %v", err)
	}
	if res := reg.Execute(ctx, core.Call{ID: "2", Name: "look", Arguments: json.RawMessage(`{"city":"x"}`)}); res.IsError {
		t.Errorf("read-only tool: %q", res.Text())
	}
}

// TestUnavailableRefusedBeforeRunning asks for a sandbox through a probe
// that lacks user namespaces: the run is refused and the program, which
// would write a file, never runs.
func TestUnavailableRefusedBeforeRunning(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	p := command.Program{Argv: []string{prog, "write", marker}, Sandbox: &sandbox.Policy{
		Probe: func() sandbox.Facilities { return sandbox.Facilities{UserNS: errors.New("disabled by test")} },
	}}
	out, err := p.Run(context.Background(), json.RawMessage(`{}`))
	var ue *sandbox.UnavailableError
	if !errors.As(err, &ue) || ue.Restriction != "user namespace" || out != nil {
		t.Fatalf("got %v, %v; want an *UnavailableError for the user namespace and no outcome", out, err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the program ran: %v", err)
	}
}

package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/tools"
	"github.com/toolconform/conform/tools/sandbox"
)

// ErrTimeout is wrapped by the error of a run whose context ended before
// the program did; every process of the run was killed.
var ErrTimeout = errors.New("program stopped at the timeout")

// ErrOutputLimit is wrapped by the error of a run whose standard output
// passed Program.MaxOutputBytes; the program was killed when it did.
var ErrOutputLimit = errors.New("program output passed the limit")

// ErrSandboxRequired is wrapped by the error of a run that the Config of
// its context requires to be sandboxed, for its risk level, when neither
// the program nor the Config has a sandbox policy.
var ErrSandboxRequired = errors.New("sandbox required")

// MaxStderrBytes is how much of standard error a run keeps for its error
// message; the rest is read and counted.
const MaxStderrBytes = 4 << 10

// Program is a command line a tool runs once per call: the call's
// arguments (a compact JSON object) on standard input, the result on
// standard output, an error as a non-zero exit status with the message on
// standard error.
type Program struct {
	// Argv is the command line; Argv[0] is looked up in PATH.
	Argv []string
	// Env is the environment of an unsandboxed run, nil meaning the
	// calling process's. A sandboxed run gets its policy's Env only.
	Env []string
	// Sandbox fences every run; nil leaves it to the Config of the
	// call's context (WithConfig), whose Default may fence it.
	Sandbox *sandbox.Policy
	// MaxOutputBytes bounds standard output, counted while it is read;
	// past it the program is killed and the run fails with
	// ErrOutputLimit. Zero means the registry's limit
	// (ExecOptions.MaxOutputBytes, through tools.OutputLimit), or
	// tools.DefaultMaxOutputBytes when the registry sets none.
	MaxOutputBytes int

	risk tools.Risk // the tool's, set by New
}

// Config is how the caller of a registry fences program tools: a default
// policy for those without one, and the risk levels that require a
// sandbox. It travels in the context given to Registry.Execute (and is
// set by the agent loop from its own configuration).
type Config struct {
	// Default fences the programs that have no policy of their own.
	Default *sandbox.Policy
	// Require names the risk levels whose tools must run sandboxed: a
	// program without a policy, here or its own, is refused with
	// ErrSandboxRequired before it runs.
	Require map[tools.Risk]bool
	// Observe, if set, is called after each sandboxed run with the call
	// it ran (from tools.CallFromContext; zero outside a registry) and
	// what the sandbox enforced, once every process of the run is gone
	// and its working directory removed.
	Observe func(call core.Call, report sandbox.Report)
}

type configKey struct{}

// WithConfig returns a context whose program tools run under cfg. A
// registry executing a call in it (tools.Registry.ExecuteWith) refuses,
// with ErrSandboxRequired and before its handler runs, a tool at a risk
// level cfg.Require names that would not run sandboxed: a Go function
// tool, which runs in this process, or a tool whose Program cannot say it
// is sandboxed.
func WithConfig(ctx context.Context, cfg Config) context.Context {
	ctx = context.WithValue(ctx, configKey{}, cfg)
	if len(cfg.Require) == 0 {
		return ctx
	}
	return tools.WithGuard(ctx, func(ctx context.Context, t *tools.Tool) error {
		if !cfg.Require[t.Risk()] || Sandboxed(ctx, t) {
			return nil
		}
		return fmt.Errorf("%w: %s tools must run in a sandbox, and %q would not (%s)", ErrSandboxRequired, t.Risk(), t.Name(), unsandboxedReason(t))
	})
}

// Sandboxed reports whether a call of t in ctx would run in a sandbox:
// only a tool that runs a program, and says so through its Program's
// Sandboxed method (a *Program of this package, a *sandbox.Command), can.
func Sandboxed(ctx context.Context, t *tools.Tool) bool {
	f, ok := t.Program().(interface{ Sandboxed(context.Context) bool })
	return ok && f.Sandboxed(ctx)
}

// unsandboxedReason says why t would run unsandboxed.
func unsandboxedReason(t *tools.Tool) string {
	switch t.Program().(type) {
	case nil:
		return "a Go function tool runs in this process"
	case *Program:
		return "its program has no sandbox policy, and the configuration no default"
	}
	return "its program does not run in a sandbox"
}

// ConfigFrom returns the Config of ctx, or the zero Config.
func ConfigFrom(ctx context.Context) Config {
	cfg, _ := ctx.Value(configKey{}).(Config)
	return cfg
}

// New builds a tool that runs p for each call. Arguments are validated
// against inputSchema first, as for every tool; the registry's timeout
// cancels the run, which kills every process it started. The tool's
// Program (tools.Tool.Program) is a copy of p.
func New(name, description string, inputSchema json.RawMessage, p Program, opts ...tools.ToolOption) (*tools.Tool, error) {
	if len(p.Argv) == 0 || p.Argv[0] == "" {
		return nil, fmt.Errorf("command tool %q: empty command line", name)
	}
	prog := p
	prog.Argv = append([]string(nil), p.Argv...)
	handler := func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		out, err := prog.Run(ctx, args)
		if err != nil {
			return nil, err
		}
		return out.Stdout, nil
	}
	opts = append([]tools.ToolOption{tools.WithOrigin("command " + strings.Join(prog.Argv, " ")), tools.WithProgram(&prog)}, opts...)
	t, err := tools.NewRawTool(name, description, inputSchema, handler, opts...)
	if err != nil {
		return nil, err
	}
	prog.risk = t.Risk()
	return t, nil
}

// Sandboxed reports whether a run in ctx would be sandboxed: the program
// has a policy, or the Config of ctx has a default.
func (p *Program) Sandboxed(ctx context.Context) bool {
	return p.policy(ctx) != nil
}

func (p *Program) policy(ctx context.Context) *sandbox.Policy {
	if p.Sandbox != nil {
		return p.Sandbox
	}
	return ConfigFrom(ctx).Default
}

// Outcome is a finished run: the program's standard output, the start of
// its standard error, and what the sandbox enforced (nil when it ran
// unsandboxed).
type Outcome struct {
	Stdout  []byte
	Stderr  string
	Sandbox *sandbox.Report
}

// ExitError is the error of a program that exited with a non-zero status
// or was killed by a signal (SIGXCPU at the CPU limit, for instance).
type ExitError struct {
	Code   int    // the exit status, or -1 for a signal
	Signal string // the signal's name, if one ended it
	Stderr string // the start of standard error
}

func (e *ExitError) Error() string {
	how := fmt.Sprintf("exited with status %d", e.Code)
	if e.Signal != "" {
		how = "killed by " + e.Signal
	}
	if msg := strings.TrimSpace(e.Stderr); msg != "" {
		return how + ": " + msg
	}
	return how
}

// Run runs the program once with args on standard input and returns its
// output, or an error: ErrSandboxRequired or a *sandbox.UnavailableError
// before anything runs; ErrTimeout, ErrOutputLimit, an *ExitError or
// sandbox.ErrSetup after. Run returns once every process the run started
// is gone, even when a child holds the program's pipes.
func (p *Program) Run(ctx context.Context, args json.RawMessage) (*Outcome, error) {
	cfg := ConfigFrom(ctx)
	policy := p.policy(ctx)
	if policy == nil && cfg.Require[p.risk] {
		return nil, fmt.Errorf("%w: %s tools must run in a sandbox, and %q has no sandbox policy", ErrSandboxRequired, p.risk, p.Argv[0])
	}
	ctx, kill := context.WithCancelCause(ctx)
	defer kill(nil)

	var cmd *exec.Cmd
	var sc *sandbox.Command
	out := &Outcome{}
	if policy != nil {
		var err error
		if sc, err = sandbox.Prepare(ctx, *policy, p.Argv[0], p.Argv[1:]...); err != nil {
			return nil, err
		}
		defer sc.Cleanup() // after a panic; otherwise done below
		cmd = sc.Cmd
		rep := sc.Report
		out.Sandbox = &rep
	} else {
		cmd = exec.CommandContext(ctx, p.Argv[0], p.Argv[1:]...)
		cmd.Env = p.Env
		killGroupOnCancel(cmd)
		cmd.WaitDelay = sandbox.WaitDelay
	}
	limit := p.MaxOutputBytes
	if limit <= 0 {
		limit = tools.OutputLimit(ctx)
	}
	if limit < 0 {
		limit = tools.DefaultMaxOutputBytes
	}
	stdout := &capped{limit: limit, over: func() { kill(ErrOutputLimit) }}
	stderr := &capped{limit: MaxStderrBytes}
	cmd.Stdin = bytes.NewReader(args)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	out.Stdout, out.Stderr = stdout.buf.Bytes(), stderr.buf.String()
	if sc != nil {
		if cerr := sc.Cleanup(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if out.Sandbox != nil && cfg.Observe != nil {
		call, _ := tools.CallFromContext(ctx)
		cfg.Observe(call, *out.Sandbox)
	}
	if cause := context.Cause(ctx); err != nil && cause != nil {
		if errors.Is(cause, ErrOutputLimit) {
			return out, fmt.Errorf("%w: %d bytes", ErrOutputLimit, limit)
		}
		return out, fmt.Errorf("%w: %w", ErrTimeout, cause)
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		xe := &ExitError{Code: ee.ExitCode(), Stderr: out.Stderr}
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			xe.Signal = ws.Signal().String()
		}
		if policy != nil && xe.Code == sandbox.SetupExitCode {
			return out, fmt.Errorf("%w: %s", sandbox.ErrSetup, strings.TrimSpace(out.Stderr))
		}
		return out, xe
	case err != nil:
		return out, fmt.Errorf("run %s: %w", p.Argv[0], err)
	}
	return out, nil
}

// capped keeps the first limit bytes written to it and calls over once
// when more arrive, then reports the write failed, which ends exec's
// copying from the pipe.
type capped struct {
	buf   bytes.Buffer
	limit int
	over  func()
}

func (c *capped) Write(b []byte) (int, error) {
	room := c.limit - c.buf.Len()
	if room >= len(b) {
		return c.buf.Write(b)
	}
	c.buf.Write(b[:max(room, 0)])
	if c.over == nil {
		return len(b), nil // standard error: keep the start, read the rest
	}
	c.over()
	return 0, io.ErrShortWrite
}

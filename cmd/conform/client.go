package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
)

// clientOptions configure run --client. The lead's run.go fills them from
// its flags.
type clientOptions struct {
	// Run and Skip select scenarios by their protocol-qualified names; no
	// Run pattern means every servable scenario. A Run pattern that
	// matches nothing is a usage error.
	Run, Skip []scenarios.Pattern
	// KnownFailing lists cases that are expected to fail; they are
	// reported and do not fail the run (a known failure that passes is
	// reported too).
	KnownFailing []scenarios.Pattern
	// Chaos lists the chaos variants to run each scenario with; empty
	// means one run without chaos.
	Chaos []serve.Chaos
	// Timeout bounds one run of the client; 0 means 60 seconds.
	Timeout time.Duration
	// Format is "text" (the default) or "json".
	Format string
	// Parallel runs that many clients at once; 0 or 1 means one at a time.
	Parallel int
}

// The environment a client program reads; docs/client-protocol.md is the
// contract.
const (
	envBaseURL  = "CONFORM_BASE_URL"
	envScenario = "CONFORM_SCENARIO"
	envProtocol = "CONFORM_PROTOCOL"
	envStream   = "CONFORM_STREAM"
	envModel    = "CONFORM_MODEL"
	envTools    = "CONFORM_TOOLS"
	envChaos    = "CONFORM_CHAOS"
	// clientKey is the API key handed to clients; serve accepts any.
	clientKey = "conform-test-key"
)

// clientResult is the outcome of one client run.
type clientResult struct {
	Name     string        `json:"name"`
	Scenario string        `json:"scenario"`
	Protocol string        `json:"protocol"`
	Chaos    string        `json:"chaos"`
	Status   string        `json:"status"` // pass, fail, known-failing, fixed
	Reasons  []string      `json:"reasons,omitempty"`
	Exit     int           `json:"exit"`
	TimedOut bool          `json:"timed_out,omitempty"`
	Verdict  serve.Verdict `json:"verdict"`
	Stdout   string        `json:"stdout,omitempty"`
	Stderr   string        `json:"stderr,omitempty"`
	Elapsed  string        `json:"elapsed"`
}

// runClient runs the shell command cmd once for every selected scenario and
// chaos variant, each time against a fresh conform serve on loopback, and
// grades what reached the server and how the command exited (see
// docs/client-protocol.md). It prints one result per run and returns
// exitOK when every run passed (or failed as known), exitFail otherwise,
// exitUsage for bad options.
func runClient(ctx context.Context, e *env, cmd string, opts clientOptions) int {
	if strings.TrimSpace(cmd) == "" {
		e.errorf("run --client: empty command")
		return exitUsage
	}
	cases, err := loadServable()
	if err != nil {
		e.errorf("run --client: load scenarios: %v", err)
		return exitFail
	}
	probe, err := serve.New(serve.Options{Scenarios: cases})
	if err != nil {
		e.errorf("run --client: %v", err)
		return exitFail
	}
	byName := map[string]*scenarios.Scenario{}
	for _, sc := range cases {
		for _, p := range providers.Names() {
			if sc.Applies(p) {
				byName[sc.NameFor(p)] = sc
			}
		}
	}
	var names []string
	used := make([]bool, len(opts.Run))
	for _, name := range probe.Names() {
		sel := len(opts.Run) == 0
		for i, p := range opts.Run {
			if p.Match(name) {
				sel, used[i] = true, true
			}
		}
		for _, p := range opts.Skip {
			if p.Match(name) {
				sel = false
			}
		}
		if sel {
			names = append(names, name)
		}
	}
	for i, u := range used {
		if !u {
			e.errorf("run --client: %s matches no servable scenario", opts.Run[i].Where())
			return exitUsage
		}
	}
	chaos := opts.Chaos
	if len(chaos) == 0 {
		chaos = []serve.Chaos{{}}
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	type job struct {
		i     int
		name  string
		chaos serve.Chaos
	}
	var jobs []job
	for _, name := range names {
		for _, c := range chaos {
			jobs = append(jobs, job{len(jobs), name, c})
		}
	}
	results := make([]clientResult, len(jobs))
	par := max(opts.Parallel, 1)
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	var printMu sync.Mutex
	next := 0
	printed := make([]bool, len(jobs))
	for _, j := range jobs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			protocol, _ := probe.Protocol(j.name)
			res := runOneClient(ctx, cmd, cases, byName[j.name], j.name, protocol, j.chaos, timeout)
			applyKnown(&res, opts.KnownFailing)
			printMu.Lock()
			defer printMu.Unlock()
			results[j.i], printed[j.i] = res, true
			// Print in job order as results come in.
			for next < len(jobs) && printed[next] {
				if opts.Format != "json" {
					printClientResult(e, results[next])
				}
				next++
			}
		}()
	}
	wg.Wait()
	counts := map[string]int{}
	for _, r := range results {
		counts[r.Status]++
	}
	if opts.Format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(results)
	} else {
		fmt.Fprintf(e.stdout, "client: %d runs: %d pass, %d fail, %d known-failing, %d fixed\n", len(results), counts["pass"], counts["fail"], counts["known-failing"], counts["fixed"])
	}
	if counts["fail"] > 0 {
		return exitFail
	}
	return exitOK
}

// applyKnown turns a failure listed as known into known-failing, and a
// pass listed as known into fixed (which fails, so the list stays true).
func applyKnown(res *clientResult, known []scenarios.Pattern) {
	for _, p := range known {
		if p.Match(res.Name) || p.Match(res.Scenario) {
			switch res.Status {
			case "fail":
				res.Status = "known-failing"
			case "pass":
				res.Status = "fail"
				res.Reasons = append(res.Reasons, fmt.Sprintf("listed as known failing by %s but passed; remove it from the list", p.Where()))
			}
			return
		}
	}
}

func printClientResult(e *env, r clientResult) {
	word := strings.ToUpper(r.Status)
	fmt.Fprintf(e.stdout, "%s %s (exit %d, %s)\n", word, r.Name, r.Exit, r.Elapsed)
	if r.Status == "pass" {
		return
	}
	for _, reason := range r.Reasons {
		fmt.Fprintf(e.stdout, "\t%s\n", reason)
	}
	if tail := lastLines(r.Stderr, 5); tail != "" {
		fmt.Fprintf(e.stdout, "\tstderr:\n%s\n", indentLines(tail, "\t\t"))
	}
}

// clientTools returns the tools a client declares for a scenario: its
// tools.json, else one permissive tool per call name it expects.
func clientTools(sc *scenarios.Scenario) []core.ToolSpec {
	if len(sc.Tools) > 0 {
		return sc.Tools
	}
	var out []core.ToolSpec
	seen := map[string]bool{}
	for _, c := range sc.Want.Calls {
		name, _ := c["name"].(string)
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, core.ToolSpec{Name: name, Description: "conform test tool " + name, InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	return out
}

// limitedBuffer keeps the last max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// runOneClient serves one scenario with one chaos variant, runs the client
// against it and grades the run.
func runOneClient(ctx context.Context, cmd string, cases []*scenarios.Scenario, sc *scenarios.Scenario, name, protocol string, chaos serve.Chaos, timeout time.Duration) (res clientResult) {
	res = clientResult{Name: name, Scenario: name, Protocol: protocol, Chaos: chaos.String(), Exit: -1}
	if chaos != (serve.Chaos{}) {
		res.Name = name + "[" + chaos.String() + "]"
	}
	start := time.Now()
	defer func() { res.Elapsed = time.Since(start).Round(time.Millisecond).String() }()
	fail := func(format string, args ...any) {
		res.Status = "fail"
		res.Reasons = append(res.Reasons, fmt.Sprintf(format, args...))
	}
	srv, err := serve.New(serve.Options{Scenarios: cases, Scenario: name, Chaos: chaos})
	if err != nil {
		fail("start serve: %v", err)
		return res
	}
	ln, err := serve.Listen("127.0.0.1:0")
	if err != nil {
		fail("%v", err)
		return res
	}
	base := serve.URL(ln)
	sctx, stopServe := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.ServeListener(sctx, ln) }()
	defer func() {
		stopServe()
		<-served
	}()

	ep, _ := providers.HTTP(protocol)
	tools, _ := json.Marshal(clientTools(sc))
	stream := "0"
	if sc.Kind == scenarios.KindStream {
		stream = "1"
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := exec.CommandContext(cctx, "/bin/sh", "-c", cmd)
	c.Env = append(os.Environ(),
		envBaseURL+"="+base,
		envScenario+"="+name,
		envProtocol+"="+protocol,
		envStream+"="+stream,
		envModel+"="+ep.DefaultModel,
		envTools+"="+string(tools),
		envChaos+"="+chaos.String(),
		"OPENAI_BASE_URL="+base+"/v1",
		"ANTHROPIC_BASE_URL="+base,
		"GOOGLE_GEMINI_BASE_URL="+base,
		"GEMINI_BASE_URL="+base,
		"CO_API_URL="+base,
		"MISTRAL_SERVER_URL="+base,
		"OLLAMA_HOST="+base,
		"OPENAI_API_KEY="+clientKey,
		"ANTHROPIC_API_KEY="+clientKey,
		"GEMINI_API_KEY="+clientKey,
		"GOOGLE_API_KEY="+clientKey,
		"GOOGLE_GENERATIVE_AI_API_KEY="+clientKey,
		"CO_API_KEY="+clientKey,
		"MISTRAL_API_KEY="+clientKey,
	)
	stdout := &limitedBuffer{max: 16 << 10}
	stderr := &limitedBuffer{max: 16 << 10}
	c.Stdout, c.Stderr = stdout, stderr
	c.WaitDelay = 2 * time.Second
	err = c.Run()
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	res.Exit = c.ProcessState.ExitCode()
	if cctx.Err() != nil && ctx.Err() == nil {
		res.TimedOut = true
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !res.TimedOut {
		fail("run %q: %v", cmd, err)
		return res
	}
	v, _ := srv.Verdict(name)
	res.Verdict = v
	gradeClient(&res, sc, chaos)
	return res
}

// gradeClient decides a run: see docs/client-protocol.md, "Grading".
func gradeClient(res *clientResult, sc *scenarios.Scenario, chaos serve.Chaos) {
	v := res.Verdict
	fail := func(format string, args ...any) {
		res.Reasons = append(res.Reasons, fmt.Sprintf(format, args...))
	}
	if res.TimedOut {
		fail("the client did not finish in time")
	}
	if v.Served == 0 {
		fail("the client never sent its first request (errors: %s)", strings.Join(v.Errors, "; "))
	}
	for _, er := range v.Errors {
		fail("server refused a request: %s", er)
	}
	for _, p := range v.Problems {
		fail("follow-up: %s", p)
	}
	faulty := sc.Want.Error != nil || chaos.Disconnect || chaos.Error
	switch {
	case faulty:
		// The stream is broken on purpose: the client must not run a call
		// it did not receive whole (a B09 problem above), and should
		// report the failure rather than answer.
		if res.Exit == 0 && v.Graded && len(v.Incomplete) > 0 {
			fail("exit 0 after a broken stream with %d incomplete call(s)", len(v.Incomplete))
		}
	case len(v.Calls) > 0:
		if !v.Graded {
			fail("served %d call(s) but no follow-up with tool results arrived", len(v.Calls))
		}
		if res.Exit != 0 {
			fail("exit status %d, want 0", res.Exit)
		}
		if !strings.Contains(res.Stdout, serve.DefaultAnswer) {
			fail("stdout does not show the final answer %q", serve.DefaultAnswer)
		}
	default:
		// No complete call was served (F03, F06): no follow-up is due.
		if v.Graded {
			fail("sent a follow-up although no call was served")
		}
		if res.Exit != 0 {
			fail("exit status %d, want 0", res.Exit)
		}
	}
	if len(res.Reasons) == 0 {
		res.Status = "pass"
	} else {
		res.Status = "fail"
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

func indentLines(s, prefix string) string {
	var b bytes.Buffer
	for i, l := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(prefix + l)
	}
	return b.String()
}

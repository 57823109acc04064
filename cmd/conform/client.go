package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

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

// clientResult is the outcome of one client run.
type clientResult = serve.ClientRun

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
			res := serve.RunClient(ctx, serve.ClientSpec{Command: cmd, Scenarios: cases, Scenario: j.name, Chaos: j.chaos, Timeout: timeout})
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

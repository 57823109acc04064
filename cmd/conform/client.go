package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/report"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
)

// clientOptions configure run --client.
type clientOptions struct {
	// Protocols selects the scenarios of these protocols; none means
	// every protocol.
	Protocols []string
	// Run and Skip select scenarios by their protocol-qualified names; no
	// Run pattern means every servable scenario. A Run pattern that
	// matches nothing is a usage error.
	Run, Skip []scenarios.Pattern
	// KnownFailing lists cases that are expected to fail; they are
	// reported and do not fail the run (a known failure that passes is
	// reported too).
	KnownFailing []scenarios.Pattern
	// Chaos lists the chaos variants to run each stream scenario with;
	// empty means one run without chaos. A variant runs only where it
	// changes what is served (serve.ChaosChanges).
	Chaos []serve.Chaos
	// Timeout bounds one run of the client; 0 means 60 seconds.
	Timeout time.Duration
	// Format is "text" (the default) or "json".
	Format string
	// Out, when set, names the file the report goes to; standard output
	// then gets the closing line alone.
	Out string
	// Strict counts failed SHOULD cases as failures.
	Strict bool
	// Parallel runs that many clients at once; 0 or 1 means one at a time.
	Parallel int
	// Reduce reduces each failed stream run to its cause
	// (serve.ReduceClient), at the cost of up to reduce.DefaultBudget
	// more runs of the client.
	Reduce bool
	// Shard makes only this shard's share of the (scenario, chaos
	// variant) runs.
	Shard shardFlag
}

// clientResult is the outcome of one client run.
type clientResult = serve.ClientRun

// clientCounts tallies client runs by how they count.
type clientCounts struct {
	Runs         int `json:"runs"`
	Passed       int `json:"passed"`
	Failed       int `json:"failed"`
	KnownFailing int `json:"known_failing"`
	NotCounted   int `json:"not_counted"`
	// Discounted counts passes by failing that are not counted because
	// the client failed their control (serve.ApplyControls), Crashed the
	// runs that failed because the program crashed.
	Discounted int `json:"discounted"`
	Crashed    int `json:"crashed"`
	// Other counts statuses besides pass, fail and known-failing, by name.
	Other map[string]int `json:"other,omitempty"`
}

func (c *clientCounts) add(r clientResult) {
	c.Runs++
	if r.Crash != "" {
		c.Crashed++
	}
	switch {
	case r.Status == serve.StatusNotCounted:
		c.Discounted++
	case r.Status == "pass":
		c.Passed++
	case r.Status == "known-failing":
		c.KnownFailing++
	case r.Status == "fail" && r.Counted != nil && !*r.Counted:
		c.NotCounted++
	case r.Status == "fail":
		c.Failed++
	default:
		if c.Other == nil {
			c.Other = map[string]int{}
		}
		c.Other[r.Status]++
	}
}

func (c clientCounts) String() string {
	s := fmt.Sprintf("client: %d runs: %d pass, %d fail, %d known-failing, %d failed but not counted", c.Runs, c.Passed, c.Failed, c.KnownFailing, c.NotCounted)
	if c.Discounted > 0 {
		s += fmt.Sprintf(", %d passed by failing but not counted (the client fails the control)", c.Discounted)
	}
	if c.Crashed > 0 {
		s += fmt.Sprintf(", %d crashed", c.Crashed)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Other)) {
		s += fmt.Sprintf(", %d %s", c.Other[k], k)
	}
	return s
}

// runClient runs the shell command cmd once for every selected scenario and
// chaos variant, each time against a fresh conform serve on loopback, and
// grades what reached the server and how the command exited (see
// docs/client-protocol.md). It prints each result as it finishes, then the
// counts, and returns exitOK when no counted run failed, exitFail
// otherwise, exitUsage for bad options.
func runClient(ctx context.Context, e *env, cmd string, opts clientOptions) int {
	if strings.TrimSpace(cmd) == "" {
		e.errorf("run --client: empty command")
		return exitUsage
	}
	for _, p := range opts.Protocols {
		if _, err := providers.Lookup(p); err != nil {
			e.errorf("run --client: --protocol: unknown protocol %q; known: %s", p, strings.Join(providers.Names(), ", "))
			return exitUsage
		}
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
		if protocol, _ := probe.Protocol(name); len(opts.Protocols) > 0 && !slices.Contains(opts.Protocols, protocol) {
			continue
		}
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
			of := ""
			if len(opts.Protocols) > 0 {
				of = " of " + strings.Join(opts.Protocols, ", ")
			}
			e.errorf("run --client: %s matches no servable scenario%s", opts.Run[i].Where(), of)
			return exitUsage
		}
	}
	if len(names) == 0 {
		e.errorf("run --client: no servable scenario selected")
		return exitUsage
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	type job struct {
		name  string
		chaos serve.Chaos
	}
	var all, jobs []job
	for _, name := range names {
		all = append(all, job{name, serve.Chaos{}})
		sc, _ := probe.Scenario(name)
		protocol, _ := probe.Protocol(name)
		for _, c := range opts.Chaos {
			if serve.ChaosChanges(c, sc, protocol) {
				all = append(all, job{name, c})
			}
		}
	}
	for k, j := range all {
		if opts.Shard.keep(k) {
			jobs = append(jobs, j)
		}
	}

	w := e.stdout
	var file *os.File
	if opts.Out != "" {
		if file, err = os.Create(opts.Out); err != nil {
			e.errorf("run --client: %v", err)
			return exitUsage
		}
		w = file
	}
	enc := json.NewEncoder(w)
	var counts clientCounts
	var finished []clientResult
	start := time.Now()
	// With the results in a file, stderr shows how far the run has got.
	prog := newProgress(io.Discard, false)
	if opts.Out != "" {
		prog = newProgress(e.stderr, stderrIsTerminal(e.stderr))
		prog.unit, prog.perLine = "client runs", 20
	}
	write := func(res clientResult) {
		counts.add(res)
		if opts.Format == "json" {
			enc.Encode(res)
		} else {
			printClientResult(w, res)
		}
	}
	// A pass by failing waits for the end, where its control is known
	// (serve.ApplyControls); every other result is written as it
	// finishes, so a long run shows its progress.
	var held []int // indexes in finished of the results not written yet
	var mu sync.Mutex
	sem := make(chan struct{}, max(opts.Parallel, 1))
	var wg sync.WaitGroup
	for _, j := range jobs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			spec := serve.ClientSpec{Command: cmd, Scenarios: cases, Scenario: j.name, Chaos: j.chaos, Timeout: timeout}
			res := serve.RunClient(ctx, spec)
			if opts.Reduce {
				res.Reduction = serve.ReduceClient(ctx, spec, res, 0)
			}
			fixed := applyKnown(&res, opts.KnownFailing)
			if res.Status == "fail" {
				counted := fixed || res.Severity == scenarios.MUST || res.Severity == "" || (res.Severity == scenarios.SHOULD && opts.Strict)
				res.Counted = &counted
			}
			mu.Lock()
			defer mu.Unlock()
			finished = append(finished, res)
			prog.step(len(finished), len(jobs), res.Name)
			if res.ByFailing && res.Status == "pass" {
				held = append(held, len(finished)-1)
			} else {
				write(res)
			}
		}()
	}
	wg.Wait()
	prog.done()
	serve.ApplyControls(finished)
	for _, i := range held {
		write(finished[i])
	}
	prov := report.NewProvenance("run --client", start)
	prov.Scenarios = report.ScenarioHash(cases)
	for _, c := range opts.Chaos {
		if c.Split {
			prov = prov.WithSeeds(c.Seed)
		}
	}
	slices.SortFunc(finished, func(a, b clientResult) int { return strings.Compare(a.Name, b.Name) })
	groups := clientGroups(finished)
	if opts.Format == "json" {
		enc.Encode(clientTotals{Provenance: prov, Totals: counts, Strict: opts.Strict, Passed: counts.Failed == 0, Groups: groups})
	} else {
		report.WriteGroups(w, groups)
		fmt.Fprintln(w, counts)
	}
	if file != nil {
		if err := file.Close(); err != nil {
			e.errorf("run --client: writing the report: %v", err)
			return exitFail
		}
		fmt.Fprintf(e.stdout, "%s; report in %s\n", counts, opts.Out)
	}
	if counts.Failed > 0 {
		return exitFail
	}
	return exitOK
}

// clientTotals is the last line of run --client --format json: the
// counts, the failures grouped by fault, and what produced the results.
type clientTotals struct {
	Provenance report.Provenance `json:"provenance"`
	Totals     clientCounts      `json:"totals"`
	Strict     bool              `json:"strict"`
	Passed     bool              `json:"passed"`
	Groups     []report.Group    `json:"groups"`
}

// clientGroups groups failed client runs by protocol, reduced cause and
// failure mode (serve.ClientRun.Finding).
func clientGroups(rs []clientResult) []report.Group {
	var fs []report.Finding
	for _, r := range rs {
		if r.Status == "fail" || r.Status == "known-failing" {
			fs = append(fs, r.Finding(r.Protocol))
		}
	}
	groups := report.GroupFindings(fs)
	if groups == nil {
		groups = []report.Group{}
	}
	return groups
}

// applyKnown turns a failure listed as known into known-failing, and a
// pass listed as known into a failure (so the list stays true), which it
// reports as fixed.
func applyKnown(res *clientResult, known []scenarios.Pattern) (fixed bool) {
	for _, p := range known {
		if p.Match(res.Name) || p.Match(res.Scenario) {
			switch res.Status {
			case "fail":
				res.Status = "known-failing"
			case "pass":
				res.Status = "fail"
				res.Held = nil
				res.Reasons = append(res.Reasons, fmt.Sprintf("listed as known failing by %s but passed; remove it from the list", p.Where()))
				return true
			}
			return false
		}
	}
	return false
}

func printClientResult(w io.Writer, r clientResult) {
	word := strings.ToUpper(r.Status)
	if r.Counted != nil && !*r.Counted {
		word += " (not counted: " + string(r.Severity) + ")"
	}
	fmt.Fprintf(w, "%s %s (exit %d, %s)\n", word, r.Name, r.Exit, r.Elapsed)
	if r.Status == "pass" {
		return
	}
	for _, reason := range r.Reasons {
		fmt.Fprintf(w, "\t%s\n", reason)
	}
	if red := r.Reduction; red != nil {
		fmt.Fprintf(w, "\tcause: %s\n\tsmallest failing variant: %s (%s)\n\tsteps: %s\n", red.Cause(), red.Smallest(), red.Summary(), red.Tried())
	}
	tail := lastLines(r.Stderr, 5)
	if r.Panic != "" && !strings.Contains(tail, r.Panic) {
		// The stack after a crash pushes its message out of the tail.
		fmt.Fprintf(w, "\tcrashed: %s\n", r.Panic)
	}
	if tail != "" {
		fmt.Fprintf(w, "\tstderr:\n%s\n", indentLines(tail, "\t\t"))
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

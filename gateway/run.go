package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/toolconform/conform/scenarios"
)

// DefaultCaseTimeout bounds one case when the Runner sets no bound.
const DefaultCaseTimeout = 60 * time.Second

// RuleDied is the rule of the problem that says the gateway died.
const RuleDied = "gateway-died"

// RuleCaseTimeout is the rule of the problem that says a case ran out of
// its time.
const RuleCaseTimeout = "case-timeout"

// Runner grades cases through one gateway, in order, each once with a
// whole request and once streamed.
type Runner struct {
	Upstream *Upstream
	Target   Target
	// CaseTimeout bounds each case (its first request, its follow-up and
	// the answers); 0 means DefaultCaseTimeout.
	CaseTimeout time.Duration
	// Exited, when set, says whether the gateway has exited, with its
	// exit status and last output. It is asked after every case: once the
	// gateway has exited, the case that was running says so and no later
	// case is run or counted.
	Exited func() (how string, exited bool)
	// Progress, when set, is called after each case with the cases done,
	// the cases there are, and the case's result.
	Progress func(done, total int, r Result)
}

// Run grades every named scenario (upstream-qualified) through the gateway
// t, once with a whole request and once streamed, in order.
func Run(ctx context.Context, up *Upstream, t Target, names []string) []Result {
	return Runner{Upstream: up, Target: t}.Run(ctx, names)
}

// Run grades every named scenario (upstream-qualified), once with a whole
// request and once streamed, in order; it stops when ctx ends or the
// gateway exits.
func (rn Runner) Run(ctx context.Context, names []string) []Result {
	timeout := rn.CaseTimeout
	if timeout <= 0 {
		timeout = DefaultCaseTimeout
	}
	t := rn.Target
	if t.Client == nil {
		t.Client = &http.Client{Timeout: timeout}
	}
	total := 2 * len(names)
	var out []Result
	done := 0
	report := func(r Result) {
		out = append(out, r)
		done++
		if rn.Progress != nil {
			rn.Progress(done, total, r)
		}
	}
	// died reports whether the gateway has exited; it is asked between
	// cases and at the end, and the death is the last case's. After a
	// failed case it waits a little for the exit to be seen (the process
	// is reaped a moment after its connections drop).
	died := func() bool {
		if rn.Exited == nil {
			return false
		}
		wait := len(out) > 0 && out[len(out)-1].Status == StatusFail
		deadline := time.Now().Add(exitGrace)
		for {
			how, exited := rn.Exited()
			if exited {
				if len(out) > 0 {
					r := &out[len(out)-1]
					r.Problems = append(r.Problems, scenarios.Problem{Rule: RuleDied, Message: fmt.Sprintf("the gateway died during this case: %s; %d later case(s) not run", how, total-done)})
					r.Status, r.Held = StatusFail, nil
				}
				return true
			}
			if !wait || time.Now().After(deadline) {
				return false
			}
			time.Sleep(exitGrace / 10)
		}
	}
	for _, name := range names {
		sc, ok := rn.Upstream.Scenario(name)
		if !ok {
			done++ // its streamed twin is not run either
			report(Result{Name: caseName(t.Front, name, false), Scenario: name, Front: t.Front, Upstream: t.Upstream, Status: StatusFail, Reason: "no such servable scenario"})
			continue
		}
		for _, stream := range []bool{false, true} {
			if ctx.Err() != nil || died() {
				return out
			}
			cctx, cancel := context.WithTimeout(ctx, timeout)
			r := Check(cctx, rn.Upstream, t, sc, name, stream)
			timedOut := errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
			cancel()
			if timedOut {
				r.Problems = append(r.Problems, scenarios.Problem{Rule: RuleCaseTimeout, Message: fmt.Sprintf("the case did not finish within its time (%v, --case-timeout)", timeout)})
				r.Status, r.Held = StatusFail, nil
			}
			report(r)
		}
	}
	died()
	return out
}

// exitGrace is how long the Runner waits, after a failed case, to see
// whether the gateway exited.
const exitGrace = 20 * time.Millisecond

// Counted reports whether a failed result fails the run: MUST cases
// always, SHOULD cases when strict.
func Counted(r Result, strict bool) bool {
	return r.Status == StatusFail && (r.Severity == scenarios.MUST || r.Severity == "" || strict && r.Severity == scenarios.SHOULD)
}

// Summary writes one line per (front, upstream) pair: cases, passed,
// failed, not applicable, and passes by failing not counted for want of a
// control (ApplyControls).
func Summary(w io.Writer, results []Result) {
	type count struct{ cases, pass, fail, na, discounted int }
	counts := map[string]*count{}
	for _, r := range results {
		k := r.Front + ">" + r.Upstream
		c := counts[k]
		if c == nil {
			c = &count{}
			counts[k] = c
		}
		c.cases++
		switch r.Status {
		case StatusPass:
			c.pass++
		case StatusFail:
			c.fail++
		case StatusNotCounted:
			c.discounted++
		default:
			c.na++
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "front>upstream\tcases\tpassed\tfailed\tnot applicable\tnot counted\t\n")
	for _, k := range keys {
		c := counts[k]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t\n", k, c.cases, c.pass, c.fail, c.na, c.discounted)
	}
	tw.Flush()
}

package gateway

import (
	"context"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/toolconform/conform/scenarios"
)

// Run grades every named scenario (upstream-qualified) through the gateway
// t, once with a whole request and once streamed, in order.
func Run(ctx context.Context, up *Upstream, t Target, names []string) []Result {
	var out []Result
	for _, name := range names {
		sc, ok := up.Scenario(name)
		if !ok {
			out = append(out, Result{Name: caseName(t.Front, name, false), Scenario: name, Front: t.Front, Upstream: t.Upstream, Status: StatusFail, Reason: "no such servable scenario"})
			continue
		}
		for _, stream := range []bool{false, true} {
			if ctx.Err() != nil {
				return out
			}
			out = append(out, Check(ctx, up, t, sc, name, stream))
		}
	}
	return out
}

// Counted reports whether a failed result fails the run: MUST cases
// always, SHOULD cases when strict.
func Counted(r Result, strict bool) bool {
	return r.Status == StatusFail && (r.Severity == scenarios.MUST || r.Severity == "" || strict && r.Severity == scenarios.SHOULD)
}

// Summary writes one line per (front, upstream) pair: cases, passed,
// failed, not applicable.
func Summary(w io.Writer, results []Result) {
	type count struct{ cases, pass, fail, na int }
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
	fmt.Fprintf(tw, "front>upstream\tcases\tpassed\tfailed\tnot applicable\t\n")
	for _, k := range keys {
		c := counts[k]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", k, c.cases, c.pass, c.fail, c.na)
	}
	tw.Flush()
}

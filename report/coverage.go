package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolconform/conform/scenarios"
)

// Coverage says what the grade of one adapter covered: how many of its
// protocol's cases were graded and how each ended, and why the others were
// not graded.
type Coverage struct {
	// Adapter is the adapter's label; Protocol the protocol it was graded
	// as.
	Adapter, Protocol string
	// Cases is the number of cases that apply to the adapter.
	Cases int
	// Graded counts the cases that were graded: passed, failed (counted
	// or not) or known-failing.
	Graded int
	Counts
	// NotCounted tallies the failures that do not fail the run by
	// severity ("SHOULD", "INFO").
	NotCounted map[string]int
	// Reasons tallies the cases not graded (skipped or not graded) by
	// reason.
	Reasons map[string]int
	// NotApplicable tallies, by reason, the protocol's cases that do not
	// apply to it (from Report.NotApplicable).
	NotApplicable map[string]int
}

// Coverage returns the coverage of every adapter of the report, in label
// order.
func (rep *Report) Coverage() []Coverage {
	byLabel := map[string]*Coverage{}
	var labels []string
	get := func(label, protocol string) *Coverage {
		c, ok := byLabel[label]
		if !ok {
			c = &Coverage{Adapter: label, Protocol: protocol, NotCounted: map[string]int{}, Reasons: map[string]int{}, NotApplicable: map[string]int{}}
			byLabel[label] = c
			labels = append(labels, label)
		}
		return c
	}
	for _, r := range rep.Results {
		protocol := r.Protocol
		if protocol == "" {
			protocol, _, _ = strings.Cut(r.Name, "/")
		}
		c := get(r.Adapter, protocol)
		c.Cases++
		n := rep.count(r)
		c.add(n)
		switch {
		case n.Uncounted > 0:
			c.NotCounted[string(r.Severity)]++
		case r.Status == scenarios.StatusSkip:
			c.Reasons["skipped: "+firstLine(r.Reason)]++
		case r.Status == scenarios.StatusNotGraded:
			c.Reasons["not graded: "+r.Reason]++
		}
	}
	for _, c := range byLabel {
		c.Graded = c.Pass + c.Fail + c.KnownFailing + c.Uncounted
		for reason, n := range rep.NotApplicable[c.Adapter] {
			c.NotApplicable[reason] += n
		}
	}
	slices.Sort(labels)
	out := make([]Coverage, 0, len(labels))
	for _, l := range labels {
		out = append(out, *byLabel[l])
	}
	return out
}

// String says what the grade covered in one line, in the form "graded G of
// C openai-chat cases: P passed, F failed, U not counted (SHOULD)".
func (c Coverage) String() string {
	var b strings.Builder
	if c.Adapter != c.Protocol {
		fmt.Fprintf(&b, "%s: ", c.Adapter)
	}
	fmt.Fprintf(&b, "graded %d of %d %s cases: %d passed, %d failed", c.Graded, c.Cases, c.Protocol, c.Pass, c.Fail)
	if c.KnownFailing > 0 {
		fmt.Fprintf(&b, ", %d known-failing", c.KnownFailing)
	}
	if c.Uncounted > 0 {
		fmt.Fprintf(&b, ", %d not counted (%s)", c.Uncounted, tally(c.NotCounted, false))
	}
	if n := c.Skip + c.NotGraded; n > 0 {
		fmt.Fprintf(&b, "; %d not graded (%s)", n, tally(c.Reasons, true))
	}
	if n := sum(c.NotApplicable); n > 0 {
		fmt.Fprintf(&b, "; %d more not applicable (%s)", n, tally(c.NotApplicable, true))
	}
	return b.String()
}

// tally writes counts by key in key order: "SHOULD" alone, or "SHOULD 2,
// INFO 1"; with count set every key gets its number ("reason: 3").
func tally(m map[string]int, count bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 1 && !count {
		return keys[0]
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
		if !count {
			parts[i] = fmt.Sprintf("%s %d", k, m[k])
		}
	}
	return strings.Join(parts, "; ")
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

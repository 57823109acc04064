package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/toolconform/conform/reduce"
)

// Finding is one failed case as grouping sees it, from any command: a
// case an adapter failed (run), a client run (run --client), a gateway
// case (gateway).
type Finding struct {
	// Subject is what was graded: an adapter's label, a client, a
	// front>upstream pair.
	Subject string
	// Name is the case's name.
	Name string
	// Rules are the rules its problems break (scenarios.Problem.Rule: an
	// engine check, or a failure mode's id).
	Rules []string
	// Reduction is what reduce found, nil when the case was not reduced.
	Reduction *reduce.Result
}

// Group is one fault: the failed cases of one subject that share a
// reduced cause and a failure mode.
type Group struct {
	Subject string `json:"subject"`
	// Cause names the simplifications that make the cases pass, joined by
	// "+" (reduce.Result.Key), "" when none was found.
	Cause string `json:"cause,omitempty"`
	// Explained says what Cause means, or why there is none.
	Explained string `json:"explained"`
	// Mode is the failure mode: the rules broken, sorted and joined by
	// "+".
	Mode string `json:"failure_mode"`
	// Cases are the cases' names, in the order found.
	Cases []string `json:"cases"`
}

// Title is the group's heading line, such as "anthropic: renumber (passes
// with call or content block indices renumbered from 0); failure mode
// calls: 5 cases".
func (g Group) Title() string {
	cause := "cause not found"
	if g.Cause != "" {
		cause = g.Cause
	}
	n := fmt.Sprintf("%d cases", len(g.Cases))
	if len(g.Cases) == 1 {
		n = "1 case"
	}
	return fmt.Sprintf("%s: %s (%s); failure mode %s: %s", g.Subject, cause, g.Explained, g.Mode, n)
}

// GroupFindings groups failed cases by subject, reduced cause and
// failure mode: one group per fault, its cases listed under it. Groups
// come in order of subject, then the largest first; a case whose cause
// was not found is grouped by its failure mode alone.
func GroupFindings(fs []Finding) []Group {
	idx := map[[3]string]int{}
	var out []Group
	for _, f := range fs {
		rules := slices.Clone(f.Rules)
		slices.Sort(rules)
		mode := strings.Join(slices.Compact(rules), "+")
		if mode == "" {
			mode = "(no rule named)"
		}
		cause := f.Reduction.Key()
		k := [3]string{f.Subject, cause, mode}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Group{Subject: f.Subject, Cause: cause, Explained: explain(f.Reduction), Mode: mode})
		}
		out[i].Cases = append(out[i].Cases, f.Name)
	}
	slices.SortStableFunc(out, func(a, b Group) int {
		if c := strings.Compare(a.Subject, b.Subject); c != 0 {
			return c
		}
		return len(b.Cases) - len(a.Cases)
	})
	return out
}

// explain says what a reduction's cause means, in terms that hold for
// every case of its group.
func explain(r *reduce.Result) string {
	if r == nil {
		return "not reduced"
	}
	if len(r.Causes) == 0 {
		return "no simplification made the case pass"
	}
	var s []string
	for _, c := range r.Causes {
		s = append(s, reduce.Explain(c.Name))
	}
	return "passes " + strings.Join(s, ", or ")
}

// WriteGroups writes the groups as text: a heading line per group and
// its cases indented under it.
func WriteGroups(w io.Writer, groups []Group) {
	if len(groups) == 0 {
		return
	}
	cases := 0
	for _, g := range groups {
		cases += len(g.Cases)
	}
	fmt.Fprintf(w, "\nfindings: %d failed cases in %d groups (by subject, reduced cause and failure mode)\n", cases, len(groups))
	for _, g := range groups {
		fmt.Fprintf(w, "  %s\n", g.Title())
		for _, c := range g.Cases {
			fmt.Fprintf(w, "      %s\n", c)
		}
	}
}

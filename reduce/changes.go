package reduce

import (
	"bytes"
	"slices"
	"strings"

	"github.com/toolconform/conform/scenarios"
)

// Change is what a cause changed in the bytes served: the first line of
// the stream that the simplification replaced or removed, and the first
// it wrote in its place. A line that only went (a call dropped) has no
// After; counts say how many lines each side has between the lines both
// share.
type Change struct {
	Step           Step
	Before, After  string
	Removed, Added int
}

// Changes rebuilds the variants a reduction of sc ran for its causes and
// returns, for each cause that changed the case's bytes, the lines it
// changed. The simplifications are pure, so applying the kept ones in the
// order Reduce tried them gives the variant each cause was applied to. A
// cause that changed only the chaos option (no-chaos) changed no byte of
// the case and has no Change.
func (r *Result) Changes(sc *scenarios.Scenario, protocol, chaos string) []Change {
	kept := map[string]bool{}
	for _, k := range r.Kept {
		kept[k.Name] = true
	}
	causes := map[string]Step{}
	for _, c := range r.Causes {
		causes[c.Name] = c
	}
	var out []Change
	cur := Variant{Scenario: sc, Chaos: chaos != ""}
	for _, s := range simplifications {
		cause, isCause := causes[s.name]
		if !kept[s.name] && !isCause {
			continue
		}
		next, _, why := s.apply(cur, protocol, chaos)
		if why != "" {
			continue
		}
		if kept[s.name] {
			cur = next
			continue
		}
		before, err1 := served(cur.Scenario, protocol)
		after, err2 := served(next.Scenario, protocol)
		if err1 != nil || err2 != nil || bytes.Equal(before, after) {
			continue
		}
		c := lineChange(before, after)
		c.Step = cause
		out = append(out, c)
	}
	return out
}

// served is the body conform serves for a variant, before any chaos
// option: the case's bytes, or its events as the protocol's encoder
// writes them.
func served(sc *scenarios.Scenario, protocol string) ([]byte, error) {
	if len(sc.Body) > 0 {
		return sc.Body, nil
	}
	return encode(protocol, sc.Events)
}

// lineChange compares two bodies line by line: the lines both start and
// end with are set aside, and of the lines left on each side the first
// data line (the first line when none is one) is quoted.
func lineChange(before, after []byte) Change {
	a := strings.Split(strings.TrimRight(string(before), "\r\n"), "\n")
	b := strings.Split(strings.TrimRight(string(after), "\r\n"), "\n")
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	a, b = a[p:len(a)-s], b[p:len(b)-s]
	return Change{Before: firstData(a), After: firstData(b), Removed: len(a), Added: len(b)}
}

func firstData(lines []string) string {
	if i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "data:") }); i >= 0 {
		return strings.TrimRight(lines[i], "\r")
	}
	if len(lines) > 0 {
		return strings.TrimRight(lines[0], "\r")
	}
	return ""
}

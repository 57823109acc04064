package serve

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/toolconform/conform/scenarios"
)

// StatusNotCounted is the status of a run that passed by failing (a
// broken stream reported, an unparsable call refused) without a passing
// control: the run shows nothing, since a client that cannot read the
// protocol at all would pass it too.
const StatusNotCounted = "not-counted"

// crashText matches what a program writes when it crashes rather than
// fails: a Go panic or fatal error (runtime: out of memory included), and
// running out of memory in Node (JavaScript heap out of memory) or Python
// (MemoryError). It is read from stderr and stdout, where a client's own
// JSON result may record it. An uncaught JavaScript error or a Python
// exception is how a script reports a broken stream, and is not a crash.
var crashText = regexp.MustCompile(`(?m)(^|")(panic: |fatal error: )|out of memory|\bMemoryError\b|^goroutine \d+ \[running\]:`)

// Crash returns how a run's program crashed, or "" when it did not: killed
// by a signal (the process's own, or the shell's exit status 128+N), or a
// crash its output names (crashText). A run that timed out was killed by
// conform and is reported as a timeout instead.
func Crash(r ClientRun) string {
	if r.TimedOut {
		return ""
	}
	for _, out := range []string{r.Stderr, r.Stdout} {
		if loc := crashText.FindStringIndex(out); loc != nil {
			return "output: " + lineAt(out, loc[0])
		}
	}
	switch {
	case r.Signal != "":
		return "killed by a signal (" + r.Signal + ")"
	case r.Exit > 128 && r.Exit < 128+65:
		return fmt.Sprintf("exit status %d: killed by signal %d", r.Exit, r.Exit-128)
	}
	return ""
}

// lineAt returns the line of s holding byte i, trimmed and cut at 200
// bytes.
func lineAt(s string, i int) string {
	start := strings.LastIndexByte(s[:i+1], '\n') + 1
	if s[i] == '\n' {
		start = i + 1
	}
	end := strings.IndexByte(s[start:], '\n')
	if end < 0 {
		end = len(s) - start
	}
	l := strings.TrimSpace(s[start : start+end])
	if len(l) > 200 {
		l = l[:200] + "…"
	}
	return l
}

// ApplyControls decides every pass by failing in runs (ClientRun.ByFailing)
// against its control in the same runs: the client must pass that case's
// unbroken twin, or the pass is not counted. The twin of a run with chaos
// is the same scenario without chaos, when it was run and was not itself
// a pass by failing; otherwise (a scenario broken on purpose, or a twin
// that passed by failing) it is any run of the same protocol and kind that
// served complete calls and passed on a graded follow-up. A pass with no
// such control becomes StatusNotCounted, and Reasons say why. It returns
// the number of passes discounted.
func ApplyControls(runs []ClientRun) int {
	type key struct{ protocol, kind string }
	solid := map[key]string{}        // a run that passed on a graded follow-up, by protocol and kind
	plain := map[string]*ClientRun{} // the run without chaos, by scenario
	for i := range runs {
		r := &runs[i]
		if r.Chaos == "" || r.Chaos == (Chaos{}).String() {
			plain[r.Scenario] = r
		}
		k := key{r.Protocol, string(r.Kind)}
		if r.Status == "pass" && !r.ByFailing && r.Verdict.Graded && len(r.Verdict.Calls) > 0 {
			if _, ok := solid[k]; !ok {
				solid[k] = r.Name
			}
		}
	}
	n := 0
	for i := range runs {
		r := &runs[i]
		if r.Status != "pass" || !r.ByFailing {
			continue
		}
		twin := plain[r.Scenario]
		if twin == r {
			twin = nil
		}
		switch {
		case twin != nil && twin.Status == "pass" && !twin.ByFailing:
			r.Control = twin.Name
			continue
		case twin != nil && !twin.ByFailing && twin.Status != StatusNotApplicable:
			r.Status, r.Held, r.Control = StatusNotCounted, nil, twin.Name
			r.Reasons = append(r.Reasons, fmt.Sprintf("not counted: the client fails the control: %s, the same stream unbroken, is %s", twin.Name, twin.Status))
			n++
			continue
		}
		if c, ok := solid[key{r.Protocol, string(r.Kind)}]; ok {
			r.Control = c
			continue
		}
		r.Status, r.Held = StatusNotCounted, nil
		r.Reasons = append(r.Reasons, fmt.Sprintf("not counted: the client fails the control: no unbroken %s %s case with calls passed in this run, so stopping on the broken one shows nothing", r.Protocol, kindWord(r.Kind)))
		n++
	}
	return n
}

// kindWord names a scenario kind in a reason.
func kindWord(k scenarios.Kind) string {
	if k == "" {
		return string(scenarios.KindStream)
	}
	return string(k)
}

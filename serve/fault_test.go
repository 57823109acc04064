package serve

import (
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/scenarios"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestPlantedFaults runs the reference client with one fault planted in
// its follow-up over every servable scenario, streamed and not, and checks
// that it fails exactly the runs where the fault shows on the wire, each
// with the rule that names it, and passes the others. The fault-free
// client passing everything is TestReplayAndGrade.
func TestPlantedFaults(t *testing.T) {
	s, ts := newServer(t, Options{Echo: true})
	cases := servable(t, s)
	names := make([]string, 0, len(cases))
	for name := range cases {
		names = append(names, name)
	}
	sort.Strings(names)
	// errorFlag lists the protocols whose tool results carry an error flag
	// on the wire; elsewhere a client says "error" in the result's text.
	errorFlag := map[string]bool{"anthropic": true, "bedrock": true, "gemini": true}
	faults := []struct {
		fault string
		// fails predicts whether the fault shows, from the protocol, the
		// calls served and whether each id was invented; rule is the rule
		// the verdict must name (alternatives separated by "|").
		fails func(protocol string, calls []core.Call, providerIDs bool) bool
		rule  func(protocol string, providerIDs bool) string
	}{
		{faultWrongContent, func(string, []core.Call, bool) bool { return true }, func(string, bool) string { return EchoRule }},
		{faultErrorResult, func(p string, _ []core.Call, _ bool) bool { return errorFlag[p] }, func(string, bool) string { return EchoRule }},
		{faultDropCall, func(_ string, calls []core.Call, _ bool) bool { return len(calls) > 1 }, func(string, bool) string { return "G02" }},
		// Without ids (Gemini 2) results pair by name, then position:
		// reversed, they are out of order (G05) or each answers another
		// call of the same name (the echo shows it), unless the calls are
		// all the same.
		{faultReversed, func(p string, calls []core.Call, ids bool) bool {
			return descriptor(p).Grading.ResultsInOrder && len(calls) > 1 && (ids || !allSame(calls))
		}, func(_ string, ids bool) string {
			if ids {
				return "G05"
			}
			return "G05|" + EchoRule
		}},
		// The Mistral adapter writes ids in Mistral's own form, which a
		// client may do (D05).
		{faultOwnIDs, func(p string, _ []core.Call, ids bool) bool { return ids && p != "mistral" }, func(string, bool) string { return "D02" }},
	}
	for _, f := range faults {
		var failed, passed, wrong int
		for _, name := range names {
			sc := cases[name]
			protocol, _ := s.Protocol(name)
			if sc.Want.ExpectsError() || selfDecodes(protocol, sc) != nil {
				continue
			}
			for _, stream := range []bool{false, true} {
				c := &client{base: ts.URL, name: name, protocol: protocol, stream: stream, tools: sc.Tools, optIn: true, fault: f.fault}
				first, _, err := c.converse(t)
				s.mu.Lock()
				v := s.verdicts[name]
				delete(s.verdicts, name)
				s.mu.Unlock()
				if err != nil || v == nil || v.NotApplicable != "" || len(first.Calls()) == 0 {
					continue
				}
				providerIDs := slices.ContainsFunc(first.Calls(), func(c0 core.Call) bool { return !v.invented[c0.ID] })
				want := f.fails(protocol, first.Calls(), providerIDs)
				rule := f.rule(protocol, providerIDs)
				named := slices.ContainsFunc(v.Problems, func(p scenarios.Problem) bool { return slices.Contains(strings.Split(rule, "|"), p.Rule) })
				switch {
				case want && (v.Pass || !named):
					wrong++
					t.Errorf("%s, %s, stream=%v: want a %s failure, got pass %v, problems %v", f.fault, name, stream, rule, v.Pass, v.Problems)
				case !want && !v.Pass:
					wrong++
					t.Errorf("%s, %s, stream=%v: want a pass (the fault does not show in %s), got problems %v", f.fault, name, stream, protocol, v.Problems)
				case want:
					failed++
				default:
					passed++
				}
			}
		}
		t.Logf("%s: %d runs failed as they must, %d passed as they may", f.fault, failed, passed)
		if failed == 0 {
			t.Errorf("%s: no run failed", f.fault)
		}
	}
}

// allSame reports whether every call has the same name and arguments.
func allSame(calls []core.Call) bool {
	for _, c := range calls[1:] {
		if c.Name != calls[0].Name || !jsonEqual(c.Arguments, calls[0].Arguments) {
			return false
		}
	}
	return true
}

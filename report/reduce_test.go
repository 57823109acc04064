package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/reduce"
)

// TestReductionInEveryFormat checks that a failed result's reduction is
// reported in text, JSON, JUnit and HTML, and only for that result.
func TestReductionInEveryFormat(t *testing.T) {
	rs := results()
	red := &reduce.Result{
		Causes: []reduce.Step{{Name: "renumber", Has: "content block indices 1, 2", Becomes: "block indices renumbered from 0 (0, 1)"}},
		Kept:   []reduce.Step{{Name: "one-call", Has: "2 tool calls", Becomes: "one call (the first)"}},
		Steps:  []reduce.Attempt{{Name: "no-chaos", Outcome: reduce.OutcomeNotApplicable, Why: "the failing run had no chaos option"}, {Name: "renumber", Outcome: reduce.OutcomeCause}, {Name: "one-call", Outcome: reduce.OutcomeKept}},
		Runs:   3, Budget: reduce.DefaultBudget,
	}
	rep := &Report{Results: rs, Reductions: map[string]*reduce.Result{ReductionKey(rs[0].Adapter, rs[0].Name): red}}
	const cause = "cause: fails on content block indices 1, 2; passes with block indices renumbered from 0 (0, 1)"
	const smallest = "smallest failing variant: the case with one call (the first) (3 of at most 8 re-runs)"
	const steps = "steps: no-chaos not applicable (the failing run had no chaos option); renumber cause; one-call kept"
	for _, format := range []string{"text", "junit", "html"} {
		var b bytes.Buffer
		if err := rep.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(b.String(), cause); n != 1 || !strings.Contains(b.String(), smallest) || !strings.Contains(b.String(), steps) {
			t.Errorf("%s: the cause appears %d times (want 1), smallest variant shown %v, steps shown %v:\n%s", format, n, strings.Contains(b.String(), smallest), strings.Contains(b.String(), steps), b.String())
		}
	}
	var b bytes.Buffer
	if err := rep.Write(&b, "json"); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Results []struct {
			Name      string
			Reduction *struct {
				Cause    string          `json:"cause"`
				Smallest string          `json:"smallest_failing_variant"`
				Causes   []reduce.Step   `json:"causes"`
				Kept     []reduce.Step   `json:"kept"`
				Runs     int             `json:"runs"`
				Extra    json.RawMessage `json:"untried"`
			} `json:"reduction"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	for i, r := range out.Results {
		if (r.Reduction != nil) != (i == 0) {
			t.Errorf("result %d (%s): reduction %+v", i, r.Name, r.Reduction)
		}
	}
	got := out.Results[0].Reduction
	if got == nil {
		t.Fatal("no reduction in the JSON report")
	}
	if diff := cmp.Diff(red.Causes, got.Causes); diff != "" || got.Cause != strings.TrimPrefix(cause, "cause: ") || got.Smallest != "the case with one call (the first)" || got.Runs != 3 {
		t.Errorf("JSON reduction: %+v (causes -want +got:\n%s)", got, diff)
	}
}

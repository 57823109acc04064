package reduce

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/scenarios"
)

// DefaultBudget is the number of re-runs Reduce spends on a case when the
// caller sets none: at most one per simplification.
const DefaultBudget = 8

// Variant is a scenario as served: its case and whether the chaos option
// of the failing run still applies.
type Variant struct {
	Scenario *scenarios.Scenario
	// Chaos is true while the failing run's chaos option is kept.
	Chaos bool
}

// Step is one simplification that changed the bytes of a variant.
type Step struct {
	// Name is the simplification's name (see Names).
	Name string `json:"name"`
	// Has says what the variant before the step had, such as "content
	// block indices 1, 2".
	Has string `json:"has"`
	// Becomes says what the step made of it, such as "block indices
	// renumbered from 0 (0, 1)".
	Becomes string `json:"becomes"`
}

func (s Step) String() string { return s.Has + " → " + s.Becomes }

// Attempt is what became of one simplification in a reduction.
type Attempt struct {
	// Name is the simplification's name (see Names).
	Name string `json:"name"`
	// Outcome is one of the Outcome constants.
	Outcome string `json:"outcome"`
	// Why says why a simplification did not run: what keeps it from the
	// case, or what else stopped it.
	Why string `json:"why,omitempty"`
}

// The outcomes of an Attempt.
const (
	// OutcomeCause: the variant passed, so the simplification names a
	// cause.
	OutcomeCause = "cause"
	// OutcomeKept: the variant still failed and became the current one.
	OutcomeKept = "kept"
	// OutcomeNotApplicable: the simplification changes no byte of the
	// case, or cannot change only what it names.
	OutcomeNotApplicable = "not applicable"
	// OutcomeUntried: the budget of re-runs was spent before it.
	OutcomeUntried = "untried"
	// OutcomeSkipped: the catch-all, not tried because a more precise
	// simplification named a cause already.
	OutcomeSkipped = "skipped"
)

// Result is what a reduction found.
type Result struct {
	// Causes are the simplifications with which the case passes: each
	// alone, applied to the smallest failing variant, made the client
	// pass.
	Causes []Step `json:"causes,omitempty"`
	// Kept are the simplifications of the smallest failing variant: the
	// case still failed with all of them applied.
	Kept []Step `json:"kept,omitempty"`
	// Untried names the applicable simplifications the budget left
	// untried.
	Untried []string `json:"untried,omitempty"`
	// Steps says, for every simplification in the order tried, whether
	// it ran and what came of it, or why it did not run.
	Steps []Attempt `json:"steps"`
	// Runs is the number of re-runs spent; Budget the most allowed.
	Runs   int `json:"runs"`
	Budget int `json:"budget"`
}

// Cause is the report's cause line, such as "fails on content block
// indices 1, 2; passes with block indices renumbered from 0 (0, 1)", or
// says why no cause was found: every applicable simplification ran and
// still failed, none applies, or the budget left some untried.
func (r *Result) Cause() string {
	if len(r.Causes) > 0 {
		var has, with []string
		for _, c := range r.Causes {
			has = append(has, c.Has)
			with = append(with, c.Becomes)
		}
		// Each cause alone makes the case pass: the failure needs them all.
		return "fails on " + strings.Join(has, " together with ") + "; passes with " + strings.Join(with, ", or with ")
	}
	var ran []string
	for _, a := range r.Steps {
		if a.Outcome == OutcomeKept {
			ran = append(ran, a.Name)
		}
	}
	switch {
	case len(r.Untried) > 0:
		return fmt.Sprintf("not found within the budget of %d re-runs: %s still fail(s); untried: %s", r.Budget, strings.Join(ran, ", "), strings.Join(r.Untried, ", "))
	case len(ran) == 0:
		return "not found: no simplification applies to this case"
	}
	return fmt.Sprintf("not found: every applicable simplification (%s) still fails; the others do not apply", strings.Join(ran, ", "))
}

// Smallest is the report's line for the smallest failing variant.
func (r *Result) Smallest() string {
	if len(r.Kept) == 0 {
		return "the case as served"
	}
	var s []string
	for _, k := range r.Kept {
		s = append(s, k.Becomes)
	}
	return "the case with " + strings.Join(s, ", ")
}

// Summary says how many re-runs were spent and which simplifications the
// budget left untried.
func (r *Result) Summary() string {
	s := fmt.Sprintf("%d of at most %d re-runs", r.Runs, r.Budget)
	if len(r.Untried) > 0 {
		s += "; untried: " + strings.Join(r.Untried, ", ")
	}
	return s
}

// Tried is the report's line of steps: what became of each
// simplification, in the order tried, with the reason for each that did
// not run, such as "no-chaos not applicable (the failing run had no chaos
// option); renumber cause; …".
func (r *Result) Tried() string {
	var s []string
	for _, a := range r.Steps {
		line := a.Name + " " + a.Outcome
		if a.Why != "" {
			line += " (" + a.Why + ")"
		}
		s = append(s, line)
	}
	return strings.Join(s, "; ")
}

// Key is the reduced cause as a group key: the names of the causes'
// simplifications, "" when none was found. Failures with one key (and
// one failure mode) share one fault.
func (r *Result) Key() string {
	if r == nil {
		return ""
	}
	var names []string
	for _, c := range r.Causes {
		names = append(names, c.Name)
	}
	return strings.Join(names, "+")
}

// MarshalJSON writes the result with its two report lines, "cause" and
// "smallest_failing_variant".
func (r *Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return json.Marshal(struct {
		Cause    string `json:"cause"`
		Smallest string `json:"smallest_failing_variant"`
		*plain
	}{r.Cause(), r.Smallest(), (*plain)(r)})
}

// Fails runs a variant and reports whether it still fails.
type Fails func(v Variant) bool

// Reduce reduces a failing case to its cause, greedily as a fuzzer's
// minimiser does: starting from the case as it failed, it applies each
// applicable simplification to the current variant in turn and runs it;
// a variant that still fails becomes the current one (smaller), one that
// passes records its simplification as a cause. chaos names the failing
// run's chaos option, "" for none. At most budget runs are spent (0
// means DefaultBudget); simplifications left over are named in
// Result.Untried. Result.Steps says what became of every simplification,
// and why those that did not run did not.
func Reduce(sc *scenarios.Scenario, protocol, chaos string, budget int, fails Fails) *Result {
	if budget <= 0 {
		budget = DefaultBudget
	}
	res := &Result{Budget: budget}
	cur := Variant{Scenario: sc, Chaos: chaos != ""}
	for _, s := range simplifications {
		if s.catchAll && len(res.Causes) > 0 {
			res.Steps = append(res.Steps, Attempt{s.name, OutcomeSkipped, "a cause is named already; the catch-all would only repeat it less precisely"})
			continue
		}
		next, step, why := s.apply(cur, protocol, chaos)
		if why != "" {
			res.Steps = append(res.Steps, Attempt{s.name, OutcomeNotApplicable, why})
			continue
		}
		if res.Runs == budget {
			res.Untried = append(res.Untried, s.name)
			res.Steps = append(res.Steps, Attempt{s.name, OutcomeUntried, fmt.Sprintf("the budget of %d re-runs was spent", budget)})
			continue
		}
		res.Runs++
		step.Name = s.name
		if fails(next) {
			cur = next
			res.Kept = append(res.Kept, step)
			res.Steps = append(res.Steps, Attempt{Name: s.name, Outcome: OutcomeKept})
		} else {
			res.Causes = append(res.Causes, step)
			res.Steps = append(res.Steps, Attempt{Name: s.name, Outcome: OutcomeCause})
		}
	}
	return res
}

// Reducible reports whether a scenario's failures can be reduced: a stream
// that is not broken on purpose (no want/error.txt or want/decode-error.json,
// no incomplete calls).
func Reducible(sc *scenarios.Scenario) bool {
	return sc.Kind == scenarios.KindStream && !sc.Want.ExpectsError() && len(sc.Want.Incomplete) == 0 && (len(sc.Body) > 0 || len(sc.Events) > 0)
}

// Explain says, for every case a simplification makes pass, what made it
// pass, such as "with call or content block indices renumbered from 0"
// for renumber; the name itself for one it does not know.
func Explain(name string) string {
	for _, s := range simplifications {
		if s.name == name {
			return s.explain
		}
	}
	return name
}

// Names lists the simplifications in the order Reduce tries them.
func Names() []string {
	var out []string
	for _, s := range simplifications {
		out = append(out, s.name)
	}
	return out
}

// Adapter reduces a case an adapter fails: each variant is graded as the
// case is (scenarios.CheckOne with opts), so no program is run and the
// reduction costs a few decodes. It returns nil when the case passes or
// is not Reducible.
func Adapter(a core.Adapter, sc *scenarios.Scenario, opts scenarios.Options) *Result {
	if !Reducible(sc) {
		return nil
	}
	opts.Run, opts.Skip, opts.KnownFailing, opts.Progress = nil, nil, nil, nil
	if scenarios.CheckOne(a, sc, opts).Status != scenarios.StatusFail {
		return nil
	}
	return Reduce(sc, a.Name(), "", 0, func(v Variant) bool {
		return scenarios.CheckOne(a, v.Scenario, opts).Status != scenarios.StatusPass
	})
}

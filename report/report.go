// Package report turns scenario results into what a person or a CI system
// reads: a text summary with every failure's diff, JSON, JUnit XML, and a
// self-contained HTML page with the adapter × category matrix.
//
// Failures are grouped by fault (GroupFindings): the failed cases of one
// subject that share a reduced cause and a failure mode form one group,
// its cases listed under it, in every format and for every command. Every
// result carries its Provenance (conform's version and commit, the
// scenario set's hash, the seeds, the schema version, the date).
//
// Which results count as failures is decided here, once, for every format:
// a failed MUST case always does, a failed SHOULD case only in strict mode,
// and an INFO case never does. Known-failing cases and skips are shown apart
// and never counted as passes, and so are cases not graded because the
// adapter lacks an operation they need. Every report says, per adapter, what
// the grade covered (Coverage).
package report

import (
	"slices"
	"strings"
	"time"

	"github.com/toolconform/conform/reduce"
	"github.com/toolconform/conform/scenarios"
)

// Report is a run's results with the verdict rules applied.
type Report struct {
	Results []scenarios.Result
	// Strict makes failed SHOULD cases count as failures.
	Strict bool
	// Elapsed is how long the run took; zero when unknown. The JUnit
	// report gives it as the time of the whole run.
	Elapsed time.Duration
	// NotApplicable tallies, for each adapter label, the cases of its
	// protocol that do not apply to it, by reason (see
	// scenarios.NotApplicable); it goes into the coverage lines.
	NotApplicable map[string]map[string]int
	// Reductions holds what reduce found for failed results, under
	// ReductionKey(adapter label, result name).
	Reductions map[string]*reduce.Result
	// Provenance says what produced the results; the JSON, JUnit and HTML
	// reports carry it.
	Provenance Provenance
}

// Groups groups the failed results (counted or not) by adapter, reduced
// cause and failure mode (GroupFindings).
func (rep *Report) Groups() []Group {
	var fs []Finding
	for _, r := range rep.Results {
		if r.Status != scenarios.StatusFail {
			continue
		}
		f := Finding{Subject: r.Adapter, Name: r.Name, Reduction: rep.Reduction(r)}
		for _, p := range r.Problems {
			f.Rules = append(f.Rules, p.Rule)
		}
		fs = append(fs, f)
	}
	return GroupFindings(fs)
}

// ReductionKey is the key of a result's reduction in Report.Reductions.
func ReductionKey(adapter, name string) string { return adapter + "\x00" + name }

// Reduction returns the reduction of r, or nil.
func (rep *Report) Reduction(r scenarios.Result) *reduce.Result {
	return rep.Reductions[ReductionKey(r.Adapter, r.Name)]
}

// Counts tallies results.
type Counts struct {
	Pass, Fail, KnownFailing, Skip int
	// NotGraded are cases needing an operation the adapter does not
	// implement.
	NotGraded int
	// Uncounted are failures that do not fail the run: SHOULD cases
	// outside strict mode, and INFO cases.
	Uncounted int
}

// Total is the number of results tallied.
func (c Counts) Total() int {
	return c.Pass + c.Fail + c.KnownFailing + c.Skip + c.NotGraded + c.Uncounted
}

func (c *Counts) add(o Counts) {
	c.Pass += o.Pass
	c.Fail += o.Fail
	c.KnownFailing += o.KnownFailing
	c.Skip += o.Skip
	c.NotGraded += o.NotGraded
	c.Uncounted += o.Uncounted
}

// count tallies one result.
func (rep *Report) count(r scenarios.Result) Counts {
	switch r.Status {
	case scenarios.StatusPass:
		return Counts{Pass: 1}
	case scenarios.StatusSkip:
		return Counts{Skip: 1}
	case scenarios.StatusNotGraded:
		return Counts{NotGraded: 1}
	case scenarios.StatusKnownFailing:
		return Counts{KnownFailing: 1}
	}
	if rep.Fails(r) {
		return Counts{Fail: 1}
	}
	return Counts{Uncounted: 1}
}

// Fails reports whether r fails the run.
func (rep *Report) Fails(r scenarios.Result) bool {
	if r.Status != scenarios.StatusFail {
		return false
	}
	switch r.Severity {
	case scenarios.MUST:
		return true
	case scenarios.SHOULD:
		return rep.Strict
	}
	return false
}

// Failed reports whether the run failed.
func (rep *Report) Failed() bool {
	return slices.ContainsFunc(rep.Results, rep.Fails)
}

// Total tallies every result.
func (rep *Report) Total() Counts {
	var c Counts
	for _, r := range rep.Results {
		c.add(rep.count(r))
	}
	return c
}

// Matrix tallies results by adapter and category, in name order.
func (rep *Report) Matrix() (adapters, categories []string, cells map[[2]string]Counts) {
	cells = map[[2]string]Counts{}
	for _, r := range rep.Results {
		key := [2]string{r.Adapter, Category(r.Name)}
		c := cells[key]
		c.add(rep.count(r))
		cells[key] = c
		if !slices.Contains(adapters, key[0]) {
			adapters = append(adapters, key[0])
		}
		if !slices.Contains(categories, key[1]) {
			categories = append(categories, key[1])
		}
	}
	slices.Sort(adapters)
	slices.Sort(categories)
	return adapters, categories, cells
}

// Category returns the category segment of a protocol/category/case name.
func Category(name string) string {
	parts := strings.SplitN(name, "/", 3)
	if len(parts) < 3 {
		return "-"
	}
	return parts[1]
}

// CaseName returns the part of a name after its protocol segment.
func CaseName(name string) string {
	_, rest, ok := strings.Cut(name, "/")
	if !ok {
		return name
	}
	return rest
}

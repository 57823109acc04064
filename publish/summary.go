package publish

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Counts counts cases by how they ended.
type Counts struct {
	Passed        int `json:"passed"`
	Failed        int `json:"failed"`
	NotCounted    int `json:"not_counted"`
	KnownFailing  int `json:"known_failing"`
	Skipped       int `json:"skipped"`
	NotGraded     int `json:"not_graded"`
	NotApplicable int `json:"not_applicable"`
	// Discounted are passes by failing without a passing control.
	Discounted int `json:"discounted"`
}

func (n *Counts) add(c Case) {
	switch c.Status {
	case StatusPass:
		n.Passed++
	case StatusFail:
		if c.Counted {
			n.Failed++
		} else {
			n.NotCounted++
		}
	case StatusKnownFailing:
		n.KnownFailing++
	case StatusSkip:
		n.Skipped++
	case StatusNotGraded:
		n.NotGraded++
	case StatusNotApplicable:
		n.NotApplicable++
	case StatusNotCounted:
		n.Discounted++
	}
}

// Graded is the number of cases that passed or failed.
func (n Counts) Graded() int { return n.Passed + n.Failed + n.NotCounted + n.KnownFailing }

// String is the closing line conform's reports print.
func (n Counts) String() string {
	s := fmt.Sprintf("%d passed, %d failed", n.Passed, n.Failed)
	for _, x := range []struct {
		n    int
		what string
	}{{n.NotCounted, "failed but not counted"}, {n.KnownFailing, "known-failing"}, {n.Skipped, "skipped"}, {n.NotGraded, "not graded"}, {n.NotApplicable, "not applicable"}, {n.Discounted, "passed by failing but not counted (the subject fails the control)"}} {
		if x.n > 0 {
			s += fmt.Sprintf(", %d %s", x.n, x.what)
		}
	}
	return s
}

// A Subject is everything the runs say about one graded subject.
type Subject struct {
	Kind string
	Name string
	// Runs are the subject's runs, the newest last (by their date).
	Runs []SubjectRun
}

// SubjectRun is one run's share of a subject.
type SubjectRun struct {
	File       string
	Date       string
	Provenance map[string]string
	Counts     Counts
	// Cells count the cases per protocol and variant.
	Cells []Cell
	Cases []Case
}

// Cell is one (protocol, variant) pair's counts.
type Cell struct {
	Protocol, Variant string
	Counts            Counts
}

// Latest is the subject's newest run.
func (s *Subject) Latest() *SubjectRun { return &s.Runs[len(s.Runs)-1] }

// Failures are the counted and uncounted failures of the run, grouped by
// the failure mode each names first (cases naming none under "").
func (r *SubjectRun) Failures() []ModeGroup {
	groups := map[string][]Case{}
	for _, c := range r.Cases {
		if c.Status != StatusFail {
			continue
		}
		id := ""
		if len(c.Modes) > 0 {
			id = c.Modes[0]
		}
		groups[id] = append(groups[id], c)
	}
	var out []ModeGroup
	for id, cs := range groups {
		out = append(out, ModeGroup{Mode: id, Cases: cs})
	}
	slices.SortFunc(out, func(a, b ModeGroup) int {
		return cmp.Or(cmp.Compare(len(b.Cases), len(a.Cases)), strings.Compare(a.Mode, b.Mode))
	})
	return out
}

// ModeGroup is the failed cases that name one failure mode first.
type ModeGroup struct {
	Mode  string
	Cases []Case
}

// Subjects groups the cases of runs by subject, and each subject's runs by
// date, oldest first. Two runs of one subject on the same date are kept
// apart (a sharded run must be merged before it is published).
func Subjects(runs []*Run) []*Subject {
	index := map[[2]string]*Subject{}
	var out []*Subject
	for _, run := range runs {
		per := map[string]*SubjectRun{}
		var order []string
		for _, c := range run.Cases {
			sr := per[c.Subject]
			if sr == nil {
				sr = &SubjectRun{File: run.File, Date: run.Provenance["date"], Provenance: run.Provenance}
				per[c.Subject] = sr
				order = append(order, c.Subject)
			}
			sr.Counts.add(c)
			sr.Cases = append(sr.Cases, c)
			i := slices.IndexFunc(sr.Cells, func(x Cell) bool { return x.Protocol == c.Protocol && x.Variant == c.Variant })
			if i < 0 {
				sr.Cells = append(sr.Cells, Cell{Protocol: c.Protocol, Variant: c.Variant})
				i = len(sr.Cells) - 1
			}
			sr.Cells[i].Counts.add(c)
		}
		for _, name := range order {
			key := [2]string{run.Kind, name}
			s := index[key]
			if s == nil {
				s = &Subject{Kind: run.Kind, Name: name}
				index[key] = s
				out = append(out, s)
			}
			sr := per[name]
			slices.SortFunc(sr.Cells, func(a, b Cell) int {
				return cmp.Or(strings.Compare(a.Protocol, b.Protocol), strings.Compare(a.Variant, b.Variant))
			})
			s.Runs = append(s.Runs, *sr)
		}
	}
	for _, s := range out {
		slices.SortStableFunc(s.Runs, func(a, b SubjectRun) int { return strings.Compare(a.Date, b.Date) })
	}
	slices.SortFunc(out, func(a, b *Subject) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Name, b.Name))
	})
	return out
}

// Total adds up the newest run of every subject.
func Total(subjects []*Subject) Counts {
	var t Counts
	for _, s := range subjects {
		l := s.Latest().Counts
		t.Passed += l.Passed
		t.Failed += l.Failed
		t.NotCounted += l.NotCounted
		t.KnownFailing += l.KnownFailing
		t.Skipped += l.Skipped
		t.NotGraded += l.NotGraded
		t.NotApplicable += l.NotApplicable
	}
	return t
}

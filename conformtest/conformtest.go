// Package conformtest is the Go entry point of conform for a new adapter:
// one call in a test grades it on every built-in case of its protocol.
//
//	func TestConformance(t *testing.T) {
//		conformtest.Run(t, func() core.Adapter { return myadapter.New() },
//			conformtest.Protocol("openai-chat"),
//			conformtest.KnownFailing("testdata/known-failing.txt"))
//	}
//
// Run has the shape of testing/slogtest: one subtest per case, named by the
// case's path-like name, with a fresh adapter each time, and every problem
// reported with its own t.Errorf. Check is its error-returning twin, as
// fstest.TestFS is, for callers that are not a testing.T.
//
// A graded adapter always has a protocol: the one given with Protocol, or
// else its Name when that is a built-in protocol; anything else is an
// error, never a smaller suite. The adapter's own name is only the label of
// its results. The adapter is held to the protocol's features: a case the
// protocol supports cannot be skipped by refusing it.
//
// An adapter may implement only some of core.Adapter's operations (a
// core.StreamDecoder alone, say): every case those operations can answer is
// graded, and the others are reported as not graded, never passed.
//
// SHOULD failures are reported and not counted, as in conform run; Strict
// counts them. At the end, Run logs what the grade covered, in the form
// "graded G of C openai-chat cases: P passed, F failed, U not counted
// (SHOULD)".
package conformtest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/report"
	"github.com/toolconform/conform/scenarios"
)

// Option configures Run and Check.
type Option func(*config)

type config struct {
	fsys         fs.FS
	root         string
	resolve      scenarios.CassetteResolver
	protocol     string
	strict       bool
	knownFailing []string // files
	knownInline  []string
	run          []string
	splits       int
	seed         uint64
}

// Protocol grades the adapter as an adapter of the named protocol, such as
// "openai-chat": a built-in protocol, or, with Dir, one the scenarios there
// are declared for.
func Protocol(name string) Option { return func(c *config) { c.protocol = name } }

// Strict counts failed SHOULD cases as failures, as conform run --strict
// does.
func Strict() Option { return func(c *config) { c.strict = true } }

// Dir runs the scenarios under root in fsys instead of the built-in ones.
// Cassette references in them are resolved against fsys.
func Dir(fsys fs.FS, root string) Option {
	return func(c *config) { c.fsys, c.root, c.resolve = fsys, root, scenarios.FSResolver(fsys) }
}

// KnownFailing reads a known-failing list (one pattern per line, # comments)
// from a file, with the rules of conform run --known-failing: a listed case
// that fails is skipped with the entry named; one that passes is an error
// telling you to remove the entry. An entry whose first segment matches the
// protocol but that matches none of its cases is an error; entries for other
// protocols are ignored, so one list can serve several adapters.
func KnownFailing(file string) Option {
	return func(c *config) { c.knownFailing = append(c.knownFailing, file) }
}

// KnownFailingPatterns is KnownFailing with the patterns given inline.
func KnownFailingPatterns(patterns ...string) Option {
	return func(c *config) { c.knownInline = append(c.knownInline, patterns...) }
}

// Only runs just the cases matching one of the patterns (the pattern
// language of go test -run, applied to case names). A pattern that matches
// nothing is an error.
func Only(patterns ...string) Option {
	return func(c *config) { c.run = append(c.run, patterns...) }
}

// Splits sets how many extra random re-splits of each stream are decoded
// (default 3; negative for none).
func Splits(n int) Option { return func(c *config) { c.splits = n } }

// Seed decodes each stream once more in the one split of seed, which a
// split-independence problem names, instead of the random re-splits.
func Seed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// plan is what Run and Check grade: the subject, its cases, and the
// patterns that must each select something.
type plan[A any] struct {
	newAdapter func() A
	protocol   string
	features   []core.Feature
	label      string
	opts       scenarios.Options
	strict     bool
	jobs       []job
	only       []scenarios.Pattern
	onlyUsed   []bool
	known      []scenarios.Pattern
	knownUsed  []bool
	// notApplicable tallies the protocol's cases that need a feature it
	// lacks, by reason.
	notApplicable map[string]int
}

type job struct {
	sc    *scenarios.Scenario
	name  string
	known int // index into plan.known, or -1
}

func newPlan[A any](newAdapter func() A, opts []Option) (*plan[A], error) {
	c := &config{}
	for _, o := range opts {
		o(c)
	}
	p := &plan[A]{newAdapter: newAdapter, strict: c.strict, opts: scenarios.Options{Splits: c.splits, Seed: c.seed}}

	var cases []*scenarios.Scenario
	var err error
	if c.fsys == nil {
		cases, err = scenarios.LoadBuiltin(scenarios.VCRResolver(cassettes.Load))
	} else {
		cases, err = scenarios.Load(c.fsys, c.root, c.resolve)
	}
	if err != nil {
		return nil, err
	}

	probe := any(newAdapter())
	implemented := slices.ContainsFunc(core.Operations, func(op core.Operation) bool { return core.Implements(probe, op) })
	if !implemented {
		return nil, fmt.Errorf("adapter %T implements none of the operations of core.Adapter (EncodeRequest, DecodeStream, ...)", probe)
	}
	if n, ok := probe.(interface{ Name() string }); ok {
		p.label = n.Name()
	}
	p.protocol = c.protocol
	if p.protocol == "" {
		if !slices.Contains(providers.Names(), p.label) {
			return nil, fmt.Errorf("adapter %q names no built-in protocol and none is given: add conformtest.Protocol(name) with one of %s", p.label, strings.Join(providers.Names(), ", "))
		}
		p.protocol = p.label
	}
	if p.label == "" {
		p.label = p.protocol
	}
	if fs, err := providers.Features(p.protocol); err == nil {
		p.features = fs
	} else {
		// A protocol of the user's own scenarios (Dir) has the features the
		// adapter declares; any other name is a slip.
		declared := slices.ContainsFunc(cases, func(sc *scenarios.Scenario) bool { return slices.Contains(sc.Protocols, p.protocol) })
		if c.fsys == nil || !declared {
			return nil, fmt.Errorf("unknown protocol %q; known: %s", p.protocol, strings.Join(providers.Names(), ", "))
		}
		if d, ok := probe.(core.FeatureDeclarer); ok {
			p.features = d.Features()
		}
	}

	for _, s := range c.run {
		pat, err := scenarios.CompilePattern(s)
		if err != nil {
			return nil, err
		}
		p.only = append(p.only, pat)
	}
	for _, s := range c.knownInline {
		pat, err := scenarios.CompilePattern(s)
		if err != nil {
			return nil, err
		}
		p.known = append(p.known, pat)
	}
	for _, f := range c.knownFailing {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read known-failing list: %w", err)
		}
		ps, err := scenarios.ParsePatternList(f, data)
		if err != nil {
			return nil, err
		}
		p.known = append(p.known, ps...)
	}
	p.onlyUsed = make([]bool, len(p.only))
	p.knownUsed = make([]bool, len(p.known))

	subject := p.subject()
	p.notApplicable = scenarios.NotApplicable(subject, cases)
	for _, sc := range cases {
		if !sc.Applies(subject) {
			continue
		}
		name := sc.NameFor(p.protocol)
		if len(p.only) > 0 && !matchAny(p.only, p.onlyUsed, name) {
			continue
		}
		j := job{sc: sc, name: name, known: -1}
		for i, k := range p.known {
			if k.Match(name) {
				p.knownUsed[i] = true
				j.known = i
				break
			}
		}
		p.jobs = append(p.jobs, j)
	}
	if len(p.jobs) == 0 && len(p.only) == 0 {
		return nil, fmt.Errorf("no case applies to protocol %q", p.protocol)
	}
	return p, nil
}

// subject returns a fresh adapter, graded as the plan's protocol.
func (p *plan[A]) subject() *scenarios.Subject {
	return scenarios.NewSubject(p.newAdapter(), p.protocol, p.features, p.label)
}

// check grades one case on a fresh adapter.
func (p *plan[A]) check(j job) scenarios.Result {
	res := scenarios.CheckOne(p.subject(), j.sc, p.opts)
	if j.known >= 0 {
		res = scenarios.ApplyKnownFailing(res, p.known[j.known])
	}
	return res
}

// patternErrors returns an error for each pattern that selected nothing.
func (p *plan[A]) patternErrors() []error {
	var errs []error
	for i, ok := range p.onlyUsed {
		if !ok {
			errs = append(errs, fmt.Errorf("pattern %q matches no case of protocol %q", p.only[i], p.protocol))
		}
	}
	for i, ok := range p.knownUsed {
		// A shared list names other protocols' cases too; only entries
		// that can select this protocol's cases must match one.
		if !ok && p.known[i].MatchesProtocol(p.protocol) {
			errs = append(errs, fmt.Errorf("known-failing entry %q (%s) matches no case of protocol %q", p.known[i], p.known[i].Where(), p.protocol))
		}
	}
	return errs
}

func (p *plan[A]) report(results []scenarios.Result) *report.Report {
	return &report.Report{Results: results, Strict: p.strict, NotApplicable: map[string]map[string]int{p.label: p.notApplicable}}
}

// Run grades the adapter newAdapter makes on every case of its protocol,
// one subtest per case with a fresh adapter each, and logs what the grade
// covered. newAdapter returns a core.Adapter or any value with some of its
// methods.
func Run[A any](t *testing.T, newAdapter func() A, opts ...Option) {
	t.Helper()
	p, err := newPlan(newAdapter, opts)
	if err != nil {
		t.Fatalf("conformtest: %v", err)
	}
	rep := p.report(nil)
	for _, j := range p.jobs {
		t.Run(j.name, func(t *testing.T) {
			res := p.check(j)
			rep.Results = append(rep.Results, res)
			switch {
			case rep.Fails(res):
				t.Logf("%s %s (%s): %s", res.Severity, res.Name, res.Scenario.File, firstLine(res.Scenario.Comment))
				for _, pr := range res.Problems {
					t.Errorf("%s", pr)
				}
			case res.Status == scenarios.StatusFail:
				for _, pr := range res.Problems {
					t.Logf("%s", pr)
				}
				t.Skipf("failed, not counted (%s; conformtest.Strict counts it)", res.Severity)
			case res.Status == scenarios.StatusNotGraded:
				t.Skipf("not graded: %s", res.Reason)
			case res.Status != scenarios.StatusPass:
				t.Skipf("%s: %s", res.Status, res.Reason)
			}
		})
	}
	for _, err := range p.patternErrors() {
		t.Errorf("conformtest: %v", err)
	}
	for _, c := range rep.Coverage() {
		t.Log(c)
	}
}

// Check grades the adapter newAdapter makes as Run does, without a
// testing.T: it returns every result, and an error listing every counted
// failure (one per line, with its problems) and every pattern that selected
// nothing, ending with what the grade covered. The error is nil when the
// adapter passed.
func Check[A any](newAdapter func() A, opts ...Option) ([]scenarios.Result, error) {
	p, err := newPlan(newAdapter, opts)
	if err != nil {
		return nil, fmt.Errorf("conformtest: %w", err)
	}
	results := make([]scenarios.Result, 0, len(p.jobs))
	for _, j := range p.jobs {
		results = append(results, p.check(j))
	}
	rep := p.report(results)
	var errs []error
	for _, r := range results {
		if !rep.Fails(r) {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s [%s] (%s)", r.Name, r.Severity, r.Scenario.File)
		for _, pr := range r.Problems {
			b.WriteString("\n    " + strings.ReplaceAll(pr.String(), "\n", "\n    "))
		}
		errs = append(errs, errors.New(b.String()))
	}
	errs = append(errs, p.patternErrors()...)
	if len(errs) == 0 {
		return results, nil
	}
	for _, c := range rep.Coverage() {
		errs = append(errs, errors.New(c.String()))
	}
	return results, fmt.Errorf("conformtest: %w", errors.Join(errs...))
}

func matchAny(ps []scenarios.Pattern, used []bool, name string) bool {
	hit := false
	for i, p := range ps {
		if p.Match(name) {
			used[i] = true
			hit = true
		}
	}
	return hit
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Package conformtest is the Go entry point of conform for a new adapter:
// one call in a test runs every built-in scenario that applies to it.
//
//	func TestConformance(t *testing.T) {
//		conformtest.Run(t, func() core.Adapter { return myadapter.New() },
//			conformtest.KnownFailing("testdata/known-failing.txt"))
//	}
//
// Run has the shape of testing/slogtest: one subtest per scenario, named by
// the scenario's path-like name, with a fresh adapter each time, and every
// problem reported with its own t.Errorf.
package conformtest

import (
	"io/fs"
	"os"
	"testing"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

// Option configures Run.
type Option func(*config)

type config struct {
	fsys         fs.FS
	root         string
	resolve      scenarios.CassetteResolver
	knownFailing []string // files
	knownInline  []scenarios.Pattern
	run          []string
	splits       int
}

// Dir runs the scenarios under root in fsys instead of the built-in ones.
// Cassette references in them are resolved against fsys.
func Dir(fsys fs.FS, root string) Option {
	return func(c *config) { c.fsys, c.root, c.resolve = fsys, root, scenarios.FSResolver(fsys) }
}

// KnownFailing reads a known-failing list (one pattern per line, # comments)
// from a file. A listed scenario that fails is skipped with the entry named;
// one that passes is an error telling you to remove the entry. An entry
// whose first segment matches the adapter's name but that matches none of
// its scenarios is an error; entries for other adapters are ignored, so one
// list can serve several adapters.
func KnownFailing(file string) Option {
	return func(c *config) { c.knownFailing = append(c.knownFailing, file) }
}

// KnownFailingPatterns is KnownFailing with the patterns given inline.
func KnownFailingPatterns(patterns ...string) Option {
	return func(c *config) {
		for _, p := range patterns {
			c.knownInline = append(c.knownInline, mustPattern(p))
		}
	}
}

// Only runs just the scenarios matching one of the patterns (the pattern
// language of go test -run, applied to scenario names). A pattern that
// matches nothing is an error.
func Only(patterns ...string) Option {
	return func(c *config) { c.run = append(c.run, patterns...) }
}

// Splits sets how many extra random re-splits of each stream are decoded
// (default 3; negative for none).
func Splits(n int) Option { return func(c *config) { c.splits = n } }

func mustPattern(s string) scenarios.Pattern {
	p, err := scenarios.CompilePattern(s)
	if err != nil {
		// A bad inline pattern is a programmer error in the test itself.
		panic(err)
	}
	return p
}

// Run runs every scenario that applies to the adapter as a subtest of t,
// with a fresh adapter from newAdapter for each. An adapter named after a
// built-in protocol that declares no features (core.FeatureDeclarer) is held
// to the built-in protocol's features: a case its protocol supports is never
// skipped, and refusing it fails.
func Run(t *testing.T, newAdapter func() core.Adapter, opts ...Option) {
	t.Helper()
	c := &config{}
	for _, o := range opts {
		o(c)
	}
	var cases []*scenarios.Scenario
	var err error
	if c.fsys == nil {
		cases, err = scenarios.LoadBuiltin(scenarios.VCRResolver(cassettes.Load))
	} else {
		cases, err = scenarios.Load(c.fsys, c.root, c.resolve)
	}
	if err != nil {
		t.Fatalf("conformtest: %v", err)
	}
	known := append([]scenarios.Pattern(nil), c.knownInline...)
	for _, f := range c.knownFailing {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("conformtest: read known-failing list: %v", err)
		}
		ps, err := scenarios.ParsePatternList(f, data)
		if err != nil {
			t.Fatalf("conformtest: %v", err)
		}
		known = append(known, ps...)
	}
	var only []scenarios.Pattern
	for _, s := range c.run {
		p, err := scenarios.CompilePattern(s)
		if err != nil {
			t.Fatalf("conformtest: %v", err)
		}
		only = append(only, p)
	}
	onlyUsed := make([]bool, len(only))
	knownUsed := make([]bool, len(known))

	// An adapter of a built-in protocol is held to that protocol's features.
	fresh := func() core.Adapter { return providers.HoldToProtocol(newAdapter()) }
	probe := fresh()
	protocol := probe.Name()
	ran := 0
	for _, sc := range cases {
		if !sc.AppliesTo(probe) {
			continue
		}
		name := sc.NameFor(protocol)
		if len(only) > 0 && !matchAny(only, onlyUsed, name) {
			continue
		}
		ran++
		kf, listed := -1, false
		for i, p := range known {
			if p.Match(name) {
				knownUsed[i] = true
				kf, listed = i, true
				break
			}
		}
		t.Run(name, func(t *testing.T) {
			res := scenarios.CheckOne(fresh(), sc, scenarios.Options{Splits: c.splits})
			if listed {
				res = scenarios.ApplyKnownFailing(res, known[kf])
			}
			switch res.Status {
			case scenarios.StatusSkip, scenarios.StatusKnownFailing:
				t.Skipf("%s: %s", res.Status, res.Reason)
			case scenarios.StatusFail:
				t.Logf("%s %s (%s): %s", res.Severity, res.Name, res.Scenario.File, firstLine(res.Scenario.Comment))
				for _, p := range res.Problems {
					t.Errorf("%s", p)
				}
			}
		})
	}
	if ran == 0 && len(only) == 0 {
		t.Errorf("conformtest: no scenario applies to adapter %q", protocol)
	}
	for i, ok := range onlyUsed {
		if !ok {
			t.Errorf("conformtest: pattern %q matches no scenario of adapter %q", only[i], protocol)
		}
	}
	for i, ok := range knownUsed {
		// A shared list names other adapters' cases too; only entries that
		// can select this adapter's scenarios must match one.
		if !ok && known[i].MatchesProtocol(protocol) {
			t.Errorf("conformtest: known-failing entry %q (%s) matches no scenario of adapter %q", known[i], known[i].Where(), protocol)
		}
	}
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
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

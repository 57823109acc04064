package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/providers/subprocess"
	"github.com/toolconform/conform/reduce"
	"github.com/toolconform/conform/report"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
)

// listFlag is a flag that may be given several times, each value possibly a
// comma-separated list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

// errEmptyList is returned by listFlag.Set for a value with no item in it
// (",", ""), which would otherwise select everything.
var errEmptyList = errors.New("empty value: give at least one item")

func (l *listFlag) Set(v string) error {
	n := len(*l)
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	if len(*l) == n {
		return errEmptyList
	}
	return nil
}

func runRun(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "run")
	var adapterNames, runPatterns, skipPatterns, knownFiles listFlag
	fs.Var(&adapterNames, "adapter", "run only the built-in adapter `NAME` (repeatable, or comma-separated)")
	execCmd := fs.String("exec", "", "also run the adapter `CMD`, a subprocess speaking docs/adapter-protocol.md; with it, built-in adapters run only when named by --adapter")
	execName := fs.String("name", "", "with --exec, the `LABEL` its results are reported under (default exec:CMD)")
	execTimeout := fs.Duration("exec-timeout", 0, "with --exec, the time one operation may take (default 10s); an adapter that misses it is not asked again")
	splits := fs.Int("splits", 3, "decode every stream case `N` more times in random-size reads (0 for none)")
	seed := fs.Uint64("seed", 0, "decode every stream case once more in the one split of `SEED`, named by a split-independence failure, instead of the random splits")
	fs.Var(&runPatterns, "run", "run only the cases whose names match the `PATTERN` (protocol/category/case, a regular expression per segment)")
	fs.Var(&skipPatterns, "skip", "skip the cases whose names match the `PATTERN`")
	fs.Var(&knownFiles, "known-failing", "a `FILE` of patterns, one per line, of cases expected to fail; a listed case that passes is a failure")
	strict := fs.Bool("strict", false, "count failed SHOULD cases as failures")
	format := fs.String("format", "text", "the report format: "+strings.Join(report.Formats, ", "))
	out := fs.String("out", "", "write the report to `FILE` instead of standard output")
	dir := fs.String("scenarios", "", "load the scenarios from `DIR` instead of the built-in ones")
	formatParser := fs.String("format-parser", "", "grade a text-format parser program: run `CMD`, a subprocess speaking docs/format-parser-protocol.md, on every test vector of each format it names")
	vectors := fs.String("vectors", "", "with --format-parser, the `DIR` of test vectors (*.jsonl; the repository's testdata/textcalls)")
	clientCmd := fs.String("client", "", "grade a real client program: run `CMD` against conform serve for each selected scenario (docs/client-protocol.md)")
	var chaosFlags repeatedFlag
	fs.Var(&chaosFlags, "chaos", "with --client, also run each scenario with these chaos `OPTIONS` (comma-separated: "+strings.Join(serve.ChaosNames(), ", ")+"); repeat for more variants")
	clientTimeout := fs.Duration("client-timeout", 0, "with --client, the time one client run may take (default 60s)")
	parallel := fs.Int("parallel", 1, "with --client, how many client runs at once")
	reduceFlag := fs.Bool("reduce", true, "reduce each failed stream case to its cause by trying simpler variants of it (with --client, up to 8 more runs of the client per failed case); --reduce=false to skip")
	var clientProtocols listFlag
	fs.Var(&clientProtocols, "protocol", "with --client, run only the scenarios of protocol `P` (repeatable, or comma-separated)")
	var shard shardFlag
	fs.Var(&shard, "shard", "with --client, make only shard `I/N` of the (scenario, chaos variant) runs: the k-th run when k mod N is I-1 (conform merge joins the shards' JSON reports)")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if fs.NArg() > 0 {
		return usageError(e, fs, "run: unexpected argument %q", fs.Arg(0))
	}
	if *formatParser != "" && (*execCmd != "" || *clientCmd != "" || len(adapterNames) > 0 || *format != "text" || *out != "" || *dir != "") {
		return usageError(e, fs, "run: --format-parser grades a text-format parser alone and reports as text: leave out --exec, --client, --adapter, --format, --out and --scenarios")
	}
	if *formatParser != "" || *vectors != "" {
		return runFormatParser(e, fs, *formatParser, *vectors, *splits, *strict)
	}
	if !slices.Contains(report.Formats, *format) {
		return usageError(e, fs, "run: unknown format %q; known: %s", *format, strings.Join(report.Formats, ", "))
	}
	if *clientCmd == "" && (len(chaosFlags) > 0 || *clientTimeout != 0 || *parallel != 1 || len(clientProtocols) > 0 || shard.n > 0) {
		return usageError(e, fs, "run: --chaos, --client-timeout, --parallel, --protocol and --shard go with --client")
	}
	if *clientTimeout < 0 {
		return usageError(e, fs, "run: --client-timeout %v: a duration cannot be negative", *clientTimeout)
	}
	if *parallel < 1 {
		return usageError(e, fs, "run: --parallel %d: want at least 1", *parallel)
	}
	if *execCmd == "" && (*execName != "" || *execTimeout != 0) {
		return usageError(e, fs, "run: --name and --exec-timeout go with --exec")
	}
	if *execTimeout < 0 {
		return usageError(e, fs, "run: --exec-timeout %v: a duration cannot be negative", *execTimeout)
	}
	if *splits < 0 {
		return usageError(e, fs, "run: --splits %d: want 0 or more", *splits)
	}

	opts := scenarios.Options{Splits: *splits, Seed: *seed}
	if *splits == 0 {
		opts.Splits = -1 // Options counts 0 as the default
	}
	for _, p := range []struct {
		flag string
		in   []string
		dst  *[]scenarios.Pattern
	}{{"run", runPatterns, &opts.Run}, {"skip", skipPatterns, &opts.Skip}} {
		for _, s := range p.in {
			pat, err := scenarios.CompilePattern(s)
			if err != nil {
				return usageError(e, fs, "run: --%s: %v", p.flag, err)
			}
			*p.dst = append(*p.dst, pat)
		}
	}
	for _, f := range knownFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			e.errorf("run: --known-failing: %v", err)
			return exitUsage
		}
		ps, err := scenarios.ParsePatternList(f, data)
		if err != nil {
			e.errorf("run: --known-failing: %v", err)
			return exitUsage
		}
		opts.KnownFailing = append(opts.KnownFailing, ps...)
	}

	if *clientCmd != "" {
		switch {
		case len(adapterNames) > 0 || *execCmd != "":
			return usageError(e, fs, "run: --client grades a client program, not an adapter: leave out --adapter and --exec")
		case *format != "text" && *format != "json":
			return usageError(e, fs, "run: --client reports as text or json, not %s", *format)
		case *dir != "":
			return usageError(e, fs, "run: --scenarios does not go with --client: conform serve serves the built-in scenarios")
		case *seed != 0 || *splits != 3:
			return usageError(e, fs, "run: --splits and --seed do not go with --client")
		}
		copts := clientOptions{Protocols: clientProtocols, Run: opts.Run, Skip: opts.Skip, KnownFailing: opts.KnownFailing, Timeout: *clientTimeout, Format: *format, Out: *out, Strict: *strict, Parallel: *parallel, Reduce: *reduceFlag, Shard: shard}
		for _, c := range chaosFlags {
			chaos, err := serve.ParseChaos(c)
			if err != nil {
				return usageError(e, fs, "run: --chaos: %v", err)
			}
			copts.Chaos = append(copts.Chaos, chaos)
		}
		if len(copts.Chaos) > 0 {
			// The plain run comes first, then each chaos variant, each
			// once: "--chaos none" names the plain run, which is there
			// anyway.
			copts.Chaos = uniqueChaos(append([]serve.Chaos{{}}, copts.Chaos...))
		}
		return runClient(ctx, e, *clientCmd, copts)
	}

	adapters, err := builtinAdapters(adapterNames, *execCmd != "")
	if err != nil {
		return usageError(e, fs, "run: %v", err)
	}
	if *execCmd != "" {
		// An adapter that cannot start is bad input, not bad usage: the
		// error says why, without the flags.
		var subOpts []subprocess.Option
		if *execTimeout > 0 {
			subOpts = append(subOpts, subprocess.WithTimeout(*execTimeout))
		}
		sub, err := subprocess.Start(*execCmd, subOpts...)
		if err != nil {
			e.errorf("run: %v", err)
			return exitUsage
		}
		defer sub.Close()
		// The protocol the child names selects the scenarios; a name no
		// built-in adapter has would select none and pass vacuously.
		features, err := providers.Features(sub.Name())
		if err != nil {
			e.errorf("run: adapter %q: hello: unknown protocol %q; known: %s", *execCmd, sub.Name(), strings.Join(providers.Names(), ", "))
			return exitUsage
		}
		label := *execName
		if label == "" {
			label = "exec:" + *execCmd
		}
		if slices.ContainsFunc(adapters, func(a core.Adapter) bool { return a.Name() == label }) {
			return usageError(e, fs, "run: --name %q is the name of a built-in adapter of this run; its results would be merged with the --exec adapter's", label)
		}
		// It is held to its protocol's features: it cannot skip a case
		// its protocol supports by refusing it. Its results are its own,
		// never merged with a built-in adapter of the same protocol.
		adapters = append(adapters, scenarios.NewSubject(sub, sub.Name(), features, label))
	}

	cases, err := loadScenarios(*dir)
	if err != nil {
		e.errorf("run: %v", err)
		return exitUsage
	}

	prog := newProgress(e.stderr, stderrIsTerminal(e.stderr))
	opts.Progress = prog.update
	start := time.Now()
	results, err := scenarios.Check(adapters, cases, opts)
	elapsed := time.Since(start)
	prog.done()
	if err != nil {
		e.errorf("run: %v", err)
		return exitUsage
	}
	if len(results) == 0 {
		e.errorf("run: no case applies to the selected adapters")
		return exitUsage
	}

	rep := &report.Report{Results: results, Strict: *strict, Elapsed: elapsed, NotApplicable: map[string]map[string]int{}}
	rep.Provenance = report.NewProvenance("run", start)
	rep.Provenance.Scenarios = report.ScenarioHash(cases)
	if opts.Seed != 0 {
		rep.Provenance = rep.Provenance.WithSeeds(opts.Seed)
	} else {
		rep.Provenance.Splits = max(opts.Splits, 0)
	}
	for _, a := range adapters {
		rep.NotApplicable[scenarios.Label(a)] = scenarios.NotApplicable(a, cases)
	}
	if *reduceFlag {
		rep.Reductions = reduceFailures(adapters, results, opts)
	}
	w := e.stdout
	var file *os.File
	if *out != "" {
		if file, err = os.Create(*out); err != nil {
			e.errorf("run: %v", err)
			return exitUsage
		}
		w = file
	}
	err = rep.Write(w, *format)
	if file != nil {
		err = errors.Join(err, file.Close())
	}
	if err != nil {
		e.errorf("run: writing the report: %v", err)
		return exitFail
	}
	if *out != "" {
		t := rep.Total()
		fmt.Fprintf(e.stdout, "%d passed, %d failed, %d known-failing, %d skipped, %d failed but not counted; report in %s\n", t.Pass, t.Fail, t.KnownFailing, t.Skip, t.Uncounted, *out)
	}
	if rep.Failed() {
		return exitFail
	}
	if t := rep.Total(); t.Pass == 0 && t.Skip+t.NotGraded == t.Total() {
		// Nothing was checked: an adapter that supports no operation
		// the selected cases need must not pass.
		e.errorf("run: none of the %d selected cases ran: all were skipped or not graded, none passed", t.Total())
		return exitFail
	}
	return exitOK
}

// reduceFailures reduces each failed or known-failing stream result to its
// cause (reduce.Adapter: the adapter decodes simpler variants of the case).
func reduceFailures(adapters []core.Adapter, results []scenarios.Result, opts scenarios.Options) map[string]*reduce.Result {
	byLabel := map[string]core.Adapter{}
	for _, a := range adapters {
		byLabel[scenarios.Label(a)] = a
	}
	out := map[string]*reduce.Result{}
	for _, r := range results {
		a, ok := byLabel[r.Adapter]
		if !ok || r.Scenario == nil || (r.Status != scenarios.StatusFail && r.Status != scenarios.StatusKnownFailing) {
			continue
		}
		if red := reduce.Adapter(a, r.Scenario, opts); red != nil {
			out[report.ReductionKey(r.Adapter, r.Name)] = red
		}
	}
	return out
}

// uniqueChaos returns variants without repeats, in first-seen order.
func uniqueChaos(variants []serve.Chaos) []serve.Chaos {
	var out []serve.Chaos
	for _, c := range variants {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// loadScenarios loads the scenarios of dir, or the built-in ones when dir
// is empty. Errors name dir, and a file in it as dir/relative-path; the
// loaded scenarios' File fields name their files the same way, so that
// reports point at real paths.
func loadScenarios(dir string) ([]*scenarios.Scenario, error) {
	resolve := scenarios.VCRResolver(cassettes.Load)
	if dir == "" {
		return scenarios.LoadBuiltin(resolve)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("load scenarios: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("load scenarios %s: not a directory", dir)
	}
	cases, err := scenarios.Load(os.DirFS(dir), ".", resolve)
	if err != nil {
		placeErrors(err, dir)
		// Load's own "load scenarios: " prefix gives way to the one
		// naming dir.
		if inner := errors.Unwrap(err); inner != nil && err.Error() == "load scenarios: "+inner.Error() {
			err = inner
		}
		return nil, fmt.Errorf("load scenarios %s: %w", dir, err)
	}
	for _, sc := range cases {
		sc.File = filepath.Join(dir, sc.File)
	}
	return cases, nil
}

// placeErrors rewrites, in place, the file names that err and the errors
// it wraps give relative to a scenario directory, so that they name files
// as dir/relative-path. The errors are the fresh values of one Load call.
func placeErrors(err error, dir string) {
	switch x := err.(type) {
	case *scenarios.ParseError:
		x.File = filepath.Join(dir, x.File)
	case *scenarios.NameClashError:
		for i := range x.Files {
			x.Files[i] = filepath.Join(dir, x.Files[i])
		}
	case *fs.PathError:
		x.Path = filepath.Join(dir, x.Path)
	}
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			placeErrors(e, dir)
		}
	case interface{ Unwrap() error }:
		if e := u.Unwrap(); e != nil {
			placeErrors(e, dir)
		}
	}
}

// repeatedFlag is a flag that may be given several times, each value kept
// whole.
type repeatedFlag []string

func (r *repeatedFlag) String() string { return strings.Join(*r, " ") }

func (r *repeatedFlag) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New(`empty value: "none" names the run without chaos`)
	}
	*r = append(*r, v)
	return nil
}

// builtinAdapters returns the built-in adapters a run checks: the ones
// named, or all of them when none is named and no --exec adapter runs.
func builtinAdapters(names []string, withExec bool) ([]core.Adapter, error) {
	if len(names) == 0 {
		if withExec {
			return nil, nil
		}
		return providers.All(), nil
	}
	var adapters []core.Adapter
	for _, name := range names {
		a, err := providers.Lookup(name)
		if err != nil {
			return nil, err
		}
		adapters = append(adapters, a)
	}
	return adapters, nil
}

// progress shows how far a run has got: one line rewritten in place on a
// terminal, and a plain line every progressEvery cases otherwise.
type progress struct {
	w        io.Writer
	terminal bool
	width    int
	// unit and perLine, when set, replace "cases run" and progressEvery
	// in the plain lines (client and gateway runs are slower).
	unit    string
	perLine int
}

func (p *progress) noun() string {
	if p.unit != "" {
		return p.unit
	}
	return "cases run"
}

func (p *progress) every() int {
	if p.perLine > 0 {
		return p.perLine
	}
	return progressEvery
}

const (
	progressEvery = 250 // cases between plain progress lines
	progressWidth = 100 // the longest terminal progress line, in bytes
)

// newProgress returns a progress writer to w, rewriting one line in place
// when terminal is true.
func newProgress(w io.Writer, terminal bool) *progress {
	return &progress{w: w, terminal: terminal}
}

// stderrIsTerminal decides whether run's progress goes to a terminal; tests
// replace it.
var stderrIsTerminal = isTerminal

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (p *progress) update(done, total int, r scenarios.Result) { p.step(done, total, r.Name) }

// step shows that done of total cases have run, name last.
func (p *progress) step(done, total int, name string) {
	if p.terminal {
		line := fmt.Sprintf("[%d/%d] %s", done, total, name)
		if len(line) > progressWidth {
			// Cut on a character boundary, so the terminal never
			// shows half a character.
			line = line[:progressWidth]
			for !utf8.ValidString(line) {
				line = line[:len(line)-1]
			}
		}
		fmt.Fprintf(p.w, "\r%-*s", p.width, line)
		p.width = max(p.width, len(line))
		return
	}
	if done%p.every() == 0 || done == total {
		fmt.Fprintf(p.w, "conform: %d of %d %s\n", done, total, p.noun())
	}
}

func (p *progress) done() {
	if p.terminal {
		fmt.Fprintf(p.w, "\r%-*s\r", p.width, "")
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolconform/conform/gateway"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/proxy"
	"github.com/toolconform/conform/publish"
	"github.com/toolconform/conform/report"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
	"github.com/toolconform/conform/tools/sandbox"
)

// runGateway grades a translating gateway: the reference proxy
// (--reference) or one described by a spec file (--spec), over each
// upstream protocol, every servable scenario of that protocol, whole and
// streamed. docs/gateway.md describes it.
func runGateway(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "gateway")
	reference := fs.Bool("reference", false, "grade conform's own reference proxy (conform proxy)")
	specFile := fs.String("spec", "", "grade the gateway the spec `FILE` describes (docs/gateway.md)")
	front := fs.String("front", "", "the front `PROTOCOL` of the reference proxy")
	var upstreams, runPatterns listFlag
	fs.Var(&upstreams, "upstream", "grade only these upstream `PROTOCOLS`, comma-separated (default: all the gateway has)")
	fs.Var(&runPatterns, "run", "grade only the scenarios whose names (upstream/category/case) match the `PATTERN`")
	chaos := fs.String("chaos", "", "chaos `OPTIONS` for serve's responses: "+strings.Join(serve.ChaosNames(), ", "))
	format := fs.String("format", "text", "output `FORMAT`: text, json or markdown")
	out := fs.String("out", "", "write the results to `FILE` instead of stdout")
	strict := fs.Bool("strict", false, "count failed SHOULD cases")
	caseTimeout := fs.Duration("case-timeout", gateway.DefaultCaseTimeout, "the time one case (its requests and the answers) may take")
	isolate := fs.Bool("isolate", true, "with --spec: run serve, the gateway and the grading in a network namespace with only loopback and a private HOME (tools/sandbox); --isolate=false runs them on the host's loopback")
	var shard shardFlag
	fs.Var(&shard, "shard", "grade only shard `I/N` of the (upstream, scenario) runs: the k-th when k mod N is I-1 (conform merge joins the shards' JSON results)")
	inNamespace := fs.Bool("in-namespace", false, "set by conform when it runs itself inside the namespace of --isolate")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if fs.NArg() > 0 {
		return usageError(e, fs, "gateway: unexpected argument %q", fs.Arg(0))
	}
	if *reference == (*specFile != "") {
		return usageError(e, fs, "gateway: give exactly one of --reference and --spec")
	}
	if *format != "text" && *format != "json" && *format != "markdown" {
		return usageError(e, fs, "gateway: --format %q: want text, json or markdown", *format)
	}
	if *caseTimeout <= 0 {
		return usageError(e, fs, "gateway: --case-timeout %v: want a positive duration", *caseTimeout)
	}
	ch, err := serve.ParseChaos(*chaos)
	if err != nil {
		return usageError(e, fs, "gateway: %v", err)
	}
	var spec *gateway.Spec
	var available []string
	if *reference {
		if *front == "" {
			return usageError(e, fs, "gateway: --reference needs --front P, the protocol clients speak to the proxy (%s)", strings.Join(providers.Names(), ", "))
		}
		if _, err := providers.Lookup(*front); err != nil {
			return usageError(e, fs, "gateway: --front: %v", err)
		}
		available = providers.Names()
	} else {
		if *front != "" {
			return usageError(e, fs, "gateway: --front is the spec's (front) with --spec")
		}
		if spec, err = gateway.LoadSpec(*specFile); err != nil {
			return usageError(e, fs, "gateway: %v", err)
		}
		*front = spec.Front
		available = spec.UpstreamNames()
	}
	chosen := available
	if len(upstreams) > 0 {
		for _, q := range upstreams {
			if !slices.Contains(available, q) {
				return usageError(e, fs, "gateway: --upstream %q: the gateway has %s", q, strings.Join(available, ", "))
			}
		}
		chosen = upstreams
	}
	if spec != nil && *isolate && !*inNamespace {
		inner := []string{"gateway", "--in-namespace", "--format", "json", "--spec", *specFile, "--upstream", strings.Join(chosen, ","), "--case-timeout", caseTimeout.String()}
		for _, p := range runPatterns {
			inner = append(inner, "--run", p)
		}
		if *chaos != "" {
			inner = append(inner, "--chaos", *chaos)
		}
		if shard.n > 0 {
			inner = append(inner, "--shard", shard.String())
		}
		file, err := runIsolated(ctx, e, spec, *specFile, inner)
		if err != nil {
			e.errorf("gateway: %v", err)
			return exitUsage
		}
		return writeGatewayResults(e, file, *format, *out, *strict)
	}
	var pats []scenarios.Pattern
	for _, s := range runPatterns {
		p, err := scenarios.CompilePattern(s)
		if err != nil {
			return usageError(e, fs, "gateway: --run: %v", err)
		}
		pats = append(pats, p)
	}
	cases, err := loadServable()
	if err != nil {
		e.errorf("gateway: load scenarios: %v", err)
		return exitFail
	}
	up, err := gateway.NewUpstream(cases, ch)
	if err != nil {
		e.errorf("gateway: %v", err)
		return exitFail
	}
	ln, err := serve.Listen("127.0.0.1:0")
	if err != nil {
		e.errorf("gateway: %v", err)
		return exitFail
	}
	upURL := serve.URL(ln)
	sctx, stopUp := context.WithCancel(ctx)
	defer stopUp()
	go serveUntil(sctx, ln, &http.Server{Handler: up, ReadHeaderTimeout: serve.ReadHeaderTimeout})

	used := make([]bool, len(pats))
	perUpstream := map[string][]string{}
	k := 0
	for _, q := range chosen {
		for _, n := range up.Names(q) {
			sel := len(pats) == 0
			for i, p := range pats {
				if p.Match(n) {
					used[i], sel = true, true
					break
				}
			}
			if sel {
				if shard.keep(k) {
					perUpstream[q] = append(perUpstream[q], n)
				}
				k++
			}
		}
	}
	for i, p := range pats {
		if !used[i] {
			return usageError(e, fs, "gateway: --run %q matches no scenario of %s", p.String(), strings.Join(chosen, ", "))
		}
	}
	prov := report.NewProvenance("gateway", time.Now())
	prov.Scenarios = report.ScenarioHash(cases)
	if ch.Split {
		prov = prov.WithSeeds(ch.Seed)
	}
	total := 0
	for _, q := range chosen {
		total += 2 * len(perUpstream[q])
	}
	prog := newProgress(e.stderr, stderrIsTerminal(e.stderr))
	prog.unit, prog.perLine = "gateway cases graded", 20
	var results []gateway.Result
	for _, q := range chosen {
		names := perUpstream[q]
		if len(names) == 0 {
			continue
		}
		g, err := startGateway(sctx, e, spec, *front, q, upURL)
		if err != nil {
			prog.done()
			e.errorf("gateway: %v", err)
			return exitFail
		}
		base := len(results)
		rn := gateway.Runner{Upstream: up, Target: g.target, CaseTimeout: *caseTimeout, Exited: g.exited,
			Progress: func(done, _ int, r gateway.Result) { prog.step(base+done, total, r.Name) }}
		graded := rn.Run(ctx, names)
		results = append(results, graded...)
		// Cases a dead gateway did not run still move the count on.
		total -= 2*len(names) - len(graded)
		if output := g.stop(); output != "" {
			if f, ok := gateway.OutboundFinding(g.target, output); ok {
				results = append(results, f)
			}
		}
	}
	prog.done()
	return writeGatewayResults(e, gateway.NewFile(prov, results), *format, *out, *strict)
}

// writeGatewayResults writes the results in the format asked for and
// returns the exit status they give.
func writeGatewayResults(e *env, file gateway.File, format, out string, strict bool) int {
	results := file.Results
	gateway.ApplyControls(results)
	w := e.stdout
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			e.errorf("gateway: %v", err)
			return exitFail
		}
		defer f.Close()
		w = f
	}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(file); err != nil {
			e.errorf("gateway: %v", err)
			return exitFail
		}
	case "markdown":
		// The summary publish writes for any result file, from these
		// results' JSON.
		data, err := json.Marshal(file)
		if err == nil {
			var run *publish.Run
			if run, err = publish.Read("gateway results", data, "gateway"); err == nil {
				err = publish.WriteMarkdown(w, publish.Subjects([]*publish.Run{run}))
			}
		}
		if err != nil {
			e.errorf("gateway: %v", err)
			return exitFail
		}
	default:
		writeGatewayText(w, file)
	}
	for _, r := range results {
		if gateway.Counted(r, strict) {
			return exitFail
		}
	}
	return exitOK
}

// runIsolated runs conform with args inside a sandbox (tools/sandbox)
// with its own network namespace, where only loopback is up, and reads
// the JSON results it writes. serve, the gateway and the grading share
// that loopback; nothing in it reaches the host's loopback or beyond.
// The sandbox is given, read-only, the spec's directory, the gateway's
// Dir and the directory of its program.
func runIsolated(ctx context.Context, e *env, spec *gateway.Spec, specFile string, args []string) (gateway.File, error) {
	self := os.Args[0]
	if _, err := exec.LookPath(self); err != nil {
		if self, err = os.Executable(); err != nil {
			return gateway.File{}, err
		}
	}
	for i, a := range args {
		if i > 0 && args[i-1] == "--spec" {
			abs, err := filepath.Abs(a)
			if err != nil {
				return gateway.File{}, err
			}
			args[i] = abs
		}
	}
	c, err := sandbox.Prepare(ctx, sandbox.Policy{Network: sandbox.NetworkLoopback, Env: []string{"PATH", "LANG"}, Paths: gatewayPaths(spec, specFile)}, self, args...)
	if err != nil {
		return gateway.File{}, fmt.Errorf("--isolate: %w (--isolate=false runs the gateway on the host's loopback, without a namespace)", err)
	}
	defer c.Cleanup()
	var stdout bytes.Buffer
	c.Cmd.Stdout, c.Cmd.Stderr = &stdout, e.stderr
	err = c.Cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == exitFail) {
		return gateway.File{}, fmt.Errorf("the isolated run failed: %w", err)
	}
	file, err := gateway.ParseFile(stdout.Bytes())
	if err != nil {
		return gateway.File{}, fmt.Errorf("the isolated run's results: %w", err)
	}
	return file, nil
}

// runningGateway is a gateway started for one upstream: where it listens,
// whether it has exited (nil for the reference proxy, which runs in this
// process), and how to stop it, which returns what it wrote.
type runningGateway struct {
	target gateway.Target
	exited func() (string, bool)
	stop   func() string
}

// gatewayPaths are the host directories an isolated run of spec needs:
// the spec file's, the gateway's Dir and its program's, where they exist.
func gatewayPaths(spec *gateway.Spec, specFile string) []sandbox.Path {
	specDir, err := filepath.Abs(filepath.Dir(specFile))
	if err != nil {
		return nil
	}
	dirs := []string{specDir, spec.Dir}
	if len(spec.Command) > 0 {
		if prog, err := exec.LookPath(strings.ReplaceAll(spec.Command[0], "{{dir}}", specDir)); err == nil {
			if abs, err := filepath.Abs(prog); err == nil {
				dirs = append(dirs, filepath.Dir(abs))
			}
		}
	}
	var paths []sandbox.Path
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() || slices.ContainsFunc(paths, func(p sandbox.Path) bool { return p.Path == d }) {
			continue
		}
		paths = append(paths, sandbox.Path{Path: d})
	}
	return paths
}

// startGateway starts the gateway for upstream q: the reference proxy in
// process, or the spec's command.
func startGateway(ctx context.Context, e *env, spec *gateway.Spec, front, q, upURL string) (runningGateway, error) {
	if spec != nil {
		p, err := spec.Start(ctx, q, upURL)
		if err != nil {
			return runningGateway{}, err
		}
		return runningGateway{p.Target, p.Exited, func() string { p.Stop(); return p.Output() }}, nil
	}
	px, err := proxy.New(proxy.Options{Front: front, Upstream: q, UpstreamURL: upURL})
	if err != nil {
		return runningGateway{}, err
	}
	ln, err := serve.Listen("127.0.0.1:0")
	if err != nil {
		return runningGateway{}, err
	}
	pctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		serveUntil(pctx, ln, px.Server())
		close(done)
	}()
	target := gateway.Target{Front: front, Upstream: q, URL: serve.URL(ln), Header: http.Header{}}
	return runningGateway{target: target, stop: func() string { cancel(); <-done; return "" }}, nil
}

// writeGatewayText writes what produced the results, one line per failed
// case with its problems and quoted bytes (and one per pass by failing not
// counted, with why), the failures grouped by fault, then the count per
// (front, upstream) pair.
func writeGatewayText(w io.Writer, file gateway.File) {
	if file.Provenance.Command != "" {
		fmt.Fprintln(w, file.Provenance)
	}
	for _, r := range file.Results {
		if r.Status == gateway.StatusNotCounted {
			fmt.Fprintf(w, "NOT COUNTED %s [%s]\n    %s\n", r.Name, r.Severity, r.Reason)
		}
		if r.Status != gateway.StatusFail {
			continue
		}
		fmt.Fprintf(w, "FAIL %s [%s]\n", r.Name, r.Severity)
		for _, p := range r.Problems {
			fmt.Fprintf(w, "    [%s] %s\n", p.Rule, strings.ReplaceAll(p.Message, "\n", "\n    "))
			if p.Contract != "" {
				fmt.Fprintf(w, "        contract: %s\n", p.Contract)
			}
		}
		for _, ev := range r.Evidence {
			fmt.Fprintf(w, "    %s:\n        %s\n", ev.What, strings.ReplaceAll(strings.TrimRight(ev.Bytes, "\n"), "\n", "\n        "))
		}
	}
	report.WriteGroups(w, file.Groups)
	gateway.Summary(w, file.Results)
}

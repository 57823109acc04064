// Command gateway-matrix installs the real gateways of gateways/ from the
// npm registry (each pinned by its package-lock.json), grades each with
// conform gateway over every upstream its spec names, and writes
// gateways/RESULTS.md: versions, Node version, counts per (front,
// upstream) pair, a summary made from the failures grouped by fault
// (gateway.Groups, as conform gateway reports them) and the findings, each
// quoting the bytes that show it. Nothing in it is written by hand. It is
// not part of go test ./...; run it from the repository root:
//
//	go run ./scripts/gateway-matrix [-o gateways/RESULTS.md] [-only portkey] [-isolate=false]
//
// Each gateways/NAME directory holds package.json, package-lock.json and
// spec.json (docs/gateway.md). npm ci runs again only when the lock file
// (or the Node version) changed since the last install. conform is built
// into a directory of the run's own, removed at exit.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/toolconform/conform/gateway"
	"github.com/toolconform/conform/report"
)

// maxQuote bounds the bytes a finding quotes from one piece of evidence.
const maxQuote = 1500

// npmStamp names the file, inside node_modules, that holds the hash of the
// package-lock.json it was installed from.
const npmStamp = ".conform-package-lock.sha256"

// graded is one gateway's run.
type graded struct {
	name, pkg, version string
	spec               *gateway.Spec
	results            []gateway.Result
	took               time.Duration
	// setup is a set-up failure: the gateway could not be installed or
	// graded at all.
	setup string
}

func main() {
	out := flag.String("o", "gateways/RESULTS.md", "write the results to `FILE`")
	isolate := flag.Bool("isolate", true, "run each gateway in conform gateway's loopback-only namespace (--isolate=false where namespaces are unavailable)")
	var only []string
	flag.Func("only", "grade only the gateway `NAME` (a directory of gateways/); repeatable", func(v string) error {
		only = append(only, v)
		return nil
	})
	flag.Parse()
	if err := run(*out, only, *isolate); err != nil {
		fmt.Fprintln(os.Stderr, "gateway-matrix:", err)
		os.Exit(1)
	}
}

func run(out string, only []string, isolate bool) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	dirs, err := gatewayDirs(filepath.Join(root, "gateways"), only)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "gateway-matrix-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// The isolated run executes conform as an unprivileged user.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	conform := filepath.Join(tmp, "conform")
	fmt.Fprintln(os.Stderr, "gateway-matrix: building conform")
	if err := sh(root, "go", "build", "-o", conform, "./cmd/conform"); err != nil {
		return err
	}
	nodeVersion, err := exec.Command("node", "--version").Output()
	if err != nil {
		return fmt.Errorf("node --version: %w", err)
	}
	var runs []graded
	for _, dir := range dirs {
		runs = append(runs, grade(conform, dir, tmp, isolate))
	}
	commit, _ := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	var b bytes.Buffer
	writeResults(&b, runs, strings.TrimSpace(string(nodeVersion)), strings.TrimSpace(string(commit)), isolate)
	return os.WriteFile(out, b.Bytes(), 0o644)
}

// gatewayDirs returns the directories under dir holding a spec.json, or
// those named by only.
func gatewayDirs(dir string, only []string) ([]string, error) {
	specs, err := filepath.Glob(filepath.Join(dir, "*", "spec.json"))
	if err != nil {
		return nil, err
	}
	var all []string
	for _, s := range specs {
		all = append(all, filepath.Dir(s))
	}
	if len(only) == 0 {
		return all, nil
	}
	var keep []string
	for _, name := range only {
		i := slices.IndexFunc(all, func(d string) bool { return filepath.Base(d) == name })
		if i < 0 {
			var names []string
			for _, d := range all {
				names = append(names, filepath.Base(d))
			}
			return nil, fmt.Errorf("-only %q: no gateways/%s/spec.json; the gateways are: %s", name, name, strings.Join(names, ", "))
		}
		keep = append(keep, all[i])
	}
	return keep, nil
}

// grade installs the gateway in dir and grades it.
func grade(conform, dir, tmp string, isolate bool) graded {
	g := graded{name: filepath.Base(dir)}
	spec, err := gateway.LoadSpec(filepath.Join(dir, "spec.json"))
	if err != nil {
		g.setup = err.Error()
		return g
	}
	g.spec = spec
	if g.pkg, g.version, err = pinnedPackage(dir); err != nil {
		g.setup = err.Error()
		return g
	}
	if err := installNode(dir); err != nil {
		g.setup = err.Error()
		return g
	}
	res := filepath.Join(tmp, g.name+".json")
	fmt.Fprintf(os.Stderr, "gateway-matrix: grading %s %s over %s\n", g.pkg, g.version, strings.Join(spec.UpstreamNames(), ", "))
	start := time.Now()
	cmd := exec.Command(conform, "gateway", "--spec", filepath.Join(dir, "spec.json"), "--format", "json", "--out", res, fmt.Sprintf("--isolate=%t", isolate))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	g.took = time.Since(start)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		g.setup = fmt.Sprintf("conform gateway: %v: %s", err, cut(stderr.String(), maxQuote))
		return g
	}
	data, err := os.ReadFile(res)
	if err == nil {
		var file gateway.File
		file, err = gateway.ParseFile(data)
		g.results = file.Results
	}
	if err != nil {
		g.setup = fmt.Sprintf("conform gateway's results: %v: %s", err, cut(stderr.String(), maxQuote))
	}
	return g
}

// pinnedPackage returns the one dependency of dir's package.json and its
// version, which must be exact (no range).
func pinnedPackage(dir string) (name, version string, err error) {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", "", err
	}
	var pj struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(data, &pj); err != nil {
		return "", "", fmt.Errorf("%s/package.json: %w", dir, err)
	}
	if len(pj.Dependencies) != 1 {
		return "", "", fmt.Errorf("%s/package.json: want exactly one dependency, the gateway; have %d", dir, len(pj.Dependencies))
	}
	for n, v := range pj.Dependencies {
		if v == "" || strings.ContainsAny(v, "^~<>=*x| ") {
			return "", "", fmt.Errorf("%s/package.json: dependencies.%s: %q is not a pinned version", dir, n, v)
		}
		name, version = n, v
	}
	return name, version, nil
}

// installNode runs npm ci in dir unless node_modules was installed from the
// same package-lock.json (and Node version) by an earlier run.
func installNode(dir string) error {
	nodeVersion, _ := exec.Command("node", "--version").Output()
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err
	}
	sum := sha256.Sum256(append(append(bytes.TrimSpace(nodeVersion), 0), lock...))
	hash := hex.EncodeToString(sum[:])
	stamp := filepath.Join(dir, "node_modules", npmStamp)
	if old, err := os.ReadFile(stamp); err == nil && strings.TrimSpace(string(old)) == hash {
		fmt.Fprintf(os.Stderr, "gateway-matrix: %s/node_modules matches package-lock.json; no npm ci\n", filepath.Base(dir))
		return nil
	}
	fmt.Fprintf(os.Stderr, "gateway-matrix: npm ci in %s\n", dir)
	if err := sh(dir, "npm", "ci", "--no-audit", "--no-fund"); err != nil {
		return err
	}
	return os.WriteFile(stamp, []byte(hash+"\n"), 0o644)
}

func sh(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s in %s: %w", name, strings.Join(args, " "), dir, err)
	}
	return nil
}

// finding is the failed cases of one gateway sharing an upstream and a
// rule.
type finding struct {
	upstream, rule string
	cases          []gateway.Result
}

// findings groups a gateway's failed cases by (upstream, rule), in order
// of upstream then rule.
func findings(results []gateway.Result) []finding {
	idx := map[[2]string]int{}
	var out []finding
	for _, r := range results {
		if r.Status != gateway.StatusFail {
			continue
		}
		seen := map[string]bool{}
		for _, p := range r.Problems {
			if seen[p.Rule] {
				continue
			}
			seen[p.Rule] = true
			k := [2]string{r.Upstream, p.Rule}
			i, ok := idx[k]
			if !ok {
				i = len(out)
				idx[k] = i
				out = append(out, finding{upstream: r.Upstream, rule: p.Rule})
			}
			out[i].cases = append(out[i].cases, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].upstream != out[j].upstream {
			return out[i].upstream < out[j].upstream
		}
		return out[i].rule < out[j].rule
	})
	return out
}

// summaryRows bounds the groups the summary lists for one gateway.
const summaryRows = 15

// writeSummary writes, for each gateway, its failures grouped by fault
// (gateway.Groups: one group per front>upstream pair and failure mode, the
// set of rules a case breaks), largest first.
func writeSummary(b *bytes.Buffer, runs []graded) {
	fmt.Fprintf(b, "## Summary\n\nGenerated from the failures grouped by fault, as `conform gateway` groups them (`gateway.Groups`): one\n")
	fmt.Fprintf(b, "group per front > upstream pair and failure mode (the set of rules its cases break), the largest first; each\n")
	fmt.Fprintf(b, "failed case is in exactly one group. `gateway-died` is a gateway that exited mid-run, `case-timeout` a case\n")
	fmt.Fprintf(b, "that ran out of its time. The sections below quote the bytes.\n\n")
	fmt.Fprintf(b, "| gateway | front > upstream | failure mode | cases | e.g. |\n|---|---|---|---:|---|\n")
	for _, g := range runs {
		if g.setup != "" {
			fmt.Fprintf(b, "| %s | — | set-up failed | — | — |\n", g.name)
			continue
		}
		groups := gateway.Groups(g.results)
		slices.SortStableFunc(groups, func(a, b report.Group) int { return len(b.Cases) - len(a.Cases) })
		if len(groups) == 0 {
			fmt.Fprintf(b, "| %s | — | no failed case | 0 | — |\n", g.name)
			continue
		}
		for i, gr := range groups {
			if i == summaryRows {
				rest := 0
				for _, r := range groups[i:] {
					rest += len(r.Cases)
				}
				fmt.Fprintf(b, "| %s | … | %d smaller groups | %d | — |\n", g.name, len(groups)-i, rest)
				break
			}
			pair := strings.Replace(gr.Subject, ">", " > ", 1)
			example := strings.TrimPrefix(gr.Cases[0], strings.SplitN(gr.Subject, ">", 2)[0]+">")
			fmt.Fprintf(b, "| %s | %s | %s | %d | `%s` |\n", g.name, pair, strings.ReplaceAll(gr.Mode, "+", " + "), len(gr.Cases), example)
		}
	}
	b.WriteString("\n")
}

func writeResults(b *bytes.Buffer, runs []graded, nodeVersion, commit string, isolate bool) {
	fmt.Fprintf(b, "# Real gateways graded by conform\n\n")
	fmt.Fprintf(b, "Written by `go run ./scripts/gateway-matrix` (conform %s, Node %s, %s). Each gateway is installed from\n", commit, nodeVersion, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(b, "the npm registry with `npm ci` from `gateways/NAME/package-lock.json` and graded by `conform gateway --spec\n")
	if isolate {
		fmt.Fprintf(b, "gateways/NAME/spec.json` in a network namespace with only loopback (docs/gateway.md). Every case is a scenario\n")
	} else {
		fmt.Fprintf(b, "gateways/NAME/spec.json --isolate=false`, on the host's loopback (docs/gateway.md). Every case is a scenario\n")
	}
	fmt.Fprintf(b, "servable in the upstream protocol, sent once whole and once streamed.\n\n")
	writeSummary(b, runs)
	fmt.Fprintf(b, "## Counts\n\n| gateway | version | front > upstream | cases | passed | failed | not applicable | time |\n|---|---|---|---:|---:|---:|---:|---:|\n")
	for _, g := range runs {
		if g.setup != "" {
			fmt.Fprintf(b, "| %s | %s | — | — | — | — | — | set-up failed |\n", g.name, g.version)
			continue
		}
		type count struct{ cases, pass, fail, na int }
		counts := map[string]*count{}
		var pairs []string
		for _, r := range g.results {
			k := r.Front + " > " + r.Upstream
			c := counts[k]
			if c == nil {
				c = &count{}
				counts[k] = c
				pairs = append(pairs, k)
			}
			c.cases++
			switch r.Status {
			case gateway.StatusPass:
				c.pass++
			case gateway.StatusFail:
				c.fail++
			default:
				c.na++
			}
		}
		for i, k := range pairs {
			c := counts[k]
			took := ""
			if i == 0 {
				took = g.took.Round(time.Second).String()
			}
			fmt.Fprintf(b, "| %s | %s %s | %s | %d | %d | %d | %d | %s |\n", g.name, g.pkg, g.version, k, c.cases, c.pass, c.fail, c.na, took)
		}
	}
	for i, g := range runs {
		fmt.Fprintf(b, "\n## %s (%s %s)\n\n", g.name, g.pkg, g.version)
		if g.setup != "" {
			fmt.Fprintf(b, "Set-up failed, nothing graded:\n\n```\n%s\n```\n", g.setup)
			continue
		}
		fs := findings(g.results)
		if len(fs) == 0 {
			fmt.Fprintf(b, "No failed case.\n")
			continue
		}
		if same := sameFailures(runs[:i], g); same != "" {
			fmt.Fprintf(b, "The same cases failed with the same failure modes as %s; its section quotes the bytes.\n", same)
			continue
		}
		fmt.Fprintf(b, "Failed cases grouped by upstream and failure mode (a case with several modes is in each group); the\nfirst case of each group is quoted.\n")
		for _, f := range fs {
			first := f.cases[0]
			streamed := 0
			for _, c := range f.cases {
				if c.Stream {
					streamed++
				}
			}
			fmt.Fprintf(b, "\n### %s > %s: %s, %d case(s), %d streamed\n\n", first.Front, f.upstream, f.rule, len(f.cases), streamed)
			var names []string
			for _, c := range f.cases {
				names = append(names, "`"+strings.TrimPrefix(c.Name, first.Front+">")+"`")
			}
			if len(names) > 12 {
				names = append(names[:12], fmt.Sprintf("and %d more", len(names)-12))
			}
			fmt.Fprintf(b, "Cases: %s.\n\n", strings.Join(names, ", "))
			fmt.Fprintf(b, "`%s`:\n\n", first.Name)
			for _, p := range first.Problems {
				if p.Rule == f.rule {
					fmt.Fprintf(b, "- [%s] %s\n", p.Rule, strings.ReplaceAll(cut(p.Message, maxQuote), "\n", " "))
				}
			}
			for _, ev := range first.Evidence {
				fmt.Fprintf(b, "\n%s:\n\n```\n%s\n```\n", ev.What, strings.TrimRight(cut(ev.Bytes, maxQuote), "\n"))
			}
		}
	}
}

// failureKey lists a run's failed cases with their failure modes.
func failureKey(g graded) string {
	var lines []string
	for _, r := range g.results {
		if r.Status != gateway.StatusFail {
			continue
		}
		var rules []string
		for _, p := range r.Problems {
			if !slices.Contains(rules, p.Rule) {
				rules = append(rules, p.Rule)
			}
		}
		sort.Strings(rules)
		lines = append(lines, r.Name+" "+strings.Join(rules, ","))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// sameFailures returns the name of an earlier gateway, of the same front,
// whose failed cases and their failure modes are g's, or "".
func sameFailures(earlier []graded, g graded) string {
	key := failureKey(g)
	for _, e := range earlier {
		if e.setup == "" && e.spec != nil && g.spec != nil && e.spec.Front == g.spec.Front && failureKey(e) == key {
			return e.name
		}
	}
	return ""
}

// cut returns s cut to n bytes, marked when cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d more bytes)", len(s)-n)
}

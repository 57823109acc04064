// Command client-matrix installs the client programs of clients/ and runs
// them over a matrix of scenarios and stream variants against conform's
// fake provider, then writes clients/RESULTS.md: which SDK handles which
// stream, a summary made from the failures grouped by fault (set-up,
// reduced cause and failure mode, as conform run --client groups them),
// and the failing detail. Nothing in it is written by hand. It is not part
// of go test ./...; run it from the repository root:
//
//	go run ./scripts/client-matrix [-per-protocol 20] [-parallel 2] [-o clients/RESULTS.md] [-only 'node *']
//
// It needs npm (for clients/node, installed with npm ci from the committed
// lock file) and the Go module proxy (for clients/go). The Go client is
// built into a directory of the run's own, removed at exit, and kept in the
// user's cache under the hash of its sources; npm ci runs again only when
// package-lock.json changed since the last install. A chaos variant runs
// only on the scenarios it changes (serve.ChaosChanges).
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/reduce"
	"github.com/toolconform/conform/report"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
)

// setup is one client set-up: an SDK and the protocol it speaks.
type setup struct {
	name, protocol, dir, command string
}

// defaultPerProtocol is the number of scenarios per protocol by default:
// issue 8 asks for at least 20 scenarios per set-up.
const defaultPerProtocol = 20

// timeout bounds one client run.
var timeout time.Duration

// reduceFailures reduces each failing run to its cause (serve.ReduceClient).
var reduceFailures bool

// variants are the stream variants every scenario is served with.
var variants = []string{"none", "split=7", "crlf,ping", "keepalive", "multiline"}

func main() {
	perProtocol := flag.Int("per-protocol", defaultPerProtocol, "scenarios per protocol (streaming scenarios with complete calls first; fewer when a protocol has fewer servable scenarios)")
	parallel := flag.Int("parallel", max(runtime.NumCPU()/2, 1), "client runs at once")
	out := flag.String("o", "clients/RESULTS.md", "write the results to `FILE`")
	var only []string
	flag.Func("only", "run only the set-ups named `NAME` exactly, or matching it where it holds '*' (any text); repeatable", func(v string) error {
		only = append(only, v)
		return nil
	})
	flag.BoolVar(&reduceFailures, "reduce", true, "reduce each failing stream run to its cause by re-running the client on up to 8 simpler variants (-reduce=false to skip)")
	flag.DurationVar(&timeout, "timeout", 15*time.Second, "bound one client run to `DURATION` (loopback answers in milliseconds; a client that hangs is a finding)")
	flag.Parse()
	// An interrupt stops the runs (their process groups are killed) and
	// lets run remove its directory.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *perProtocol, *parallel, *out, only); err != nil {
		fmt.Fprintln(os.Stderr, "client-matrix:", err)
		stop()
		os.Exit(1)
	}
}

// selectSetups returns the set-ups named by one of the patterns: a name
// exactly, or with '*' standing for any text. A pattern that names no
// set-up is an error listing them.
func selectSetups(setups []setup, patterns []string) ([]setup, error) {
	if len(patterns) == 0 {
		return setups, nil
	}
	var keep []setup
	for _, p := range patterns {
		re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(p), `\*`, ".*") + "$")
		n := 0
		for _, s := range setups {
			if re.MatchString(s.name) {
				n++
				if !slices.ContainsFunc(keep, func(k setup) bool { return k.name == s.name }) {
					keep = append(keep, s)
				}
			}
		}
		if n == 0 {
			var names []string
			for _, s := range setups {
				names = append(names, s.name)
			}
			return nil, fmt.Errorf("-only %q names no set-up; the set-ups are: %s", p, strings.Join(names, "; "))
		}
	}
	return keep, nil
}

// hashFiles returns the hex SHA-256 of the named files' names and contents,
// and of extra.
func hashFiles(extra string, files ...string) (string, error) {
	h := sha256.New()
	h.Write([]byte(extra))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "\x00%s\x00%d\x00", filepath.Base(f), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// buildGoClient returns the Go client program of clients/go: built into
// tmp, then kept in the user's cache under the hash of its sources and the
// Go version, so that a later run reuses it. Without a cache directory the
// program in tmp is used.
func buildGoClient(root, tmp string) (string, error) {
	src := filepath.Join(root, "clients/go")
	files, err := filepath.Glob(filepath.Join(src, "*.go"))
	if err != nil {
		return "", err
	}
	hash, err := hashFiles(runtime.Version(), append(files, filepath.Join(src, "go.mod"), filepath.Join(src, "go.sum"))...)
	if err != nil {
		return "", err
	}
	var cached string
	if dir, err := os.UserCacheDir(); err == nil {
		cached = filepath.Join(dir, "conform", "client-matrix", "go-client-"+hash[:20])
		if _, err := os.Stat(cached); err == nil {
			fmt.Fprintln(os.Stderr, "client-matrix: clients/go unchanged, using", cached)
			return cached, nil
		}
	}
	bin := filepath.Join(tmp, "conform-client-go")
	fmt.Fprintln(os.Stderr, "client-matrix: building clients/go")
	if err := sh(src, "go", "build", "-o", bin, "."); err != nil {
		return "", err
	}
	if cached == "" {
		return bin, nil
	}
	// Rename is atomic: a run that starts meanwhile sees the whole file
	// or none.
	if err := os.MkdirAll(filepath.Dir(cached), 0o755); err == nil && os.Rename(bin, cached) == nil {
		return cached, nil
	}
	return bin, nil
}

// npmStamp names the file, inside node_modules, that holds the hash of the
// package-lock.json it was installed from.
const npmStamp = ".conform-package-lock.sha256"

// installNode runs npm ci in dir unless node_modules was installed from the
// same package-lock.json (and node version) by an earlier run.
func installNode(dir string) error {
	nodeVersion, _ := exec.Command("node", "--version").Output()
	hash, err := hashFiles(strings.TrimSpace(string(nodeVersion)), filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err
	}
	stamp := filepath.Join(dir, "node_modules", npmStamp)
	if old, err := os.ReadFile(stamp); err == nil && strings.TrimSpace(string(old)) == hash {
		fmt.Fprintln(os.Stderr, "client-matrix: clients/node/node_modules matches package-lock.json; no npm ci")
		return nil
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	fmt.Fprintln(os.Stderr, "client-matrix: npm ci in clients/node")
	if err := sh(dir, "npm", "ci", "--no-audit", "--no-fund"); err != nil {
		return err
	}
	return os.WriteFile(stamp, []byte(hash+"\n"), 0o644)
}

func sh(dir string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s in %s: %w", name, strings.Join(args, " "), dir, err)
	}
	return nil
}

func run(ctx context.Context, perProtocol, parallel int, out string, only []string) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "client-matrix-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	nodeDir := filepath.Join(root, "clients/node")
	// The Go set-ups name the program by a placeholder until it is built.
	const goPlaceholder = "GO_CLIENT"
	setups, err := selectSetups(allSetups(root, goPlaceholder, nodeDir), only)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(setups, func(s setup) bool { return strings.HasPrefix(s.name, "go ") }) {
		bin, err := buildGoClient(root, tmp)
		if err != nil {
			return err
		}
		for i := range setups {
			setups[i].command = strings.Replace(setups[i].command, goPlaceholder, bin, 1)
		}
	}
	if slices.ContainsFunc(setups, func(s setup) bool { return strings.HasPrefix(s.name, "node ") }) {
		if err := installNode(nodeDir); err != nil {
			return err
		}
	}
	cases, err := scenarios.LoadBuiltin(scenarios.VCRResolver(cassettes.Load))
	if err != nil {
		return err
	}
	cands := candidates(cases)
	chosen := choose(cands, perProtocol)
	notes := shortfalls(cands, chosen, setups, perProtocol)
	for _, n := range notes {
		fmt.Fprintln(os.Stderr, "client-matrix:", n)
	}
	type job struct {
		s       setup
		name    string
		variant string
	}
	byName := map[string]*scenarios.Scenario{}
	for _, sc := range cases {
		for _, a := range providers.All() {
			if sc.Applies(a) {
				byName[sc.NameFor(a.Name())] = sc
			}
		}
	}
	var jobs []job
	for _, s := range setups {
		for _, name := range chosen[s.protocol] {
			for _, v := range variants {
				ch, err := serve.ParseChaos(v)
				if err != nil {
					return err
				}
				// A variant that would serve the plain bytes again
				// is not a run of its own.
				if v == "none" || serve.ChaosChanges(ch, byName[name], s.protocol) {
					jobs = append(jobs, job{s, name, v})
				}
			}
		}
	}
	fmt.Fprintf(os.Stderr, "client-matrix: %d set-ups, %d runs\n", len(setups), len(jobs))
	results := make([]serve.ClientRun, len(jobs))
	// changes are the served lines each run's reduction changed.
	changes := make([][]reduce.Change, len(jobs))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	start := time.Now()
	for i, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		ch, err := serve.ParseChaos(j.variant)
		if err != nil {
			return err
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			spec := serve.ClientSpec{Command: j.s.command, Dir: j.s.dir, Scenarios: cases, Scenario: j.name, Chaos: ch, Timeout: timeout}
			r := serve.RunClient(ctx, spec)
			var ch []reduce.Change
			if reduceFailures {
				r.Reduction = serve.ReduceClient(ctx, spec, r, 0)
				if r.Reduction != nil {
					ch = r.Reduction.Changes(byName[j.name], j.s.protocol, chaosName(spec.Chaos))
				}
			}
			mu.Lock()
			results[i] = r
			changes[i] = ch
			done++
			if done%50 == 0 {
				fmt.Fprintf(os.Stderr, "client-matrix: %d/%d runs (%s)\n", done, len(jobs), time.Since(start).Round(time.Second))
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted; %s left as it was: %w", out, err)
	}
	// A pass by failing counts only beside a control the same set-up
	// passed (serve.ApplyControls).
	for _, s := range setups {
		var idx []int
		var runs []serve.ClientRun
		for i, j := range jobs {
			if j.s.name == s.name {
				idx, runs = append(idx, i), append(runs, results[i])
			}
		}
		serve.ApplyControls(runs)
		for k, i := range idx {
			results[i] = runs[k]
		}
	}

	var b strings.Builder
	b.WriteString(header(headerInfo{
		when: time.Now().UTC(), setups: len(setups), scenarios: countScenarios(chosen, setups), perProtocol: perProtocol,
		runs: len(jobs), elapsed: time.Since(start).Round(time.Second), timeout: timeout, notes: notes,
	}))
	var findings []report.Finding
	for i, j := range jobs {
		if r := results[i]; r.Status == "fail" {
			findings = append(findings, r.Finding(j.s.name))
		}
	}
	b.WriteString(summary(report.GroupFindings(findings)))
	fmt.Fprintf(&b, "## Passes per set-up and variant\n\n| set-up | protocol |")
	for _, v := range variants {
		fmt.Fprintf(&b, " %s |", v)
	}
	fmt.Fprintf(&b, " total |\n|---|---|")
	for range variants {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, s := range setups {
		fmt.Fprintf(&b, "| %s | %s |", s.name, s.protocol)
		tp, tn := 0, 0
		for _, v := range variants {
			p, n := 0, 0
			for i, j := range jobs {
				// A run whose scenario does not apply to what the
				// client asked for is neither a pass nor a failure.
				if j.s.name == s.name && j.variant == v && results[i].Status != serve.StatusNotApplicable {
					n++
					if results[i].Status == "pass" {
						p++
					}
				}
			}
			tp, tn = tp+p, tn+n
			fmt.Fprintf(&b, " %d/%d |", p, n)
		}
		fmt.Fprintf(&b, " %d/%d |\n", tp, tn)
	}
	fmt.Fprintf(&b, "\n## Scenarios\n\n")
	protos := make([]string, 0, len(chosen))
	for p := range chosen {
		protos = append(protos, p)
	}
	sort.Strings(protos)
	for _, p := range protos {
		if !usedProtocol(setups, p) {
			continue
		}
		fmt.Fprintf(&b, "* %s: %s\n", p, "`"+strings.Join(chosen[p], "`, `")+"`")
	}
	var notApplicable []string
	for i, j := range jobs {
		if r := results[i]; r.Status == serve.StatusNotApplicable {
			notApplicable = append(notApplicable, fmt.Sprintf("* **%s** `%s` [%s]: %s\n", j.s.name, j.name, j.variant, esc(strings.Join(r.Reasons, "; "))))
		}
	}
	if len(notApplicable) > 0 {
		fmt.Fprintf(&b, "\n## Not applicable\n\nRuns left out of the counts above: the scenario depends on a request option the client did not send.\n\n%s", strings.Join(notApplicable, ""))
	}
	fmt.Fprintf(&b, "\n## Failures\n\nOne line per failing run: set-up, scenario [variant], the first reasons, the last line of the client's stderr; under it, for a stream the client read, what its reduction found (package reduce): the cause, a simplification of the stream with which the client passes; for each cause that changed the bytes of the case (not only its chaos option), the first served line it changed and the line with which the client passes; and the smallest failing variant, the simplifications with which it still fails.\n\n")
	nf := 0
	for i, j := range jobs {
		r := results[i]
		if r.Status == "pass" || r.Status == serve.StatusNotApplicable {
			continue
		}
		nf++
		reasons := r.Reasons
		if len(reasons) > 2 {
			reasons = reasons[:2]
		}
		tail := ""
		if r.Exit != 0 {
			// A program that exited 0 failed on what it sent; its
			// stderr holds only SDK warnings.
			tail = lastLine(r.Stderr)
		}
		fmt.Fprintf(&b, "* **%s** `%s` [%s] exit %d: %s", j.s.name, j.name, j.variant, r.Exit, esc(strings.Join(reasons, "; ")))
		if tail != "" {
			fmt.Fprintf(&b, " — stderr: `%s`", esc(clip(tail, 240)))
		}
		b.WriteString("\n")
		b.WriteString(reductionLines(r.Reduction, changes[i]))
	}
	if nf == 0 {
		b.WriteString("None.\n")
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "client-matrix: %d runs, %d failures; wrote %s\n", len(jobs), nf, out)
	return nil
}

// allSetups returns the client set-ups of clients/: the Go programs run as
// the binary goBin in root, the Node ones in nodeDir.
func allSetups(root, goBin, nodeDir string) []setup {
	return []setup{
		{"go openai-go (chat)", "openai-chat", root, goBin + " -sdk openai-go"},
		{"go openai-go (responses)", "openai-responses", root, goBin + " -sdk openai-go-responses"},
		{"go anthropic-sdk-go", "anthropic", root, goBin + " -sdk anthropic-sdk-go"},
		{"go sashabaranov/go-openai", "openai-chat", root, goBin + " -sdk go-openai"},
		{"go google.golang.org/genai", "gemini", root, goBin + " -sdk genai"},
		{"node openai (chat)", "openai-chat", nodeDir, "node client.mjs openai"},
		{"node openai (responses)", "openai-responses", nodeDir, "node client.mjs openai-responses"},
		{"node @anthropic-ai/sdk", "anthropic", nodeDir, "node client.mjs anthropic"},
		{"node @google/genai", "gemini", nodeDir, "node client.mjs google-genai"},
		{"node ai + @ai-sdk/openai (chat)", "openai-chat", nodeDir, "node client.mjs ai-openai"},
		{"node ai + @ai-sdk/openai (responses)", "openai-responses", nodeDir, "node client.mjs ai-openai-responses"},
		{"node ai + @ai-sdk/anthropic", "anthropic", nodeDir, "node client.mjs ai-anthropic"},
		{"node ai + @ai-sdk/google", "gemini", nodeDir, "node client.mjs ai-google"},
	}
}

// candidate is a servable scenario under the name it is served by for one
// protocol.
type candidate struct {
	name, protocol string
	// stream is true for a stream scenario (the variants reframe its SSE);
	// calls is true when it serves at least one complete call.
	stream, calls bool
}

// candidates returns every servable scenario under each protocol it
// applies to, named as serve names it.
func candidates(cases []*scenarios.Scenario) []candidate {
	var out []candidate
	for _, sc := range cases {
		if !serve.Servable(sc) {
			continue
		}
		for _, a := range providers.All() {
			if sc.Applies(a) {
				out = append(out, candidate{name: sc.NameFor(a.Name()), protocol: a.Name(), stream: sc.Kind == scenarios.KindStream, calls: len(sc.Want.Calls) > 0})
			}
		}
	}
	return out
}

// rank orders the candidates of a protocol, lowest first: streaming
// scenarios with complete calls, hand-written (they target failure modes)
// before recorded ones, then the other streaming scenarios, then the rest.
// The stream variants only reframe streams, and a scenario without a
// complete call tests no tool-call handling.
func rank(c candidate) int {
	handWritten := strings.Contains(c.name, "/streaming/")
	recorded := strings.Contains(c.name, "/recorded/")
	switch {
	case c.stream && c.calls && handWritten:
		return 0
	case c.stream && c.calls && recorded:
		return 1
	case c.stream && c.calls:
		return 2
	case c.stream:
		return 3
	case c.calls:
		return 4
	}
	return 5
}

// choose returns, per protocol, the names of its first perProtocol
// candidates in rank order, ties by name.
func choose(cands []candidate, perProtocol int) map[string][]string {
	sorted := slices.Clone(cands)
	sort.SliceStable(sorted, func(i, j int) bool {
		ri, rj := rank(sorted[i]), rank(sorted[j])
		if ri != rj {
			return ri < rj
		}
		return sorted[i].name < sorted[j].name
	})
	chosen := map[string][]string{}
	for _, c := range sorted {
		if len(chosen[c.protocol]) < perProtocol {
			chosen[c.protocol] = append(chosen[c.protocol], c.name)
		}
	}
	return chosen
}

// shortfalls says, for each protocol a set-up speaks, when fewer than
// perProtocol of its chosen scenarios are streams with complete calls.
func shortfalls(cands []candidate, chosen map[string][]string, setups []setup, perProtocol int) []string {
	good := map[string]bool{}
	for _, c := range cands {
		if c.stream && c.calls {
			good[c.name] = true
		}
	}
	var notes []string
	var protos []string
	for _, s := range setups {
		if !slices.Contains(protos, s.protocol) {
			protos = append(protos, s.protocol)
		}
	}
	sort.Strings(protos)
	for _, p := range protos {
		n := 0
		for _, name := range chosen[p] {
			if good[name] {
				n++
			}
		}
		if n < perProtocol {
			notes = append(notes, fmt.Sprintf("%s has %d servable streaming scenarios with complete calls, fewer than %d; all are taken, with %d other(s)", p, n, perProtocol, len(chosen[p])-n))
		}
	}
	return notes
}

// headerInfo is what the header of RESULTS.md reports about a run.
type headerInfo struct {
	when                                 time.Time
	setups, scenarios, perProtocol, runs int
	elapsed, timeout                     time.Duration
	notes                                []string
}

// header returns the generated opening of RESULTS.md, up to the
// hand-written section. Every number in it comes from the run and its
// flags.
func header(h headerInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Client matrix results\n\n")
	fmt.Fprintf(&b, "Written by `go run ./scripts/client-matrix` on %s (%s/%s, %s, node from PATH). ", h.when.Format("2006-01-02 15:04 MST"), runtime.GOOS, runtime.GOARCH, runtime.Version())
	fmt.Fprintf(&b, "Each run starts a fresh `conform serve` for one scenario and one stream variant, runs the client program (docs/client-protocol.md) and grades the follow-up and the exit status. SDK versions are pinned in clients/go/go.mod and clients/node/package-lock.json.\n\n")
	fmt.Fprintf(&b, "%d set-ups, %d scenarios (up to %d per protocol: streaming scenarios with complete calls, hand-written first, then recorded), %d stream variants (%s), %d runs in %s, each bounded to %s (-timeout).\n\n", h.setups, h.scenarios, h.perProtocol, len(variants), strings.Join(variants, " · "), h.runs, h.elapsed, h.timeout)
	for _, n := range h.notes {
		fmt.Fprintf(&b, "Note: %s.\n\n", n)
	}
	return b.String()
}

// summaryRows bounds the groups the summary lists.
const summaryRows = 40

// summary is the section of RESULTS.md made from the failures grouped by
// fault: one row per set-up, reduced cause and failure mode, largest
// first within a set-up.
func summary(groups []report.Group) string {
	var b strings.Builder
	b.WriteString("## Summary\n\nGenerated from the failed runs grouped by fault, as `conform run --client` groups them (`report.GroupFindings`): one group per set-up, reduced cause (the simplifications with which the runs pass, package reduce) and failure mode (the rules of the follow-up's problems, else the kinds of the reasons); each failed run is in exactly one group. The failures section below lists every run.\n\n")
	if len(groups) == 0 {
		b.WriteString("No failed run.\n\n")
		return b.String()
	}
	b.WriteString("| set-up | cause | failure mode | runs | e.g. |\n|---|---|---|---:|---|\n")
	for i, g := range groups {
		if i == summaryRows {
			rest := 0
			for _, r := range groups[i:] {
				rest += len(r.Cases)
			}
			fmt.Fprintf(&b, "| … | %d smaller groups | | %d | |\n", len(groups)-i, rest)
			break
		}
		cause := g.Explained
		if g.Cause != "" {
			cause = g.Cause + ": " + g.Explained
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | `%s` |\n", g.Subject, esc(cause), esc(strings.ReplaceAll(g.Mode, "+", " + ")), len(g.Cases), g.Cases[0])
	}
	b.WriteString("\n")
	return b.String()
}

func countScenarios(chosen map[string][]string, setups []setup) int {
	n := 0
	for p, names := range chosen {
		if usedProtocol(setups, p) {
			n += len(names)
		}
	}
	return n
}

func usedProtocol(setups []setup, p string) bool {
	for _, s := range setups {
		if s.protocol == p {
			return true
		}
	}
	return false
}

// reductionLines are the lines under a failure that say what its
// reduction found: the cause (the simplifications that make it pass), the
// served line each cause changed, and the smallest failing variant (those
// that kept it failing).
func reductionLines(r *reduce.Result, changes []reduce.Change) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  * cause: %s\n", esc(r.Cause()))
	for _, c := range changes {
		fmt.Fprintf(&b, "  * %s: %s\n", esc(c.Step.Name), changedLine(c))
	}
	fmt.Fprintf(&b, "  * smallest failing variant: %s (%s)\n", esc(r.Smallest()), esc(r.Summary()))
	return b.String()
}

// changedLine quotes the first served line a cause changed and the line
// it became. Of two long lines with a long common start, both are quoted
// from a little before the first byte that differs.
func changedLine(c reduce.Change) string {
	from := 0
	if c.Before != "" && c.After != "" {
		p := 0
		for p < len(c.Before) && p < len(c.After) && c.Before[p] == c.After[p] {
			p++
		}
		from = max(p-quoteContext, 0)
		for from > 0 && !utf8.RuneStart(c.Before[from]) {
			from--
		}
	}
	quote := func(l string, n int) string {
		q := "`" + esc(clip(l[from:], 240)) + "`"
		if from > 0 {
			q = "`…" + esc(clip(l[from:], 240)) + "`"
		}
		if n > 1 {
			q += fmt.Sprintf(" (first of %d lines)", n)
		}
		return q
	}
	switch {
	case c.Before == "":
		return "passes with " + quote(c.After, c.Added) + " added"
	case c.After == "":
		return "served " + quote(c.Before, c.Removed) + "; passes without it"
	}
	return "served " + quote(c.Before, c.Removed) + "; passes with " + quote(c.After, c.Added)
}

// quoteContext is how many bytes before the first that differs a quoted
// line keeps.
const quoteContext = 100

// chaosName is the chaos option as reduce names it, "" for none.
func chaosName(c serve.Chaos) string {
	if c == (serve.Chaos{}) {
		return ""
	}
	return c.String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "at ") {
			return l
		}
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func esc(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	s = strings.ReplaceAll(s, "`", "'")
	return strings.ReplaceAll(s, "\n", " ")
}

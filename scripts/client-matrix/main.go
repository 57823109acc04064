// Command client-matrix installs the client programs of clients/ and runs
// them over a matrix of scenarios and stream variants against conform's
// fake provider, then writes clients/RESULTS.md: which SDK handles which
// stream, with the failing detail. A section of the earlier RESULTS.md
// headed "## Read this first", written by hand to say what the numbers
// mean, is kept (it is then to be revised by hand). It is not part of go
// test ./...; run it from the repository root:
//
//	go run ./scripts/client-matrix [-per-protocol 20] [-parallel 2] [-o clients/RESULTS.md]
//
// It needs npm (for clients/node, installed with npm ci from the committed
// lock file) and the Go module proxy (for clients/go).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/providers"
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

// variants are the stream variants every scenario is served with.
var variants = []string{"none", "split=7", "crlf,ping", "keepalive", "multiline"}

func main() {
	perProtocol := flag.Int("per-protocol", defaultPerProtocol, "scenarios per protocol (streaming scenarios with complete calls first; fewer when a protocol has fewer servable scenarios)")
	parallel := flag.Int("parallel", max(runtime.NumCPU()/2, 1), "client runs at once")
	out := flag.String("o", "clients/RESULTS.md", "write the results to `FILE`")
	only := flag.String("only", "", "run only the set-ups whose name contains `TEXT`")
	flag.DurationVar(&timeout, "timeout", 15*time.Second, "bound one client run to `DURATION` (loopback answers in milliseconds; a client that hangs is a finding)")
	flag.Parse()
	if err := run(*perProtocol, *parallel, *out, *only); err != nil {
		fmt.Fprintln(os.Stderr, "client-matrix:", err)
		os.Exit(1)
	}
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

func run(perProtocol, parallel int, out, only string) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	goBin := filepath.Join(os.TempDir(), "conform-client-go")
	nodeDir := filepath.Join(root, "clients/node")
	setups := allSetups(root, goBin, nodeDir)
	if only != "" {
		var keep []setup
		for _, s := range setups {
			if strings.Contains(s.name, only) {
				keep = append(keep, s)
			}
		}
		setups = keep
	}
	for _, s := range setups {
		if strings.HasPrefix(s.name, "go ") {
			fmt.Fprintln(os.Stderr, "client-matrix: building clients/go")
			if err := sh(filepath.Join(root, "clients/go"), "go", "build", "-o", goBin, "."); err != nil {
				return err
			}
			break
		}
	}
	for _, s := range setups {
		if strings.HasPrefix(s.name, "node ") {
			fmt.Fprintln(os.Stderr, "client-matrix: npm ci in clients/node")
			if err := sh(nodeDir, "npm", "ci", "--no-audit", "--no-fund"); err != nil {
				return err
			}
			break
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
	var jobs []job
	for _, s := range setups {
		for _, name := range chosen[s.protocol] {
			for _, v := range variants {
				jobs = append(jobs, job{s, name, v})
			}
		}
	}
	fmt.Fprintf(os.Stderr, "client-matrix: %d set-ups, %d runs\n", len(setups), len(jobs))
	results := make([]serve.ClientRun, len(jobs))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	start := time.Now()
	for i, j := range jobs {
		ch, err := serve.ParseChaos(j.variant)
		if err != nil {
			return err
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := serve.RunClient(context.Background(), serve.ClientSpec{Command: j.s.command, Dir: j.s.dir, Scenarios: cases, Scenario: j.name, Chaos: ch, Timeout: timeout})
			mu.Lock()
			results[i] = r
			done++
			if done%50 == 0 {
				fmt.Fprintf(os.Stderr, "client-matrix: %d/%d runs (%s)\n", done, len(jobs), time.Since(start).Round(time.Second))
			}
			mu.Unlock()
		}()
	}
	wg.Wait()

	var b strings.Builder
	b.WriteString(header(headerInfo{
		when: time.Now().UTC(), setups: len(setups), scenarios: countScenarios(chosen, setups), perProtocol: perProtocol,
		runs: len(jobs), elapsed: time.Since(start).Round(time.Second), timeout: timeout, notes: notes,
	}))
	if old, err := os.ReadFile(out); err == nil {
		b.WriteString(handWritten(string(old)))
	}
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
				if j.s.name == s.name && j.variant == v {
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
	fmt.Fprintf(&b, "\n## Failures\n\nOne line per failing run: set-up, scenario [variant], the first reasons, the last line of the client's stderr.\n\n")
	nf := 0
	for i, j := range jobs {
		r := results[i]
		if r.Status == "pass" {
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
			if sc.AppliesTo(a) {
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

// handWrittenHeading starts the section of RESULTS.md that is written by
// hand after a run, reading the numbers; a re-run keeps it, to be revised.
const handWrittenHeading = "## Read this first"

// handWritten returns the hand-written section of an earlier RESULTS.md,
// up to the next heading of its level, or "" when it has none.
func handWritten(old string) string {
	i := strings.Index(old, handWrittenHeading)
	if i < 0 {
		return ""
	}
	sec := old[i:]
	if j := strings.Index(sec[len(handWrittenHeading):], "\n## "); j >= 0 {
		sec = sec[:len(handWrittenHeading)+j+1]
	}
	return strings.TrimRight(sec, "\n") + "\n\n"
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

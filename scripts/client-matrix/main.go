// Command client-matrix installs the client programs of clients/ and runs
// them over a matrix of scenarios and stream variants against conform's
// fake provider, then writes clients/RESULTS.md: which SDK handles which
// stream, with the failing detail. A section of the earlier RESULTS.md
// headed "## Read this first", written by hand to say what the numbers
// mean, is kept (it is then to be revised by hand). It is not part of go
// test ./...; run it from the repository root:
//
//	go run ./scripts/client-matrix [-per-protocol 8] [-parallel 2] [-o clients/RESULTS.md]
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
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
)

// setup is one client set-up: an SDK and the protocol it speaks.
type setup struct {
	name, protocol, dir, command string
}

// timeout bounds one client run.
var timeout time.Duration

// variants are the stream variants every scenario is served with.
var variants = []string{"none", "split=7", "crlf,ping", "keepalive", "multiline"}

func main() {
	perProtocol := flag.Int("per-protocol", 8, "scenarios per protocol")
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
	setups := []setup{
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
	srv, err := serve.New(serve.Options{Scenarios: cases})
	if err != nil {
		return err
	}
	// Per protocol: streaming scenarios with calls, hand-written first
	// (they target failure modes), then recorded ones, then the rest.
	byProto := map[string][]string{}
	for _, name := range srv.Names() {
		p, _ := srv.Protocol(name)
		byProto[p] = append(byProto[p], name)
	}
	rank := func(name string) int {
		switch {
		case strings.Contains(name, "/streaming/"):
			return 0
		case strings.Contains(name, "/recorded/") && strings.Contains(name, "stream"):
			return 1
		case strings.Contains(name, "/recorded/"):
			return 2
		}
		return 3
	}
	chosen := map[string][]string{}
	for p, names := range byProto {
		sort.SliceStable(names, func(i, j int) bool { return rank(names[i]) < rank(names[j]) })
		if len(names) > perProtocol {
			names = names[:perProtocol]
		}
		chosen[p] = names
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
	fmt.Fprintf(&b, "# Client matrix results\n\n")
	fmt.Fprintf(&b, "Written by `go run ./scripts/client-matrix` on %s (%s/%s, %s, node from PATH). ", time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.GOOS, runtime.GOARCH, runtime.Version())
	fmt.Fprintf(&b, "Each run starts a fresh `conform serve` for one scenario and one stream variant, runs the client program (docs/client-protocol.md) and grades the follow-up and the exit status. SDK versions are pinned in clients/go/go.mod and clients/node/package-lock.json.\n\n")
	fmt.Fprintf(&b, "%d set-ups, %d scenarios, %d stream variants (%s), %d runs in %s, each bounded to %s.\n\n", len(setups), countScenarios(chosen, setups), len(variants), strings.Join(variants, " · "), len(jobs), time.Since(start).Round(time.Second), timeout)
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

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
)

// TestHelperClient is not a test: run by runClient as a subprocess (with
// CONFORM_HELPER set), it is a client that follows docs/client-protocol.md
// with conform's own adapters, or breaks it the way CONFORM_HELPER says:
// good, swap (results in reverse order), drop (last result left out),
// exit1 (all right, then exit 1), hang (never answers), first-index
// (refuses a stream whose first content block is not block 0).
func TestHelperClient(t *testing.T) {
	mode := os.Getenv("CONFORM_HELPER")
	if mode == "" {
		return
	}
	if err := helperClient(mode); err != nil {
		fmt.Fprintln(os.Stderr, "helper client:", err)
		os.Exit(1)
	}
	if mode == "exit1" {
		os.Exit(1)
	}
	os.Exit(0)
}

func helperClient(mode string) error {
	if mode == "hang" {
		select {} // until the process group is killed
	}
	protocol := os.Getenv(serve.EnvProtocol)
	a, err := providers.Lookup(protocol)
	if err != nil {
		return err
	}
	ep, _ := providers.HTTP(protocol)
	stream := os.Getenv(serve.EnvStream) == "1"
	var tools []core.ToolSpec
	if err := json.Unmarshal([]byte(os.Getenv(serve.EnvTools)), &tools); err != nil {
		return fmt.Errorf("CONFORM_TOOLS: %w", err)
	}
	req := &core.Request{
		Model:     os.Getenv(serve.EnvModel),
		Messages:  []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}},
		Tools:     tools,
		MaxTokens: 100,
		Stream:    stream,
	}
	var mangle func(map[string]any)
	post := func() (*core.Response, error) {
		body, err := a.EncodeRequest(req)
		if err != nil {
			return nil, err
		}
		if mangle != nil {
			var w map[string]any
			if err := json.Unmarshal(body, &w); err != nil {
				return nil, err
			}
			mangle(w)
			body, _ = json.Marshal(w)
		}
		resp, err := http.Post(ep.URL(os.Getenv(serve.EnvBaseURL), req.Model, stream), "application/json", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			b, _ := io.ReadAll(resp.Body)
			return nil, fmt.Errorf("status %d: %s", resp.StatusCode, b)
		}
		if stream && mode == "first-index" {
			// Refuses a stream whose first content block is not block
			// 0, as accumulators that append blocks by position do.
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				return nil, err
			}
			if m := regexp.MustCompile(`"content_block_start","index":(\d+)`).FindSubmatch(b); m != nil && string(m[1]) != "0" {
				return nil, fmt.Errorf("content block 0 expected, got %s", m[1])
			}
			return core.Collect(a.DecodeStream(bytes.NewReader(b)))
		}
		if stream {
			return core.Collect(a.DecodeStream(resp.Body))
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		return a.DecodeResponse(b)
	}
	first, err := post()
	if err != nil {
		return err
	}
	calls := first.Calls()
	if len(calls) == 0 {
		fmt.Println(first.Text())
		return nil
	}
	var results []core.Part
	for _, c := range calls {
		results = append(results, core.ResultPart(core.Result{CallID: c.ID, Name: c.Name, Content: []core.Part{core.TextPart(string(c.Arguments))}}))
	}
	first.Message.Role = core.RoleAssistant
	req.Messages = append(req.Messages, first.Message, core.Message{Role: core.RoleTool, Parts: results})
	// The adapters refuse to write a broken history (they put results in
	// call order and reject missing ones), so the faults are made in the
	// wire JSON: swap reverses the blocks of the last message (Anthropic),
	// drop removes the last message (Chat Completions).
	switch mode {
	case "swap":
		mangle = func(w map[string]any) {
			msgs := w["messages"].([]any)
			last := msgs[len(msgs)-1].(map[string]any)
			slices.Reverse(last["content"].([]any))
		}
	case "drop":
		mangle = func(w map[string]any) {
			msgs := w["messages"].([]any)
			w["messages"] = msgs[:len(msgs)-1]
		}
	}
	final, err := post()
	if err != nil {
		return err
	}
	fmt.Println(final.Text())
	return nil
}

func helperCmd(mode string) string {
	return "CONFORM_HELPER=" + mode + " " + os.Args[0] + " -test.run=^TestHelperClient$"
}

func pats(t *testing.T, ss ...string) []scenarios.Pattern {
	var out []scenarios.Pattern
	for _, s := range ss {
		p, err := scenarios.CompilePattern(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// clientLines parses the JSON lines of run --client --format json: one
// result per run, then the totals.
func clientLines(t *testing.T, out []byte) (results []clientResult, totals clientCounts) {
	t.Helper()
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	for i, line := range lines {
		if i == len(lines)-1 {
			var last struct {
				Totals *clientCounts `json:"totals"`
			}
			if err := json.Unmarshal(line, &last); err != nil || last.Totals == nil {
				t.Fatalf("last line is not the totals: %v\n%s", err, line)
			}
			return results, *last.Totals
		}
		var r clientResult
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("line %d is not a result: %v\n%s", i+1, err, line)
		}
		results = append(results, r)
	}
	t.Fatalf("no output")
	return nil, totals
}

// TestRunClient runs helper clients through runClient and checks the
// status of every run.
func TestRunClient(t *testing.T) {
	const (
		interleaved = "openai-chat/streaming/A05-round-robin-interleaving"
		parallel    = "openai-chat/streaming/A05-two-calls-fragment-by-fragment"
		anthropic2  = "anthropic/streaming/A19-interleaved-content-blocks"
		cut         = "openai-chat/streaming/B09-stream-cut-after-valid-prefix"
		noCalls     = "openai-chat/response/F03-tool-calls-finish-without-calls"
		should      = "openai-chat/streaming/C04-object-arguments"
		bedrock     = "bedrock/streaming/A05-round-robin-interleaving"
	)
	tests := []struct {
		desc      string
		mode      string
		protocols []string
		run       []string
		chaos     []serve.Chaos
		known     []string
		strict    bool
		want      map[string]string
		status    int
		sub       []string
	}{
		{"a good client passes", "good", nil, []string{interleaved, anthropic2, cut, noCalls, "gemini/streaming/A05-round-robin-interleaving"}, nil, nil, false,
			map[string]string{interleaved: "pass", anthropic2: "pass", cut: "pass", noCalls: "pass", "gemini/streaming/A05-round-robin-interleaving": "pass"}, exitOK, nil},
		{"chaos variants", "good", nil, []string{anthropic2}, []serve.Chaos{{Split: true, Seed: 3, CRLF: true, MultiLine: true}, {Disconnect: true}, {Error: true}}, nil, false,
			map[string]string{anthropic2: "pass", anthropic2 + "[split=3,crlf,multiline]": "pass", anthropic2 + "[disconnect]": "pass", anthropic2 + "[error]": "pass"}, exitOK, nil},
		{"chaos runs only where it changes what is served", "good", nil, []string{noCalls, bedrock}, []serve.Chaos{{CRLF: true}, {Split: true, Seed: 5}}, nil, false,
			map[string]string{noCalls: "pass", bedrock: "pass", bedrock + "[split=5]": "pass"}, exitOK, nil},
		{"--protocol selects one protocol's scenarios", "good", []string{"gemini"}, []string{"/streaming/^A05-round-robin-interleaving$"}, nil, nil, false,
			map[string]string{"gemini/streaming/A05-round-robin-interleaving": "pass"}, exitOK, nil},
		{"results swapped break anthropic order", "swap", nil, []string{anthropic2}, nil, nil, false,
			map[string]string{anthropic2: "fail"}, exitFail, []string{"follow-up: G05: tool results are not in the order of the calls"}},
		{"a dropped result", "drop", nil, []string{parallel}, nil, nil, false,
			map[string]string{parallel: "fail"}, exitFail, []string{"G03: call", "has no tool result"}},
		{"exit status counts", "exit1", nil, []string{parallel}, nil, nil, false,
			map[string]string{parallel: "fail"}, exitFail, []string{"exit status 1, want 0"}},
		{"a SHOULD failure is reported, not counted", "exit1", nil, []string{should}, nil, nil, false,
			map[string]string{should: "fail"}, exitOK, []string{`"counted":false`}},
		{"a SHOULD failure counts with --strict", "exit1", nil, []string{should}, nil, nil, true,
			map[string]string{should: "fail"}, exitFail, []string{`"counted":true`}},
		{"known failing", "exit1", nil, []string{parallel}, nil, []string{"openai-chat/streaming/A05-two"}, false,
			map[string]string{parallel: "known-failing"}, exitOK, nil},
		{"known failing that passes", "good", nil, []string{parallel}, nil, []string{"openai-chat/streaming/A05-two"}, false,
			map[string]string{parallel: "fail"}, exitFail, []string{"listed as known failing", "but passed"}},
		{"timeout", "hang", nil, []string{parallel}, nil, nil, false,
			map[string]string{parallel: "fail"}, exitFail, []string{"did not finish in time", "never sent its first request"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			e := &env{stdout: &stdout, stderr: &stderr}
			opts := clientOptions{Protocols: tt.protocols, Run: pats(t, tt.run...), Chaos: tt.chaos, KnownFailing: pats(t, tt.known...), Strict: tt.strict, Timeout: 20 * time.Second, Format: "json", Parallel: 2}
			if tt.mode == "hang" {
				// The client blocks until its process group is
				// killed; the run ends when the bound passes.
				opts.Timeout = 500 * time.Millisecond
			}
			status := runClient(context.Background(), e, helperCmd(tt.mode), opts)
			results, totals := clientLines(t, stdout.Bytes())
			got := map[string]string{}
			for _, r := range results {
				got[r.Name] = r.Status
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s\n%s", diff, stdout.String())
			}
			if totals.Runs != len(results) {
				t.Errorf("totals count %d runs, the lines %d", totals.Runs, len(results))
			}
			if status != tt.status {
				t.Errorf("status %d, want %d", status, tt.status)
			}
			for _, s := range tt.sub {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("output does not say %q:\n%s", s, stdout.String())
				}
			}
		})
	}
}

// TestRunClientJSONSaysWhatPassed checks that a passing run's JSON says
// what held, gives the verdict's pass only for a graded follow-up, and
// says "counted" of failures only.
func TestRunClientJSONSaysWhatPassed(t *testing.T) {
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr}
	run := pats(t, "openai-chat/response/^F03-tool-calls-finish-without-calls$", "openai-chat/streaming/^A05-two-calls-fragment-by-fragment$")
	if status := runClient(context.Background(), e, helperCmd("good"), clientOptions{Run: run, Format: "json"}); status != exitOK {
		t.Fatalf("status %d:\n%s\n%s", status, stdout.String(), stderr.String())
	}
	lines := bytes.Split(bytes.TrimSpace(stdout.Bytes()), []byte("\n"))
	got := map[string]map[string]any{}
	for _, line := range lines[:len(lines)-1] {
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		got[r["name"].(string)] = r
	}
	for name, want := range map[string]struct {
		held    []any
		verdict any // the verdict's pass; nil when absent
		graded  bool
	}{
		"openai-chat/response/F03-tool-calls-finish-without-calls": {[]any{"no complete call served: no follow-up due, none sent", "exit 0"}, nil, false},
		"openai-chat/streaming/A05-two-calls-fragment-by-fragment": {[]any{"follow-up graded: 2 call(s) answered, no problem", "exit 0", "final answer on stdout"}, true, true},
	} {
		r := got[name]
		if r == nil {
			t.Fatalf("no result for %s:\n%s", name, stdout.String())
		}
		if r["status"] != "pass" {
			t.Errorf("%s: status %v", name, r["status"])
		}
		if diff := cmp.Diff(want.held, r["held"]); diff != "" {
			t.Errorf("%s: held (-want +got):\n%s", name, diff)
		}
		v := r["verdict"].(map[string]any)
		if v["pass"] != want.verdict || v["graded"] != want.graded {
			t.Errorf("%s: verdict pass=%v graded=%v, want %v and %v", name, v["pass"], v["graded"], want.verdict, want.graded)
		}
		if _, ok := r["counted"]; ok {
			t.Errorf("%s: a pass says counted", name)
		}
	}
}

// TestRunClientText checks the text report and a pattern that selects
// nothing.
func TestRunClientText(t *testing.T) {
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr}
	status := runClient(context.Background(), e, helperCmd("swap"), clientOptions{Run: pats(t, "anthropic/streaming/A19")})
	if status != exitFail {
		t.Errorf("status %d, want %d", status, exitFail)
	}
	for _, s := range []string{"FAIL anthropic/streaming/A19-interleaved-content-blocks (exit 0,", "\tfollow-up: G05:", "client: 1 runs: 0 pass, 1 fail"} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("text output does not say %q:\n%s", s, stdout.String())
		}
	}
	stdout.Reset()
	if status := runClient(context.Background(), e, "true", clientOptions{Run: pats(t, "nope/x")}); status != exitUsage {
		t.Errorf("pattern matching nothing: status %d, want %d", status, exitUsage)
	}
	if !strings.Contains(stderr.String(), `pattern "nope/x" matches no servable scenario`) {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// TestGoClientEndToEnd builds the Go client program of clients/go (its own
// module, with real SDKs) and runs it through runClient, so that the path
// from a real SDK to a verdict stays tested. Building needs the SDK
// modules: from the module cache, else from the Go proxy; without either
// the test is skipped, and says why.
func TestGoClientEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds real SDKs; skipped in -short mode")
	}
	bin := filepath.Join(t.TempDir(), "conform-client-go")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "..", "clients", "go")
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "dial tcp") || strings.Contains(string(out), "no such host") || strings.Contains(string(out), "GOPROXY") {
			t.Skipf("cannot fetch the SDK modules (offline?): %s", out)
		}
		t.Fatalf("build clients/go: %v\n%s", err, out)
	}
	cases, err := loadServable()
	if err != nil {
		t.Fatal(err)
	}
	probe, err := serve.New(serve.Options{Scenarios: cases})
	if err != nil {
		t.Fatal(err)
	}
	for _, sdk := range []string{"go-openai", "openai-go", "anthropic-sdk-go", "genai"} {
		run := map[string][]string{
			"go-openai":        {"openai-chat/streaming/A05-round-robin-interleaving", "openai-chat/response/F01-tool-calls-with-stop"},
			"openai-go":        {"openai-chat/streaming/A05-two-calls-fragment-by-fragment"},
			"anthropic-sdk-go": {"anthropic/recorded/fantasy__TestAnthropicCommon--claude-sonnet-4--multi_tool_streaming-0"},
			"genai":            {"gemini/streaming/A05-round-robin-interleaving"},
		}[sdk]
		t.Run(sdk, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			e := &env{stdout: &stdout, stderr: &stderr}
			status := runClient(context.Background(), e, bin+" -sdk "+sdk, clientOptions{
				Run:     pats(t, run...),
				Chaos:   []serve.Chaos{{}, {Split: true, Seed: 11, CRLF: true}},
				Timeout: 30 * time.Second,
			})
			if status != exitOK {
				t.Errorf("status %d:\n%s\n%s", status, stdout.String(), stderr.String())
			}
			// Each stream runs twice, plain and with chaos; a whole
			// response, which chaos does not change, once.
			runs := 0
			for _, name := range run {
				runs++
				if sc, ok := probe.Scenario(name); !ok {
					t.Fatalf("%s is not servable", name)
				} else if sc.Kind == scenarios.KindStream {
					runs++
				}
			}
			if want := fmt.Sprintf("client: %d runs: %d pass, 0 fail", runs, runs); !strings.Contains(stdout.String(), want) {
				t.Errorf("output does not say %q:\n%s", want, stdout.String())
			}
		})
	}
}

// TestRunClientReduces runs a client with one planted cause (it refuses a
// first content block other than block 0) on a case that also carries
// interleaving-free fragments and two calls, with split chaos, and checks
// that the report names that cause, in text and in JSON; --reduce=false
// (Reduce unset) reports none.
func TestRunClientReduces(t *testing.T) {
	const a21 = "anthropic/streaming/A21-content-block-indices-start-at-1"
	const cause = "fails on content block indices 1, 2; passes with block indices renumbered from 0 (0, 1)"
	for _, format := range []string{"text", "json"} {
		for _, reduce := range []bool{true, false} {
			var stdout, stderr bytes.Buffer
			e := &env{stdout: &stdout, stderr: &stderr}
			opts := clientOptions{Run: pats(t, a21), Chaos: []serve.Chaos{{}, {Split: true, Seed: 7}}, Timeout: 20 * time.Second, Format: format, Reduce: reduce, Parallel: 2}
			runClient(context.Background(), e, helperCmd("first-index"), opts)
			out := stdout.String()
			if n := strings.Count(out, cause); reduce && n != 2 || !reduce && n != 0 {
				t.Errorf("format %s, reduce %v: the cause appears %d times:\n%s", format, reduce, n, out)
			}
			if reduce && format == "text" {
				for _, want := range []string{
					"\tsmallest failing variant: the case with one call (the first), whole arguments in one fragment per call (3 of at most 8 re-runs)\n",
					"\tsmallest failing variant: the case with the chaos option removed, one call (the first), whole arguments in one fragment per call (4 of at most 8 re-runs)\n",
					// One fault, one group: both runs fail on the
					// block indices.
					"findings: 2 failed cases in 1 groups",
					"  anthropic: renumber (passes with call or content block indices renumbered from 0, one call to an index); failure mode ",
				} {
					if !strings.Contains(out, want) {
						t.Errorf("text report lacks %q:\n%s", want, out)
					}
				}
				t.Logf("%s", out)
			}
		}
	}
}

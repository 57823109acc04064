package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/reduce"
	"github.com/toolconform/conform/report"
	"github.com/toolconform/conform/scenarios"
)

// TestSummary checks that the summary is made from the groups: one row
// per set-up, cause and failure mode, each failed run counted once.
func TestSummary(t *testing.T) {
	renumber := &reduce.Result{Causes: []reduce.Step{{Name: "renumber"}}}
	groups := report.GroupFindings([]report.Finding{
		{Subject: "go openai-go", Name: "a", Rules: []string{"exit status N, want N"}, Reduction: renumber},
		{Subject: "go openai-go", Name: "b", Rules: []string{"exit status N, want N"}, Reduction: renumber},
		{Subject: "node ai-sdk", Name: "c", Rules: []string{"G05"}},
	})
	got := summary(groups)
	for _, want := range []string{
		"| go openai-go | renumber: passes with call or content block indices renumbered from 0, one call to an index | exit status N, want N | 2 | `a` |\n",
		"| node ai-sdk | not reduced | G05 | 1 | `c` |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if got := summary(nil); !strings.Contains(got, "No failed run.") {
		t.Errorf("summary of no group: %q", got)
	}
}

// TestChoose checks the order scenarios are taken in: streams with
// complete calls, hand-written before recorded, then other streams, then
// the rest, ties by name, at most perProtocol per protocol.
func TestChoose(t *testing.T) {
	cands := []candidate{
		{name: "p/recorded/stream-b", protocol: "p", stream: true, calls: true},
		{name: "p/streaming/z-calls", protocol: "p", stream: true, calls: true},
		{name: "p/streaming/a-no-calls", protocol: "p", stream: true},
		{name: "p/any/encoded", protocol: "p", stream: true, calls: true},
		{name: "p/recorded/json", protocol: "p", calls: true},
		{name: "p/streaming/b-calls", protocol: "p", stream: true, calls: true},
		{name: "p/recorded/json-no-calls", protocol: "p"},
		{name: "q/streaming/one", protocol: "q", stream: true, calls: true},
	}
	tests := []struct {
		name string
		per  int
		want map[string][]string
	}{
		{"all", 10, map[string][]string{
			"p": {"p/streaming/b-calls", "p/streaming/z-calls", "p/recorded/stream-b", "p/any/encoded", "p/streaming/a-no-calls", "p/recorded/json", "p/recorded/json-no-calls"},
			"q": {"q/streaming/one"},
		}},
		{"three", 3, map[string][]string{
			"p": {"p/streaming/b-calls", "p/streaming/z-calls", "p/recorded/stream-b"},
			"q": {"q/streaming/one"},
		}},
		{"zero", 0, map[string][]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, choose(cands, tt.per)); diff != "" {
				t.Errorf("choose(%d) (-want +got):\n%s", tt.per, diff)
			}
		})
	}
}

// TestShortfalls checks that a protocol with fewer streams with calls than
// asked for is named, and only such a protocol.
func TestShortfalls(t *testing.T) {
	cands := []candidate{
		{name: "p/streaming/a", protocol: "p", stream: true, calls: true},
		{name: "p/streaming/b", protocol: "p", stream: true, calls: true},
		{name: "q/streaming/a", protocol: "q", stream: true, calls: true},
		{name: "q/recorded/json", protocol: "q", calls: true},
		{name: "r/streaming/a", protocol: "r", stream: true},
	}
	setups := []setup{{name: "P", protocol: "p"}, {name: "Q", protocol: "q"}, {name: "Q2", protocol: "q"}}
	got := shortfalls(cands, choose(cands, 2), setups, 2)
	want := []string{"q has 1 servable streaming scenarios with complete calls, fewer than 2; all are taken, with 1 other(s)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shortfalls (-want +got):\n%s", diff)
	}
}

// TestHeaderTimeout checks that the header states the bound of the run
// as the flag set it, not a fixed text.
func TestHeaderTimeout(t *testing.T) {
	for _, d := range []time.Duration{15 * time.Second, 45 * time.Second, 1500 * time.Millisecond} {
		h := header(headerInfo{when: time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC), setups: 13, scenarios: 80, perProtocol: 20, runs: 1300, elapsed: time.Minute, timeout: d})
		want := fmt.Sprintf("1300 runs in 1m0s, each bounded to %s (-timeout)", d)
		if !strings.Contains(h, want) {
			t.Errorf("header with timeout %s does not say %q:\n%s", d, want, h)
		}
		if !strings.Contains(h, "80 scenarios (up to 20 per protocol") {
			t.Errorf("header does not give the scenario counts:\n%s", h)
		}
	}
	h := header(headerInfo{timeout: time.Second, notes: []string{"x has 3 servable streaming scenarios"}})
	if !strings.Contains(h, "Note: x has 3 servable streaming scenarios.\n") {
		t.Errorf("header does not carry the shortfall note:\n%s", h)
	}
}

// TestBuiltinSelection checks, on the built-in scenarios, that with the
// default count every protocol a set-up speaks gets defaultPerProtocol
// scenarios, all of them streams serving complete calls (issue 8 asks for
// at least 20 per set-up).
func TestBuiltinSelection(t *testing.T) {
	cases, err := scenarios.LoadBuiltin(scenarios.VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	cands := candidates(cases)
	setups := allSetups("/root", "/bin/client", "/node")
	chosen := choose(cands, defaultPerProtocol)
	if notes := shortfalls(cands, chosen, setups, defaultPerProtocol); len(notes) > 0 {
		t.Errorf("shortfalls with the default count: %q", notes)
	}
	byName := map[string]candidate{}
	for _, c := range cands {
		byName[c.name] = c
	}
	for _, s := range setups {
		names := chosen[s.protocol]
		if len(names) != defaultPerProtocol {
			t.Errorf("%s: %d scenarios of %s, want %d", s.name, len(names), s.protocol, defaultPerProtocol)
		}
		for _, n := range names {
			if c := byName[n]; !c.stream || !c.calls || c.protocol != s.protocol {
				t.Errorf("%s: chosen %s is %+v, want a %s stream with calls", s.name, n, c, s.protocol)
			}
		}
	}
	if len(setups) < 10 {
		t.Errorf("%d set-ups, issue 8 asks for at least 10", len(setups))
	}
}

// TestSelectSetups checks -only: a name selects that set-up alone (never
// the set-ups whose names contain it), '*' stands for any text, and a
// pattern that names nothing is an error listing the set-ups.
func TestSelectSetups(t *testing.T) {
	setups := allSetups("/r", "GO", "/r/clients/node")
	names := func(ss []setup) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.name)
		}
		return out
	}
	tests := []struct {
		only []string
		want []string
	}{
		{[]string{"node openai (chat)"}, []string{"node openai (chat)"}},
		{[]string{"node ai + @ai-sdk/openai (chat)", "go sashabaranov/go-openai"}, []string{"node ai + @ai-sdk/openai (chat)", "go sashabaranov/go-openai"}},
		{[]string{"go *"}, []string{"go openai-go (chat)", "go openai-go (responses)", "go anthropic-sdk-go", "go sashabaranov/go-openai", "go google.golang.org/genai"}},
		{[]string{"* (responses)", "node openai (responses)"}, []string{"go openai-go (responses)", "node openai (responses)", "node ai + @ai-sdk/openai (responses)"}},
	}
	for _, tt := range tests {
		got, err := selectSetups(setups, tt.only)
		if err != nil {
			t.Errorf("%q: %v", tt.only, err)
			continue
		}
		if diff := cmp.Diff(tt.want, names(got)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.only, diff)
		}
	}
	if _, err := selectSetups(setups, []string{"openai (chat)"}); err == nil || !strings.Contains(err.Error(), `-only "openai (chat)" names no set-up; the set-ups are: go openai-go (chat); `) {
		t.Errorf("a name no set-up has: %v", err)
	}
}

// TestHashFiles checks that the cache key changes with a file's content
// and with the extra text, and not otherwise.
func TestHashFiles(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "package-lock.json")
	write := func(s string) {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hash := func(extra string) string {
		h, err := hashFiles(extra, f)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	write("a")
	h1 := hash("v22")
	if h1 != hash("v22") {
		t.Error("the same input hashes differently")
	}
	if h1 == hash("v24") {
		t.Error("another node version gives the same hash")
	}
	write("b")
	if h1 == hash("v22") {
		t.Error("another lock file gives the same hash")
	}
	if _, err := hashFiles("", filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file hashes")
	}
}

// TestReductionLines checks the lines under a failure: the cause, the
// served line it changed, quoted, and the smallest failing variant, for a
// reduction of A21 by a subject that fails while the first block is not
// block 0.
func TestReductionLines(t *testing.T) {
	cases, err := scenarios.LoadBuiltin(scenarios.VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	var sc *scenarios.Scenario
	for _, c := range cases {
		if c.NameFor("anthropic") == "anthropic/streaming/A21-content-block-indices-start-at-1" {
			sc = c
		}
	}
	if sc == nil {
		t.Fatal("A21 not found")
	}
	r := reduce.Reduce(sc, "anthropic", "split=7", 0, func(v reduce.Variant) bool {
		_, after, _ := strings.Cut(string(v.Scenario.Body), `"content_block_start","index":`)
		return !strings.HasPrefix(after, "0")
	})
	want := "  * cause: fails on content block indices 1, 2; passes with block indices renumbered from 0 (0, 1)\n" +
		"  * renumber: served `data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01Blk1\",\"name\":\"add\",\"input\":{}}}` (first of 22 lines)" +
		"; passes with `data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01Blk1\",\"name\":\"add\",\"input\":{}}}` (first of 22 lines)\n" +
		"  * smallest failing variant: the case with the chaos option removed, one call (the first), whole arguments in one fragment per call (4 of at most 8 re-runs)\n"
	if diff := cmp.Diff(want, reductionLines(r, r.Changes(sc, "anthropic", "split=7"))); diff != "" {
		t.Errorf("reductionLines (-want +got):\n%s", diff)
	}
	if got := reductionLines(nil, nil); got != "" {
		t.Errorf("reductionLines(nil) = %q", got)
	}
}

func TestChangedLine(t *testing.T) {
	tests := []struct {
		c    reduce.Change
		want string
	}{
		{reduce.Change{Before: "data: {\"index\":1}", After: "data: {\"index\":0}", Removed: 1, Added: 1}, "served `data: {\"index\":1}`; passes with `data: {\"index\":0}`"},
		{reduce.Change{Before: "data: {\"a\":1}", Removed: 6}, "served `data: {\"a\":1}` (first of 6 lines); passes without it"},
		{reduce.Change{After: "data: {}", Added: 1}, "passes with `data: {}` added"},
		{reduce.Change{Before: "data: `x` | y", After: "data: z", Removed: 1, Added: 1}, "served `data: 'x' \\| y`; passes with `data: z`"},
		// A long common start: quoted from 100 bytes before the change.
		{reduce.Change{Before: "data: " + strings.Repeat("a", 150) + "1}", After: "data: " + strings.Repeat("a", 150) + "0}", Removed: 1, Added: 1},
			"served `…" + strings.Repeat("a", 100) + "1}`; passes with `…" + strings.Repeat("a", 100) + "0}`"},
	}
	for _, tt := range tests {
		if got := changedLine(tt.c); got != tt.want {
			t.Errorf("changedLine(%+v) = %q, want %q", tt.c, got, tt.want)
		}
	}
}

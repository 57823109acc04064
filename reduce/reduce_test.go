package reduce

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

func builtin(t *testing.T) []*scenarios.Scenario {
	t.Helper()
	cases, err := scenarios.LoadBuiltin(scenarios.VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// check grades a variant with the reference adapter and returns its
// problems, "" when it passes.
func check(a core.Adapter, sc *scenarios.Scenario) string {
	r := scenarios.CheckOne(a, sc, scenarios.Options{})
	if r.Status == scenarios.StatusPass {
		return ""
	}
	var s []string
	for _, p := range r.Problems {
		s = append(s, p.String())
	}
	return fmt.Sprintf("%s: %s", r.Status, strings.Join(s, "; "))
}

// TestSimplificationsKeepCalls applies every simplification, alone and
// chained as Reduce chains them, to every built-in stream case the
// reference adapter passes, and checks that the reference adapter still
// passes the variant: it decodes the same calls, or the one call kept.
func TestSimplificationsKeepCalls(t *testing.T) {
	applied := map[string]int{}
	for _, sc := range builtin(t) {
		if !Reducible(sc) {
			continue
		}
		for _, a := range providers.All() {
			if !sc.Applies(a) || check(a, sc) != "" {
				continue
			}
			name := sc.NameFor(a.Name())
			for _, s := range simplifications {
				v, step, ok := s.apply(Variant{Scenario: sc}, a.Name(), "")
				if !ok {
					continue
				}
				applied[s.name+" "+a.Name()]++
				if step.Has == "" || step.Becomes == "" {
					t.Errorf("%s, %s: step %+v does not say what changed", name, s.name, step)
				}
				if p := check(a, v.Scenario); p != "" {
					t.Errorf("%s, %s (%s): the reference adapter fails the variant: %s", name, s.name, step, p)
				}
			}
			// Chained: every variant kept as failing.
			Reduce(sc, a.Name(), "", 0, func(v Variant) bool {
				if p := check(a, v.Scenario); p != "" {
					t.Errorf("%s, chained: the reference adapter fails a variant: %s", name, p)
				}
				return true
			})
		}
	}
	var keys []string
	for k := range applied {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%s: %d cases", k, applied[k])
	}
	for _, s := range simplifications {
		if s.name != "no-chaos" && applied[s.name+" anthropic"] == 0 {
			t.Errorf("%s never applied to an Anthropic case", s.name)
		}
	}
}

func find(t *testing.T, cases []*scenarios.Scenario, name string) *scenarios.Scenario {
	t.Helper()
	for _, sc := range cases {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %s", name)
	return nil
}

// TestReduceSteps reduces named cases with a subject that always fails
// and one that fails on a single feature, and checks the steps found.
func TestReduceSteps(t *testing.T) {
	cases := builtin(t)
	always := func(Variant) bool { return true }
	tests := []struct {
		name, protocol, chaos string
		fails                 Fails
		want                  *Result
	}{
		{
			name: "anthropic/streaming/A21-content-block-indices-start-at-1", protocol: "anthropic", chaos: "split=7", fails: always,
			want: &Result{Kept: []Step{
				{"no-chaos", "chaos option split=7", "the chaos option removed"},
				{"renumber", "content block indices 1, 2", "block indices renumbered from 0 (0, 1)"},
				{"one-call", "2 tool calls", "one call (the first)"},
				{"whole-arguments", "arguments in fragments (2 per call)", "whole arguments in one fragment per call"},
				{"re-encode", "the case's own bytes", "the stream re-encoded by conform's anthropic encoder"},
			}, Runs: 5, Budget: DefaultBudget},
		},
		{
			// Fails while the first block is not block 0.
			name: "anthropic/streaming/A21-content-block-indices-start-at-1", protocol: "anthropic",
			fails: func(v Variant) bool {
				_, after, _ := strings.Cut(string(v.Scenario.Body), `"content_block_start","index":`)
				return !strings.HasPrefix(after, "0")
			},
			want: &Result{
				Causes: []Step{{"renumber", "content block indices 1, 2", "block indices renumbered from 0 (0, 1)"}},
				Kept: []Step{
					{"one-call", "2 tool calls", "one call (the first)"},
					{"whole-arguments", "arguments in fragments (2 per call)", "whole arguments in one fragment per call"},
				},
				Runs: 3, Budget: DefaultBudget,
			},
		},
		{
			name: "anthropic/streaming/A19-interleaved-content-blocks", protocol: "anthropic", fails: always,
			want: &Result{Kept: []Step{
				{"de-interleave", "content blocks interleaved (order 0, 1, 0, 1, 0, 1, 0)", "each block's events together"},
				{"one-call", "2 tool calls", "one call (the first)"},
				{"whole-arguments", "arguments in fragments (2 per call)", "whole arguments in one fragment per call"},
			}, Untried: []string{"re-encode"}, Runs: 3, Budget: 3},
		},
		{
			name: "openai-chat/streaming/A21-call-indices-skip-a-number", protocol: "openai-chat",
			// Fails while the second call's index is not 1.
			fails: func(v Variant) bool { return !strings.Contains(string(v.Scenario.Body), `"tool_calls":[{"index":1`) },
			want: &Result{
				Causes: []Step{{"renumber", "tool call indices 0, 2", "tool call indices renumbered from 0 (0, 1)"}},
				Kept:   []Step{{"one-call", "2 tool calls", "one call (the first)"}},
				Runs:   2, Budget: DefaultBudget,
			},
		},
		{
			name: "openai-chat/streaming/A05-three-calls-round-robin-id-on-first-chunk", protocol: "openai-chat", fails: always,
			want: &Result{Kept: []Step{
				{"de-interleave", "tool call chunks interleaved (call order 0, 1, 2, 0, 1, 2, 0, 1, 2)", "each call's chunks together"},
				{"one-call", "3 tool calls", "one call (the first)"},
				{"whole-arguments", "arguments in fragments (2 per call)", "whole arguments in one fragment per call"},
				{"re-encode", "the case's own bytes", "the stream re-encoded by conform's openai-chat encoder"},
			}, Runs: 4, Budget: DefaultBudget},
		},
		{
			// A canonical case: the events are edited, each step only
			// where the protocol's encoder writes other bytes.
			name: "any/streaming/A05-round-robin-interleaving", protocol: "openai-chat", fails: always,
			want: &Result{Kept: []Step{
				{"de-interleave", "call events interleaved (3 calls in 12 alternating runs)", "each call's events together"},
				{"one-call", "3 tool calls", "one call (the first)"},
				{"whole-arguments", "arguments in fragments (2 per call)", "whole arguments in one fragment per call"},
			}, Runs: 3, Budget: DefaultBudget},
		},
		{
			// Gemini writes each call whole, in one chunk: only the
			// number of calls changes its bytes.
			name: "any/streaming/A05-round-robin-interleaving", protocol: "gemini", fails: always,
			want: &Result{Kept: []Step{{"one-call", "3 tool calls", "one call (the first)"}}, Runs: 1, Budget: DefaultBudget},
		},
	}
	for _, tt := range tests {
		budget := tt.want.Budget
		got := Reduce(find(t, cases, tt.name), tt.protocol, tt.chaos, budget, tt.fails)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: Reduce (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestParseSSE(t *testing.T) {
	tests := []struct {
		body string
		ok   bool
	}{
		{"event: a\ndata: {}\n\ndata: {\"x\":1}\n\n", true},
		{"event: a\r\ndata: {}\r\n\r\n", false},     // CRLF
		{": ping\n\nevent: a\ndata: {}\n\n", false}, // a comment
		{"event: a\ndata: {\ndata: }\n\n", false},   // data over two lines
		{"event: a\ndata: {}\n", false},             // no closing blank line
		{"", true},
	}
	for _, tt := range tests {
		if _, ok := parseSSE([]byte(tt.body)); ok != tt.ok {
			t.Errorf("parseSSE(%q): ok %v, want %v", tt.body, ok, tt.ok)
		}
	}
}

func TestSplice(t *testing.T) {
	tests := []struct {
		data  string
		value string
		path  []any
		want  string
		ok    bool
	}{
		{`{"type":"x","index":1,"a":{"index":7}}`, `0`, []any{"index"}, `{"type":"x","index":0,"a":{"index":7}}`, true},
		{`{"delta":{"type":"input_json_delta", "partial_json" : "{\"a\""}}`, `"{}"`, []any{"delta", "partial_json"}, `{"delta":{"type":"input_json_delta", "partial_json" : "{}"}}`, true},
		{`{"a":1}`, `2`, []any{"b"}, ``, false},
		{`{"choices":[{"delta":{"tool_calls":[{"index":1},{"index":3}]}}]}`, `0`, []any{"choices", 0, "delta", "tool_calls", 1, "index"}, `{"choices":[{"delta":{"tool_calls":[{"index":1},{"index":0}]}}]}`, true},
		{`{"a":[1]}`, `2`, []any{"a", 1}, ``, false},
		{`[1]`, `2`, []any{"a"}, ``, false},
		{`{"a":`, `2`, []any{"a"}, ``, false},
	}
	for _, tt := range tests {
		got, ok := splice([]byte(tt.data), []byte(tt.value), tt.path...)
		if ok != tt.ok || string(got) != tt.want {
			t.Errorf("splice(%s, %s, %v) = %s, %v; want %s, %v", tt.data, tt.value, tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

// indexStrict is a wrong Anthropic adapter with one planted cause: its
// stream decoder refuses a stream whose first content block is not block 0.
type indexStrict struct{ core.Adapter }

type refused struct{ err error }

func (r refused) Next() (core.Event, error) { return core.Event{}, r.err }

func (a indexStrict) DecodeStream(r io.Reader) core.EventStream {
	body, err := io.ReadAll(r)
	if err != nil {
		return refused{err}
	}
	_, after, _ := strings.Cut(string(body), `"content_block_start","index":`)
	if !strings.HasPrefix(after, "0") {
		return refused{errors.New("content block 0 expected")}
	}
	return a.Adapter.DecodeStream(bytes.NewReader(body))
}

// TestAdapterPlantedCause reduces the failures of an adapter with one
// planted cause on a case that carries several features.
func TestAdapterPlantedCause(t *testing.T) {
	cases := builtin(t)
	ref, err := providers.Lookup("anthropic")
	if err != nil {
		t.Fatal(err)
	}
	a := indexStrict{ref}
	sc := find(t, cases, "anthropic/streaming/A21-content-block-indices-start-at-1")
	got := Adapter(a, sc, scenarios.Options{})
	want := &Result{
		Causes: []Step{{"renumber", "content block indices 1, 2", "block indices renumbered from 0 (0, 1)"}},
		Kept: []Step{
			{"one-call", "2 tool calls", "one call (the first)"},
			{"whole-arguments", "arguments in fragments (2 per call)", "whole arguments in one fragment per call"},
		},
		Runs: 3, Budget: DefaultBudget,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Adapter (-want +got):\n%s", diff)
	}
	t.Logf("cause: %s; smallest failing variant: %s", got.Cause(), got.Smallest())
	// A case the adapter passes is not reduced.
	if r := Adapter(a, find(t, cases, "anthropic/streaming/A19-interleaved-content-blocks"), scenarios.Options{}); r != nil {
		t.Errorf("a passing case was reduced: %+v", r)
	}
}

func TestResultLines(t *testing.T) {
	renumber := Step{"renumber", "tool call indices 0, 2", "tool call indices renumbered from 0 (0, 1)"}
	one := Step{"one-call", "2 tool calls", "one call (the first)"}
	tests := []struct {
		r               Result
		cause, smallest string
	}{
		{Result{Causes: []Step{renumber}, Kept: []Step{one}},
			"fails on tool call indices 0, 2; passes with tool call indices renumbered from 0 (0, 1)", "the case with one call (the first)"},
		{Result{Causes: []Step{renumber, one}},
			"fails on tool call indices 0, 2 together with 2 tool calls; passes with tool call indices renumbered from 0 (0, 1), or with one call (the first)", "the case as served"},
		{Result{Kept: []Step{one, renumber}},
			"not found: every simplification tried still fails", "the case with one call (the first), tool call indices renumbered from 0 (0, 1)"},
	}
	for _, tt := range tests {
		if got := tt.r.Cause(); got != tt.cause {
			t.Errorf("Cause() = %q, want %q", got, tt.cause)
		}
		if got := tt.r.Smallest(); got != tt.smallest {
			t.Errorf("Smallest() = %q, want %q", got, tt.smallest)
		}
	}
	// A case no simplification applies to has no reduction.
	if r := Reduce(find(t, builtin(t), "any/streaming/B07-raw-newline-in-argument-string"), "anthropic", "", 0, func(Variant) bool { return true }); r != nil {
		t.Errorf("Reduce with nothing to simplify = %+v, want nil", r)
	}
}

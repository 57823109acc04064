package reduce

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

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
				v, step, why := s.apply(Variant{Scenario: sc}, a.Name(), "")
				if why != "" {
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
		if diff := cmp.Diff(tt.want, got, ignoreSteps); diff != "" {
			t.Errorf("%s: Reduce (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestParseSSE checks that every body the SSE codec reads is taken apart
// into the events it reads and written back exactly: comments, CRLF,
// data over several lines, no closing blank line.
func TestParseSSE(t *testing.T) {
	tests := []struct {
		body string
		data []string
	}{
		{"event: a\ndata: {}\n\ndata: {\"x\":1}\n\n", []string{"{}", `{"x":1}`}},
		{"event: a\r\ndata: {}\r\n\r\n", []string{"{}"}},
		{": OPENROUTER PROCESSING\n\nevent: a\ndata: {}\n\n: ping\n\n", []string{"{}"}},
		{"event: a\ndata: {\ndata: }\n\n", []string{"{\n}"}},
		{"event: a\ndata: {}\n", []string{"{}"}},
		{"data:{}\r\rdata: 1", []string{"{}", "1"}},
		{"", nil},
	}
	for _, tt := range tests {
		evs, err := parseSSE([]byte(tt.body))
		if err != nil {
			t.Errorf("parseSSE(%q): %v", tt.body, err)
			continue
		}
		var data []string
		for _, ev := range evs {
			if !ev.filler {
				data = append(data, string(ev.data))
			}
		}
		if diff := cmp.Diff(tt.data, data); diff != "" {
			t.Errorf("parseSSE(%q) data (-want +got):\n%s", tt.body, diff)
		}
		if got := writeSSE(evs); string(got) != tt.body {
			t.Errorf("parseSSE(%q) writes back %q", tt.body, got)
		}
	}
	if _, err := parseSSE([]byte("data: " + strings.Repeat("x", maxBody))); err == nil {
		t.Error("parseSSE takes apart a body over maxBody")
	}
}

// TestWithData checks that replacing an event's data changes only the
// bytes that differ, on whichever data line they are, and refuses a change
// across a line end.
func TestWithData(t *testing.T) {
	tests := []struct {
		body, data, want string
		ok               bool
	}{
		{": c\r\nevent: x\r\ndata: {\"index\":1}\r\n\r\n", `{"index":0}`, ": c\r\nevent: x\r\ndata: {\"index\":0}\r\n\r\n", true},
		{"data:{\ndata: \"index\":12}\n\n", "{\n\"index\":0}", "data:{\ndata: \"index\":0}\n\n", true},
		{"data: {\"a\":\"b\"}\n\n", `{"a":"bcd"}`, "data: {\"a\":\"bcd\"}\n\n", true},
		{"data: {\ndata: }\n\n", "{}", "", false},
		{"data: {}\n\n", "{\n}", "", false},
	}
	for _, tt := range tests {
		evs, err := parseSSE([]byte(tt.body))
		if err != nil || len(evs) != 1 {
			t.Fatalf("parseSSE(%q) = %d events, %v", tt.body, len(evs), err)
		}
		got, ok := evs[0].withData([]byte(tt.data))
		if ok != tt.ok || ok && string(got.raw) != tt.want {
			t.Errorf("withData(%q, %q) = %q, %v; want %q, %v", tt.body, tt.data, got.raw, ok, tt.want, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		back, err := parseSSE(got.raw)
		if err != nil || len(back) != 1 || string(back[0].data) != tt.data {
			t.Errorf("withData(%q, %q): the codec reads %+v, %v", tt.body, tt.data, back, err)
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
	if diff := cmp.Diff(want, got, ignoreSteps); diff != "" {
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
		{Result{Kept: []Step{one, renumber}, Steps: []Attempt{{Name: "one-call", Outcome: OutcomeKept}, {Name: "renumber", Outcome: OutcomeKept}, {Name: "no-text", Outcome: OutcomeNotApplicable, Why: "none"}}},
			"not found: every applicable simplification (one-call, renumber) still fails; the others do not apply", "the case with one call (the first), tool call indices renumbered from 0 (0, 1)"},
		{Result{Kept: []Step{one}, Untried: []string{"renumber"}, Budget: 1, Steps: []Attempt{{Name: "one-call", Outcome: OutcomeKept}, {Name: "renumber", Outcome: OutcomeUntried}}},
			"not found within the budget of 1 re-runs: one-call still fail(s); untried: renumber", "the case with one call (the first)"},
		{Result{Steps: []Attempt{{Name: "renumber", Outcome: OutcomeNotApplicable, Why: "none"}}},
			"not found: no simplification applies to this case", "the case as served"},
	}
	for _, tt := range tests {
		if got := tt.r.Cause(); got != tt.cause {
			t.Errorf("Cause() = %q, want %q", got, tt.cause)
		}
		if got := tt.r.Smallest(); got != tt.smallest {
			t.Errorf("Smallest() = %q, want %q", got, tt.smallest)
		}
	}
	// A case no simplification applies to says so, and why each does
	// not.
	r := Reduce(find(t, builtin(t), "any/streaming/B07-raw-newline-in-argument-string"), "anthropic", "", 0, func(Variant) bool { return true })
	if r.Runs != 0 || r.Cause() != "not found: no simplification applies to this case" || len(r.Steps) != len(simplifications) {
		t.Errorf("Reduce with nothing to simplify = %+v (cause %q)", r, r.Cause())
	}
	for _, a := range r.Steps {
		if a.Outcome != OutcomeNotApplicable || a.Why == "" {
			t.Errorf("step %+v: want not applicable, with the reason", a)
		}
	}
}

// ignoreSteps leaves Result.Steps out of comparisons of what was found;
// TestReduceNamesEveryStep checks them.
var ignoreSteps = cmpopts.IgnoreFields(Result{}, "Steps")

// TestReduceNamesEveryStep checks that a reduction says, for every
// simplification in order, whether it ran and what came of it, or why it
// did not; and that "not found" is said only once every applicable
// simplification ran.
func TestReduceNamesEveryStep(t *testing.T) {
	cases := builtin(t)
	always := func(Variant) bool { return true }
	sc := find(t, cases, "openai-chat/streaming/A21-call-indices-skip-a-number")
	got := Reduce(sc, "openai-chat", "split=3", 0, always)
	want := []Attempt{
		{Name: "no-chaos", Outcome: OutcomeKept},
		{Name: "de-interleave", Outcome: OutcomeNotApplicable, Why: "no two calls' (content blocks') events alternate, or a chunk to move carries more than one call"},
		{Name: "renumber", Outcome: OutcomeKept},
		{Name: "no-text", Outcome: OutcomeNotApplicable, Why: "no text or thinking to remove apart from the calls (or no call to keep)"},
		{Name: "one-call", Outcome: OutcomeKept},
		{Name: "whole-arguments", Outcome: OutcomeNotApplicable, Why: "no call's arguments come in two or more fragments (or a later fragment's chunk carries more than its fragment)"},
		{Name: "re-encode", Outcome: OutcomeKept},
	}
	if diff := cmp.Diff(want, got.Steps); diff != "" {
		t.Errorf("Steps (-want +got):\n%s", diff)
	}
	if c := got.Cause(); c != "not found: every applicable simplification (no-chaos, renumber, one-call, re-encode) still fails; the others do not apply" {
		t.Errorf("Cause() = %q", c)
	}
	if s := got.Tried(); !strings.HasPrefix(s, "no-chaos kept; de-interleave not applicable (no two calls'") || !strings.HasSuffix(s, "; re-encode kept") {
		t.Errorf("Tried() = %q", s)
	}
	// A budget that runs out is said, not taken for "not found".
	got = Reduce(sc, "openai-chat", "split=3", 1, always)
	if c := got.Cause(); c != "not found within the budget of 1 re-runs: no-chaos still fail(s); untried: renumber, one-call, re-encode" {
		t.Errorf("Cause() with budget 1 = %q", c)
	}
	if n := len(got.Steps); n != len(simplifications) {
		t.Errorf("budget 1: %d steps, want %d", n, len(simplifications))
	}
}

// TestReduceCommentedStream reduces a recording whose body carries SSE
// comments (OpenRouter's ": OPENROUTER PROCESSING" keep-alives): the
// content simplifications apply, and every comment stays as it was.
func TestReduceCommentedStream(t *testing.T) {
	sc := find(t, builtin(t), "openai-chat/recorded/fantasy__TestOpenRouterCommon--openai--multi_tool_streaming-0")
	const comment = ": OPENROUTER PROCESSING"
	if !bytes.Contains(sc.Body, []byte(comment)) {
		t.Fatalf("the recording has no %q line", comment)
	}
	got := Reduce(sc, "openai-chat", "", 0, func(Variant) bool { return true })
	var ran []string
	for _, a := range got.Steps {
		if a.Outcome == OutcomeKept {
			ran = append(ran, a.Name)
		}
	}
	if want := []string{"one-call", "re-encode"}; !cmp.Equal(want, ran) {
		t.Errorf("simplifications run: %v, want %v (steps %+v)", ran, want, got.Steps)
	}
	v, _, why := simplifications[4].apply(Variant{Scenario: sc}, "openai-chat", "")
	if why != "" {
		t.Fatalf("one-call does not apply: %s", why)
	}
	if n, m := bytes.Count(v.Scenario.Body, []byte(comment)), bytes.Count(sc.Body, []byte(comment)); n != m {
		t.Errorf("one-call left %d comment lines of %d", n, m)
	}
}

// TestReduceSameIndexTwoIDs reduces a Chat Completions stream that sends
// two calls on index 0 with different ids, as some servers do, for a
// client that routes calls by index alone: renumbering names the cause.
func TestReduceSameIndexTwoIDs(t *testing.T) {
	body := `data: {"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"add","arguments":""}}]}}]}

: OPENROUTER PROCESSING

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_b","type":"function","function":{"name":"mul","arguments":""}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"b\":2}"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

`
	sc := &scenarios.Scenario{Name: "openai-chat/x/two-ids", Kind: scenarios.KindStream, Body: []byte(body),
		Want: scenarios.Want{Calls: []map[string]any{{"id": "call_a", "name": "add", "arguments": map[string]any{"a": 1.0}}, {"id": "call_b", "name": "mul", "arguments": map[string]any{"b": 2.0}}}}}
	// The client keys calls by index: it fails while two calls share one.
	byIndex := func(v Variant) bool {
		return bytes.Count(v.Scenario.Body, []byte(`"tool_calls":[{"index":0,"id"`)) > 1
	}
	got := Reduce(sc, "openai-chat", "", 0, byIndex)
	want := &Result{
		Causes: []Step{{"renumber", "tool call indices 0, 0 (1 call(s) sent on an index another call holds, with another id)", "tool call indices renumbered from 0 (0, 1)"}, {"one-call", "2 tool calls", "one call (the first)"}},
		Runs:   2, Budget: DefaultBudget,
	}
	if diff := cmp.Diff(want, got, ignoreSteps); diff != "" {
		t.Errorf("Reduce (-want +got):\n%s", diff)
	}
	// The reference adapter (which routes by id) decodes the renumbered
	// variant to the same calls, and the comment stays.
	v, _, why := simplifications[2].apply(Variant{Scenario: sc}, "openai-chat", "")
	if why != "" {
		t.Fatalf("renumber does not apply: %s", why)
	}
	a, err := providers.Lookup("openai-chat")
	if err != nil {
		t.Fatal(err)
	}
	if p := check(a, v.Scenario); p != "" {
		t.Errorf("the reference adapter fails the renumbered variant: %s\n%s", p, v.Scenario.Body)
	}
	if !bytes.Contains(v.Scenario.Body, []byte("\n: OPENROUTER PROCESSING\n\n")) {
		t.Errorf("the comment is gone:\n%s", v.Scenario.Body)
	}
}

// TestEventsSameIndexTwoIDs: the same for a canonical case, whose events
// name two calls on one index by their ids.
func TestEventsSameIndexTwoIDs(t *testing.T) {
	start := func(id, name string) core.Event {
		return core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{HasIndex: true, Index: 0, ID: id, Name: name}}
	}
	delta := func(args string) core.Event {
		return core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{HasIndex: true, Index: 0, ArgsDelta: args}}
	}
	evs := []core.Event{start("call_a", "add"), delta(`{"a":1}`), start("call_b", "mul"), delta(`{"b":2}`), {Kind: core.EventFinish, Finish: core.FinishToolCalls}}
	keys, ok := callKeys(evs)
	if !ok || keys[0] == keys[2] || keys[1] != keys[0] || keys[3] != keys[2] {
		t.Fatalf("callKeys = %q, %v: want two calls", keys, ok)
	}
	sc := &scenarios.Scenario{Kind: scenarios.KindStream, Events: evs, Want: scenarios.Want{Calls: []map[string]any{{"name": "add"}, {"name": "mul"}}}}
	out, _, step, ok := eventsRenumber(slices.Clone(evs), keys, sc)
	if !ok || out[2].Chunk.Index != 1 || out[3].Chunk.Index != 1 || out[0].Chunk.Index != 0 {
		t.Fatalf("eventsRenumber = %+v, %v", out, ok)
	}
	if want := "call indices 0, 0 (1 call(s) sent on an index another call holds, with another id)"; step.Has != want {
		t.Errorf("step.Has = %q, want %q", step.Has, want)
	}
}

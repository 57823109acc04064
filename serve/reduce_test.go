package serve

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/reduce"
	"github.com/toolconform/conform/scenarios"
)

// severalFeatures is an Anthropic stream that carries several features a
// client may trip on at once: blocks numbered from 1, a thinking and a
// text block before the calls, two calls whose blocks interleave, and
// arguments in fragments.
const severalFeatures = `A stream with several features at once, for the reduction tests.

severity: MUST
guards: A21 A19
protocol: anthropic
kind: stream
-- response.sse --
event: message_start
data: {"type":"message_start","message":{"id":"msg_reduce","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"Two sums."}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"c2lnbmF0dXJl"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Calling both."}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: content_block_start
data: {"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_red1","name":"add","input":{}}}

event: content_block_start
data: {"type":"content_block_start","index":4,"content_block":{"type":"tool_use","id":"toolu_red2","name":"multiply","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"a\": 2"}}

event: content_block_delta
data: {"type":"content_block_delta","index":4,"delta":{"type":"input_json_delta","partial_json":"{\"a\": 4"}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":", \"b\": 3}"}}

event: content_block_delta
data: {"type":"content_block_delta","index":4,"delta":{"type":"input_json_delta","partial_json":", \"b\": 5}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":3}

event: content_block_stop
data: {"type":"content_block_stop","index":4}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":40}}

event: message_stop
data: {"type":"message_stop"}

-- want/calls.json --
[
 {"id":"toolu_red1","name":"add","arguments":{"a":2,"b":3}},
 {"id":"toolu_red2","name":"multiply","arguments":{"a":4,"b":5}}
]
-- want/text.txt --
Calling both.
-- want/finish.txt --
tool_calls tool_use
`

// The single causes planted in the test clients.
const (
	plantNone = ""
	// plantFirstIndex refuses a stream whose first content block is not
	// block 0, as accumulators that append blocks by position do.
	plantFirstIndex = "refuses a first block index other than 0"
	// plantDropFragment loses the second argument fragment of each call.
	plantDropFragment = "drops the second argument fragment of each call"
)

var firstBlockIndex = regexp.MustCompile(`"type":"content_block_start","index":(\d+)`)

// dropSecondFragments removes the second input_json_delta event of each
// content block from an SSE body.
func dropSecondFragments(body []byte) []byte {
	var out []string
	seen := map[string]int{}
	index := regexp.MustCompile(`"index":(\d+)`)
	for _, ev := range strings.SplitAfter(string(body), "\n\n") {
		if strings.Contains(ev, `"input_json_delta"`) {
			k := index.FindStringSubmatch(ev)[1]
			seen[k]++
			if seen[k] == 2 {
				continue
			}
		}
		out = append(out, ev)
	}
	return []byte(strings.Join(out, ""))
}

// plantedClient runs one Anthropic tool turn against base as a client
// with the planted cause would: it reads the stream's bytes, applies its
// fault, decodes them with conform's adapter, answers each call with the
// echo of its arguments and prints the final answer. It returns its exit
// status and standard output.
func plantedClient(t *testing.T, base, name string, tools []core.ToolSpec, plant string) (int, string) {
	t.Helper()
	a, err := providers.Lookup("anthropic")
	if err != nil {
		t.Fatal(err)
	}
	ep, err := providers.HTTP("anthropic")
	if err != nil {
		t.Fatal(err)
	}
	post := func(req *core.Request) ([]byte, error) {
		body, err := a.EncodeRequest(req)
		if err != nil {
			return nil, err // the client stops with its error
		}
		// The stream holds a thinking block, which Anthropic sends only
		// to a request that enables thinking.
		body = bytes.Replace(body, []byte("{"), []byte(`{"thinking":{"type":"adaptive"},`), 1)
		resp, err := http.Post(ep.URL(base+ScenarioPrefix+name, ep.DefaultModel, true), "application/json", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("status %d: %s", resp.StatusCode, raw)
		}
		return raw, err
	}
	req := &core.Request{
		Messages:  []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("conform: please call the tools")}}},
		Tools:     tools,
		MaxTokens: 1024,
		Stream:    true,
	}
	raw, err := post(req)
	if err != nil {
		return 1, ""
	}
	switch plant {
	case plantFirstIndex:
		if m := firstBlockIndex.FindSubmatch(raw); m != nil && string(m[1]) != "0" {
			return 1, "" // "content block 0 expected"
		}
	case plantDropFragment:
		raw = dropSecondFragments(raw)
	}
	first, err := core.Collect(a.DecodeStream(bytes.NewReader(raw)))
	if err != nil && first == nil {
		return 1, ""
	}
	var results []core.Part
	for _, c := range first.Calls() {
		results = append(results, core.ResultPart(core.Result{CallID: c.ID, Name: c.Name, Content: []core.Part{core.TextPart(string(c.Arguments))}}))
	}
	turn := first.Message
	turn.Role = core.RoleAssistant
	req.Messages = append(req.Messages, turn, core.Message{Role: core.RoleTool, Parts: results})
	raw, err = post(req)
	if err != nil {
		return 1, ""
	}
	final, err := core.Collect(a.DecodeStream(bytes.NewReader(raw)))
	if err != nil {
		return 1, ""
	}
	return 0, final.Text()
}

// plantedFails serves a variant on a real loopback server and reports
// whether the planted client fails it, graded as RunClient grades.
func plantedFails(t *testing.T, name, plant string, chaos Chaos) reduce.Fails {
	return func(v reduce.Variant) bool {
		c := Chaos{}
		if v.Chaos {
			c = chaos
		}
		srv, err := New(Options{Scenarios: []*scenarios.Scenario{v.Scenario}, Scenario: name, Chaos: c, Echo: true})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		defer ts.Close()
		exit, stdout := plantedClient(t, ts.URL, name, ClientTools(v.Scenario), plant)
		res := ClientRun{Exit: exit, Stdout: stdout, Protocol: "anthropic"}
		res.Verdict, _ = srv.Verdict(name)
		GradeClient(&res, v.Scenario, c)
		return res.Status != "pass"
	}
}

// TestReducePlantedCause grades clients with one planted cause on a
// stream that carries several features, served with split chaos over
// HTTP, and checks that the reduction names exactly that cause.
func TestReducePlantedCause(t *testing.T) {
	const name = "anthropic/streaming/R01-several-features"
	sc, err := scenarios.Parse(name, "reduce_test.go", []byte(severalFeatures), nil)
	if err != nil {
		t.Fatal(err)
	}
	chaos, err := ParseChaos("split=7")
	if err != nil {
		t.Fatal(err)
	}
	original := reduce.Variant{Scenario: sc, Chaos: true}
	if plantedFails(t, name, plantNone, chaos)(original) {
		t.Fatal("the client without a planted cause fails the case")
	}
	kept := map[string]reduce.Step{
		"no-chaos":        {Name: "no-chaos", Has: "chaos option split=7", Becomes: "the chaos option removed"},
		"de-interleave":   {Name: "de-interleave", Has: "content blocks interleaved (order 1, 2, 3, 4, 3, 4, 3, 4, 3, 4)", Becomes: "each block's events together"},
		"renumber":        {Name: "renumber", Has: "content block indices 1, 2, 3, 4", Becomes: "block indices renumbered from 0 (0, 1, 2, 3)"},
		"no-text":         {Name: "no-text", Has: "2 text or thinking block(s) (thinking, text)", Becomes: "text and thinking removed"},
		"one-call":        {Name: "one-call", Has: "2 tool calls", Becomes: "one call (the first)"},
		"whole-arguments": {Name: "whole-arguments", Has: "arguments in fragments (2 per call)", Becomes: "whole arguments in one fragment per call"},
	}
	tests := []struct {
		plant string
		want  *reduce.Result
	}{
		{plantFirstIndex, &reduce.Result{
			Causes: []reduce.Step{kept["renumber"]},
			Kept:   []reduce.Step{kept["no-chaos"], kept["de-interleave"], kept["no-text"], kept["one-call"], kept["whole-arguments"]},
			Runs:   6, Budget: reduce.DefaultBudget,
		}},
		{plantDropFragment, &reduce.Result{
			Causes: []reduce.Step{kept["whole-arguments"]},
			Kept:   []reduce.Step{kept["no-chaos"], kept["de-interleave"], kept["renumber"], kept["no-text"], kept["one-call"]},
			Runs:   6, Budget: reduce.DefaultBudget,
		}},
	}
	for _, tt := range tests {
		fails := plantedFails(t, name, tt.plant, chaos)
		if !fails(original) {
			t.Fatalf("%s: the planted client passes the case", tt.plant)
		}
		got := reduce.Reduce(sc, "anthropic", chaos.String(), 0, fails)
		// Steps are reduce's to check (TestReduceNamesEveryStep).
		if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(reduce.Result{}, "Steps")); diff != "" {
			t.Errorf("%s: Reduce (-want +got):\n%s", tt.plant, diff)
		}
		t.Logf("%s:\n\tcause: %s\n\tsmallest failing variant: %s\n\t(%s)", tt.plant, got.Cause(), got.Smallest(), got.Summary())
	}
}

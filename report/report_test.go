package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/scenarios"
)

func results() []scenarios.Result {
	sc := func(guards ...string) *scenarios.Scenario {
		return &scenarios.Scenario{File: "cases/x.txtar", Guards: guards}
	}
	return []scenarios.Result{
		{Name: "openai-chat/streaming/A05-interleaved", Adapter: "openai-chat", Severity: scenarios.MUST, Status: scenarios.StatusFail, Scenario: sc("A05"),
			Problems: []scenarios.Problem{{Rule: "calls", Guards: []string{"A05"}, Message: "calls differ", Diff: "  {\n-   \"a\": 1\n+   \"a\": 2\n  }"}}},
		{Name: "openai-chat/streaming/A03-empty-id", Adapter: "openai-chat", Severity: scenarios.MUST, Status: scenarios.StatusPass, Scenario: sc("A03")},
		{Name: "openai-chat/history/G03-results", Adapter: "openai-chat", Severity: scenarios.SHOULD, Status: scenarios.StatusFail, Scenario: sc("G03"),
			Problems: []scenarios.Problem{{Rule: "request", Message: "differs"}}},
		{Name: "anthropic/streaming/A19-blocks", Adapter: "anthropic", Severity: scenarios.MUST, Status: scenarios.StatusKnownFailing, Reason: "listed in k.txt:3", Scenario: sc("A19")},
		{Name: "anthropic/streaming/C02-no-delta", Adapter: "anthropic", Severity: scenarios.MUST, Status: scenarios.StatusSkip, Reason: "encode_stream unsupported", Scenario: sc("C02")},
		{Name: "anthropic/history/G11-empty-text", Adapter: "anthropic", Severity: scenarios.INFO, Status: scenarios.StatusFail, Scenario: sc("G11"),
			Problems: []scenarios.Problem{{Rule: "request", Message: "empty text block"}}},
	}
}

func TestCountsAndVerdict(t *testing.T) {
	for _, tc := range []struct {
		strict bool
		want   Counts
	}{
		{false, Counts{Pass: 1, Fail: 1, KnownFailing: 1, Skip: 1, Uncounted: 2}},
		{true, Counts{Pass: 1, Fail: 2, KnownFailing: 1, Skip: 1, Uncounted: 1}},
	} {
		rep := &Report{Results: results(), Strict: tc.strict}
		if diff := cmp.Diff(tc.want, rep.Total()); diff != "" {
			t.Errorf("strict=%v: totals (-want +got):\n%s", tc.strict, diff)
		}
		if !rep.Failed() {
			t.Errorf("strict=%v: a failed MUST case did not fail the run", tc.strict)
		}
	}
	onlyShould := &Report{Results: results()[1:3]}
	if onlyShould.Failed() {
		t.Error("a failed SHOULD case failed the run outside strict mode")
	}
	onlyShould.Strict = true
	if !onlyShould.Failed() {
		t.Error("a failed SHOULD case did not fail the run in strict mode")
	}
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := (&Report{Results: results()}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"FAIL openai-chat/streaming/A05-interleaved [MUST]",
		"[A05] calls: calls differ (-want +got):",
		`-   "a": 1`,
		"FAIL (not counted: SHOULD) openai-chat/history/G03-results",
		"\n1 passed, 1 failed, 1 known-failing, 1 skipped, 2 failed but not counted\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "A03-empty-id") {
		t.Error("a passing case is listed among failures")
	}
}

func TestJUnitParses(t *testing.T) {
	var b bytes.Buffer
	if err := (&Report{Results: results()}).WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("JUnit output does not parse: %v\n%s", err, b.String())
	}
	if got.Tests != 6 || got.Failures != 1 || got.Skipped != 4 {
		t.Errorf("testsuites tests=%d failures=%d skipped=%d, want 6, 1, 4", got.Tests, got.Failures, got.Skipped)
	}
	var failure *junitCase
	for _, s := range got.Suites {
		for i, c := range s.Cases {
			if c.Failure != nil {
				failure = &s.Cases[i]
			}
		}
	}
	if failure == nil {
		t.Fatal("no testcase with a failure")
	}
	if failure.Name != "streaming/A05-interleaved" || failure.Classname != "openai-chat.streaming" {
		t.Errorf("failure testcase %q in %q", failure.Name, failure.Classname)
	}
	if !strings.Contains(failure.Failure.Text, `+   "a": 2`) || failure.Failure.Message != "calls: calls differ" {
		t.Errorf("failure carries message %q and text %q", failure.Failure.Message, failure.Failure.Text)
	}
}

func TestJSON(t *testing.T) {
	var b bytes.Buffer
	if err := (&Report{Results: results(), Strict: true}).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Passed  bool
		Totals  map[string]int
		Results []jsonResult
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Passed || got.Totals["failed"] != 2 || len(got.Results) != 6 {
		t.Errorf("passed=%v totals=%v results=%d", got.Passed, got.Totals, len(got.Results))
	}
	if r := got.Results[0]; r.Category != "streaming" || !r.Counted || r.Problems[0].Diff == "" {
		t.Errorf("first result %+v", r)
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := (&Report{Results: results()}).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"<script", "src=", "http://", "https://", "<link"} {
		if strings.Contains(out, bad) {
			t.Errorf("HTML report contains %q: it must need nothing outside itself", bad)
		}
	}
	for _, want := range []string{
		`<td class="fail"><a href="#r-openai_chat-streaming">1/2</a>`,
		`<td class="warn">`,
		`id="r-openai_chat-openai_chat_streaming_A05_interleaved"`,
		"&#43;   &#34;a&#34;: 2",
		"FAILED",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	err := (&Report{}).Write(&bytes.Buffer{}, "yaml")
	if err == nil || !strings.Contains(err.Error(), "known: text, json, junit, html") {
		t.Errorf("Write(yaml) error = %v", err)
	}
}

package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"time"

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

// The JUnit form as CI systems read it, written here apart from the
// writer's own types so that a misspelt element or attribute name in the
// writer fails the test: the element and attribute names are those of the
// JUnit XML schema that Jenkins, GitLab and GitHub reporters read.
type xSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    string   `xml:"tests,attr"`
	Failures string   `xml:"failures,attr"`
	Errors   string   `xml:"errors,attr"`
	Skipped  string   `xml:"skipped,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []xSuite `xml:"testsuite"`
}

type xSuite struct {
	Name     string  `xml:"name,attr"`
	Tests    string  `xml:"tests,attr"`
	Failures string  `xml:"failures,attr"`
	Errors   string  `xml:"errors,attr"`
	Skipped  string  `xml:"skipped,attr"`
	Cases    []xCase `xml:"testcase"`
}

type xCase struct {
	Name      string    `xml:"name,attr"`
	Classname string    `xml:"classname,attr"`
	Failure   *xProblem `xml:"failure"`
	Skipped   *xProblem `xml:"skipped"`
}

type xProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func TestJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := (&Report{Results: results(), Elapsed: 1500 * time.Millisecond}).WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), xml.Header) {
		t.Errorf("JUnit output does not start with the XML header:\n%s", b.String())
	}
	var got xSuites
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("JUnit output does not parse: %v\n%s", err, b.String())
	}
	// What each case became, by suite and case name.
	type outcome struct{ Suite, Case, Classname, Kind, Message, Type string }
	var cases []outcome
	for _, s := range got.Suites {
		for _, c := range s.Cases {
			o := outcome{Suite: s.Name, Case: c.Name, Classname: c.Classname, Kind: "pass"}
			switch {
			case c.Failure != nil && c.Skipped != nil:
				t.Errorf("%s: both failure and skipped", c.Name)
			case c.Failure != nil:
				o.Kind, o.Message, o.Type = "failure", c.Failure.Message, c.Failure.Type
			case c.Skipped != nil:
				o.Kind, o.Message = "skipped", c.Skipped.Message
			}
			cases = append(cases, o)
		}
	}
	want := []outcome{
		{"openai-chat", "streaming/A05-interleaved", "openai-chat.streaming", "failure", "calls: calls differ", "MUST"},
		{"openai-chat", "streaming/A03-empty-id", "openai-chat.streaming", "pass", "", ""},
		{"openai-chat", "history/G03-results", "openai-chat.history", "skipped", "failed, not counted (SHOULD)", ""},
		{"anthropic", "streaming/A19-blocks", "anthropic.streaming", "skipped", "known failing: listed in k.txt:3", ""},
		{"anthropic", "streaming/C02-no-delta", "anthropic.streaming", "skipped", "encode_stream unsupported", ""},
		{"anthropic", "history/G11-empty-text", "anthropic.history", "skipped", "failed, not counted (INFO)", ""},
	}
	if diff := cmp.Diff(want, cases); diff != "" {
		t.Errorf("testcases (-want +got):\n%s", diff)
	}
	type counts struct{ Name, Tests, Failures, Errors, Skipped string }
	gotCounts := []counts{{got.Name, got.Tests, got.Failures, got.Errors, got.Skipped}}
	for _, s := range got.Suites {
		gotCounts = append(gotCounts, counts{s.Name, s.Tests, s.Failures, s.Errors, s.Skipped})
	}
	wantCounts := []counts{{"conform", "6", "1", "0", "4"}, {"openai-chat", "3", "1", "0", "1"}, {"anthropic", "3", "0", "0", "3"}}
	if diff := cmp.Diff(wantCounts, gotCounts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if got.Time != "1.500" {
		t.Errorf("testsuites time = %q, want 1.500", got.Time)
	}
	// The problem text, diff included, is inside the element, for failures
	// and uncounted failures alike.
	for _, s := range got.Suites {
		for _, c := range s.Cases {
			var text string
			switch c.Name {
			case "streaming/A05-interleaved":
				text = c.Failure.Text
				if !strings.Contains(text, "[A05] calls: calls differ (-want +got):") || !strings.Contains(text, `+   "a": 2`) {
					t.Errorf("%s: failure text lacks the problem and its diff:\n%s", c.Name, text)
				}
			case "history/G03-results":
				text = c.Skipped.Text
				if !strings.Contains(text, "request: differs") {
					t.Errorf("%s: skipped text lacks the problem:\n%s", c.Name, text)
				}
			case "history/G11-empty-text":
				if !strings.Contains(c.Skipped.Text, "request: empty text block") {
					t.Errorf("%s: skipped text lacks the problem:\n%s", c.Name, c.Skipped.Text)
				}
			}
		}
	}
}

// TestJUnitStrict checks that strict mode turns the SHOULD failure into a
// failure, and that without Elapsed no time is claimed.
func TestJUnitStrict(t *testing.T) {
	var b bytes.Buffer
	if err := (&Report{Results: results(), Strict: true}).WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var got xSuites
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Failures != "2" || got.Skipped != "3" || got.Time != "" {
		t.Errorf("strict: failures=%q skipped=%q time=%q, want 2, 3 and none", got.Failures, got.Skipped, got.Time)
	}
	for _, c := range got.Suites[0].Cases {
		if c.Name == "history/G03-results" && (c.Failure == nil || c.Failure.Type != "SHOULD" || c.Failure.Message != "request: differs") {
			t.Errorf("strict: SHOULD case is %+v, want a failure of type SHOULD", c)
		}
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
	if r := got.Results[0]; r.Category != "streaming" || r.Problems[0].Diff == "" {
		t.Errorf("first result %+v", r)
	}
}

// TestJSONCounted checks that "counted" is said of failures only, and
// follows strict mode for the SHOULD case.
func TestJSONCounted(t *testing.T) {
	for _, strict := range []bool{false, true} {
		var b bytes.Buffer
		if err := (&Report{Results: results(), Strict: strict}).WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Results []map[string]any
		}
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		counted := map[string]any{}
		for _, r := range got.Results {
			if c, ok := r["counted"]; ok {
				counted[r["name"].(string)] = c
			}
		}
		want := map[string]any{
			"openai-chat/streaming/A05-interleaved": true,
			"openai-chat/history/G03-results":       strict,
			"anthropic/history/G11-empty-text":      false,
		}
		if diff := cmp.Diff(want, counted); diff != "" {
			t.Errorf("strict=%v: counted (-want +got):\n%s", strict, diff)
		}
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

// TestCoverage: every adapter's line says how many of its cases were
// graded and how each ended, and why the others were not graded.
func TestCoverage(t *testing.T) {
	rs := append(results(), scenarios.Result{Name: "anthropic/request/F08-named", Adapter: "exec:my.py", Protocol: "anthropic", Severity: scenarios.MUST,
		Status: scenarios.StatusNotGraded, Reason: "the adapter implements no request encoder", Scenario: &scenarios.Scenario{}})
	rep := &Report{Results: rs, NotApplicable: map[string]map[string]int{"anthropic": {"the protocol has no parallel-switch": 1}}}
	var got []string
	for _, c := range rep.Coverage() {
		got = append(got, c.String())
	}
	want := []string{
		"graded 2 of 3 anthropic cases: 0 passed, 0 failed, 1 known-failing, 1 not counted (INFO); 1 not graded (skipped: encode_stream unsupported: 1); 1 more not applicable (the protocol has no parallel-switch: 1)",
		"exec:my.py: graded 0 of 1 anthropic cases: 0 passed, 0 failed; 1 not graded (not graded: the adapter implements no request encoder: 1)",
		"graded 3 of 3 openai-chat cases: 1 passed, 1 failed, 1 not counted (SHOULD)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("coverage lines (-want +got):\n%s", diff)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, line := range want {
		if !strings.Contains(text.String(), "\n"+line+"\n") {
			t.Errorf("text report lacks the line %q", line)
		}
	}
	for _, format := range []string{"json", "junit", "html"} {
		var b bytes.Buffer
		if err := rep.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "exec:my.py: graded 0 of 1 anthropic cases") || !strings.Contains(b.String(), "not graded") {
			t.Errorf("%s report lacks the coverage of exec:my.py", format)
		}
	}
}

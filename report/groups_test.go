package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/reduce"
	"github.com/toolconform/conform/scenarios"
)

// faultReport is an adapter with one fault that fails many cases the
// same way (renumber makes each pass, rule "calls"), one other fault, and
// a failure not reduced.
func faultReport() *Report {
	rep := &Report{Reductions: map[string]*reduce.Result{}}
	renumber := func(has string) *reduce.Result {
		return &reduce.Result{Causes: []reduce.Step{{Name: "renumber", Has: has, Becomes: "renumbered"}}, Runs: 1, Budget: reduce.DefaultBudget}
	}
	fail := func(name, rule string) scenarios.Result {
		return scenarios.Result{Name: name, Adapter: "x", Severity: scenarios.MUST, Status: scenarios.StatusFail, Problems: []scenarios.Problem{{Rule: rule, Message: "m"}}}
	}
	for i := range 5 {
		r := fail(fmt.Sprintf("openai-chat/streaming/A%02d", i), "calls")
		rep.Results = append(rep.Results, r)
		// Each case's own indices: the group holds them all the same.
		rep.Reductions[ReductionKey("x", r.Name)] = renumber(fmt.Sprintf("tool call indices 0, %d", i+2))
	}
	one := fail("openai-chat/streaming/B01", "calls")
	rep.Results = append(rep.Results, one, fail("openai-chat/history/G05", "G05"))
	rep.Reductions[ReductionKey("x", one.Name)] = &reduce.Result{Causes: []reduce.Step{{Name: "one-call"}}}
	rep.Results = append(rep.Results, scenarios.Result{Name: "openai-chat/streaming/A09", Adapter: "x", Status: scenarios.StatusPass})
	return rep
}

// TestGroupFindings checks that the failures of one fault form one group
// with every case under it, and that another cause or another failure
// mode is another group.
func TestGroupFindings(t *testing.T) {
	got := faultReport().Groups()
	want := []Group{
		{Subject: "x", Cause: "renumber", Explained: "passes with call or content block indices renumbered from 0, one call to an index", Mode: "calls",
			Cases: []string{"openai-chat/streaming/A00", "openai-chat/streaming/A01", "openai-chat/streaming/A02", "openai-chat/streaming/A03", "openai-chat/streaming/A04"}},
		{Subject: "x", Cause: "one-call", Explained: "passes with one call", Mode: "calls", Cases: []string{"openai-chat/streaming/B01"}},
		{Subject: "x", Explained: "not reduced", Mode: "G05", Cases: []string{"openai-chat/history/G05"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Groups (-want +got):\n%s", diff)
	}
	// A reduction that found no cause groups by failure mode alone, and
	// the rules of a case are a set.
	gs := GroupFindings([]Finding{
		{Subject: "s", Name: "a", Rules: []string{"I04", "C03", "I04"}, Reduction: &reduce.Result{Runs: 2}},
		{Subject: "s", Name: "b", Rules: []string{"C03", "I04"}, Reduction: &reduce.Result{Runs: 1}},
	})
	if len(gs) != 1 || gs[0].Mode != "C03+I04" || len(gs[0].Cases) != 2 || gs[0].Explained != "no simplification made the case pass" {
		t.Errorf("GroupFindings = %+v", gs)
	}
}

// TestGroupsInEveryFormat checks that text, JSON and HTML show each group
// once with its cases.
func TestGroupsInEveryFormat(t *testing.T) {
	rep := faultReport()
	title := rep.Groups()[0].Title()
	if want := "x: renumber (passes with call or content block indices renumbered from 0, one call to an index); failure mode calls: 5 cases"; title != want {
		t.Errorf("Title() = %q, want %q", title, want)
	}
	for _, format := range []string{"text", "html"} {
		var b bytes.Buffer
		if err := rep.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if format == "html" {
			out = html.UnescapeString(out)
		}
		if n := strings.Count(out, title); n != 1 {
			t.Errorf("%s: the group's title appears %d times, want 1:\n%s", format, n, out)
		}
		if format == "text" && !strings.Contains(out, "findings: 7 failed cases in 3 groups") {
			t.Errorf("text: no findings line:\n%s", out)
		}
		if format == "html" && !strings.Contains(out, `<li><a href="#r-x-openai_chat_streaming_A03">openai-chat/streaming/A03</a></li>`) {
			t.Errorf("html: a case of the group is not linked to its failure:\n%s", out)
		}
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Groups []Group `json:"groups"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep.Groups(), out.Groups); diff != "" {
		t.Errorf("JSON groups (-want +got):\n%s", diff)
	}
}

func TestFromBuild(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want Provenance
	}{
		{"no build info", nil, Provenance{Version: "(devel)", Schema: SchemaVersion, ScenarioSet: scenarios.SetVersion}},
		{"go install @v1.2.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, Provenance{Version: "v1.2.0", Schema: SchemaVersion, ScenarioSet: scenarios.SetVersion}},
		{"checkout with vcs", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "1e8ad71e3b2c4d5e6f", "vcs.time", "2026-11-26T15:14:00Z", "vcs.modified", "true")},
			Provenance{Version: "(devel)", Commit: "1e8ad71e3b2c4d5e6f", Modified: true, Schema: SchemaVersion, ScenarioSet: scenarios.SetVersion}},
		{"clean checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "abc", "vcs.modified", "false")},
			Provenance{Version: "(devel)", Commit: "abc", Schema: SchemaVersion, ScenarioSet: scenarios.SetVersion}},
	} {
		if diff := cmp.Diff(tc.want, FromBuild(tc.info)); diff != "" {
			t.Errorf("%s: FromBuild (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestProvenanceInEveryFormat checks that JSON, JUnit and HTML carry every
// field of the provenance.
func TestProvenanceInEveryFormat(t *testing.T) {
	p := Provenance{Version: "v1.2.0", Commit: "1e8ad71e3b2c4d5e6f", Modified: true, Command: "run", Scenarios: "sha256:ab", Seeds: []uint64{7, 9}, Schema: SchemaVersion, Date: "2026-12-06T21:00:00Z"}
	rep := faultReport()
	rep.Provenance = p
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var js struct {
		Provenance Provenance `json:"provenance"`
	}
	if err := json.Unmarshal(b.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, js.Provenance); diff != "" {
		t.Errorf("JSON provenance (-want +got):\n%s", diff)
	}
	b.Reset()
	if err := rep.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var ju struct {
		Suites []struct {
			Timestamp string `xml:"timestamp,attr"`
			Props     []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &ju); err != nil {
		t.Fatal(err)
	}
	props := map[string]string{}
	for _, pr := range ju.Suites[0].Props {
		props[pr.Name] = pr.Value
	}
	wantProps := map[string]string{"conform.version": "v1.2.0", "conform.commit": "1e8ad71e3b2c4d5e6f", "conform.modified": "true", "conform.command": "run",
		"conform.scenarios": "sha256:ab", "conform.seeds": "7,9", "conform.schema_version": SchemaVersion, "conform.date": "2026-12-06T21:00:00Z"}
	if diff := cmp.Diff(wantProps, props); diff != "" || ju.Suites[0].Timestamp != p.Date {
		t.Errorf("JUnit properties (-want +got):\n%s\ntimestamp %s", diff, ju.Suites[0].Timestamp)
	}
	b.Reset()
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	const line = "conform v1.2.0 commit 1e8ad71e3b2c+dirty; run; scenarios sha256:ab; seeds 7, 9; schema " + SchemaVersion + "; 2026-12-06T21:00:00Z"
	if p.String() != line || !strings.Contains(html.UnescapeString(b.String()), line) {
		t.Errorf("HTML lacks the provenance line %q (String %q)", line, p.String())
	}
	if np := NewProvenance("gateway", time.Date(2026, 12, 6, 22, 0, 0, 0, time.FixedZone("x", 3600))); np.Date != "2026-12-06T21:00:00Z" || np.Command != "gateway" || np.Schema != SchemaVersion {
		t.Errorf("NewProvenance = %+v", np)
	}
}

// TestScenarioHash checks that the hash names the set: the order of the
// cases and the path they were read from do not change it, their content
// does.
func TestScenarioHash(t *testing.T) {
	a := &scenarios.Scenario{Name: "p/c/a", File: "/x/a.txtar", Body: []byte("data: 1")}
	b := &scenarios.Scenario{Name: "p/c/b", File: "/x/b.txtar", Body: []byte("data: 2")}
	h := ScenarioHash([]*scenarios.Scenario{a, b})
	if !strings.HasPrefix(h, "sha256:") || len(h) != len("sha256:")+64 {
		t.Errorf("ScenarioHash = %q", h)
	}
	moved := *a
	moved.File = "/y/a.txtar"
	if got := ScenarioHash([]*scenarios.Scenario{b, &moved}); got != h {
		t.Errorf("the order or the path changed the hash: %s, %s", got, h)
	}
	changed := *b
	changed.Body = []byte("data: 3")
	if got := ScenarioHash([]*scenarios.Scenario{a, &changed}); got == h {
		t.Error("a changed body kept the hash")
	}
}

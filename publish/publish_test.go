package publish

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readTestdata(t *testing.T, name, subject string) *Run {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	run, err := Read(name, data, subject)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestReadEveryKind(t *testing.T) {
	tests := []struct {
		file, subject string
		want          *Run
	}{
		{"adapter.json", "", &Run{
			File: "adapter.json", Kind: KindAdapter,
			Provenance: map[string]string{"date": "2026-12-01", "version": "v0.9.0", "commit": "abc123"},
			Cases: []Case{
				{Subject: "exec:my-adapter", Protocol: "openai-chat", Name: "openai-chat/streaming/A05-round-robin-interleaving", Severity: "MUST", Status: StatusFail, Counted: true,
					Modes: []string{"A05"}, Cause: "fails on two calls on index 0; passes with one call", Problems: []string{"calls: complete tool calls differ\n-want +got"}},
				{Subject: "exec:my-adapter", Protocol: "openai-chat", Name: "openai-chat/response/G09-argument-text", Severity: "SHOULD", Status: StatusFail, Modes: []string{"G09"}},
				{Subject: "exec:my-adapter", Protocol: "openai-chat", Name: "openai-chat/streaming/A01-split", Severity: "MUST", Status: StatusPass, Modes: []string{"A01"}},
			},
		}},
		{"gateway.json", "portkey", &Run{
			File: "gateway.json", Kind: KindGateway, Subject: "portkey",
			Cases: []Case{
				{Subject: "portkey", Protocol: "anthropic>openai-chat", Variant: "stream", Name: "anthropic>openai-chat/streaming/A05-round-robin stream", Severity: "MUST", Status: StatusFail, Counted: true,
					Modes: []string{"A05"}, Problems: []string{"A05: the gateway merged two calls"}, Evidence: []string{"answer: event: message_start"}},
				{Subject: "portkey", Protocol: "anthropic>openai-chat", Variant: "whole", Name: "anthropic>openai-chat/streaming/A05-round-robin", Severity: "MUST", Status: StatusPass, Modes: []string{"A05"}},
				{Subject: "portkey", Protocol: "anthropic>gemini", Variant: "whole", Name: "anthropic>gemini/response/F05-stop", Severity: "MUST", Status: StatusNotApplicable, Reason: "no whole form", Modes: []string{"F05"}},
			},
		}},
		{"client.jsonl", "", &Run{
			File: "client.jsonl", Kind: KindClient, Subject: "client",
			Cases: []Case{
				{Subject: "client", Protocol: "anthropic", Variant: "split=7", Name: "anthropic/streaming/A21-block-index", Severity: "MUST", Status: StatusFail, Counted: true,
					Modes: []string{"A21"}, Problems: []string{"[A21] the program exited 1: index out of range"}, Evidence: []string{"crash: panic: runtime error: index out of range"}},
				{Subject: "client", Protocol: "anthropic", Variant: "none", Name: "anthropic/streaming/A21-block-index", Severity: "MUST", Status: StatusPass, Modes: []string{"A21"}},
			},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := readTestdata(t, tt.file, tt.subject)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Read(%s) (-want +got):\n%s", tt.file, diff)
			}
		})
	}
}

func TestReadRefusesWhatIsNotAResult(t *testing.T) {
	for _, tt := range []struct{ name, data, want string }{
		{"empty", "  \n", "empty"},
		{"syntax", `{"coverage": [}`, "byte 15"},
		{"no results", `{"coverage": [], "results": []}`, "no results"},
		{"nameless", `[{"front": "anthropic", "status": "pass"}]`, "[0]: want a name"},
		{"client line", "{\"name\": \"x\", \"status\": \"pass\"}\n{\"name\": ", "line 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(tt.name+".json", []byte(tt.data), "")
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.name+".json") {
				t.Errorf("Read(%q) = %v, want an error naming the file and %q", tt.data, err, tt.want)
			}
		})
	}
}

func TestSubjectsHistoryAndCounts(t *testing.T) {
	old := readTestdata(t, "gateway.json", "portkey")
	old.Provenance = map[string]string{"date": "2026-11-01"}
	newer := readTestdata(t, "gateway.json", "portkey")
	newer.Provenance = map[string]string{"date": "2026-12-01"}
	newer.Cases[0].Status = StatusPass
	subjects := Subjects([]*Run{newer, old, readTestdata(t, "adapter.json", "")})
	var got []string
	for _, s := range subjects {
		for _, r := range s.Runs {
			got = append(got, s.Kind+" "+s.Name+" "+r.Date+": "+r.Counts.String())
		}
	}
	want := []string{
		"adapter exec:my-adapter 2026-12-01: 1 passed, 1 failed, 1 failed but not counted",
		"gateway portkey 2026-11-01: 1 passed, 1 failed, 1 not applicable",
		"gateway portkey 2026-12-01: 2 passed, 0 failed, 1 not applicable",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}
	if got, want := Total(subjects).String(), "3 passed, 1 failed, 1 failed but not counted, 1 not applicable"; got != want {
		t.Errorf("Total = %q, want %q (the newest run of each subject)", got, want)
	}
}

func TestMarkdownAndJUnit(t *testing.T) {
	subjects := Subjects([]*Run{readTestdata(t, "adapter.json", ""), readTestdata(t, "client.jsonl", "go-sdk")})
	var md bytes.Buffer
	if err := WriteMarkdown(&md, subjects); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## conform: 2 passed, 2 failed, 1 failed but not counted",
		"| exec:my-adapter | adapter | 1 | 1 | 1 | 0 | 0 | 0 | 0 |",
		"| go-sdk | client | 1 | 1 | 0 | 0 | 0 | 0 | 0 |",
		"**A05 ",
		"- `openai-chat/streaming/A05-round-robin-interleaving` [MUST] — cause: fails on two calls on index 0; passes with one call",
		"- `openai-chat/response/G09-argument-text` [SHOULD] not counted",
		"| anthropic | split=7 | 0 | 1 | 0 | 0 |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	var junit bytes.Buffer
	if err := WriteJUnit(&junit, subjects); err != nil {
		t.Fatal(err)
	}
	var suites junitSuites
	if err := xml.Unmarshal(junit.Bytes(), &suites); err != nil {
		t.Fatal(err)
	}
	if suites.Tests != 5 || suites.Failures != 2 || suites.Skipped != 1 {
		t.Errorf("junit: %d tests, %d failures, %d skipped; want 5, 2 (the counted failures) and 1 (the SHOULD failure)", suites.Tests, suites.Failures, suites.Skipped)
	}
}

func TestWriteSite(t *testing.T) {
	dir := t.TempDir()
	runs := []*Run{readTestdata(t, "adapter.json", ""), readTestdata(t, "gateway.json", "portkey"), readTestdata(t, "client.jsonl", "go-sdk")}
	if err := WriteSite(dir, runs); err != nil {
		t.Fatal(err)
	}
	page := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	index := page("index.html")
	for _, want := range []string{
		`<p id="total">3 passed, 3 failed, 1 failed but not counted, 1 not applicable</p>`,
		`href="subjects/gateway-portkey.html"`, `src="badges/client-go-sdk.svg"`, `href="modes/A05.html"`,
	} {
		if !strings.Contains(index, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	if s := page("subjects/gateway-portkey.html"); !strings.Contains(s, `<span id="counts">1 passed, 1 failed, 1 not applicable</span>`) || !strings.Contains(s, "event: message_start") {
		t.Errorf("the subject page lacks its counts or its evidence:\n%s", s)
	}
	if s := page("modes/A05.html"); !strings.Contains(s, "exec:my-adapter") || !strings.Contains(s, "portkey") || strings.Contains(s, "go-sdk") {
		t.Errorf("the A05 page names the wrong subjects:\n%s", s)
	}
	if s := page("badges/adapter-exec-my-adapter.svg"); !strings.Contains(s, "1/2 passed") || !strings.Contains(s, "#c62828") {
		t.Errorf("badge: %s", s)
	}
}

// TestDiscountedPasses counts the passes by failing that their controls
// did not back, from a client's and a gateway's status words, and says so
// in the closing line.
func TestDiscountedPasses(t *testing.T) {
	var n Counts
	for _, s := range []string{"pass", "not-counted", "not counted", "fail"} {
		n.add(Case{Status: status(s), Counted: true})
	}
	if n.Discounted != 2 || n.Passed != 1 || n.Failed != 1 {
		t.Errorf("counts %+v, want 1 passed, 1 failed, 2 discounted", n)
	}
	if want := "1 passed, 1 failed, 2 passed by failing but not counted (the subject fails the control)"; n.String() != want {
		t.Errorf("String() = %q, want %q", n.String(), want)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/report"
	"github.com/toolconform/conform/scenarios"
)

// writeScenarios writes files (name to content) under a new directory and
// returns it.
func writeScenarios(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// textCase is an openai-chat stream case whose stream carries the text
// "hello"; want is the text it wants.
func textCase(severity, want string) string {
	return "A stream with the text hello.\n\nseverity: " + severity + "\nguards: A05\nprotocol: openai-chat\nkind: stream\n" +
		"-- response.sse --\n" +
		`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"hello"},"finish_reason":null}]}` + "\n\n" +
		`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
		"data: [DONE]\n\n" +
		"-- want/text.txt --\n" + want + "\n"
}

// namedChoiceCase is a request case Ollama cannot encode (it has no tool
// choice), so its result is a skip.
const namedChoiceCase = `A request that forces one named tool.

severity: MUST
guards: F08
protocol: ollama
kind: request
-- request.json --
{"messages":[{"role":"user","parts":[{"kind":"text","text":"Time in Oslo?"}]}],
 "tools":[{"name":"get_time","description":"Time in a zone","input_schema":{"type":"object","properties":{"zone":{"type":"string"}},"required":["zone"]}}],
 "tool_choice":{"mode":"tool","name":"get_time"}}
`

// The JUnit form as CI systems read it, declared here apart from package
// report's own types so that a wrong element or attribute name in the
// writer cannot go unnoticed.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    string   `xml:"tests,attr"`
	Failures string   `xml:"failures,attr"`
	Errors   string   `xml:"errors,attr"`
	Skipped  string   `xml:"skipped,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    string `xml:"tests,attr"`
		Failures string `xml:"failures,attr"`
		Errors   string `xml:"errors,attr"`
		Skipped  string `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// closingLine is the text report's last line of counts.
var closingLine = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed, (\d+) known-failing, (\d+) skipped, (\d+) failed but not counted$`)

// TestRunJUnit runs conform run --format junit and --format text over the
// same selection and checks that the JUnit document, parsed with the
// standard element and attribute names, tells what the text report tells:
// the same counts, every case once, failures as failure elements and
// everything that does not fail the run as skipped elements, with the
// problem text inside.
func TestRunJUnit(t *testing.T) {
	dir := writeScenarios(t, map[string]string{
		"openai-chat/streaming/must-pass.txtar":   textCase("MUST", "hello"),
		"openai-chat/streaming/must-fail.txtar":   textCase("MUST", "goodbye"),
		"openai-chat/streaming/should-fail.txtar": textCase("SHOULD", "goodbye"),
		"openai-chat/streaming/known-fail.txtar":  textCase("MUST", "goodbye"),
		"ollama/request/named-choice.txtar":       namedChoiceCase,
	})
	known := filepath.Join(t.TempDir(), "known.txt")
	if err := os.WriteFile(known, []byte("openai-chat/streaming/known-fail\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		status int
		// want maps each case name to what it must become: pass,
		// failure, or skipped.
		want map[string]string
	}{
		{
			name:   "built-in",
			args:   []string{"--run", "openai-chat/streaming/^A05-two-calls-fragment-by-fragment$", "--run", "ollama/request/^F08-named-tool-choice-refused$"},
			status: exitOK,
			want:   map[string]string{"streaming/A05-two-calls-fragment-by-fragment": "pass", "request/F08-named-tool-choice-refused": "pass"},
		},
		{
			name:   "every outcome",
			args:   []string{"--scenarios", dir, "--run", "openai-chat/streaming/", "--run", "ollama/request/", "--adapter", "openai-chat,ollama", "--known-failing", known},
			status: exitFail,
			want: map[string]string{
				"streaming/must-pass": "pass", "streaming/must-fail": "failure", "streaming/should-fail": "skipped",
				"streaming/known-fail": "skipped", "request/named-choice": "skipped",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var text, junit, stderr bytes.Buffer
			if status := Run(context.Background(), append([]string{"run"}, tt.args...), nil, &text, &stderr); status != tt.status {
				t.Fatalf("run --format text: status %d, want %d: %s", status, tt.status, stderr.String())
			}
			stderr.Reset()
			if status := Run(context.Background(), append([]string{"run", "--format", "junit"}, tt.args...), nil, &junit, &stderr); status != tt.status {
				t.Fatalf("run --format junit: status %d, want %d: %s", status, tt.status, stderr.String())
			}
			m := closingLine.FindStringSubmatch(text.String())
			if m == nil {
				t.Fatalf("text report has no closing line of counts:\n%s", text.String())
			}
			n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
			pass, fail, knownFailing, skip, uncounted := n(1), n(2), n(3), n(4), n(5)

			var doc junitDoc
			if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil {
				t.Fatalf("JUnit output does not parse: %v\n%s", err, junit.String())
			}
			wantTotals := []string{
				strconv.Itoa(pass + fail + knownFailing + skip + uncounted),
				strconv.Itoa(fail), "0", strconv.Itoa(knownFailing + skip + uncounted),
			}
			if diff := cmp.Diff(wantTotals, []string{doc.Tests, doc.Failures, doc.Errors, doc.Skipped}); diff != "" {
				t.Errorf("testsuites tests, failures, errors, skipped disagree with the text report's %q (-want +got):\n%s", m[0], diff)
			}
			if _, err := strconv.ParseFloat(doc.Time, 64); err != nil {
				t.Errorf("testsuites time %q is not a number of seconds", doc.Time)
			}
			got := map[string]string{}
			sums := [3]int{}
			for _, s := range doc.Suites {
				for _, c := range s.Cases {
					kind := "pass"
					switch {
					case c.Failure != nil && c.Skipped != nil:
						t.Errorf("%s: both failure and skipped", c.Name)
					case c.Failure != nil:
						kind = "failure"
						if c.Failure.Message == "" || c.Failure.Type != "MUST" || !strings.Contains(c.Failure.Text, "(-want +got)") {
							t.Errorf("%s: failure message %q, type %q, text %q: want a message, the severity and the diff", c.Name, c.Failure.Message, c.Failure.Type, c.Failure.Text)
						}
					case c.Skipped != nil:
						kind = "skipped"
						if c.Skipped.Message == "" {
							t.Errorf("%s: skipped without a message", c.Name)
						}
					}
					if _, dup := got[c.Name]; dup {
						t.Errorf("%s: reported twice", c.Name)
					}
					got[c.Name] = kind
					if want := s.Name + "." + strings.Split(c.Name, "/")[0]; c.Classname != want {
						t.Errorf("%s: classname %q, want %q", c.Name, c.Classname, want)
					}
				}
				suite := [3]string{s.Tests, s.Failures, s.Skipped}
				for i := range sums {
					v, err := strconv.Atoi(suite[i])
					if err != nil {
						t.Errorf("testsuite %s: count %q is not a number", s.Name, suite[i])
					}
					sums[i] += v
				}
				if s.Errors != "0" {
					t.Errorf("testsuite %s: errors=%q, want 0", s.Name, s.Errors)
				}
			}
			if got, want := fmt.Sprint(sums), fmt.Sprint([]string{doc.Tests, doc.Failures, doc.Skipped}); got != want {
				t.Errorf("testsuite tests, failures, skipped add up to %s, testsuites says %s", got, want)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("testcases (-want +got):\n%s", diff)
			}
			if tt.name != "every outcome" {
				return
			}
			// The uncounted SHOULD failure carries its diff for CI to show.
			for _, s := range doc.Suites {
				for _, c := range s.Cases {
					if c.Name == "streaming/should-fail" {
						if c.Skipped.Message != "failed, not counted (SHOULD)" || !strings.Contains(c.Skipped.Text, "text: visible text differs from want/text.txt (-want +got):") || !strings.Contains(c.Skipped.Text, "goodbye") {
							t.Errorf("SHOULD failure written as <skipped message=%q>%s</skipped>, want its problem and diff inside", c.Skipped.Message, c.Skipped.Text)
						}
					}
				}
			}
		})
	}
}

// TestProgress checks both progress forms: on a terminal one line rewritten
// in place (padded over a longer previous line, cut at progressWidth bytes
// on a character boundary, cleared at the end), elsewhere a plain line
// every progressEvery cases and at the last.
func TestProgress(t *testing.T) {
	res := func(name string) scenarios.Result { return scenarios.Result{Name: name} }
	long := strings.Repeat("x", 95) + "é" // "[3/3] " puts the é across byte 100
	var b bytes.Buffer
	p := newProgress(&b, true)
	p.update(1, 3, res("openai-chat/streaming/A05-long-name"))
	p.update(2, 3, res("a/b/c"))
	p.update(3, 3, res(long))
	p.done()
	line1 := "[1/3] openai-chat/streaming/A05-long-name"
	cut := "[3/3] " + strings.Repeat("x", 94)
	want := "\r" + line1 +
		"\r" + fmt.Sprintf("%-*s", len(line1), "[2/3] a/b/c") +
		"\r" + cut +
		"\r" + strings.Repeat(" ", len(cut)) + "\r"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("terminal progress (-want +got):\n%s", diff)
	}

	b.Reset()
	p = newProgress(&b, false)
	for i := 1; i <= 2*progressEvery+1; i++ {
		p.update(i, 2*progressEvery+1, res("a/b/c"))
	}
	p.done()
	want = fmt.Sprintf("conform: %d of %d cases run\nconform: %d of %d cases run\nconform: %d of %d cases run\n",
		progressEvery, 2*progressEvery+1, 2*progressEvery, 2*progressEvery+1, 2*progressEvery+1, 2*progressEvery+1)
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("plain progress (-want +got):\n%s", diff)
	}
}

// TestRunProgressTerminal runs conform run as if its stderr were a
// terminal, and as if it were not, and checks which progress form it
// chose.
func TestRunProgressTerminal(t *testing.T) {
	old := stderrIsTerminal
	defer func() { stderrIsTerminal = old }()
	args := []string{"run", "--adapter", "openai-chat", "--run", "openai-chat/streaming/^A01-parallel-calls-all-on-index-0$", "--run", "openai-chat/streaming/^A02-index-reused-with-new-id$"}
	for _, terminal := range []bool{true, false} {
		stderrIsTerminal = func(w io.Writer) bool { return terminal }
		var stdout, stderr bytes.Buffer
		if status := Run(context.Background(), args, nil, &stdout, &stderr); status != exitOK {
			t.Fatalf("terminal=%v: status %d: %s", terminal, status, stderr.String())
		}
		got := stderr.String()
		if terminal {
			re := regexp.MustCompile(`^\r\[1/2\] openai-chat/streaming/A01-parallel-calls-all-on-index-0\r\[2/2\] openai-chat/streaming/A02-index-reused-with-new-id *\r +\r$`)
			if !re.MatchString(got) {
				t.Errorf("terminal: stderr %q does not match %s", got, re)
			}
		} else if got != "conform: 2 of 2 cases run\n" {
			t.Errorf("not a terminal: stderr %q, want one plain line", got)
		}
	}
}

// TestIsTerminal checks that neither a buffer nor a regular file is taken
// for a terminal.
func TestIsTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(&bytes.Buffer{}) || isTerminal(f) {
		t.Error("a buffer or a regular file taken for a terminal")
	}
}

// firstBlockStrict is a wrong Anthropic adapter with one planted cause: it
// refuses a stream whose first content block is not block 0.
type firstBlockStrict struct{ core.Adapter }

type refusedStream struct{}

func (refusedStream) Next() (core.Event, error) {
	return core.Event{}, errors.New("content block 0 expected")
}

func (a firstBlockStrict) DecodeStream(r io.Reader) core.EventStream {
	body, err := io.ReadAll(r)
	if _, after, _ := strings.Cut(string(body), `"content_block_start","index":`); err != nil || !strings.HasPrefix(after, "0") {
		return refusedStream{}
	}
	return a.Adapter.DecodeStream(bytes.NewReader(body))
}

// TestReduceFailures checks that run reduces an adapter's failed stream
// cases to their cause and leaves the rest alone.
func TestReduceFailures(t *testing.T) {
	cases, err := loadScenarios("")
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := providers.Lookup("anthropic")
	features, _ := providers.Features("anthropic")
	adapters := []core.Adapter{scenarios.NewSubject(firstBlockStrict{ref}, "anthropic", features, "first-block-strict")}
	opts := scenarios.Options{Run: pats(t, "anthropic/streaming/^A(19|21)-")}
	results, err := scenarios.Check(adapters, cases, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for key, red := range reduceFailures(adapters, results, opts) {
		got[key] = red.Cause()
	}
	want := map[string]string{
		report.ReductionKey("first-block-strict", "anthropic/streaming/A21-content-block-indices-start-at-1"): "fails on content block indices 1, 2; passes with block indices renumbered from 0 (0, 1)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reductions (-want +got):\n%s", diff)
	}
}

package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolconform/conform/scenarios"
)

// Formats lists the output formats by name.
var Formats = []string{"text", "json", "junit", "html"}

// Write writes the report in the named format.
func (rep *Report) Write(w io.Writer, format string) error {
	switch format {
	case "text":
		return rep.WriteText(w)
	case "json":
		return rep.WriteJSON(w)
	case "junit":
		return rep.WriteJUnit(w)
	case "html":
		return rep.WriteHTML(w)
	}
	return fmt.Errorf("unknown format %q; known: %s", format, strings.Join(Formats, ", "))
}

// WriteText writes the summary table per adapter and category, then every
// failure with its problems and diffs, then one closing line of counts.
func (rep *Report) WriteText(w io.Writer) error {
	adapters, categories, cells := rep.Matrix()
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "adapter\tcategory\tpass\tfail\tknown-failing\tskip\tnot counted\t")
	for _, a := range adapters {
		for _, c := range categories {
			n, ok := cells[[2]string{a, c}]
			if !ok {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t\n", a, c, n.Pass, n.Fail, n.KnownFailing, n.Skip, n.Uncounted)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rep.Results {
		if r.Status != scenarios.StatusFail {
			continue
		}
		verdict := "FAIL"
		if !rep.Fails(r) {
			verdict = "FAIL (not counted: " + string(r.Severity) + ")"
		}
		fmt.Fprintf(w, "\n%s %s [%s]\n", verdict, r.Name, r.Severity)
		if r.Scenario != nil && r.Scenario.File != "" {
			fmt.Fprintf(w, "    scenario: %s\n", r.Scenario.File)
		}
		for _, p := range r.Problems {
			fmt.Fprintf(w, "    %s\n", indent(p.String(), "    "))
		}
	}
	t := rep.Total()
	fmt.Fprintf(w, "\n%d passed, %d failed, %d known-failing, %d skipped, %d failed but not counted\n", t.Pass, t.Fail, t.KnownFailing, t.Skip, t.Uncounted)
	return nil
}

func indent(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// jsonResult is one result in the JSON report.
type jsonResult struct {
	Name     string `json:"name"`
	Adapter  string `json:"adapter"`
	Category string `json:"category"`
	Severity string `json:"severity"`
	Status   string `json:"status"`
	// Counted is set on failed results only: whether the failure fails
	// the run (a SHOULD failure outside strict mode does not).
	Counted  *bool         `json:"counted,omitempty"`
	Reason   string        `json:"reason,omitempty"`
	File     string        `json:"file,omitempty"`
	Guards   []string      `json:"guards,omitempty"`
	Problems []jsonProblem `json:"problems,omitempty"`
}

type jsonProblem struct {
	Rule    string   `json:"rule"`
	Guards  []string `json:"guards,omitempty"`
	Message string   `json:"message"`
	Diff    string   `json:"diff,omitempty"`
}

type jsonCounts struct {
	Passed       int `json:"passed"`
	Failed       int `json:"failed"`
	KnownFailing int `json:"known_failing"`
	Skipped      int `json:"skipped"`
	NotCounted   int `json:"not_counted"`
}

// WriteJSON writes every result and the totals as one JSON object.
func (rep *Report) WriteJSON(w io.Writer) error {
	out := struct {
		Strict  bool         `json:"strict"`
		Passed  bool         `json:"passed"`
		Totals  jsonCounts   `json:"totals"`
		Results []jsonResult `json:"results"`
	}{Strict: rep.Strict, Passed: !rep.Failed(), Results: []jsonResult{}}
	t := rep.Total()
	out.Totals = jsonCounts{t.Pass, t.Fail, t.KnownFailing, t.Skip, t.Uncounted}
	for _, r := range rep.Results {
		jr := jsonResult{
			Name: r.Name, Adapter: r.Adapter, Category: Category(r.Name), Severity: string(r.Severity),
			Status: string(r.Status), Reason: r.Reason,
		}
		if r.Status == scenarios.StatusFail {
			counted := rep.Fails(r)
			jr.Counted = &counted
		}
		if r.Scenario != nil {
			jr.File, jr.Guards = r.Scenario.File, r.Scenario.Guards
		}
		for _, p := range r.Problems {
			jr.Problems = append(jr.Problems, jsonProblem{p.Rule, p.Guards, p.Message, p.Diff})
		}
		out.Results = append(out.Results, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// JUnit XML, in the form CI systems read (Jenkins, GitLab, GitHub Actions
// reporters): one testsuite per adapter, one testcase per scenario.
// Errors is always 0: conform reports a broken adapter as a failure.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr,omitempty"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Timestamp string      `xml:"timestamp,attr,omitempty"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes JUnit XML. Failures that do not fail the run (SHOULD
// outside strict mode, INFO) and known-failing cases are written as skipped
// with the reason, so that a CI system's verdict agrees with conform's; the
// problems and diffs go inside the skipped element, so that CI shows why.
// The run's Elapsed time, when set, is the time of the testsuites element.
func (rep *Report) WriteJUnit(w io.Writer) error {
	out := junitSuites{Name: "conform"}
	if rep.Elapsed > 0 {
		out.Time = fmt.Sprintf("%.3f", rep.Elapsed.Seconds())
	}
	index := map[string]int{}
	for _, r := range rep.Results {
		i, ok := index[r.Adapter]
		if !ok {
			i = len(out.Suites)
			index[r.Adapter] = i
			out.Suites = append(out.Suites, junitSuite{Name: r.Adapter, Timestamp: time.Now().UTC().Format(time.RFC3339)})
		}
		s := &out.Suites[i]
		jc := junitCase{Name: CaseName(r.Name), Classname: r.Adapter + "." + Category(r.Name)}
		var text strings.Builder
		for _, p := range r.Problems {
			text.WriteString(p.String())
			text.WriteString("\n")
		}
		switch {
		case rep.Fails(r):
			msg := string(r.Severity) + " case failed"
			if len(r.Problems) > 0 {
				msg = r.Problems[0].Rule + ": " + r.Problems[0].Message
			}
			jc.Failure = &junitFailure{Message: msg, Type: string(r.Severity), Text: text.String()}
			s.Failures++
		case r.Status == scenarios.StatusSkip:
			jc.Skipped = &junitSkipped{Message: r.Reason}
			s.Skipped++
		case r.Status == scenarios.StatusKnownFailing:
			jc.Skipped = &junitSkipped{Message: "known failing: " + r.Reason, Text: text.String()}
			s.Skipped++
		case r.Status == scenarios.StatusFail:
			jc.Skipped = &junitSkipped{Message: fmt.Sprintf("failed, not counted (%s)", r.Severity), Text: text.String()}
			s.Skipped++
		}
		s.Tests++
		s.Cases = append(s.Cases, jc)
	}
	for _, s := range out.Suites {
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

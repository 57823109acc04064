package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolconform/conform/reduce"
	"github.com/toolconform/conform/scenarios"
)

// Formats lists the output formats by name.
var Formats = []string{"text", "json", "junit", "html", "markdown"}

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
	case "markdown":
		return rep.WriteMarkdown(w)
	}
	return fmt.Errorf("unknown format %q; known: %s", format, strings.Join(Formats, ", "))
}

// WriteText writes the summary table per adapter and category, then every
// failure with its problems and diffs, then one closing line of counts.
func (rep *Report) WriteText(w io.Writer) error {
	adapters, categories, cells := rep.Matrix()
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "adapter\tcategory\tpass\tfail\tknown-failing\tskip\tnot counted\tnot graded\t")
	for _, a := range adapters {
		for _, c := range categories {
			n, ok := cells[[2]string{a, c}]
			if !ok {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", a, c, n.Pass, n.Fail, n.KnownFailing, n.Skip, n.Uncounted, n.NotGraded)
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
		if red := rep.Reduction(r); red != nil {
			fmt.Fprintf(w, "    cause: %s\n    smallest failing variant: %s (%s)\n    steps: %s\n", red.Cause(), red.Smallest(), red.Summary(), red.Tried())
		}
		for _, p := range r.Problems {
			fmt.Fprintf(w, "    %s\n", indent(p.String(), "    "))
		}
	}
	WriteGroups(w, rep.Groups())
	fmt.Fprintln(w)
	for _, c := range rep.Coverage() {
		fmt.Fprintln(w, c)
	}
	fmt.Fprintln(w, rep.Total().Summary())
	return nil
}

// Summary is the closing line of a text report.
func (c Counts) Summary() string {
	s := fmt.Sprintf("%d passed, %d failed, %d known-failing, %d skipped, %d failed but not counted", c.Pass, c.Fail, c.KnownFailing, c.Skip, c.Uncounted)
	if c.NotGraded > 0 {
		s += fmt.Sprintf(", %d not graded", c.NotGraded)
	}
	return s
}

func omitEmpty(m map[string]int) map[string]int {
	if len(m) == 0 {
		return nil
	}
	return m
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
	Counted  *bool               `json:"counted,omitempty"`
	Reason   string              `json:"reason,omitempty"`
	File     string              `json:"file,omitempty"`
	Guards   []string            `json:"guards,omitempty"`
	Problems []scenarios.Problem `json:"problems,omitempty"`
	// Reduction is the failure reduced to its cause, when it could be.
	Reduction *reduce.Result `json:"reduction,omitempty"`
}

type jsonCounts struct {
	Passed       int `json:"passed"`
	Failed       int `json:"failed"`
	KnownFailing int `json:"known_failing"`
	Skipped      int `json:"skipped"`
	NotGraded    int `json:"not_graded"`
	NotCounted   int `json:"not_counted"`
}

func toJSONCounts(c Counts) jsonCounts {
	return jsonCounts{c.Pass, c.Fail, c.KnownFailing, c.Skip, c.NotGraded, c.Uncounted}
}

// jsonCoverage is one adapter's Coverage in the JSON report.
type jsonCoverage struct {
	Adapter       string         `json:"adapter"`
	Protocol      string         `json:"protocol"`
	Cases         int            `json:"cases"`
	Graded        int            `json:"graded"`
	Counts        jsonCounts     `json:"counts"`
	NotCounted    map[string]int `json:"not_counted_by_severity,omitempty"`
	NotGraded     map[string]int `json:"not_graded_by_reason,omitempty"`
	NotApplicable map[string]int `json:"not_applicable_by_reason,omitempty"`
	Summary       string         `json:"summary"`
}

// WriteJSON writes every result and the totals as one JSON object.
func (rep *Report) WriteJSON(w io.Writer) error {
	out := struct {
		Provenance Provenance     `json:"provenance"`
		Strict     bool           `json:"strict"`
		Passed     bool           `json:"passed"`
		Totals     jsonCounts     `json:"totals"`
		Coverage   []jsonCoverage `json:"coverage"`
		Groups     []Group        `json:"groups"`
		Results    []jsonResult   `json:"results"`
	}{Provenance: rep.Provenance, Strict: rep.Strict, Passed: !rep.Failed(), Results: []jsonResult{}, Coverage: []jsonCoverage{}, Groups: []Group{}}
	out.Groups = append(out.Groups, rep.Groups()...)
	out.Totals = toJSONCounts(rep.Total())
	for _, c := range rep.Coverage() {
		out.Coverage = append(out.Coverage, jsonCoverage{
			Adapter: c.Adapter, Protocol: c.Protocol, Cases: c.Cases, Graded: c.Graded, Counts: toJSONCounts(c.Counts),
			NotCounted: omitEmpty(c.NotCounted), NotGraded: omitEmpty(c.Reasons), NotApplicable: omitEmpty(c.NotApplicable),
			Summary: c.String(),
		})
	}
	for _, r := range rep.Results {
		jr := jsonResult{
			Name: r.Name, Adapter: r.Adapter, Category: Category(r.Name), Severity: string(r.Severity),
			Status: string(r.Status), Reason: r.Reason, Reduction: rep.Reduction(r),
		}
		if r.Status == scenarios.StatusFail {
			counted := rep.Fails(r)
			jr.Counted = &counted
		}
		if r.Scenario != nil {
			jr.File, jr.Guards = r.Scenario.File, r.Scenario.Guards
		}
		jr.Problems = r.Problems
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
	Name       string           `xml:"name,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	SystemOut  string           `xml:"system-out,omitempty"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Timestamp  string           `xml:"timestamp,attr,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

// junitProperties are a suite's properties: the provenance of the run.
type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// junitProvenance is the provenance as JUnit properties, each field under
// its JSON name prefixed "conform.".
func junitProvenance(p Provenance) *junitProperties {
	var seeds []string
	for _, s := range p.Seeds {
		seeds = append(seeds, fmt.Sprint(s))
	}
	splits := ""
	if p.Splits > 0 {
		splits = fmt.Sprint(p.Splits)
	}
	props := &junitProperties{}
	for _, kv := range [][2]string{
		{"version", p.Version}, {"commit", p.Commit}, {"modified", fmt.Sprint(p.Modified)}, {"command", p.Command},
		{"scenarios", p.Scenarios}, {"seeds", strings.Join(seeds, ",")}, {"splits", splits}, {"schema_version", p.Schema}, {"date", p.Date},
	} {
		if kv[1] != "" {
			props.Property = append(props.Property, junitProperty{Name: "conform." + kv[0], Value: kv[1]})
		}
	}
	return props
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
	stamp := rep.Provenance.Date
	if stamp == "" {
		stamp = time.Now().UTC().Format(time.RFC3339)
	}
	index := map[string]int{}
	for _, r := range rep.Results {
		i, ok := index[r.Adapter]
		if !ok {
			i = len(out.Suites)
			index[r.Adapter] = i
			out.Suites = append(out.Suites, junitSuite{Name: r.Adapter, Timestamp: stamp, Properties: junitProvenance(rep.Provenance)})
		}
		s := &out.Suites[i]
		jc := junitCase{Name: CaseName(r.Name), Classname: r.Adapter + "." + Category(r.Name)}
		var text strings.Builder
		if red := rep.Reduction(r); red != nil {
			fmt.Fprintf(&text, "cause: %s\nsmallest failing variant: %s (%s)\nsteps: %s\n", red.Cause(), red.Smallest(), red.Summary(), red.Tried())
		}
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
		case r.Status == scenarios.StatusNotGraded:
			jc.Skipped = &junitSkipped{Message: "not graded: " + r.Reason}
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
	for _, c := range rep.Coverage() {
		if i, ok := index[c.Adapter]; ok {
			out.Suites[i].SystemOut = c.String()
		}
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

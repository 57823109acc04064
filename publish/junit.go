package publish

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the newest run of every subject as JUnit XML, a suite
// per subject and a test case per case. Only a counted failure is a
// failure; a failure that does not fail the run, a known-failing case and a
// case skipped, not graded or not applicable are skipped with the reason,
// so that a CI system's verdict is conform's.
func WriteJUnit(w io.Writer, subjects []*Subject) error {
	out := junitSuites{Name: "conform"}
	for _, s := range subjects {
		suite := junitSuite{Name: s.Name}
		for _, c := range s.Latest().Cases {
			jc := junitCase{Name: c.Name, Classname: s.Name + "." + c.Protocol}
			if c.Variant != "" {
				jc.Name += " [" + c.Variant + "]"
			}
			text := strings.Join(append(append([]string{}, c.Problems...), c.Evidence...), "\n")
			if c.Cause != "" {
				text = "cause: " + c.Cause + "\n" + text
			}
			switch {
			case c.Status == StatusFail && c.Counted:
				jc.Failure = &junitMessage{Message: firstLine(c), Text: text}
				suite.Failures++
			case c.Status == StatusFail:
				jc.Skipped = &junitMessage{Message: fmt.Sprintf("failed, not counted (%s)", c.Severity), Text: text}
			case c.Status != StatusPass:
				jc.Skipped = &junitMessage{Message: strings.TrimSpace(c.Status + ": " + c.Reason)}
			}
			if jc.Skipped != nil {
				suite.Skipped++
			}
			suite.Tests++
			suite.Cases = append(suite.Cases, jc)
		}
		out.Tests += suite.Tests
		out.Failures += suite.Failures
		out.Skipped += suite.Skipped
		out.Suites = append(out.Suites, suite)
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

func firstLine(c Case) string {
	msg := c.Severity + " case failed"
	if len(c.Problems) > 0 {
		msg, _, _ = strings.Cut(c.Problems[0], "\n")
	}
	return msg
}

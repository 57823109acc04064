package publish

import (
	"fmt"
	"io"
	"strings"

	"github.com/toolconform/conform/failuremodes"
)

// maxMarkdownFailures bounds the failures the summary lists per subject; a
// GitHub step summary holds at most 1 MiB.
const maxMarkdownFailures = 50

// WriteMarkdown writes a summary of the newest run of every subject: a
// table of counts, then per subject its counts per protocol and variant
// and its failures grouped by failure mode, each with its cause.
func WriteMarkdown(w io.Writer, subjects []*Subject) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "## conform: %s\n\n", Total(subjects))
	fmt.Fprintln(b, "| subject | kind | passed | failed | not counted | known-failing | skipped | not graded | not applicable |")
	fmt.Fprintln(b, "|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range subjects {
		n := s.Latest().Counts
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %d | %d | %d | %d |\n", mdCell(s.Name), s.Kind, n.Passed, n.Failed, n.NotCounted, n.KnownFailing, n.Skipped, n.NotGraded, n.NotApplicable)
	}
	for _, s := range subjects {
		r := s.Latest()
		fmt.Fprintf(b, "\n### %s (%s): %s\n\n", mdCell(s.Name), s.Kind, r.Counts)
		if p := provenanceLine(r.Provenance); p != "" {
			fmt.Fprintf(b, "%s\n\n", p)
		}
		fmt.Fprintln(b, "| protocol | variant | passed | failed | not counted | not applicable |")
		fmt.Fprintln(b, "|---|---|---:|---:|---:|---:|")
		for _, c := range r.Cells {
			fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %d |\n", mdCell(c.Protocol), mdCell(c.Variant), c.Counts.Passed, c.Counts.Failed, c.Counts.NotCounted+c.Counts.KnownFailing, c.Counts.NotApplicable)
		}
		listed := 0
		for _, g := range r.Failures() {
			fmt.Fprintf(b, "\n**%s** — %d failed\n\n", modeTitle(g.Mode), len(g.Cases))
			for _, c := range g.Cases {
				if listed == maxMarkdownFailures {
					break
				}
				listed++
				line := "- `" + c.Name + "`"
				if c.Variant != "" {
					line += " (" + c.Variant + ")"
				}
				if c.Severity != "" {
					line += " [" + c.Severity + "]"
				}
				if !c.Counted {
					line += " not counted"
				}
				if c.Cause != "" {
					line += " — cause: " + mdCell(c.Cause)
				} else if len(c.Problems) > 0 {
					first, _, _ := strings.Cut(c.Problems[0], "\n")
					line += " — " + mdCell(first)
				}
				fmt.Fprintln(b, line)
			}
		}
		if failed := r.Counts.Failed + r.Counts.NotCounted; failed > listed {
			fmt.Fprintf(b, "\n… and %d more failures; the JSON results hold them all.\n", failed-listed)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// modeTitle is a failure mode's id and what it says, or a word for the
// failures that name no mode.
func modeTitle(id string) string {
	if id == "" {
		return "no failure mode named"
	}
	if m, ok := failuremodes.Lookup(id); ok {
		return id + " " + firstSentence(m.What)
	}
	return id
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:strings.LastIndex(s[:120], " ")] + " …"
	}
	return s
}

// provenanceLine says which conform wrote a run, from what it recorded.
func provenanceLine(p map[string]string) string {
	var parts []string
	for _, k := range []string{"command", "version", "commit", "scenario_set", "scenarios", "date"} {
		if v := p[k]; v != "" {
			parts = append(parts, k+" "+v)
		}
	}
	return strings.Join(parts, " · ")
}

// mdCell keeps a text from breaking a markdown table row.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

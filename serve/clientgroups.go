package serve

import (
	"strings"
	"unicode"

	"github.com/toolconform/conform/report"
)

// Finding is the run as report's grouping sees it (report.GroupFindings),
// under subject (a protocol, a client set-up): its name, its failure mode
// — the rules of the follow-up's problems, else the kinds of its reasons
// (ReasonKind) — and its reduction.
func (r ClientRun) Finding(subject string) report.Finding {
	f := report.Finding{Subject: subject, Name: r.Name, Reduction: r.Reduction}
	for _, p := range r.Verdict.Problems {
		f.Rules = append(f.Rules, p.Rule)
	}
	if len(f.Rules) == 0 {
		for _, reason := range r.Reasons {
			f.Rules = append(f.Rules, ReasonKind(reason))
		}
	}
	return f
}

// ReasonKind is a failure reason with what differs from case to
// case taken out: what follows a colon or an opening parenthesis, quoted
// text and numbers (not the digits of a failure-mode id such as G01), so
// that "exit status 2, want 0" and "exit status 1, want 0" are one kind.
func ReasonKind(reason string) string {
	if i := strings.IndexAny(reason, ":("); i > 0 {
		reason = reason[:i]
	}
	var b strings.Builder
	quoted, number := false, false
	var prev rune
	for _, c := range reason {
		switch {
		case c == '"':
			if !quoted {
				b.WriteString(`"…"`)
			}
			quoted = !quoted
		case quoted:
		case c >= '0' && c <= '9' && (number || !unicode.IsLetter(prev) && !unicode.IsDigit(prev)):
			if !number {
				b.WriteByte('N')
			}
			number = true
			prev = c
			continue
		default:
			b.WriteRune(c)
		}
		number, prev = false, c
	}
	return strings.TrimSpace(b.String())
}

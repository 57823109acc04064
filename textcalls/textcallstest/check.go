package textcallstest

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/internal/jsonvalue"
	"github.com/toolconform/conform/textcalls"
)

// Subject is a parser under test: given a vector (for its options) and
// the text's deltas, what it made of them.
type Subject func(v *Vector, deltas []string) Result

// ParserSubject is the Subject of a parser with textcalls' interface,
// collected by core.Collect as any adapter's stream is.
func ParserSubject(newParser func(textcalls.Options) textcalls.Parser) Subject {
	return func(v *Vector, deltas []string) Result {
		resp, err := core.Collect(textcalls.NewStream(newParser(v.Options()), textcalls.Deltas(deltas...)))
		return ResultOf(resp, err)
	}
}

// Severity grades a finding, as scenarios do.
type Severity string

// The severities.
const (
	// Must: the reference and the vector's own source agree, or the
	// harness's rules require it (a cut call is never complete, a split
	// changes nothing).
	Must Severity = "MUST"
	// Should: the reference's choice where engines differ and a client
	// is better served by it (text kept as written, a lost call said).
	Should Severity = "SHOULD"
	// Info: engines disagree and so may the subject.
	Info Severity = "INFO"
)

// Finding is one way a subject differs from what is due.
type Finding struct {
	Vector   string
	Severity Severity
	// Mode is the failure mode the rule guards (failuremodes, group T),
	// or "" for a difference no failure mode names.
	Mode   string
	Detail string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s %s %s: %s", f.Severity, f.Mode, f.Vector, f.Detail)
}

// Check grades subject on every vector of format against the reference
// parser and the vector's own expectations, and returns every finding,
// one per rule broken:
//
//   - T05, MUST: the text whole, in the source's chunks, cut into single
//     bytes, into code points and at every marker gives the same result;
//   - T09/T11, MUST: no call the reference finds cut or malformed is
//     complete;
//   - calls (names and arguments) differ from the reference's: MUST where
//     the reference matches the vector's source, INFO where it does not
//     (a disagreement between engines);
//   - text or reasoning (T02) differ from the reference's: SHOULD, INFO
//     when only white space differs;
//   - a call the reference reports incomplete is neither complete nor
//     reported (no error): SHOULD, a lost call said.
func Check(format *textcalls.Format, vectors []Vector, subject Subject) []Finding {
	var out []Finding
	for i := range vectors {
		v := &vectors[i]
		if v.Format != format.Name || Ungraded(v) != "" {
			continue
		}
		out = append(out, checkVector(format, v, subject)...)
	}
	return out
}

func checkVector(format *textcalls.Format, v *Vector, subject Subject) []Finding {
	var out []Finding
	add := func(sev Severity, mode, format string, args ...any) {
		out = append(out, Finding{Vector: v.ID, Severity: sev, Mode: mode, Detail: fmt.Sprintf(format, args...)})
	}
	text := strings.Join(v.Deltas(), "")
	refResp, refErr := textcalls.Collect(format, v.Options(), text)
	ref := ResultOf(refResp, refErr)
	whole := subject(v, []string{text})

	for how, deltas := range cuts(v, text) {
		if got := subject(v, deltas); !sameResult(whole, got) {
			add(Must, "T05", "cut into %s, the result differs from the whole text's: %s", how, resultDiff(whole, got))
		}
	}
	refCalls := ref.Calls
	agrees := len(Grade(v, ref)) == 0
	// A call the reference could not complete must not be complete.
	for _, inc := range ref.Incomplete {
		if c, ok := findCall(whole.Calls, inc.Name); ok && !callIn(refCalls, c) {
			add(Must, "T09", "call %q is complete (arguments %s); the reference finds it cut or malformed", c.Name, c.Arguments)
		}
	}
	if len(ref.Incomplete) > 0 && len(whole.Incomplete) == 0 && whole.Err == nil && len(whole.Calls) <= len(refCalls) {
		add(Should, "T11", "%d call(s) the reference reports incomplete are neither complete nor reported", len(ref.Incomplete))
	}
	if d := callsDiff(refCalls, whole.Calls); d != "" {
		sev := Info
		if agrees {
			sev = Must
		}
		add(sev, "T05", "calls differ from the reference's: %s", d)
	}
	for _, f := range []struct{ what, mode, want, got string }{{"text", "", ref.Content, whole.Content}, {"reasoning", "T02", ref.Reasoning, whole.Reasoning}} {
		if strings.TrimSpace(f.want) == strings.TrimSpace(f.got) {
			continue
		}
		sev := Should
		if strings.Join(strings.Fields(f.want), "") == strings.Join(strings.Fields(f.got), "") {
			sev = Info
		}
		add(sev, f.mode, "%s: the reference gives %q, the subject %q", f.what, f.want, f.got)
	}
	return out
}

// cuts are the splits of text the invariance rule tries.
func cuts(v *Vector, text string) map[string][]string {
	out := map[string][]string{}
	if len(v.Chunks) > 1 {
		out["the source's chunks"] = v.Chunks
	}
	var bytes, runes []string
	for i := 0; i < len(text); i++ {
		bytes = append(bytes, text[i:i+1])
	}
	for i := 0; i < len(text); {
		_, n := utf8.DecodeRuneInString(text[i:])
		runes = append(runes, text[i:i+n])
		i += n
	}
	out["bytes"], out["code points"] = bytes, runes
	var marked []string
	last := 0
	for i := 1; i < len(text); i++ {
		if text[i] == '<' || text[i] == '[' || text[i-1] == '>' || text[i-1] == ']' {
			marked = append(marked, text[last:i])
			last = i
		}
	}
	out["marker boundaries"] = append(marked, text[last:])
	return out
}

func sameResult(a, b Result) bool {
	return a.Content == b.Content && a.Reasoning == b.Reasoning && callsDiff(a.Calls, b.Calls) == "" &&
		len(a.Incomplete) == len(b.Incomplete) && (a.Err == nil) == (b.Err == nil)
}

func resultDiff(a, b Result) string {
	var d []string
	if a.Content != b.Content {
		d = append(d, fmt.Sprintf("text %q, cut %q", a.Content, b.Content))
	}
	if a.Reasoning != b.Reasoning {
		d = append(d, fmt.Sprintf("reasoning %q, cut %q", a.Reasoning, b.Reasoning))
	}
	if c := callsDiff(a.Calls, b.Calls); c != "" {
		d = append(d, "calls: "+c)
	}
	if len(a.Incomplete) != len(b.Incomplete) {
		d = append(d, fmt.Sprintf("%d incomplete calls, cut %d", len(a.Incomplete), len(b.Incomplete)))
	}
	if (a.Err == nil) != (b.Err == nil) {
		d = append(d, fmt.Sprintf("error %v, cut %v", a.Err, b.Err))
	}
	return strings.Join(d, "; ")
}

// callsDiff says how two lists of calls differ by name and arguments, or
// "" when they do not.
func callsDiff(want, got []core.Call) string {
	names := func(cs []core.Call) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = c.Name + string(c.Arguments)
		}
		return out
	}
	if len(want) != len(got) {
		return fmt.Sprintf("%d calls %q, against %d %q", len(want), names(want), len(got), names(got))
	}
	for i := range want {
		if want[i].Name != got[i].Name || !jsonvalue.EqualText(want[i].Arguments, got[i].Arguments) {
			return fmt.Sprintf("call %d is %s%s, against %s%s", i, want[i].Name, want[i].Arguments, got[i].Name, got[i].Arguments)
		}
	}
	return ""
}

func findCall(calls []core.Call, name string) (core.Call, bool) {
	i := slices.IndexFunc(calls, func(c core.Call) bool { return c.Name == name })
	if i < 0 {
		return core.Call{}, false
	}
	return calls[i], true
}

func callIn(calls []core.Call, c core.Call) bool {
	return slices.ContainsFunc(calls, func(x core.Call) bool {
		return x.Name == c.Name && jsonvalue.EqualText(x.Arguments, c.Arguments)
	})
}

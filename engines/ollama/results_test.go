package ollama

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolconform/conform/textcalls"
	"github.com/toolconform/conform/textcalls/textcallstest"
)

var write = flag.Bool("write", false, "rewrite RESULTS.md from the grading")

func loadVectors(t testing.TB) []textcallstest.Vector {
	files, err := filepath.Glob("../../testdata/textcalls/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	var all []textcallstest.Vector
	for _, f := range files {
		vs, err := textcallstest.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, vs...)
	}
	return all
}

// TestOllamaParsers grades every Engine and checks RESULTS.md says what
// the grading found.
func TestOllamaParsers(t *testing.T) {
	slog.SetDefault(slog.New(slog.DiscardHandler)) // Ollama's parsers log their warnings
	got := Results(loadVectors(t))
	if *write {
		if err := os.WriteFile("RESULTS.md", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("RESULTS.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("RESULTS.md is not what the grading gives; go test -run TestOllamaParsers -write rewrites it. The grading gives:\n%s", got)
	}
}

// TestGradingFindsFaults is the control: the adapter with a planted fault
// (a call dropped) is found at MUST, and conform's own parsers, through
// the same grading, give no MUST finding.
func TestGradingFindsFaults(t *testing.T) {
	vectors := loadVectors(t)
	f, err := textcalls.Lookup("hermes")
	if err != nil {
		t.Fatal(err)
	}
	if fs := grade(f, vectors, textcallstest.ParserSubject(f.New)); fs.must() != 0 {
		t.Errorf("conform's hermes parser: %d MUST findings: %v", fs.must(), fs.findings)
	}
	dropping := func(v *textcallstest.Vector, deltas []string) textcallstest.Result {
		r := textcallstest.ParserSubject(f.New)(v, deltas)
		if len(r.Calls) > 0 {
			r.Calls = r.Calls[1:]
		}
		return r
	}
	if fs := grade(f, vectors, dropping); fs.must() == 0 {
		t.Error("a parser that drops the first call was given no MUST finding")
	}
}

// grading is what one subject got on one format.
type grading struct {
	graded, exact int
	findings      []finding
}

type finding struct {
	textcallstest.Finding
	vector *textcallstest.Vector
	// cut is the reduced cause of a split fault: the one cut of the text
	// in two that already changes the result, or "".
	cut string
	// cause groups split faults by what the reduced cut shows.
	cause string
}

func (g grading) must() int {
	n := 0
	for _, f := range g.findings {
		if f.Severity == textcallstest.Must {
			n++
		}
	}
	return n
}

// Splits is how many random splits of each text are tried beside the cuts
// textcallstest.Check makes.
const Splits = 3

func grade(f *textcalls.Format, vectors []textcallstest.Vector, subject textcallstest.Subject) grading {
	byID := map[string]*textcallstest.Vector{}
	var g grading
	rng := rand.New(rand.NewPCG(30, uint64(len(f.Name))))
	var extra []textcallstest.Finding
	for i := range vectors {
		v := &vectors[i]
		if v.Format != f.Name || textcallstest.Ungraded(v) != "" {
			continue
		}
		byID[v.ID] = v
		g.graded++
		text := strings.Join(v.Deltas(), "")
		whole := subject(v, []string{text})
		if len(textcallstest.Grade(v, whole)) == 0 {
			g.exact++
		}
		for range Splits {
			deltas := randomSplit(rng, text)
			if d := differs(whole, subject(v, deltas)); d != "" {
				extra = append(extra, textcallstest.Finding{Vector: v.ID, Severity: textcallstest.Must, Mode: "T05",
					Detail: "cut into random pieces, the result differs from the whole text's: " + d})
				break
			}
		}
	}
	// Check's cuts come in no fixed order: sort so that the file is
	// the same every run, and the split fault kept for a vector the same.
	all := append(textcallstest.Check(f, vectors, subject), extra...)
	order := map[string]int{}
	for i := range vectors {
		order[vectors[i].ID] = i
	}
	slices.SortStableFunc(all, func(a, b textcallstest.Finding) int {
		return cmp.Or(cmp.Compare(order[a.Vector], order[b.Vector]), strings.Compare(a.Detail, b.Detail))
	})
	seen := map[string]bool{}
	for _, fd := range all {
		v := byID[fd.Vector]
		out := finding{Finding: fd, vector: v}
		if strings.HasPrefix(fd.Detail, "cut into") {
			// One split fault per vector: its reduced cause says it all.
			if seen[v.ID] {
				continue
			}
			seen[v.ID] = true
			out.cut, out.cause = reduceCut(v, subject)
		}
		g.findings = append(g.findings, out)
	}
	return g
}

// reduceCut finds the first byte at which cutting the text in two
// changes the result, quotes the two pieces' bytes near the cut, and names
// the cause: where the cut fell and what it changed.
func reduceCut(v *textcallstest.Vector, subject textcallstest.Subject) (string, string) {
	text := strings.Join(v.Deltas(), "")
	whole := subject(v, []string{text})
	for i := 1; i < len(text); i++ {
		cut := subject(v, []string{text[:i], text[i:]})
		d := differs(whole, cut)
		if d == "" {
			continue
		}
		lo, hi := max(0, i-24), min(len(text), i+24)
		out := fmt.Sprintf("cut after byte %d, …%q | %q…: %s", i, text[lo:i], text[i:hi], d)
		if whole.Err != nil {
			out += fmt.Sprintf(" (whole, Add returns the error %q, and with it no text)", whole.Err.Error())
		}
		return out, cause(text, i, whole, cut)
	}
	return "no single cut changes the result; only finer splits do", "only cuts into three or more pieces change the result"
}

// cause names where a cut at i fell and what it changed.
func cause(text string, i int, whole, cut textcallstest.Result) string {
	where := "a cut outside any marker"
	if open := strings.LastIndexAny(text[:i], "<["); open >= 0 && !strings.ContainsAny(text[open:i], ">]") {
		if end := strings.IndexAny(text[i:], ">]"); end >= 0 && !strings.ContainsAny(text[i:i+end], "<[") {
			where = "a cut inside a marker"
		}
	}
	if !utf8.RuneStart(text[i]) {
		where = "a cut inside a UTF-8 character"
	}
	var what []string
	switch {
	case len(cut.Calls) < len(whole.Calls):
		what = append(what, "loses a call")
	case len(cut.Calls) > len(whole.Calls):
		what = append(what, "adds a call")
	case callList(cut) != callList(whole):
		what = append(what, "changes a call")
	}
	if cut.Content != whole.Content {
		what = append(what, "changes the text")
	}
	if cut.Reasoning != whole.Reasoning {
		what = append(what, "changes the reasoning")
	}
	if len(what) == 0 {
		what = append(what, "changes what is reported incomplete or in error")
	}
	out := where + " " + strings.Join(what, " and ")
	if whole.Err != nil {
		out += ", where the whole text ends in Ollama's error"
	}
	return out
}

func randomSplit(rng *rand.Rand, text string) []string {
	var out []string
	for len(text) > 0 {
		n := min(1+rng.IntN(16), len(text))
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

func differs(whole, cut textcallstest.Result) string {
	var d []string
	if whole.Content != cut.Content {
		d = append(d, fmt.Sprintf("text %q, cut %q", whole.Content, cut.Content))
	}
	if whole.Reasoning != cut.Reasoning {
		d = append(d, fmt.Sprintf("reasoning %q, cut %q", whole.Reasoning, cut.Reasoning))
	}
	if w, c := callList(whole), callList(cut); w != c {
		d = append(d, fmt.Sprintf("calls %s, cut %s", w, c))
	}
	if len(whole.Incomplete) != len(cut.Incomplete) {
		d = append(d, fmt.Sprintf("%d incomplete calls, cut %d", len(whole.Incomplete), len(cut.Incomplete)))
	}
	if (whole.Err == nil) != (cut.Err == nil) {
		d = append(d, fmt.Sprintf("error %v, cut %v", whole.Err, cut.Err))
	}
	return strings.Join(d, "; ")
}

func callList(r textcallstest.Result) string {
	var b strings.Builder
	for _, c := range r.Calls {
		fmt.Fprintf(&b, "%s%s ", c.Name, compact(c.Arguments))
	}
	return strings.TrimSpace(b.String())
}

func compact(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// Results is RESULTS.md: each Engine graded on every vector of its format.
func Results(vectors []textcallstest.Vector) []byte {
	var b bytes.Buffer
	b.WriteString(`# Ollama's text-format parsers, graded by conform

Ollama's tool-call parsers (` + "`github.com/ollama/ollama/model/parsers`" + ` and ` + "`harmony`" + `, at the version
engines/ollama/go.mod pins) run in-process on every test vector of ` + "`testdata/textcalls`" + ` of each format both
Ollama and conform parse, graded by ` + "`textcallstest.Check`" + ` against conform's reference parser and the vector's own
expectations, as ` + "`conform run --format-parser`" + ` grades a subprocess (docs/format-parser-protocol.md): the text
whole, in the source's chunks, cut into bytes, code points, at every marker and into 3 random splits. Each delta
goes to ` + "`Add(delta, false)`" + ` and the end of the text is ` + "`Add(\"\", true)`" + `, as Ollama's server feeds its
parsers; a vector whose prompt opened the reasoning region is run with ` + "`think`" + ` on. A gpt-oss text ends at its first
` + "`<|endoftext|>`, `<|return|>` or `<|call|>`" + `: Ollama's gpt-oss models end generation at them (end-of-sequence tokens,
` + "`convert/convert_gptoss.go`" + `), so its runner never passes them, or anything after them, to the handler.

Written by ` + "`cd engines/ollama && go test -run TestOllamaParsers -write`" + `; ` + "`go test`" + ` fails when this file is
not what the grading gives. Not graded: gemma4 (the pinned Ollama has no gemma4 parser) and the formats Ollama's
` + "`tools`" + ` package derives from a chat template (bare-json, json-list, llama3-json, mistral-v3).

"Exact" counts the vectors whose whole-text result matches everything their source asserts (text trimmed, calls
by name and arguments); the findings are each rule broken, MUST where the reference parser and the vector's source
agree or the harness's rules require it (a split changes nothing, T05; a cut or malformed call is never complete,
T09), SHOULD and INFO where engines disagree (docs/text-formats.md).

| format | Ollama parser | vectors | exact | MUST | SHOULD | INFO |
|---|---|---:|---:|---:|---:|---:|
`)
	type graded struct {
		e Engine
		g grading
	}
	var all []graded
	for _, e := range Engines {
		f, err := textcalls.Lookup(e.Format)
		if err != nil {
			panic(err)
		}
		g := grade(f, vectors, e.Subject())
		all = append(all, graded{e, g})
		n := map[textcallstest.Severity]int{}
		for _, fd := range g.findings {
			n[fd.Severity]++
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d |\n", e.Format, e.Name, g.graded, g.exact, n[textcallstest.Must], n[textcallstest.Should], n[textcallstest.Info])
	}
	b.WriteString("\n## Split faults by reduced cause\n\nEach vector's split fault reduced to the first cut of the text in two that already changes the result, grouped\nby where that cut fell (inside a `<…>` or `[…]` marker, inside a UTF-8 character, elsewhere) and what it changed.\n\n| format | cause | vectors | first |\n|---|---|---:|---|\n")
	for _, a := range all {
		byCause := map[string][]string{}
		var causes []string
		for _, fd := range a.g.findings {
			if fd.cause == "" {
				continue
			}
			if byCause[fd.cause] == nil {
				causes = append(causes, fd.cause)
			}
			byCause[fd.cause] = append(byCause[fd.cause], fd.Vector)
		}
		slices.Sort(causes)
		for _, c := range causes {
			fmt.Fprintf(&b, "| %s | %s | %d | `%s` |\n", a.e.Format, c, len(byCause[c]), byCause[c][0])
		}
	}
	for _, sev := range []textcallstest.Severity{textcallstest.Must, textcallstest.Should, textcallstest.Info} {
		fmt.Fprintf(&b, "\n## %s findings\n", sev)
		for _, a := range all {
			var lines []string
			for _, fd := range a.g.findings {
				if fd.Severity != sev {
					continue
				}
				line := fmt.Sprintf("- `%s` %s (%s, %s): %s", fd.Vector, fd.Mode, fd.vector.Source.Repo, fd.vector.Source.Test, fd.Detail)
				if fd.cut != "" {
					line += "\n  - reduced: " + fd.cut
				}
				line += fmt.Sprintf("\n  - text: %s", quote(strings.Join(fd.vector.Deltas(), "")))
				lines = append(lines, line)
			}
			if len(lines) > 0 {
				fmt.Fprintf(&b, "\n### %s (%s)\n\n%s\n", a.e.Format, a.e.Name, strings.Join(lines, "\n"))
			}
		}
	}
	return b.Bytes()
}

// quote is text as a Go string, its first 400 bytes.
func quote(text string) string {
	if len(text) > 400 {
		return fmt.Sprintf("`%q…` (%d bytes)", text[:400], len(text))
	}
	return fmt.Sprintf("`%q`", text)
}

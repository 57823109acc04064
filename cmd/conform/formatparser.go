package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/internal/jsonvalue"
	"github.com/toolconform/conform/textcalls"
	"github.com/toolconform/conform/textcalls/textcallstest"
	"github.com/toolconform/conform/textcalls/textexec"
)

// runFormatParser grades a parser program (docs/format-parser-protocol.md)
// on every vector of each format it names, as textcallstest.Check grades a
// parser, plus splits random splits of each text.
func runFormatParser(e *env, fs *flag.FlagSet, command, dir string, splits int, strict bool) int {
	switch {
	case command == "":
		return usageError(e, fs, "run: --vectors goes with --format-parser")
	case dir == "":
		return usageError(e, fs, "run: --format-parser needs --vectors DIR, the test vectors (the repository's testdata/textcalls)")
	case splits < 0:
		return usageError(e, fs, "run: --splits %d: want 0 or more", splits)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("%s holds no *.jsonl files", dir)
	}
	if err != nil {
		e.errorf("run: --vectors: %v", err)
		return exitUsage
	}
	var all []textcallstest.Vector
	for _, f := range files {
		vs, err := textcallstest.Load(f)
		if err != nil {
			e.errorf("run: --vectors: %v", err)
			return exitUsage
		}
		all = append(all, vs...)
	}
	prog, err := textexec.Start(command, 0)
	if err != nil {
		e.errorf("run: %v", err)
		return exitUsage
	}
	defer prog.Close()
	var formats []*textcalls.Format
	for _, name := range prog.Formats() {
		f, err := textcalls.Lookup(name)
		if err != nil {
			e.errorf("run: --format-parser: its hello names %v", err)
			return exitUsage
		}
		formats = append(formats, f)
	}

	status := exitOK
	for _, f := range formats {
		subject := textcallstest.ParserSubject(func(o textcalls.Options) textcalls.Parser { return prog.Parser(f.Name, o) })
		findings := textcallstest.Check(f, all, subject)
		graded, exact := 0, 0
		rng := rand.New(rand.NewPCG(uint64(len(f.Name)), 30))
		for i := range all {
			v := &all[i]
			if v.Format != f.Name || textcallstest.Ungraded(v) != "" {
				continue
			}
			graded++
			text := strings.Join(v.Deltas(), "")
			whole := subject(v, []string{text})
			if len(textcallstest.Grade(v, whole)) == 0 {
				exact++
			}
			for range splits {
				deltas := randomSplit(rng, text)
				if d := differs(whole, subject(v, deltas)); d != "" {
					findings = append(findings, textcallstest.Finding{Vector: v.ID, Severity: textcallstest.Must, Mode: "T05",
						Detail: fmt.Sprintf("cut into %q, the result differs from the whole text's: %s", deltas, d)})
					break
				}
			}
		}
		counts := map[textcallstest.Severity]int{}
		for _, fd := range findings {
			counts[fd.Severity]++
			fmt.Fprintln(e.stdout, fd)
		}
		fmt.Fprintf(e.stdout, "format-parser:%s %s: graded %d vectors: %d exact against their sources' expectations; %d MUST, %d SHOULD, %d INFO findings\n",
			command, f.Name, graded, exact, counts[textcallstest.Must], counts[textcallstest.Should], counts[textcallstest.Info])
		if graded == 0 {
			status = max(status, exitFail)
		}
		if counts[textcallstest.Must] > 0 || strict && counts[textcallstest.Should] > 0 {
			status = max(status, exitFail)
		}
	}
	return status
}

// randomSplit cuts text into pieces of 1 to 16 bytes, at any byte.
func randomSplit(rng *rand.Rand, text string) []string {
	var out []string
	for len(text) > 0 {
		n := min(1+rng.IntN(16), len(text))
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// differs says how a split's result differs from the whole text's, or "".
func differs(whole, cut textcallstest.Result) string {
	var d []string
	if whole.Content != cut.Content {
		d = append(d, fmt.Sprintf("text %q, cut %q", whole.Content, cut.Content))
	}
	if whole.Reasoning != cut.Reasoning {
		d = append(d, fmt.Sprintf("reasoning %q, cut %q", whole.Reasoning, cut.Reasoning))
	}
	if !slices.EqualFunc(whole.Calls, cut.Calls, sameCall) {
		d = append(d, fmt.Sprintf("calls %s, cut %s", callList(whole.Calls), callList(cut.Calls)))
	}
	if len(whole.Incomplete) != len(cut.Incomplete) {
		d = append(d, fmt.Sprintf("%d incomplete calls, cut %d", len(whole.Incomplete), len(cut.Incomplete)))
	}
	if (whole.Err == nil) != (cut.Err == nil) {
		d = append(d, fmt.Sprintf("error %v, cut %v", whole.Err, cut.Err))
	}
	return strings.Join(d, "; ")
}

func sameCall(a, b core.Call) bool {
	return a.Name == b.Name && jsonvalue.EqualText(a.Arguments, b.Arguments)
}

func callList(cs []core.Call) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s%s ", c.Name, c.Arguments)
	}
	return strings.TrimSpace(b.String())
}

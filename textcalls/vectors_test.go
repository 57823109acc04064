package textcalls_test

import (
	"flag"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/textcalls"
	"github.com/toolconform/conform/textcalls/textcallstest"
)

var showMisses = flag.Bool("misses", false, "print every vector that does not match exactly")

// loadVectors reads every vector file of testdata/textcalls.
func loadVectors(t testing.TB) []textcallstest.Vector {
	t.Helper()
	files, err := filepath.Glob("../testdata/textcalls/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no vector files: %v", err)
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

// fragmentWrap puts a fragment (the body of one call block) back between
// its format's markers.
var fragmentWrap = map[string][2]string{
	"hermes":      {"<tool_call>", "</tool_call>"},
	"qwen3-coder": {"<tool_call>\n", "\n</tool_call>"},
	"glm45":       {"<tool_call>", "</tool_call>"},
	"glm47":       {"<tool_call>", "</tool_call>"},
}

// input is the vector's text as deltas, a fragment put back in its block.
func input(v *textcallstest.Vector) []string {
	d := v.Deltas()
	if w, ok := fragmentWrap[v.Format]; ok && v.Fragment {
		d = append(append([]string{w[0]}, d...), w[1])
	}
	return d
}

func TestVectors(t *testing.T) {
	type tally struct{ n, exact, ungraded int }
	per := map[string]*tally{}
	var misses []string
	seen := map[string]bool{}
	for _, v := range loadVectors(t) {
		seen[v.ID] = true
		f, err := textcalls.Lookup(v.Format)
		if err != nil {
			continue
		}
		tl := per[v.Format]
		if tl == nil {
			tl = &tally{}
			per[v.Format] = tl
		}
		if why := textcallstest.Ungraded(&v); why != "" {
			tl.ungraded++
			misses = append(misses, fmt.Sprintf("%s: ungraded: %s", v.ID, why))
			continue
		}
		tl.n++
		resp, err := textcalls.Collect(f, v.Options(), input(&v)...)
		problems := textcallstest.Grade(&v, textcallstest.ResultOf(resp, err))
		if v.Expect.Emitted != nil {
			p := f.New(v.Options())
			var evs []core.Event
			for _, d := range input(&v) {
				evs = p.Feed(evs, d)
			}
			problems = append(problems, textcallstest.GradeEmitted(&v, textcallstest.EventsResult(evs))...)
		}
		why, known := knownMisses[v.ID]
		switch {
		case len(problems) == 0 && known:
			t.Errorf("%s matches now: take it out of knownMisses (%s)", v.ID, why)
		case len(problems) == 0:
			tl.exact++
			continue
		case !known:
			t.Errorf("%s: %s", v.ID, strings.Join(problems, "; "))
		}
		misses = append(misses, fmt.Sprintf("%s: %s", v.ID, strings.Join(problems, "; ")))
	}
	names := make([]string, 0, len(per))
	for n := range per {
		names = append(names, n)
	}
	sort.Strings(names)
	total, exact := 0, 0
	for _, n := range names {
		tl := per[n]
		total += tl.n
		exact += tl.exact
		if tl.ungraded > 0 {
			t.Logf("%-16s %3d/%3d exact (%d more ungraded)", n, tl.exact, tl.n, tl.ungraded)
			continue
		}
		t.Logf("%-16s %3d/%3d exact", n, tl.exact, tl.n)
	}
	t.Logf("%-16s %3d/%3d exact", "all", exact, total)
	for id := range knownMisses {
		if !seen[id] {
			t.Errorf("knownMisses names %s, which is no graded vector", id)
		}
	}
	if *showMisses {
		for _, m := range misses {
			t.Log(m)
		}
	}
}

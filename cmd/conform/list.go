package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/toolconform/conform/failuremodes"
	"github.com/toolconform/conform/providers"
)

// listWhat names what conform list can print.
var listWhat = []string{"scenarios", "adapters", "failure-modes", "formats"}

func runList(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "list")
	dir := fs.String("scenarios", "", "list the scenarios of `DIR` instead of the built-in ones")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	what := listWhat
	if fs.NArg() > 0 {
		what = fs.Args()
		for _, w := range what {
			if !slices.Contains(listWhat, w) {
				return usageError(e, fs, "list: unknown list %q; known: %s", w, strings.Join(listWhat, ", "))
			}
		}
	}
	cases, err := loadScenarios(*dir)
	if err != nil {
		e.errorf("list: %v", err)
		return exitUsage
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	for i, w := range what {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		switch w {
		case "scenarios":
			fmt.Fprintf(tw, "SCENARIO\tSEVERITY\tKIND\tGUARDS\n")
			for _, sc := range cases {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", sc.Name, sc.Severity, sc.Kind, strings.Join(sc.Guards, " "))
			}
			fmt.Fprintf(tw, "%d scenarios\n", len(cases))
		case "adapters":
			fmt.Fprintf(tw, "ADAPTER\tSCENARIOS\n")
			for _, a := range providers.All() {
				n := 0
				for _, sc := range cases {
					if sc.Applies(a) {
						n++
					}
				}
				fmt.Fprintf(tw, "%s\t%d\n", a.Name(), n)
			}
		case "formats":
			tw.Flush()
			if err := listFormats(e.stdout); err != nil {
				e.errorf("list: %v", err)
				return exitFail
			}
		case "failure-modes":
			guarded := map[string]int{}
			for _, sc := range cases {
				for _, g := range sc.Guards {
					guarded[g]++
				}
			}
			fmt.Fprintf(tw, "ID\tSCENARIOS\tPROTOCOLS\tWHAT GOES WRONG\n")
			covered := 0
			all := failuremodes.All()
			for _, m := range all {
				if guarded[m.ID] > 0 {
					covered++
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", m.ID, guarded[m.ID], m.Protocols, shorten(m.What, 90))
			}
			fmt.Fprintf(tw, "%d of %d failure modes guarded by at least one scenario\n", covered, len(all))
		}
	}
	if err := tw.Flush(); err != nil {
		e.errorf("list: %v", err)
		return exitFail
	}
	return exitOK
}

// shorten cuts s to at most n runes, marking the cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

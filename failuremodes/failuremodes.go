// Package failuremodes is the catalogue of real ways tool-call handling
// broke in public projects, each with an id such as A05 that scenarios name
// in their "guards" header. The catalogue is FAILURE-MODES.md beside this
// file, embedded and parsed at start-up, so the prose and the list the
// tools use are one document.
package failuremodes

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

//go:embed FAILURE-MODES.md
var catalogue string

// Mode is one failure mode.
type Mode struct {
	// ID is a group letter and a number, such as "A05".
	ID string
	// Group is the title of the mode's group, such as "Streaming
	// accumulation: routing deltas to the right call".
	Group string
	// What says what goes wrong.
	What string
	// Protocols names the protocols it was seen with, as the catalogue
	// abbreviates them (CC, RESP, ANT, GEM, BR, MIS, CO, OLL, MCP).
	Protocols string
	// Scenario is the catalogue's suggestion for the scenario that guards it.
	Scenario string
}

var (
	groupLine = regexp.MustCompile(`^## ([A-Z])\. (.+)$`)
	rowLine   = regexp.MustCompile(`^\| ([A-Z][0-9]{2}) \|`)
	modes     = parse(catalogue)
)

// parse reads the catalogue's tables. It panics on a malformed row: the
// catalogue is compiled in, so that is a programmer error caught by tests.
func parse(doc string) []Mode {
	var (
		out   []Mode
		group string
	)
	for n, line := range strings.Split(doc, "\n") {
		if m := groupLine.FindStringSubmatch(line); m != nil {
			group = m[2]
			continue
		}
		if !rowLine.MatchString(line) {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 5 {
			panic(fmt.Sprintf("FAILURE-MODES.md:%d: a row has %d cells, want 5", n+1, len(cells)))
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		out = append(out, Mode{ID: cells[0], Group: group, What: cells[1], Protocols: cells[2], Scenario: cells[4]})
	}
	return out
}

// All returns every failure mode in catalogue order.
func All() []Mode { return slices.Clone(modes) }

// Lookup returns the failure mode with the given id.
func Lookup(id string) (Mode, bool) {
	for _, m := range modes {
		if m.ID == id {
			return m, true
		}
	}
	return Mode{}, false
}

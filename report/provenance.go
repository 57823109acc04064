package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/toolconform/conform/scenarios"
)

// SchemaVersion is the version of the results conform writes (the JSON
// of every command, the JUnit properties, the HTML header). It changes
// when a field is renamed, removed or changes meaning; new fields keep it.
const SchemaVersion = "2"

// Provenance says what produced a set of results: conform's build, the
// command, the scenario set, the seeds and when. Every command's results
// carry it (run, run --client, gateway, tools, merge); `conform version`
// prints the build fields.
type Provenance struct {
	// Version is conform's module version: a release tag, the
	// pseudo-version of go install @latest, or "(devel)" for a build from
	// a checkout.
	Version string `json:"version"`
	// Commit is the VCS revision the binary was built from, when the build
	// recorded one; Modified says the work tree had uncommitted changes.
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// Command is the command that produced the results: run, run
	// --client, gateway, tools, merge.
	Command string `json:"command"`
	// Scenarios is the hash of the scenario set graded ("sha256:" and 64
	// hex digits, see ScenarioHash), empty for a command that grades
	// none (tools).
	Scenarios string `json:"scenarios,omitempty"`
	// ScenarioSet is the version of this conform's built-in scenario set
	// (scenarios.SetVersion); with --scenarios DIR, Scenarios names the
	// set graded.
	ScenarioSet string `json:"scenario_set"`
	// Seeds are the random seeds the run was given (--seed, the chaos
	// options' split seeds), in order, without repeats.
	Seeds []uint64 `json:"seeds,omitempty"`
	// Splits is, for run, the number of random re-splits of each stream
	// case; their seeds derive from the case names, so the same scenario
	// set gives the same splits.
	Splits int `json:"splits,omitempty"`
	// Schema is SchemaVersion.
	Schema string `json:"schema_version"`
	// Date is when the results were made, RFC 3339 in UTC.
	Date string `json:"date"`
	// Inputs are the provenances of the results a merge joined.
	Inputs []Provenance `json:"inputs,omitempty"`
}

// NewProvenance returns the provenance of results the command makes now,
// with this binary's build information.
func NewProvenance(command string, now time.Time) Provenance {
	info, _ := debug.ReadBuildInfo()
	p := FromBuild(info)
	p.Command, p.Date = command, now.UTC().Format(time.RFC3339)
	return p
}

// FromBuild returns the build fields of a provenance (Version, Commit,
// Modified, Schema) as the build recorded them; info may be nil.
func FromBuild(info *debug.BuildInfo) Provenance {
	p := Provenance{Version: "(devel)", Schema: SchemaVersion, ScenarioSet: scenarios.SetVersion}
	if info == nil {
		return p
	}
	if v := info.Main.Version; v != "" {
		p.Version = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			p.Commit = s.Value
		case "vcs.modified":
			p.Modified = s.Value == "true"
		}
	}
	return p
}

// WithSeeds returns p with the seeds added, in order, without repeats.
func (p Provenance) WithSeeds(seeds ...uint64) Provenance {
	for _, s := range seeds {
		if !slices.Contains(p.Seeds, s) {
			p.Seeds = append(p.Seeds, s)
		}
	}
	return p
}

// String is the provenance on one line, as the text reports begin:
// "conform (devel) commit 1e8ad71e3b2c+dirty; run; scenarios sha256:…;
// seeds 7; schema 2; 2026-12-06T21:00:00Z".
func (p Provenance) String() string {
	s := []string{"conform " + p.Version}
	if p.Commit != "" {
		c := "commit " + p.Commit[:min(len(p.Commit), 12)]
		if p.Modified {
			c += "+dirty"
		}
		s[0] += " " + c
	}
	s = append(s, p.Command)
	if p.Scenarios != "" {
		s = append(s, "scenarios "+p.Scenarios)
	}
	if p.ScenarioSet != "" {
		s = append(s, "scenario set "+p.ScenarioSet)
	}
	if len(p.Seeds) > 0 {
		var seeds []string
		for _, x := range p.Seeds {
			seeds = append(seeds, fmt.Sprint(x))
		}
		s = append(s, "seeds "+strings.Join(seeds, ", "))
	}
	if p.Splits > 0 {
		s = append(s, fmt.Sprintf("%d re-splits a stream case", p.Splits))
	}
	s = append(s, "schema "+p.Schema, p.Date)
	if len(p.Inputs) > 0 {
		s = append(s, fmt.Sprintf("merged from %d results", len(p.Inputs)))
	}
	return strings.Join(s, "; ")
}

// ScenarioHash is the hash of a scenario set: SHA-256 over every
// scenario, in name order, as its name and its JSON (the case, its
// expectations, the bytes it serves; not the path it was read from), so
// that two runs with the same hash graded the same cases.
func ScenarioHash(cases []*scenarios.Scenario) string {
	sorted := slices.Clone(cases)
	slices.SortFunc(sorted, func(a, b *scenarios.Scenario) int { return strings.Compare(a.Name, b.Name) })
	h := sha256.New()
	for _, sc := range sorted {
		c := *sc
		c.File = ""
		data, err := json.Marshal(&c)
		if err != nil {
			// A scenario that does not marshal still counts, by name.
			data = []byte(err.Error())
		}
		fmt.Fprintf(h, "%d:%s\n%d:", len(sc.Name), sc.Name, len(data))
		h.Write(data)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

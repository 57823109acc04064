package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toolconform/conform/agent"
	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/core/repair"
	"github.com/toolconform/conform/providers/anthropic"
	"github.com/toolconform/conform/providers/bedrock"
	"github.com/toolconform/conform/providers/gemini"
	"github.com/toolconform/conform/providers/ollama"
	"github.com/toolconform/conform/providers/openairesponses"
	"github.com/toolconform/conform/record"
	"github.com/toolconform/conform/serve"
	"github.com/toolconform/conform/sse"
	"github.com/toolconform/conform/tools"
)

// readmeLimits are the constants the README's table of limits names, with
// their values.
var readmeLimits = map[string]int{
	"core.MaxDepth":                       core.MaxDepth,
	"core.DefaultMaxArgBytes":             core.DefaultMaxArgBytes,
	"repair.MaxInputBytes":                repair.MaxInputBytes,
	"gemini.DefaultMaxArgsSize":           gemini.DefaultMaxArgsSize,
	"core.DefaultMaxTextBytes":            core.DefaultMaxTextBytes,
	"core.DefaultMaxCalls":                core.DefaultMaxCalls,
	"core.DefaultMaxIndex":                core.DefaultMaxIndex,
	"sse.DefaultMaxEventSize":             sse.DefaultMaxEventSize,
	"anthropic.DefaultMaxEventSize":       anthropic.DefaultMaxEventSize,
	"openairesponses.DefaultMaxEventSize": openairesponses.DefaultMaxEventSize,
	"gemini.DefaultMaxEventSize":          gemini.DefaultMaxEventSize,
	"ollama.DefaultMaxLine":               ollama.DefaultMaxLine,
	"bedrock.DefaultMaxFrameSize":         bedrock.DefaultMaxFrameSize,
	"maxResponseBody":                     maxResponseBody,
	"sniffWindow":                         sniffWindow,
	"serve.DefaultMaxBody":                serve.DefaultMaxBody,
	"agent.DefaultMaxBodyBytes":           agent.DefaultMaxBodyBytes,
	"record.DefaultMaxBody":               record.DefaultMaxBody,
	"cassettes.MaxFileSize":               cassettes.MaxFileSize,
	"cassettes.MaxBodySize":               cassettes.MaxBodySize,
	"tools.MaxSchemaBytes":                tools.MaxSchemaBytes,
	"tools.DefaultMaxOutputBytes":         tools.DefaultMaxOutputBytes,
}

// TestReadmeLimits reads the table of limits in README.md and checks each
// row's figure against the constants it names, and that every constant of
// readmeLimits has a row.
func TestReadmeLimits(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Limits\n")
	if !ok {
		t.Fatal("README.md has no ## Limits section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("^\\| (.+) \\| (.+) \\| (`.+`) \\|$")
	constant := regexp.MustCompile("`([A-Za-z.]+)`")
	seen := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		want, err := parseLimit(m[2])
		if err != nil {
			t.Errorf("row %q: %v", m[1], err)
			continue
		}
		for _, c := range constant.FindAllStringSubmatch(m[3], -1) {
			got, ok := readmeLimits[c[1]]
			if !ok {
				t.Errorf("row %q names %s, which the test does not know", m[1], c[1])
				continue
			}
			seen[c[1]] = true
			if got != want {
				t.Errorf("row %q: the README says %s (%d), %s is %d", m[1], m[2], want, c[1], got)
			}
		}
	}
	for name := range readmeLimits {
		if !seen[name] {
			t.Errorf("%s has no row in the README's table of limits", name)
		}
	}
}

// parseLimit reads a figure of the table: a count ("256", "512 levels") or
// a size in KiB and MiB ("4 MiB", "4 MiB + 4 KiB").
func parseLimit(s string) (int, error) {
	total := 0
	for _, term := range strings.Split(s, " + ") {
		fields := strings.Fields(term)
		n, err := strconv.Atoi(fields[0])
		if err != nil {
			return 0, err
		}
		if len(fields) > 1 {
			switch fields[1] {
			case "KiB":
				n <<= 10
			case "MiB":
				n <<= 20
			}
		}
		total += n
	}
	return total, nil
}

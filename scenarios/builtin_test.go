package scenarios

import (
	"os"
	"testing"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/providers"
)

// TestBuiltinAdapters runs every built-in scenario against every built-in
// adapter. Adapter bugs it finds are either fixed in the adapter or listed,
// with a comment, in known-failing.txt; a listed case that passes fails
// this test until its entry is removed.
func TestBuiltinAdapters(t *testing.T) {
	cases, err := LoadBuiltin(VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("known-failing.txt")
	if err != nil {
		t.Fatal(err)
	}
	known, err := ParsePatternList("known-failing.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	adapters := providers.All()
	if len(adapters) == 0 {
		t.Fatal("providers.All() lists no adapter: nothing would be graded")
	}
	results, err := Check(adapters, cases, Options{KnownFailing: known})
	if err != nil {
		t.Error(err)
	}
	counts := map[Status]int{}
	for _, res := range results {
		counts[res.Status]++
		if res.Status != StatusFail {
			continue
		}
		t.Run(res.Name, func(t *testing.T) {
			t.Logf("%s %s (%s)", res.Severity, res.Name, res.Scenario.File)
			for _, p := range res.Problems {
				t.Errorf("%s", p)
			}
		})
	}
	t.Logf("%d adapters, %d results: %d pass, %d fail, %d known-failing, %d skip",
		len(adapters), len(results), counts[StatusPass], counts[StatusFail], counts[StatusKnownFailing], counts[StatusSkip])
}

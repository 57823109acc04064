package names

import (
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// FuzzMap maps fuzz-chosen sets of names (one per line, as an MCP server
// could send them) under every built-in adapter's rules: every mapped name
// passes the rules, no two names share one, Original inverts Name, and a
// valid name maps to itself.
func FuzzMap(f *testing.F) {
	for _, seed := range []string{
		"a.b\na_b",
		"github.create_issue\nfs.read_file\nfs/read file\nfs read-file",
		"3d_render\n_3d_render\n",
		strings.Repeat("x", 70) + "\n" + strings.Repeat("x", 71),
		"héllo\n\x00\n",
	} {
		f.Add(seed)
	}
	var rules []core.NameRules
	for _, a := range providers.All() {
		if r, ok := For(a); ok {
			rules = append(rules, r)
		}
	}
	f.Fuzz(func(t *testing.T, input string) {
		seen := map[string]bool{}
		var set []string
		for _, n := range strings.Split(input, "\n") {
			if !seen[n] && len(set) < 64 {
				seen[n] = true
				set = append(set, n)
			}
		}
		for _, r := range rules {
			m, err := Map(r, set)
			if err != nil {
				t.Fatal(err)
			}
			owner := map[string]string{}
			for _, n := range set {
				s, ok := m.Name(n)
				if !ok {
					t.Fatalf("%s: %q not mapped", r.Pattern, n)
				}
				if err := Check(r, s); err != nil {
					t.Fatalf("%s: %q mapped to %q, which the rules refuse: %v", r.Pattern, n, s, err)
				}
				if o, dup := owner[s]; dup {
					t.Fatalf("%s: %q and %q both map to %q", r.Pattern, o, n, s)
				}
				owner[s] = n
				if o, _ := m.Original(s); o != n {
					t.Fatalf("%s: Original(%q) = %q, want %q", r.Pattern, s, o, n)
				}
				if Check(r, n) == nil && s != n {
					t.Fatalf("%s: valid %q mapped to %q", r.Pattern, n, s)
				}
			}
		}
	})
}

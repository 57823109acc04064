package names_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/tools/names"
	"pgregory.net/rapid"
)

// rules returns the rules the built-in adapter of protocol declares.
func rules(t interface{ Fatal(...any) }, protocol string) core.NameRules {
	a, err := providers.Lookup(protocol)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := names.For(a)
	if !ok {
		t.Fatal(protocol + ": the adapter declares no tool-name rules")
	}
	return r
}

// TestEveryAdapterDeclares: every built-in adapter declares its rules,
// with a source.
func TestEveryAdapterDeclares(t *testing.T) {
	for _, p := range providers.Names() {
		if r := rules(t, p); r.Source == "" || r.Pattern == "" || r.MaxLen <= 0 {
			t.Errorf("%s: incomplete rules %+v", p, r)
		}
	}
}

// TestCheck: each provider's rule, on the names that tell them apart.
func TestCheck(t *testing.T) {
	long := strings.Repeat("a", 65)
	tests := []struct {
		name string
		// want is the protocols that refuse name, in providers.Names order.
		want []string
	}{
		{"get_weather", nil},
		{"get-weather", []string{"cohere"}},
		{"3d_render", []string{"cohere", "gemini"}},
		{"_private", nil},
		{"github.create_issue", []string{"anthropic", "bedrock", "cohere", "mistral", "ollama", "openai-chat", "openai-responses"}},
		{"ns:tool", []string{"anthropic", "bedrock", "cohere", "mistral", "ollama", "openai-chat", "openai-responses"}},
		{"fs/read file", providers.Names()},
		{"", providers.Names()},
		{long, providers.Names()},
		{"héllo", providers.Names()},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range providers.Names() {
			err := names.Check(rules(t, p), tt.name)
			if err != nil {
				got = append(got, p)
				var ne *names.NameError
				if !errors.As(err, &ne) || !errors.Is(err, names.ErrInvalidName) || !strings.HasPrefix(err.Error(), "tool name ") {
					t.Errorf("%s: Check(%q) = %v, want a *NameError", p, tt.name, err)
				}
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("protocols refusing %q (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestMap: the case, a valid a_b next to a.b, in both orders, and
// qualified names under three rule sets. Among invalid names whose cleaned
// forms collide, the first in byte order keeps the plain form ("fs
// read-file" before "fs.read_file" before "fs/read file" for cohere).
func TestMap(t *testing.T) {
	set := []string{"a.b", "a_b", "github.create_issue", "fs.read_file", "3d_render", "fs/read file", "fs read-file"}
	want := map[string]map[string]string{
		"openai-chat": {
			"a.b": "a_b_485d357c", "a_b": "a_b", "github.create_issue": "github_create_issue", "fs.read_file": "fs_read_file",
			"3d_render": "3d_render", "fs/read file": "fs_read_file_1f1d2f1e", "fs read-file": "fs_read-file",
		},
		"gemini": {
			"a.b": "a.b", "a_b": "a_b", "github.create_issue": "github.create_issue", "fs.read_file": "fs.read_file",
			"3d_render": "_3d_render", "fs/read file": "fs_read_file", "fs read-file": "fs_read-file",
		},
		"cohere": {
			"a.b": "a_b_485d357c", "a_b": "a_b", "github.create_issue": "github_create_issue", "fs.read_file": "fs_read_file_f08626bd",
			"3d_render": "_3d_render", "fs/read file": "fs_read_file_1f1d2f1e", "fs read-file": "fs_read_file",
		},
	}
	for protocol, w := range want {
		r := rules(t, protocol)
		for _, order := range [][]string{set, reversed(set)} {
			m, err := names.Map(r, order)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, n := range order {
				got[n], _ = m.Name(n)
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", protocol, diff)
			}
		}
	}
	if _, err := names.Map(rules(t, "anthropic"), []string{"x", "x"}); err == nil || !strings.Contains(err.Error(), `"x" given twice`) {
		t.Errorf("duplicate: err = %v", err)
	}
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

// TestMapProperties: for any set of names and every rule set, every mapped
// name passes the rules, no two names share one, Original inverts Name, a
// valid name maps to itself, and a shuffled set gives the same mapping.
func TestMapProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alphabet := rapid.SampledFrom([]rune("ab_-.:/ 9é"))
		name := rapid.StringOfN(alphabet, 0, 80, -1)
		set := rapid.SliceOfNDistinct(name, 0, 12, func(s string) string { return s }).Draw(t, "names")
		perm := rapid.Permutation(set).Draw(t, "perm")
		for _, p := range providers.Names() {
			r := rules(t, p)
			m, err := names.Map(r, set)
			if err != nil {
				t.Fatal(err)
			}
			m2, err := names.Map(r, perm)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]string{}
			for _, n := range set {
				s, ok := m.Name(n)
				if !ok {
					t.Fatalf("%s: %q not mapped", p, n)
				}
				if err := names.Check(r, s); err != nil {
					t.Fatalf("%s: %q mapped to a name the rules refuse: %v", p, n, err)
				}
				if o, ok := seen[s]; ok {
					t.Fatalf("%s: %q and %q both map to %q", p, o, n, s)
				}
				seen[s] = n
				if o, _ := m.Original(s); o != n {
					t.Fatalf("%s: Original(%q) = %q, want %q", p, s, o, n)
				}
				if names.Check(r, n) == nil && s != n {
					t.Fatalf("%s: valid %q mapped to %q", p, n, s)
				}
				if s2, _ := m2.Name(n); s2 != s {
					t.Fatalf("%s: %q maps to %q in one order and %q in another", p, n, s, s2)
				}
			}
		}
	})
}

package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestNameMapperSanitize(t *testing.T) {
	long := "mcp__github_enterprise_server__list_pull_request_review_comments_for_repository"
	m := NewNameMapper()
	tests := []struct {
		original string
		want     string
	}{
		{"get_weather", "get_weather"},
		{"github.list_prs", "github_list_prs"},
		{"fs/read file", "fs_read_file"},
		{"a..b", "a_b"},
		{"...", "_"},
		{"", "tool"},
		{"héllo", "h_llo"},
		// Taken by "github.list_prs" above: a hash suffix tells them apart.
		{"github/list_prs", "github_list_prs_" + hashSuffix("github/list_prs")},
		// Valid, but its own name is taken by a sanitised one.
		{"a_b", "a_b_" + hashSuffix("a_b")},
		{long, long[:55] + "_" + hashSuffix(long)},
		// Same original, same answer.
		{"github.list_prs", "github_list_prs"},
	}
	for _, tt := range tests {
		got := m.Sanitize(tt.original)
		if got != tt.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.original, got, tt.want)
		}
		if err := core.CommonNameRules.Check(got); err != nil {
			t.Errorf("Sanitize(%q) = %q, which is invalid: %v", tt.original, got, err)
		}
		if o, ok := m.Original(got); !ok || o != tt.original {
			t.Errorf("Original(%q) = %q, %v; want %q, true", got, o, ok, tt.original)
		}
	}
	if o, ok := m.Original("never_seen"); ok {
		t.Errorf("Original(never_seen) = %q, true; want false", o)
	}
	var zero NameMapper
	if got := zero.Sanitize("x.y"); got != "x_y" {
		t.Errorf("zero NameMapper Sanitize(x.y) = %q, want x_y", got)
	}
}

// hashSuffix is the first-attempt suffix Sanitize gives original.
func hashSuffix(original string) string {
	s := suffixed("", original, 0)
	return s[1:]
}

func TestNameMapperHashCollision(t *testing.T) {
	// Force the second attempt: occupy the first-attempt name of "x.y"
	// before it is needed.
	m := NewNameMapper()
	first := suffixed("x_y", "x.y", 0)
	m.Sanitize("x_y") // takes x_y
	m.Sanitize(first) // takes the first suffixed form, valid as is
	got := m.Sanitize("x.y")
	want := suffixed("x_y", "x.y", 1)
	if got != want || got == first {
		t.Errorf("Sanitize(x.y) = %q, want second attempt %q", got, want)
	}
}

// TestNameMapperProperty checks, for any set of strings, that the sanitised
// names are valid, pairwise distinct, stable, and map back.
func TestNameMapperProperty(t *testing.T) {
	alphabet := []rune("ab_-.0/ é__")
	gen := rapid.SliceOf(rapid.OneOf(
		rapid.StringOfN(rapid.RuneFrom(alphabet), 0, 8, -1),
		rapid.StringOfN(rapid.RuneFrom(alphabet), 60, 90, -1),
		rapid.String(),
	))
	rapid.Check(t, func(t *rapid.T) {
		originals := gen.Draw(t, "originals")
		m := NewNameMapper()
		seen := map[string]string{} // sanitised → original
		for _, o := range originals {
			s := m.Sanitize(o)
			if err := core.CommonNameRules.Check(s); err != nil {
				t.Fatalf("Sanitize(%q) = %q: %v", o, s, err)
			}
			if prev, ok := seen[s]; ok && prev != o {
				t.Fatalf("Sanitize(%q) = Sanitize(%q) = %q", o, prev, s)
			}
			seen[s] = o
			if core.CommonNameRules.Check(o) == nil && len(seen) == 1 && s != o {
				t.Fatalf("first valid name %q mapped to %q", o, s)
			}
		}
		for s, o := range seen {
			if got, ok := m.Original(s); !ok || got != o {
				t.Fatalf("Original(%q) = %q, %v; want %q", s, got, ok, o)
			}
			if again := m.Sanitize(o); again != s {
				t.Fatalf("Sanitize(%q) changed from %q to %q", o, s, again)
			}
		}
	})
}

func TestNameMapperDeterministic(t *testing.T) {
	names := []string{"a.b", "a/b", "a b", "mcp__x." + strings.Repeat("y", 80), "ok"}
	var runs [][]string
	for range 2 {
		m := NewNameMapper()
		var got []string
		for _, n := range names {
			got = append(got, m.Sanitize(n))
		}
		runs = append(runs, got)
	}
	if diff := cmp.Diff(runs[0], runs[1]); diff != "" {
		t.Errorf("two mappers disagree (-first +second):\n%s", diff)
	}
}

// FuzzSanitize checks that any name sanitises to a valid name that maps
// back, and that a valid name is kept when it is the first.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "get_weather", "github.list_prs", "fs/read file", "3d", "\xff\xfe",
		"mcp__github_enterprise_server__list_pull_request_review_comments_for_repository", strings.Repeat("é", 40)} {
		f.Add(s, "a.b")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		m := NewNameMapper()
		sa, sb := m.Sanitize(a), m.Sanitize(b)
		for _, s := range []string{sa, sb} {
			if err := core.CommonNameRules.Check(s); err != nil {
				t.Fatalf("sanitised %q: %v", s, err)
			}
		}
		if a != b && sa == sb {
			t.Fatalf("Sanitize(%q) = Sanitize(%q) = %q", a, b, sa)
		}
		if core.CommonNameRules.Check(a) == nil && sa != a {
			t.Fatalf("valid first name %q became %q", a, sa)
		}
		if o, ok := m.Original(sb); !ok || o != b {
			t.Fatalf("Original(%q) = %q, %v; want %q", sb, o, ok, b)
		}
	})
}

// TestNameMapperSharedByTools builds MCP tools through one mapper in both
// orders of a valid name and an invalid name that sanitises to it (E01):
// every tool gets its own name, the registry takes them all, and the
// mapper maps each name back to the tool that holds it.
func TestNameMapperSharedByTools(t *testing.T) {
	tests := []struct {
		name      string
		originals []string
		want      []string // the tools' names, in order
	}{
		{
			name:      "valid name first keeps it",
			originals: []string{"fs_read", "fs.read"},
			want:      []string{"fs_read", "fs_read_" + hashSuffix("fs.read")},
		},
		{
			name:      "sanitised name first takes it",
			originals: []string{"a.b", "a_b"},
			want:      []string{"a_b", "a_b_" + hashSuffix("a_b")},
		},
		{
			name:      "three names for one slot",
			originals: []string{"x/y", "x_y", "x y"},
			want:      []string{"x_y", "x_y_" + hashSuffix("x_y"), "x_y_" + hashSuffix("x y")},
		},
		{
			name:      "E03 digit-leading and E02 long names",
			originals: []string{"3d", "3d", strings.Repeat("n", 64), strings.Repeat("n", 65)},
			want:      []string{"3d", "3d", strings.Repeat("n", 64), strings.Repeat("n", 55) + "_" + hashSuffix(strings.Repeat("n", 65))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewNameMapper()
			r := NewRegistry()
			var got []string
			for _, o := range tt.originals {
				def := fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, o)
				tool, err := FromMCP(json.RawMessage(def), nopHandler, WithNameMapper(m))
				if err != nil {
					t.Fatalf("FromMCP(%q): %v", o, err)
				}
				got = append(got, tool.Name())
				if back, ok := m.Original(tool.Name()); !ok || back != o || tool.OriginalName() != o {
					t.Errorf("tool %q: OriginalName %q, mapper Original = %q, %v; want %q", tool.Name(), tool.OriginalName(), back, ok, o)
				}
				// A repeated original is the same tool again, which the
				// registry refuses; every other one must be accepted.
				err = r.Add(tool)
				if first := slices.Index(tt.originals, o) == len(got)-1; first != (err == nil) {
					t.Errorf("Registry.Add(%q) = %v", tool.Name(), err)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tool names (-want +got):\n%s", diff)
			}
		})
	}
}

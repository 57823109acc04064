package core_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// TestWithSource: a source qualifies the name; the model's name is made
// from the qualified name, so two sources' tools of one name stay apart.
func TestWithSource(t *testing.T) {
	h := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	schema := json.RawMessage(`{"type":"object"}`)
	m := core.NewNameMapper()
	var got [][3]string
	for _, src := range []string{"github", "fs", ""} {
		tool, err := core.NewRawTool("read", "", schema, h, core.WithSource(src), core.WithNameMapper(m))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, [3]string{tool.Name(), tool.QualifiedName(), tool.Source()})
	}
	want := [][3]string{{"github_read", "github.read", "github"}, {"fs_read", "fs.read", "fs"}, {"read", "read", ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := core.NewRawTool("read", "", schema, h, core.WithSource("fs")); err == nil || !strings.Contains(err.Error(), `"fs.read"`) {
		t.Errorf("a qualified name without a mapper: err = %v, want the name refused", err)
	}
	if _, err := core.NewRawTool("read", "", schema, h, core.WithSource("a.b"), core.WithNameMapper(m)); err == nil || !strings.Contains(err.Error(), "holds a dot") {
		t.Errorf("a source with a dot: err = %v, want it refused", err)
	}
}

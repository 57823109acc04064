package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/tools"
)

// TestWithSource: a source qualifies the name; the model's name is made
// from the qualified name, so two sources' tools of one name stay apart.
func TestWithSource(t *testing.T) {
	h := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	schema := json.RawMessage(`{"type":"object"}`)
	m := tools.NewNameMapper()
	var got [][3]string
	for _, src := range []string{"github", "fs", ""} {
		tool, err := tools.NewRawTool("read", "", schema, h, tools.WithSource(src), tools.WithNameMapper(m))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, [3]string{tool.Name(), tool.QualifiedName(), tool.Source()})
	}
	want := [][3]string{{"github_read", "github.read", "github"}, {"fs_read", "fs.read", "fs"}, {"read", "read", ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := tools.NewRawTool("read", "", schema, h, tools.WithSource("fs")); err == nil || !strings.Contains(err.Error(), `"fs.read"`) {
		t.Errorf("a qualified name without a mapper: err = %v, want the name refused", err)
	}
	if _, err := tools.NewRawTool("read", "", schema, h, tools.WithSource("a.b"), tools.WithNameMapper(m)); err == nil || !strings.Contains(err.Error(), "holds a dot") {
		t.Errorf("a source with a dot: err = %v, want it refused", err)
	}
}

package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/toolconform/conform/core"

	"github.com/google/go-cmp/cmp"
)

func rawTool(t testing.TB, name, description string, opts ...ToolOption) *Tool {
	t.Helper()
	tool, err := NewRawTool(name, description, json.RawMessage(`{"type":"object"}`), nopHandler, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func toolNames(tools []*Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name())
	}
	return names
}

func TestRegistryBasics(t *testing.T) {
	r := NewRegistry()
	for _, n := range []string{"search", "add", "3d_render", "Zeta"} {
		if err := r.Add(rawTool(t, n, "")); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"3d_render", "Zeta", "add", "search"}, toolNames(r.All())); diff != "" {
		t.Errorf("All not sorted by name (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"3d_render", "Zeta", "add", "search"}, r.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	if specs := r.Specs(); len(specs) != 4 || specs[0].Name != "3d_render" {
		t.Errorf("Specs = %+v", specs)
	}
	if tool, ok := r.Lookup("add"); !ok || tool.Name() != "add" {
		t.Errorf("Lookup(add) = %v, %v", tool, ok)
	}
	if _, ok := r.Lookup("missing"); ok {
		t.Errorf("Lookup(missing) found a tool")
	}
	if !r.Remove("add") || r.Remove("add") {
		t.Errorf("Remove(add) twice: want true then false")
	}
	if r.Len() != 3 {
		t.Errorf("Len = %d, want 3", r.Len())
	}
	if err := r.Add(nil); err == nil {
		t.Errorf("Add(nil) = nil, want error")
	}
}

func TestRegistryZeroValue(t *testing.T) {
	var r Registry
	if r.Len() != 0 || len(r.All()) != 0 {
		t.Errorf("zero registry not empty")
	}
	if err := r.Add(rawTool(t, "a", "")); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Lookup("a"); !ok {
		t.Errorf("zero registry lost its tool")
	}
}

func TestRegistryDuplicate(t *testing.T) {
	r := NewRegistry()
	if err := r.Add(rawTool(t, "search", "Search the web.", WithOrigin("package web"))); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 40)
	err := r.Add(rawTool(t, "search", long, WithOrigin("MCP server docs")))
	if !errors.Is(err, ErrDuplicateTool) {
		t.Fatalf("Add duplicate = %v, want ErrDuplicateTool", err)
	}
	want := `registry add "search": duplicate tool name: already registered from package web (description "Search the web."), cannot add the one from MCP server docs (description "` + strings.Repeat("é", 30) + `…")`
	if err.Error() != want {
		t.Errorf("error = %s\nwant    %s", err, want)
	}
	err = r.Add(rawTool(t, "search", ""))
	if err == nil || !strings.Contains(err.Error(), "raw schema (no description)") {
		t.Errorf("error = %v, want the origin and no description", err)
	}
}

func TestRegistryCloneNarrow(t *testing.T) {
	r := NewRegistry()
	for _, n := range []string{"a", "b", "c"} {
		if err := r.Add(rawTool(t, n, "")); err != nil {
			t.Fatal(err)
		}
	}
	c := r.Clone()
	c.Remove("a")
	if err := c.Add(rawTool(t, "d", "")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, r.Names()); diff != "" {
		t.Errorf("Clone shares state with the original (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b", "c", "d"}, c.Names()); diff != "" {
		t.Errorf("clone (-want +got):\n%s", diff)
	}
	n, err := r.Narrow("c", "a")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "c"}, n.Names()); diff != "" {
		t.Errorf("Narrow (-want +got):\n%s", diff)
	}
	n.Remove("a")
	if r.Len() != 3 {
		t.Errorf("Narrow shares state with the original")
	}
	ta, _ := r.Lookup("c")
	tn, _ := n.Lookup("c")
	if ta != tn {
		t.Errorf("Narrow copied a tool; tools are immutable and should be shared")
	}
	_, err = r.Narrow("a", "bb")
	var ue *UnknownToolError
	if !errors.As(err, &ue) || !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("Narrow(bb) = %v, want *UnknownToolError", err)
	}
	if want := `registry narrow: unknown tool "bb"; did you mean "b"?; available tools: a, b, c`; err.Error() != want {
		t.Errorf("error = %s\nwant    %s", err, want)
	}
}

func TestClosestToolName(t *testing.T) {
	known := []string{"get_weather", "list_files", "read_file", "search"}
	tests := []struct {
		name string
		want string
	}{
		{"get_wether", "get_weather"},
		{"GET_WEATHER", "get_weather"},
		{"read_files", "read_file"},
		{"multi_tool_use.parallel", ""}, // E04: nothing close
		{"x", ""},
		{strings.Repeat("a", 300), ""},
	}
	for _, tt := range tests {
		if got := closestToolName(tt.name, known); got != tt.want {
			t.Errorf("closestToolName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := closestToolName("a", nil); got != "" {
		t.Errorf("closestToolName with no tools = %q", got)
	}
	if e := (&UnknownToolError{Name: "x"}).Error(); e != `unknown tool "x"; no tools are available` {
		t.Errorf("empty registry message = %q", e)
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"café", "cafe", 1}, {"ab", "ba", 2},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestRegistryConcurrent adds, looks up, lists, clones and removes from
// many goroutines at once; run it with -race.
func TestRegistryConcurrent(t *testing.T) {
	r := NewRegistry()
	const workers, per = 16, 50
	tools := make([][]*Tool, workers)
	for w := range workers {
		for i := range per {
			tools[w] = append(tools[w], rawTool(t, fmt.Sprintf("t%d_%d", w, i), ""))
		}
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, tool := range tools[w] {
				if err := r.Add(tool); err != nil {
					t.Error(err)
					return
				}
				if _, ok := r.Lookup(tool.Name()); !ok {
					t.Errorf("Lookup(%s) failed right after Add", tool.Name())
				}
				_ = r.All()
				_ = r.Clone().Len()
				if v := r.Validate(core.Call{Name: tool.Name(), Arguments: json.RawMessage(`{}`)}); !v.Valid {
					t.Errorf("Validate(%s) = %s", tool.Name(), v.Message)
				}
				if i%2 == 1 && !r.Remove(tool.Name()) {
					t.Errorf("Remove(%s) = false", tool.Name())
				}
			}
		}()
	}
	wg.Wait()
	if got, want := r.Len(), workers*per/2; got != want {
		t.Errorf("Len = %d, want %d", got, want)
	}
}

func TestZeroTool(t *testing.T) {
	r := NewRegistry()
	if err := r.Add(&Tool{name: "z"}); err == nil || !strings.Contains(err.Error(), "not built by NewTool") {
		t.Errorf("Add(zero Tool) = %v, want an error", err)
	}
	v := (&Tool{name: "z"}).Validate(json.RawMessage(`{}`))
	if v.Valid || v.Err == nil || !strings.Contains(v.Message, "no compiled input schema") {
		t.Errorf("zero Tool Validate = %+v, want invalid", v)
	}
}

func TestUnknownToolManyKnown(t *testing.T) {
	var known []string
	for i := range 60 {
		known = append(known, fmt.Sprintf("tool_%02d", i))
	}
	msg := (&UnknownToolError{Name: "x", Known: known}).Error()
	if !strings.HasSuffix(msg, "tool_48, tool_49, and 10 more") || strings.Contains(msg, "tool_50") {
		t.Errorf("message = %s\nwant 50 names and a count of the rest", msg)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestToolsSARIF checks that conform tools --format sarif is a SARIF 2.1.0
// log the schema accepts, with one result per refusal and rewrite, each at
// the line of the tool's name.
func TestToolsSARIF(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	defs := `[
 {"name": "get_weather", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}},
 {"name": "3d-render", "inputSchema": {"type": "object"}},
 {"name": "tree", "inputSchema": {"type": "object", "properties": {"child": {"$ref": "#"}}}}
]`
	if err := os.WriteFile(tools, []byte(defs), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	status := Run(context.Background(), []string{"tools", "--format", "sarif", "--protocol", "gemini", tools}, strings.NewReader(""), &stdout, &stderr)
	if status != exitFail {
		t.Fatalf("status %d, want %d (gemini refuses tree); stderr: %s", status, exitFail, stderr.String())
	}

	schemaFile, err := os.Open("testdata/sarif/sarif-2.1.0-rtm.5.json")
	if err != nil {
		t.Fatal(err)
	}
	defer schemaFile.Close()
	doc, err := jsonschema.UnmarshalJSON(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(stdout.Bytes()))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout.String())
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("the SARIF log breaks the schema: %v\n%s", err, stdout.String())
	}

	var log sarifLog
	if err := json.Unmarshal(stdout.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	type got struct {
		Rule, Tool string
		Line       int
	}
	var results []got
	for _, r := range log.Runs[0].Results {
		line := 0
		if r.Locations[0].PhysicalLocation.Region != nil {
			line = r.Locations[0].PhysicalLocation.Region.StartLine
		}
		results = append(results, got{r.RuleID, r.Properties["tool"], line})
		if r.Locations[0].PhysicalLocation.ArtifactLocation.URI != tools {
			t.Errorf("result located in %q, want %q", r.Locations[0].PhysicalLocation.ArtifactLocation.URI, tools)
		}
	}
	want := []got{{"tool-rewritten", "3d-render", 3}, {"tool-refused", "tree", 4}}
	if diff := cmp.Diff(want, results); diff != "" {
		t.Errorf("SARIF results (-want +got):\n%s", diff)
	}
}

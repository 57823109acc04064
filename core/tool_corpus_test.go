package core

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core/schema"
	"gopkg.in/yaml.v3"
)

// recordedTool is a tool definition found in a recorded request.
type recordedTool struct {
	File   string
	Name   string
	Schema json.RawMessage
}

// recordedTools returns every tool definition in the requests of the
// corpus under testdata/corpus: Anthropic input_schema, OpenAI Chat,
// Responses, Cohere and Gemini parameters, Bedrock inputSchema.json.
func recordedTools(t *testing.T) []recordedTool {
	t.Helper()
	var out []recordedTool
	seen := map[string]bool{}
	root := filepath.Join("..", "testdata", "corpus")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, doc := range jsonTexts(data) {
			var v any
			if json.Unmarshal(doc, &v) != nil {
				continue
			}
			walkToolDefs(v, func(name string, schema any) {
				b, _ := json.Marshal(schema)
				key := rel + "\x00" + name + "\x00" + string(b)
				if !seen[key] {
					seen[key] = true
					out = append(out, recordedTool{File: rel, Name: name, Schema: b})
				}
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File+out[i].Name < out[j].File+out[j].Name })
	return out
}

// jsonTexts returns the JSON objects in a recording: string values of a
// YAML cassette that hold JSON, and lines of other files that are JSON.
func jsonTexts(data []byte) [][]byte {
	var out [][]byte
	var y any
	if yaml.Unmarshal(data, &y) == nil {
		var walk func(any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				for _, x := range v {
					walk(x)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			case string:
				if s := strings.TrimSpace(v); strings.HasPrefix(s, "{") && json.Valid([]byte(s)) {
					out = append(out, []byte(s))
				}
			}
		}
		walk(y)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); bytes.HasPrefix(line, []byte("{")) && json.Valid(line) {
			out = append(out, bytes.Clone(line))
		}
	}
	return out
}

// walkToolDefs calls f for every tool definition inside a request body.
func walkToolDefs(v any, f func(name string, schema any)) {
	switch v := v.(type) {
	case map[string]any:
		name, _ := v["name"].(string)
		if name != "" {
			if s, ok := v["input_schema"]; ok {
				f(name, s)
			} else if s, ok := v["parameters"]; ok {
				f(name, s)
			} else if s, ok := v["inputSchema"].(map[string]any); ok && s["json"] != nil {
				f(name, s["json"])
			}
		}
		for _, x := range v {
			walkToolDefs(x, f)
		}
	case []any:
		for _, x := range v {
			walkToolDefs(x, f)
		}
	}
}

// TestRecordedTools builds a raw tool from every tool definition in the
// recorded requests. JSON Schema definitions must build unchanged (the spec
// equal to the recording, as JSON); the two dialects that are not JSON
// Schema must be rejected at the place of the fault.
func TestRecordedTools(t *testing.T) {
	tools := recordedTools(t)
	var accepted, rejected int
	for _, rt := range tools {
		t.Run(rt.File+"/"+rt.Name, func(t *testing.T) {
			tool, err := NewRawTool(rt.Name, "", rt.Schema, nopHandler)
			var wantPrefix string
			switch {
			case strings.Contains(string(rt.Schema), `"OBJECT"`):
				// Gemini's native OpenAPI subset: upper-case types; the
				// gemini adapter translates, a JSON Schema tool rejects.
				wantPrefix = "/type"
			case strings.HasPrefix(rt.File, "cohere/langchain-cohere__") &&
				(strings.Contains(string(rt.Schema), `"type":"str"`) || strings.Contains(string(rt.Schema), `"type":"int"`)):
				// langchain-cohere sends Python type names ("str", "int")
				// and null descriptions, which are not JSON Schema.
				wantPrefix = "/properties/"
			}
			if wantPrefix != "" {
				var se *schema.SchemaError
				if !errors.As(err, &se) || !strings.HasPrefix(se.Path, wantPrefix) {
					t.Fatalf("NewRawTool = %v, want a schema error at %s...", err, wantPrefix)
				}
				rejected++
				return
			}
			if err != nil {
				t.Fatalf("NewRawTool: %v\nschema: %s", err, rt.Schema)
			}
			var want, got any
			if err := json.Unmarshal(rt.Schema, &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(tool.Spec().InputSchema, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("spec schema differs from the recording (-want +got):\n%s", diff)
			}
			accepted++
		})
	}
	t.Logf("%d recorded tool definitions: %d accepted, %d rejected as not JSON Schema", len(tools), accepted, rejected)
	if accepted < 100 || rejected < 10 {
		t.Errorf("accepted %d, rejected %d: the corpus scan found less than expected", accepted, rejected)
	}
}

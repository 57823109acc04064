package tools

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

	"github.com/toolconform/conform/core"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/tools/schema"
	"go.yaml.in/yaml/v4"
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

// walkCalls calls f for every tool call in a recorded request or response
// body: OpenAI Chat and Cohere function.arguments, Anthropic tool_use
// input, Responses function_call arguments, Bedrock toolUse input, Gemini
// functionCall args.
func walkCalls(v any, f func(name string, args json.RawMessage)) {
	switch v := v.(type) {
	case map[string]any:
		str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
		if fn, ok := v["function"].(map[string]any); ok && str(fn, "name") != "" {
			if a, ok := fn["arguments"].(string); ok {
				f(str(fn, "name"), json.RawMessage(a))
			}
		}
		if str(v, "type") == "tool_use" && str(v, "name") != "" {
			b, _ := json.Marshal(v["input"])
			f(str(v, "name"), b)
		}
		if str(v, "type") == "function_call" && str(v, "name") != "" {
			if a, ok := v["arguments"].(string); ok {
				f(str(v, "name"), json.RawMessage(a))
			}
		}
		for _, k := range []string{"toolUse", "functionCall"} {
			if tu, ok := v[k].(map[string]any); ok && str(tu, "name") != "" {
				in := tu["input"]
				if in == nil {
					in = tu["args"]
				}
				b, _ := json.Marshal(in)
				f(str(tu, "name"), b)
			}
		}
		for _, x := range v {
			walkCalls(x, f)
		}
	case []any:
		for _, x := range v {
			walkCalls(x, f)
		}
	}
}

// TestRecordedCalls validates every complete tool call in the recordings
// (requests and non-streaming responses; streamed items carry partial
// arguments) against the tool definitions recorded beside it. The models'
// calls are all valid, so every problem would be a false alarm of the
// validator.
func TestRecordedCalls(t *testing.T) {
	byFile := map[string]*Registry{}
	for _, rt := range recordedTools(t) {
		tool, err := NewRawTool(rt.Name, "", rt.Schema, nopHandler)
		if err != nil {
			continue // a dialect that is not JSON Schema, see TestRecordedTools
		}
		r := byFile[rt.File]
		if r == nil {
			r = NewRegistry()
			byFile[rt.File] = r
		}
		if _, dup := r.Lookup(rt.Name); !dup {
			if err := r.Add(tool); err != nil {
				t.Fatal(err)
			}
		}
	}
	checked := 0
	for file, r := range byFile {
		if strings.HasSuffix(file, ".chunks.txt") || strings.HasSuffix(file, ".sse") {
			continue
		}
		data, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range jsonTexts(data) {
			var v any
			if json.Unmarshal(doc, &v) != nil {
				continue
			}
			walkCalls(v, func(name string, args json.RawMessage) {
				if _, ok := r.Lookup(name); !ok {
					return // a provider-run tool (web search, code execution)
				}
				checked++
				if val := r.Validate(core.Call{Name: name, Arguments: args}); !val.Valid {
					t.Errorf("%s: %s(%s): %s", file, name, args, val.Message)
				}
			})
		}
	}
	t.Logf("%d recorded calls validated", checked)
	if checked < 50 {
		t.Errorf("validated %d recorded calls, want at least 50", checked)
	}
}

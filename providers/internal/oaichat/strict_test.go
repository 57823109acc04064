package oaichat

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func parse(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

func TestStrictSchema(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty schema", ``, `{"type":"object","properties":{},"required":[],"additionalProperties":false}`},
		{"flat object, optional made nullable",
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}`,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["integer","null"]}},"required":["a","b"],"additionalProperties":false}`},
		{"nested objects",
			`{"type":"object","properties":{"loc":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}},"required":["city"]}},"required":["loc"]}`,
			`{"type":"object","properties":{"loc":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":["string","null"]}},"required":["city","zip"],"additionalProperties":false}},"required":["loc"],"additionalProperties":false}`},
		{"optional nested object becomes nullable too",
			`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"number"}}}}}`,
			`{"type":"object","properties":{"o":{"type":["object","null"],"properties":{"x":{"type":["number","null"]}},"required":["x"],"additionalProperties":false}},"required":["o"],"additionalProperties":false}`},
		{"arrays of objects",
			`{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"n":{"type":"integer"}},"required":["id"]}}},"required":["items"]}`,
			`{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"n":{"type":["integer","null"]}},"required":["id","n"],"additionalProperties":false}}},"required":["items"],"additionalProperties":false}`},
		{"$defs and $ref",
			`{"type":"object","properties":{"p":{"$ref":"#/$defs/P"},"q":{"$ref":"#/$defs/P"}},"required":["p"],"$defs":{"P":{"type":"object","properties":{"name":{"type":"string"}}}}}`,
			`{"type":"object","properties":{"p":{"$ref":"#/$defs/P"},"q":{"anyOf":[{"$ref":"#/$defs/P"},{"type":"null"}]}},"required":["p","q"],"additionalProperties":false,"$defs":{"P":{"type":"object","properties":{"name":{"type":["string","null"]}},"required":["name"],"additionalProperties":false}}}`},
		{"enum gains null when optional",
			`{"type":"object","properties":{"u":{"type":"string","enum":["c","f"]}}}`,
			`{"type":"object","properties":{"u":{"type":["string","null"],"enum":["c","f",null]}},"required":["u"],"additionalProperties":false}`},
		{"anyOf gains a null branch",
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}]}}}`,
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"object","properties":{"k":{"type":"string"}},"required":["k"],"additionalProperties":false},{"type":"null"}]}},"required":["v"],"additionalProperties":false}`},
		{"type list without null", `{"type":"object","properties":{"m":{"type":["string","integer"]}}}`,
			`{"type":"object","properties":{"m":{"type":["string","integer","null"]}},"required":["m"],"additionalProperties":false}`},
		{"untyped property", `{"type":"object","properties":{"any":{}}}`,
			`{"type":"object","properties":{"any":{"anyOf":[{},{"type":"null"}]}},"required":["any"],"additionalProperties":false}`},
		{"additionalProperties false kept, numbers kept exactly", `{"type":"object","properties":{"n":{"type":"number","maximum":1e400}},"required":["n"],"additionalProperties":false}`,
			`{"type":"object","properties":{"n":{"type":"number","maximum":1e400}},"required":["n"],"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := StrictSchema(json.RawMessage(tt.in))
			if err != nil {
				t.Fatalf("StrictSchema: %v", err)
			}
			if tt.name == "additionalProperties false kept, numbers kept exactly" {
				if diff := cmp.Diff(`{"additionalProperties":false,"properties":{"n":{"maximum":1e400,"type":"number"}},"required":["n"],"type":"object"}`, string(got)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				return
			}
			if diff := cmp.Diff(parse(t, tt.want), parse(t, string(got))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			again, err := StrictSchema(got)
			if err != nil {
				t.Fatalf("second pass: %v", err)
			}
			if diff := cmp.Diff(parse(t, string(got)), parse(t, string(again))); diff != "" {
				t.Errorf("not idempotent (-once +twice):\n%s", diff)
			}
		})
	}
}

func TestStrictSchemaErrors(t *testing.T) {
	tests := []struct {
		in, wantPath string
		want         error
	}{
		{`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}}}`, "/properties/m/additionalProperties", ErrUnsupported},
		{`{"type":"object","additionalProperties":true}`, "/additionalProperties", ErrUnsupported},
		{`{"type":`, "", ErrInvalidJSON},
		{`{} {}`, "", ErrInvalidJSON},
	}
	for _, tt := range tests {
		_, err := StrictSchema(json.RawMessage(tt.in))
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: error = %v, want %v", tt.in, err, tt.want)
			continue
		}
		if tt.wantPath != "" && !strings.Contains(err.Error(), tt.wantPath) {
			t.Errorf("%s: error %v does not name %s", tt.in, err, tt.wantPath)
		}
	}
}

// genSchema draws a random JSON Schema of objects, arrays and scalars.
func genSchema(t *rapid.T, depth int) map[string]any {
	kinds := []string{"string", "integer", "boolean", "object", "array", "enum", "anyOf"}
	if depth > 2 {
		kinds = kinds[:3]
	}
	switch rapid.SampledFrom(kinds).Draw(t, "kind") {
	case "object":
		props := map[string]any{}
		var req []any
		for i, n := 0, rapid.IntRange(0, 4).Draw(t, "nprops"); i < n; i++ {
			name := rapid.SampledFrom([]string{"a", "b", "c", "d", "e"}).Draw(t, "name")
			props[name] = genSchema(t, depth+1)
			if rapid.Bool().Draw(t, "required") {
				req = append(req, name)
			}
		}
		m := map[string]any{"type": "object", "properties": props}
		if req != nil {
			m["required"] = req
		}
		return m
	case "array":
		return map[string]any{"type": "array", "items": genSchema(t, depth+1)}
	case "enum":
		return map[string]any{"type": "string", "enum": []any{"x", "y"}}
	case "anyOf":
		return map[string]any{"anyOf": []any{genSchema(t, depth+1), genSchema(t, depth+1)}}
	default:
		return map[string]any{"type": rapid.SampledFrom(kinds[:3]).Draw(t, "scalar")}
	}
}

// TestStrictSchemaProperties: on random schemas the rewrite is idempotent
// and every object in the result is closed with every property required.
func TestStrictSchemaProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		root := genSchema(t, 0)
		root = map[string]any{"type": "object", "properties": map[string]any{"root": root}}
		in, _ := json.Marshal(root)
		once, err := StrictSchema(in)
		if err != nil {
			t.Fatalf("StrictSchema(%s): %v", in, err)
		}
		twice, err := StrictSchema(once)
		if err != nil {
			t.Fatal(err)
		}
		if string(once) != string(twice) {
			t.Fatalf("not idempotent:\n%s\n%s", once, twice)
		}
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				if props, ok := x["properties"].(map[string]any); ok {
					if x["additionalProperties"] != false {
						t.Fatalf("object without additionalProperties false: %v", x)
					}
					req, _ := x["required"].([]any)
					if len(req) != len(props) {
						t.Fatalf("object with %d properties requires %d: %v", len(props), len(req), x)
					}
				}
				for _, y := range x {
					walk(y)
				}
			case []any:
				for _, y := range x {
					walk(y)
				}
			}
		}
		var v any
		_ = json.Unmarshal(once, &v)
		walk(v)
	})
}

// FuzzStrictSchema: arbitrary bytes never panic StrictSchema; a schema it
// accepts comes out as valid JSON and a second pass changes nothing.
func FuzzStrictSchema(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string"}}}`,
		`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"enum":[1,2]}}}},"$defs":{"D":{"properties":{}}}}`,
		`{"anyOf":[{"type":"object"},true]}`, `{"items":[{"properties":{"p":{}}}]}`, `true`, `[]`, `{"properties":5}`,
		`{"type":["object","null"],"properties":{"a":{"type":["string","null"]}},"required":["b"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		once, err := StrictSchema(in)
		if err != nil {
			return
		}
		if !json.Valid(once) {
			t.Fatalf("StrictSchema(%s) = %s, not JSON", in, once)
		}
		twice, err := StrictSchema(once)
		if err != nil {
			t.Fatalf("second pass over %s: %v", once, err)
		}
		if string(once) != string(twice) {
			t.Fatalf("not idempotent on %s:\n%s\n%s", in, once, twice)
		}
	})
}

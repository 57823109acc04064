package oaichat

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/tools/schema"
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
		{"optional const is wrapped, since a type with null beside the const still refuses null",
			`{"type":"object","properties":{"c":{"type":"string","const":"v"}}}`,
			`{"type":"object","properties":{"c":{"anyOf":[{"type":"string","const":"v"},{"type":"null"}]}},"required":["c"],"additionalProperties":false}`},
		{"required const is left alone",
			`{"type":"object","properties":{"c":{"type":"string","const":"v"}},"required":["c"]}`,
			`{"type":"object","properties":{"c":{"type":"string","const":"v"}},"required":["c"],"additionalProperties":false}`},
		{"optional const null already admits null",
			`{"type":"object","properties":{"c":{"type":"null","const":null}}}`,
			`{"type":"object","properties":{"c":{"type":"null","const":null}},"required":["c"],"additionalProperties":false}`},
		{"optional enum without type is wrapped",
			`{"type":"object","properties":{"e":{"enum":["x",1]}}}`,
			`{"type":"object","properties":{"e":{"anyOf":[{"enum":["x",1]},{"type":"null"}]}},"required":["e"],"additionalProperties":false}`},
		{"enum that already lists null keeps one null",
			`{"type":"object","properties":{"u":{"type":"string","enum":["c",null]}}}`,
			`{"type":"object","properties":{"u":{"type":["string","null"],"enum":["c",null]}},"required":["u"],"additionalProperties":false}`},
		{"optional oneOf beside a type is wrapped",
			`{"type":"object","properties":{"o":{"type":"string","oneOf":[{"type":"string","enum":["a"]},{"type":"string","enum":["b"]}]}}}`,
			`{"type":"object","properties":{"o":{"anyOf":[{"type":"string","oneOf":[{"type":"string","enum":["a"]},{"type":"string","enum":["b"]}]},{"type":"null"}]}},"required":["o"],"additionalProperties":false}`},
		{"object given by its properties alone gains its type",
			`{"properties":{"p":{"properties":{"q":{"type":"string"}},"required":["q"]}},"required":["p"]}`,
			`{"type":"object","properties":{"p":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}},"required":["p"],"additionalProperties":false}`},
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

// TestStrictSchemaErrors checks that what strict mode cannot take is a
// *StrictSchemaError naming the JSON pointer of the node, never a schema
// OpenAI answers with 400 invalid_json_schema.
func TestStrictSchemaErrors(t *testing.T) {
	tests := []struct {
		name, in, wantPointer string
		want                  error
	}{
		{"additionalProperties schema", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}}}`, "/properties/m/additionalProperties", core.ErrUnsupported},
		{"additionalProperties true", `{"type":"object","additionalProperties":true}`, "/additionalProperties", core.ErrUnsupported},
		{"truncated JSON", `{"type":`, "", core.ErrMalformed},
		{"two values", `{} {}`, "", core.ErrMalformed},
		// Function parameters must be an object schema.
		{"root array", `{"type":"array","items":{"type":"string"}}`, "/type", core.ErrUnsupported},
		{"root scalar type list", `{"type":["string","null"]}`, "/type", core.ErrUnsupported},
		{"root nullable object", `{"type":["object","null"],"properties":{}}`, "/type", core.ErrUnsupported},
		{"root without type", `{}`, "", core.ErrUnsupported},
		{"root anyOf", `{"anyOf":[{"type":"object","properties":{}},{"type":"null"}]}`, "", core.ErrUnsupported},
		{"root object with anyOf", `{"type":"object","properties":{},"anyOf":[{"required":[]}]}`, "/anyOf", core.ErrUnsupported},
		{"root boolean schema", `true`, "", core.ErrUnsupported},
		{"root JSON array", `[]`, "", core.ErrUnsupported},
		// Strict mode needs a type on every node: {} ("any") is refused.
		{"untyped property", `{"type":"object","properties":{"any":{}}}`, "/properties/any", core.ErrUnsupported},
		{"untyped required property", `{"type":"object","properties":{"any":{"description":"anything"}},"required":["any"]}`, "/properties/any", core.ErrUnsupported},
		{"untyped array items", `{"type":"object","properties":{"l":{"type":"array","items":{}}}}`, "/properties/l/items", core.ErrUnsupported},
		{"untyped anyOf member", `{"type":"object","properties":{"v":{"anyOf":[{},{"type":"null"}]}}}`, "/properties/v/anyOf/0", core.ErrUnsupported},
		{"untyped definition", `{"type":"object","properties":{},"$defs":{"D":{}}}`, "/$defs/D", core.ErrUnsupported},
		{"pointer escapes / and ~", `{"type":"object","properties":{"a/b~c":{}}}`, "/properties/a~1b~0c", core.ErrUnsupported},
		// A type that names no JSON Schema type, and properties on a node
		// that cannot be an object (found by FuzzStrictSchema: the node was
		// left open).
		{"empty type name", `{"properties":{"x":{"type":"","properties":{}}}}`, "/properties/x/type/0", core.ErrUnsupported},
		{"unknown type in a list", `{"type":"object","properties":{"x":{"type":["string","text"]}}}`, "/properties/x/type/1", core.ErrUnsupported},
		{"type not a name", `{"type":"object","properties":{"x":{"type":7}}}`, "/properties/x/type", core.ErrUnsupported},
		{"properties on a string", `{"type":"object","properties":{"x":{"type":"string","properties":{"y":{"type":"string"}}}}}`, "/properties/x/properties", core.ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := StrictSchema(json.RawMessage(tt.in))
			if !errors.Is(err, tt.want) {
				t.Fatalf("StrictSchema(%s) = %s, %v; want an error wrapping %v", tt.in, out, err, tt.want)
			}
			var se *StrictSchemaError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *StrictSchemaError", err)
			}
			if se.Pointer != tt.wantPointer {
				t.Errorf("Pointer = %q, want %q (error %v)", se.Pointer, tt.wantPointer, err)
			}
			if !strings.HasPrefix(err.Error(), "strict schema: #"+tt.wantPointer+": ") {
				t.Errorf("error %q does not start with the operation and the pointer #%s", err, tt.wantPointer)
			}
		})
	}
}

// TestStrictSchemaOptionalAcceptsNull: for random property schemas, the
// rewrite of an object holding the property as optional accepts the
// property set to null, and still accepts a value the original accepted
// (H03: "optional" must become "nullable", not "forced").
func TestStrictSchemaOptionalAcceptsNull(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		prop := genSchema(t, 0)
		in, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"p": prop}})
		out, err := StrictSchema(in)
		if err != nil {
			t.Fatalf("StrictSchema(%s): %v", in, err)
		}
		v, err := schema.Compile(out)
		if err != nil {
			t.Fatalf("rewritten schema %s does not compile: %v", out, err)
		}
		if probs := v.ValidateValue(map[string]any{"p": nil}); len(probs) != 0 {
			t.Fatalf("rewritten schema %s refuses {\"p\":null}: %v", out, probs)
		}
		if x, ok := sampleValue(prop); ok {
			if probs := v.ValidateValue(map[string]any{"p": x}); len(probs) != 0 {
				t.Fatalf("rewritten schema %s refuses {\"p\":%v}, which the original accepts: %v", out, x, probs)
			}
		}
	})
}

// sampleValue gives a value the schema s (as genSchema draws it) accepts,
// when there is an easy one.
func sampleValue(s map[string]any) (any, bool) {
	if c, ok := s["const"]; ok {
		return c, true
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0], true
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if bs, ok := s[k].([]any); ok && len(bs) > 0 {
			if b, ok := bs[0].(map[string]any); ok {
				return sampleValue(b)
			}
			return nil, false
		}
	}
	switch s["type"] {
	case "string":
		return "s", true
	case "integer":
		return json.Number("1"), true
	case "boolean":
		return true, true
	case "array":
		return []any{}, true
	}
	return nil, false
}

// genSchema draws a random JSON Schema of objects, arrays and scalars.
func genSchema(t *rapid.T, depth int) map[string]any {
	kinds := []string{"string", "integer", "boolean", "object", "array", "enum", "anyOf", "const", "bareEnum", "oneOf"}
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
	case "const":
		return map[string]any{"type": "string", "const": rapid.SampledFrom([]string{"v", "w"}).Draw(t, "const")}
	case "bareEnum":
		return map[string]any{"enum": []any{"x", json.Number("1")}}
	case "oneOf":
		return map[string]any{"type": "string", "oneOf": []any{map[string]any{"type": "string", "enum": []any{"a"}}, map[string]any{"type": "string", "enum": []any{"b"}}}}
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
		checkClosed(t, once)
	})
}

// checkClosed fails unless the rewritten schema has an object root and
// every object in it has type object, additionalProperties false and every
// property required.
func checkClosed(t interface{ Fatalf(string, ...any) }, out []byte) {
	var root any
	if err := json.Unmarshal(out, &root); err != nil {
		t.Fatalf("rewritten schema %s: %v", out, err)
	}
	if m, ok := root.(map[string]any); !ok || m["type"] != "object" {
		t.Fatalf("rewritten schema %s has no object root", out)
	}
	// walk visits the schema positions, not data such as const, enum or
	// unknown keywords, which may hold anything.
	var walk func(v any)
	walk = func(v any) {
		x, ok := v.(map[string]any)
		if !ok {
			return
		}
		props, isObj := x["properties"].(map[string]any)
		if isObj {
			if x["additionalProperties"] != false {
				t.Fatalf("object without additionalProperties false: %v", x)
			}
			if x["type"] == nil {
				t.Fatalf("object without a type: %v", x)
			}
			req, _ := x["required"].([]any)
			if len(req) != len(props) {
				t.Fatalf("object with %d properties requires %d: %v", len(props), len(req), x)
			}
		}
		for _, y := range props {
			walk(y)
		}
		for _, k := range []string{"items", "not", "additionalItems", "contains"} {
			walk(x[k])
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems", "items"} {
			if ys, ok := x[k].([]any); ok {
				for _, y := range ys {
					walk(y)
				}
			}
		}
		for _, k := range []string{"$defs", "definitions"} {
			if ds, ok := x[k].(map[string]any); ok {
				for _, y := range ds {
					walk(y)
				}
			}
		}
	}
	walk(root)
}

// FuzzStrictSchema: arbitrary bytes never panic StrictSchema; a schema it
// accepts comes out as valid JSON with an object root and every object
// closed, and a second pass changes nothing. Seeds for the H03 holes
// (optional const, untyped nodes, non-object roots) are in
// testdata/fuzz/FuzzStrictSchema.
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
		checkClosed(t, once)
	})
}

// TestEncodeRequestStrictRootNotObject: a strict tool whose parameters are
// not an object schema is refused by EncodeRequest, naming the tool's place
// and the schema pointer, instead of being sent for a 400.
func TestEncodeRequestStrictRootNotObject(t *testing.T) {
	req := &core.Request{Model: "m", Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}},
		Tools: []core.ToolSpec{
			{Name: "ok", InputSchema: json.RawMessage(`{"type":"object"}`), Strict: true},
			{Name: "list", InputSchema: json.RawMessage(`{"type":"array","items":{"type":"string"}}`), Strict: true},
		}}
	body, err := New(Config{Name: "openai-chat"}).EncodeRequest(req)
	var se *StrictSchemaError
	if !errors.Is(err, core.ErrUnsupported) || !errors.As(err, &se) {
		t.Fatalf("EncodeRequest = %s, %v; want a *StrictSchemaError wrapping core.ErrUnsupported", body, err)
	}
	if se.Pointer != "/type" || !strings.Contains(err.Error(), "tools[1]") {
		t.Errorf("error %q (pointer %q) does not name tools[1] and #/type", err, se.Pointer)
	}
	// The same tool without strict is sent as it is.
	req.Tools[1].Strict = false
	if _, err := New(Config{Name: "openai-chat"}).EncodeRequest(req); err != nil {
		t.Errorf("non-strict array schema: %v", err)
	}
}

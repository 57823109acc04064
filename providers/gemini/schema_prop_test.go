package gemini

import (
	"encoding/json"
	"errors"
	"testing"

	"pgregory.net/rapid"

	"github.com/toolconform/conform/core"
)

// genSchema draws a JSON Schema mixing the subset Gemini accepts with the
// keywords it rejects (H01, H02).
func genSchema(t *rapid.T, depth int, label string) map[string]any {
	s := map[string]any{}
	types := []any{"string", "integer", "number", "boolean", "object", "array", []any{"string", "null"}, []any{"integer", "null"}}
	if depth == 0 || rapid.Bool().Draw(t, label+"_leaf") {
		s["type"] = rapid.SampledFrom(types[:4]).Draw(t, label+"_t")
	} else if rapid.Bool().Draw(t, label+"_obj") {
		s["type"] = "object"
		props := map[string]any{}
		var names []any
		for i := rapid.IntRange(0, 3).Draw(t, label+"_np"); i > 0; i-- {
			n := rapid.StringMatching(`[a-z]{1,5}`).Draw(t, label+"_pn")
			props[n] = genSchema(t, depth-1, label+"_p")
			names = append(names, n)
		}
		s["properties"] = props
		if rapid.Bool().Draw(t, label+"_req") {
			names = append(names, "ghost")
			s["required"] = names
		}
		if rapid.Bool().Draw(t, label+"_ap") {
			s["additionalProperties"] = rapid.Bool().Draw(t, label+"_apv")
		}
	} else {
		s["type"] = rapid.SampledFrom(types).Draw(t, label+"_tt")
		if rapid.Bool().Draw(t, label+"_items") {
			s["type"] = "array"
			s["items"] = genSchema(t, depth-1, label+"_i")
		}
	}
	for _, k := range []string{"title", "default", "examples", "$comment", "const", "description", "format"} {
		if rapid.IntRange(0, 4).Draw(t, label+"_"+k) == 0 {
			switch k {
			case "examples":
				s[k] = []any{"x"}
			case "format":
				s[k] = rapid.SampledFrom([]string{"uri", "date-time", "int64", "email"}).Draw(t, label+"_fmt")
			default:
				s[k] = "v"
			}
		}
	}
	if rapid.IntRange(0, 5).Draw(t, label+"_anyof") == 0 {
		s["anyOf"] = []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}}
		delete(s, "type")
	}
	return s
}

// rejected lists the keywords Gemini answers with 400 "Unknown name" (H01),
// written out here rather than derived from the sanitiser's own table.
var rejected = map[string]bool{
	"additionalProperties": true, "$schema": true, "$ref": true, "$defs": true,
	"definitions": true, "const": true, "default": true, "title": true,
	"examples": true, "$comment": true, "oneOf": true, "allOf": true,
}

// checkSubset reports the first keyword outside Gemini's subset, or a
// required name absent from properties, anywhere in a sanitised schema.
func checkSubset(t *rapid.T, s map[string]any, path string) {
	for k, v := range s {
		if rejected[k] || !schemaKeep[k] {
			t.Fatalf("%s: keyword %s survived", path, k)
		}
		switch k {
		case "properties":
			for n, p := range v.(map[string]any) {
				checkSubset(t, p.(map[string]any), path+".properties."+n)
			}
		case "items":
			checkSubset(t, v.(map[string]any), path+".items")
		case "anyOf":
			for _, m := range v.([]any) {
				checkSubset(t, m.(map[string]any), path+".anyOf")
			}
		case "type":
			if _, isList := v.([]any); isList {
				t.Fatalf("%s: type is still a list", path)
			}
		case "required":
			props, _ := s["properties"].(map[string]any)
			for _, n := range v.([]any) {
				if _, ok := props[n.(string)]; !ok {
					t.Fatalf("%s: required %v is not a property", path, n)
				}
			}
		}
	}
}

// TestPropSanitizeSchema checks on random schemas that SanitizeSchema either
// fails with core.ErrUnsupported or gives a schema inside the subset, rooted
// at an object, that sanitises to itself with no rewrite.
func TestPropSanitizeSchema(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		root := genSchema(t, 3, "root")
		if rapid.Bool().Draw(t, "defs") {
			root["$defs"] = map[string]any{"D": genSchema(t, 1, "def")}
			if props, ok := root["properties"].(map[string]any); ok {
				props["ref"] = map[string]any{"$ref": "#/$defs/D", "description": "via ref"}
			}
		}
		if rapid.Bool().Draw(t, "schema") {
			root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
		}
		in, _ := json.Marshal(root)
		out, _, err := SanitizeSchema(in)
		if err != nil {
			if !errors.Is(err, core.ErrUnsupported) {
				t.Fatalf("error %v does not wrap core.ErrUnsupported", err)
			}
			return
		}
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("output is not JSON: %v", err)
		}
		if !isObjectType(got["type"]) {
			t.Fatalf("root type %v is not object", got["type"])
		}
		checkSubset(t, got, "$")
		again, rw, err := SanitizeSchema(out)
		if err != nil || string(again) != string(out) || len(rw) != 0 {
			t.Fatalf("not idempotent: %s -> %s, %v, %v", out, again, rw, err)
		}
	})
}

func FuzzSanitizeSchema(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":["string","null"],"const":"x"}}}`))
	f.Add([]byte(`{"type":"object","$defs":{"N":{"properties":{"n":{"$ref":"#/$defs/N"}}}},"properties":{"h":{"$ref":"#/$defs/N"}}}`))
	f.Add([]byte(`{"type":6,"properties":{"e":{"type":1}},"required":["e","z"]}`))
	f.Add([]byte(`{"properties":{"a":{"allOf":[{"anyOf":[{"type":"null"}]}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, err := SanitizeSchema(data)
		if err != nil {
			if !errors.Is(err, core.ErrUnsupported) {
				t.Fatalf("error %v does not wrap core.ErrUnsupported", err)
			}
			return
		}
		again, rw, err := SanitizeSchema(out)
		if err != nil || string(again) != string(out) || len(rw) != 0 {
			t.Fatalf("not idempotent: %s -> %s, %v, %v", out, again, rw, err)
		}
	})
}

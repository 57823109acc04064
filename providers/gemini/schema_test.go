package gemini

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

func TestSanitizeSchema(t *testing.T) {
	tests := []struct {
		name     string
		in, want string
		rewrites []string
	}{
		{
			name:     "H01 drops additionalProperties, $schema, title, default, examples",
			in:       `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"Args","type":"object","additionalProperties":false,"properties":{"q":{"type":"string","default":"x","examples":["a"],"title":"Q"}}}`,
			want:     `{"type":"object","properties":{"q":{"type":"string"}}}`,
			rewrites: []string{"$.$schema: dropped unsupported keyword $schema", "$.additionalProperties: dropped unsupported keyword additionalProperties", "$.properties.q.default: dropped unsupported keyword default", "$.properties.q.examples: dropped unsupported keyword examples", "$.properties.q.title: dropped unsupported keyword title", "$.title: dropped unsupported keyword title"},
		},
		{
			name:     "H01 const becomes an enum of one",
			in:       `{"type":"object","properties":{"k":{"type":"string","const":"v"}}}`,
			want:     `{"type":"object","properties":{"k":{"type":"string","enum":["v"]}}}`,
			rewrites: []string{"$.properties.k.const: replaced const with an enum of one value"},
		},
		{
			name:     "H01 type with null becomes nullable",
			in:       `{"type":"object","properties":{"n":{"type":["integer","null"]}}}`,
			want:     `{"type":"object","properties":{"n":{"type":"integer","nullable":true}}}`,
			rewrites: []string{`$.properties.n.type: replaced type "null" in a list of types with nullable`},
		},
		{
			name:     "H01 anyOf with a null member becomes nullable",
			in:       `{"type":"object","properties":{"n":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null}}}`,
			want:     `{"type":"object","properties":{"n":{"type":"string","nullable":true}}}`,
			rewrites: []string{"$.properties.n.anyOf[1]: replaced a null alternative with nullable", "$.properties.n.anyOf: merged the single remaining alternative into its parent", "$.properties.n.default: dropped unsupported keyword default"},
		},
		{
			name:     "H01 $ref to $defs is inlined",
			in:       `{"type":"object","$defs":{"Addr":{"type":"object","properties":{"city":{"type":"string"}},"title":"Addr"}},"properties":{"home":{"$ref":"#/$defs/Addr","description":"where"}}}`,
			want:     `{"type":"object","properties":{"home":{"type":"object","properties":{"city":{"type":"string"}},"description":"where"}}}`,
			rewrites: []string{"$.$defs: dropped unsupported keyword $defs", "$.properties.home: inlined $ref #/$defs/Addr", "$.properties.home.title: dropped unsupported keyword title"},
		},
		{
			name:     "H01 definitions are inlined too, nested refs included",
			in:       `{"type":"object","definitions":{"A":{"type":"object","properties":{"b":{"$ref":"#/definitions/B"}}},"B":{"type":"integer"}},"properties":{"a":{"$ref":"#/definitions/A"}}}`,
			want:     `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"integer"}}}}}`,
			rewrites: []string{"$.definitions: dropped unsupported keyword definitions", "$.properties.a: inlined $ref #/definitions/A", "$.properties.a.properties.b: inlined $ref #/definitions/B"},
		},
		{
			name:     "H02 required names absent from properties are dropped",
			in:       `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","ghost"]}`,
			want:     `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
			rewrites: []string{"$.required: dropped required name ghost absent from properties"},
		},
		{
			name:     "H02 required with no properties disappears",
			in:       `{"type":"object","required":["x"]}`,
			want:     `{"type":"object"}`,
			rewrites: []string{"$.required: dropped required name x absent from properties"},
		},
		{
			name: "gRPC-gateway integer types are kept",
			in:   `{"type":6,"properties":{"e":{"type":1}},"required":["e"]}`,
			want: `{"type":6,"properties":{"e":{"type":1}},"required":["e"]}`,
		},
		{
			name: "upper-case OpenAPI types are kept",
			in:   `{"type":"OBJECT","properties":{"a":{"type":"INTEGER","description":"d"}}}`,
			want: `{"type":"OBJECT","properties":{"a":{"type":"INTEGER","description":"d"}}}`,
		},
		{
			name:     "oneOf becomes anyOf; unsupported format dropped",
			in:       `{"type":"object","properties":{"v":{"oneOf":[{"type":"string","format":"uri"},{"type":"integer","format":"int64"}]}}}`,
			want:     `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer","format":"int64"}]}}}`,
			rewrites: []string{"$.properties.v.oneOf: replaced oneOf with anyOf", "$.properties.v.oneOf[0].format: dropped unsupported format uri"},
		},
		{
			name:     "a root without type but with properties is an object",
			in:       `{"properties":{"a":{"type":"string"}}}`,
			want:     `{"type":"object","properties":{"a":{"type":"string"}}}`,
			rewrites: []string{"$: added type object beside properties"},
		},
		{
			name:     "items are sanitised",
			in:       `{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","additionalProperties":{"type":"string"}}}}}`,
			want:     `{"type":"object","properties":{"l":{"type":"array","items":{"type":"object"}}}}`,
			rewrites: []string{"$.properties.l.items.additionalProperties: dropped unsupported keyword additionalProperties"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, rw, err := SanitizeSchema(json.RawMessage(tt.in))
			if err != nil {
				t.Fatalf("SanitizeSchema: %v", err)
			}
			adaptertest.CheckJSON(t, []byte(tt.want), out)
			var got []string
			for _, r := range rw {
				got = append(got, r.String())
			}
			if diff := cmp.Diff(tt.rewrites, got); diff != "" {
				t.Errorf("rewrites (-want +got):\n%s", diff)
			}
			again, rw2, err := SanitizeSchema(out)
			if err != nil {
				t.Fatalf("second pass: %v", err)
			}
			if string(again) != string(out) || len(rw2) != 0 {
				t.Errorf("not idempotent: %s -> %s with %v", out, again, rw2)
			}
		})
	}
}

func TestSanitizeSchemaErrors(t *testing.T) {
	tests := []struct {
		name, in, wantIn string
	}{
		{"H02 non-object root", `{"type":"string"}`, "$: not supported by the protocol: parameters must be an object schema"},
		{"H02 array root", `[1]`, "parameters must be an object schema, got array"},
		{"recursive $ref names the path", `{"type":"object","$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"}}}},"properties":{"head":{"$ref":"#/$defs/N"}}}`, `$.properties.head.properties.next: not supported by the protocol: recursive $ref "#/$defs/N"`},
		{"unresolved $ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/Missing"}}}`, `$.properties.a: not supported by the protocol: $ref "#/$defs/Missing" does not resolve`},
		{"remote $ref", `{"type":"object","properties":{"a":{"$ref":"https://x/y.json"}}}`, "is not a local"},
		{"null-only type", `{"type":"object","properties":{"a":{"type":["null"]}}}`, "$.properties.a.type"},
		{"tuple items", `{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`, "$.properties.a.items"},
		{"allOf of two", `{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"minLength":1}]}}}`, "$.properties.a.allOf"},
		{"not JSON", `{"type":`, "gemini: sanitize schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := SanitizeSchema(json.RawMessage(tt.in))
			if err == nil {
				t.Fatal("SanitizeSchema succeeded")
			}
			if !errors.Is(err, core.ErrUnsupported) {
				t.Errorf("error %q does not wrap core.ErrUnsupported", err)
			}
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q does not contain %q", err, tt.wantIn)
			}
		})
	}
}

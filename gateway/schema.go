package gateway

import (
	"encoding/json"

	"github.com/toolconform/conform/internal/jsonvalue"
)

// maxSchemaDepth bounds the nesting normalSchema walks; a deeper schema is
// compared as it is.
const maxSchemaDepth = 64

// sameSchema reports whether two input schemas accept the same instances
// by their normal forms (normalSchema): a gateway may write an object
// schema with empty "properties", "required" or "$defs", which accept
// what their absence accepts (JSON Schema 2020-12, "properties": omitting
// it has the same behaviour as an empty object; "required": an empty array
// requires nothing; "$defs" only holds schemas for reference). Schemas
// that are not JSON are equal only as the same bytes.
func sameSchema(a, b json.RawMessage) bool {
	va, okA := jsonvalue.Decode(a)
	vb, okB := jsonvalue.Decode(b)
	if !okA || !okB {
		return jsonEqual(a, b)
	}
	return jsonvalue.Equal(normalSchema(va, 0), normalSchema(vb, 0))
}

// schemaMaps are the keywords whose value maps names to subschemas,
// schemaLists those whose value is a list of subschemas, schemaOne
// those whose value is one subschema.
var (
	schemaMaps  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaLists = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	schemaOne   = []string{"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"}
)

// normalSchema returns a copy of schema v without the keywords that accept
// everything when empty ("properties", "required", "$defs",
// "definitions"), in every subschema, to maxSchemaDepth.
func normalSchema(v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok || depth >= maxSchemaDepth {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	for _, k := range []string{"properties", "$defs", "definitions"} {
		if sub, ok := out[k].(map[string]any); ok && len(sub) == 0 {
			delete(out, k)
		}
	}
	if req, ok := out["required"].([]any); ok && len(req) == 0 {
		delete(out, "required")
	}
	for _, k := range schemaMaps {
		if sub, ok := out[k].(map[string]any); ok {
			n := make(map[string]any, len(sub))
			for name, s := range sub {
				n[name] = normalSchema(s, depth+1)
			}
			out[k] = n
		}
	}
	for _, k := range schemaLists {
		if list, ok := out[k].([]any); ok {
			n := make([]any, len(list))
			for i, s := range list {
				n[i] = normalSchema(s, depth+1)
			}
			out[k] = n
		}
	}
	for _, k := range schemaOne {
		if s, ok := out[k]; ok {
			out[k] = normalSchema(s, depth+1)
		}
	}
	return out
}

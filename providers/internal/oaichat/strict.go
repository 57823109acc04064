package oaichat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// StrictSchema rewrites a JSON Schema into the form OpenAI strict mode
// accepts (H03): every object schema gets "additionalProperties": false and
// lists every property in "required"; a property that was optional becomes
// nullable instead, as type [T, "null"] when it has a type (with null added
// to an enum), else as anyOf with {"type": "null"}. The rewrite recurses
// through properties, items, prefixItems, anyOf, oneOf, allOf, not, $defs and
// definitions, and is idempotent. An empty schema becomes the empty object
// schema.
//
// A schema that strict mode cannot express is an error naming its JSON
// pointer: a non-boolean additionalProperties (a map), or additionalProperties
// true, since forcing false would change what the schema accepts.
func StrictSchema(schema json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return json.RawMessage(`{"additionalProperties":false,"properties":{},"required":[],"type":"object"}`), nil
	}
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("strict schema: %w: %v", ErrInvalidJSON, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("strict schema: %w: data after the schema", ErrInvalidJSON)
	}
	out, err := strictNode(v, "")
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("strict schema: %w", err)
	}
	return b, nil
}

func strictNode(v any, ptr string) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil // boolean schemas and the like stay as they are
	}
	out := make(map[string]any, len(m)+2)
	for k, x := range m {
		out[k] = x
	}
	for _, k := range []string{"items", "not", "additionalItems", "contains"} {
		if x, ok := out[k]; ok {
			r, err := strictNode(x, ptr+"/"+k)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems", "items"} {
		if xs, ok := out[k].([]any); ok {
			ys := make([]any, len(xs))
			for i, x := range xs {
				r, err := strictNode(x, fmt.Sprintf("%s/%s/%d", ptr, k, i))
				if err != nil {
					return nil, err
				}
				ys[i] = r
			}
			out[k] = ys
		}
	}
	for _, k := range []string{"$defs", "definitions"} {
		if defs, ok := out[k].(map[string]any); ok {
			nd := make(map[string]any, len(defs))
			for name, d := range defs {
				r, err := strictNode(d, ptr+"/"+k+"/"+name)
				if err != nil {
					return nil, err
				}
				nd[name] = r
			}
			out[k] = nd
		}
	}
	if !isObjectSchema(out) {
		return out, nil
	}
	if ap, ok := out["additionalProperties"]; ok && ap != false {
		return nil, fmt.Errorf("strict schema: %s/additionalProperties: %w: strict mode needs additionalProperties false, schema allows extra properties", ptr, ErrUnsupported)
	}
	props, _ := out["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	required := map[string]bool{}
	if rs, ok := out["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	np := make(map[string]any, len(props))
	for name, p := range props {
		names = append(names, name)
		r, err := strictNode(p, ptr+"/properties/"+name)
		if err != nil {
			return nil, err
		}
		if !required[name] {
			r = nullable(r)
		}
		np[name] = r
	}
	slices.Sort(names)
	req := make([]any, len(names))
	for i, n := range names {
		req[i] = n
	}
	out["properties"] = np
	out["required"] = req
	out["additionalProperties"] = false
	return out, nil
}

func isObjectSchema(m map[string]any) bool {
	switch t := m["type"].(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	_, hasProps := m["properties"]
	return hasProps
}

// nullable makes a property schema accept null.
func nullable(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return map[string]any{"anyOf": []any{v, map[string]any{"type": "null"}}}
	}
	out := make(map[string]any, len(m)+1)
	for k, x := range m {
		out[k] = x
	}
	if enum, ok := out["enum"].([]any); ok && !slices.Contains(enum, nil) {
		out["enum"] = append(slices.Clone(enum), nil)
	}
	switch t := out["type"].(type) {
	case string:
		if t != "null" {
			out["type"] = []any{t, "null"}
		}
		return out
	case []any:
		if !slices.Contains(t, any("null")) {
			out["type"] = append(slices.Clone(t), "null")
		}
		return out
	}
	if any_, ok := out["anyOf"].([]any); ok {
		for _, x := range any_ {
			if xm, ok := x.(map[string]any); ok && xm["type"] == "null" {
				return out
			}
		}
		out["anyOf"] = append(slices.Clone(any_), map[string]any{"type": "null"})
		return out
	}
	return map[string]any{"anyOf": []any{m, map[string]any{"type": "null"}}}
}

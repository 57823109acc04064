package oaichat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolconform/conform/core"
)

// StrictSchemaError is a schema that OpenAI strict mode cannot take, or that
// StrictSchema cannot rewrite without changing what it accepts. Pointer is
// the JSON pointer of the faulty schema node ("" for the root). It wraps
// core.ErrUnsupported, or core.ErrMalformed for bytes that are not JSON.
type StrictSchemaError struct {
	Pointer string
	Err     error
}

func (e *StrictSchemaError) Error() string {
	return fmt.Sprintf("strict schema: #%s: %v", e.Pointer, e.Err)
}

func (e *StrictSchemaError) Unwrap() error { return e.Err }

// unsupported returns a *StrictSchemaError at ptr wrapping core.ErrUnsupported.
func unsupported(ptr, format string, args ...any) error {
	return &StrictSchemaError{Pointer: ptr, Err: fmt.Errorf("%w: %s", core.ErrUnsupported, fmt.Sprintf(format, args...))}
}

// StrictSchema rewrites a JSON Schema into the form OpenAI strict mode
// accepts (H03): every object schema gets "additionalProperties": false and
// lists every property in "required"; a property that was optional becomes
// nullable instead. A typed property gains "null" in its type (and null in
// its enum); a property whose other keywords would still refuse null (a
// non-null const, allOf, oneOf, not) and one without a type ($ref, enum
// alone) is wrapped as anyOf [original, {"type": "null"}]; an anyOf gains a
// {"type": "null"} member. An object schema given by its properties alone
// gains "type": "object". The rewrite recurses through properties, items,
// prefixItems, anyOf, oneOf, allOf, not, $defs and definitions, and is
// idempotent. An empty schema (no bytes) becomes the empty object schema.
//
// A schema strict mode cannot express is a *StrictSchemaError naming the
// JSON pointer of the node, wrapping core.ErrUnsupported:
//
//   - a root that is not an object schema: function parameters and
//     structured outputs must be "type": "object" (not a type list, not
//     anyOf at the root);
//   - a schema node with no type (such as {}, "any"), since strict mode
//     requires one on every node ("schema must have a 'type' key");
//   - a non-boolean additionalProperties (a map), or additionalProperties
//     true, since forcing false would change what the schema accepts.
//
// Sources: OpenAI's Structured Outputs guide, "Supported schemas" (root
// objects must be an object and not anyOf; all fields required, optional
// ones emulated as a union with null; additionalProperties false on every
// object), and the 400 "In context=('properties', ..., 'items'), schema
// must have a 'type' key" reported for {} nodes (can1357/oh-my-pi #211).
// Rewriting {} to some type was rejected: any choice would change what the
// tool accepts without saying so. Callers name the tool: the Chat
// Completions encoder by index and name in DecodeError.Path (tools[1] "echo":
// strict schema: #/properties/x: ...), the Responses encoder by the tool's
// name (tool "echo").
func StrictSchema(schema json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return json.RawMessage(`{"additionalProperties":false,"properties":{},"required":[],"type":"object"}`), nil
	}
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &StrictSchemaError{Err: fmt.Errorf("%w: %v", core.ErrMalformed, err)}
	}
	if dec.More() {
		return nil, &StrictSchemaError{Err: fmt.Errorf("%w: data after the schema", core.ErrMalformed)}
	}
	if err := checkRoot(v); err != nil {
		return nil, err
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

// checkRoot refuses a root that strict mode does not take: function
// parameters (and structured outputs) must be an object schema, not an
// array, a scalar, a bare anyOf or a boolean schema.
func checkRoot(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return unsupported("", "strict mode needs an object schema at the root, got %s", jsonKind(v))
	}
	t, typed := m["type"]
	if t == "object" || (!typed && isObjectSchema(m)) {
		if _, ok := m["anyOf"]; ok {
			return unsupported("/anyOf", "strict mode does not allow anyOf at the root")
		}
		return nil
	}
	if typed {
		return unsupported("/type", "strict mode needs \"type\": \"object\" at the root, got %s", compact(t))
	}
	return unsupported("", "strict mode needs \"type\": \"object\" at the root, schema has no type")
}

// jsonKind names the JSON kind of a decoded value for an error message.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean schema"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	}
	return "a schema"
}

// compact is v as JSON, for error messages.
func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// typeKeywords are the keywords that give a schema node its type in strict
// mode's eyes: a node with none of them matches anything, which strict
// mode refuses.
var typeKeywords = []string{"type", "$ref", "anyOf", "oneOf", "allOf", "not", "enum", "const"}

// pointerToken escapes a property or definition name for a JSON pointer
// (RFC 6901).
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
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
				r, err := strictNode(d, ptr+"/"+k+"/"+pointerToken(name))
				if err != nil {
					return nil, err
				}
				nd[name] = r
			}
			out[k] = nd
		}
	}
	if err := checkTypes(out, ptr); err != nil {
		return nil, err
	}
	if !isObjectSchema(out) {
		if !slices.ContainsFunc(typeKeywords, func(k string) bool { _, ok := out[k]; return ok }) {
			return nil, unsupported(ptr, "strict mode needs a type on every schema node, this one has none and accepts any value")
		}
		return out, nil
	}
	if ap, ok := out["additionalProperties"]; ok && ap != false {
		return nil, unsupported(ptr+"/additionalProperties", "strict mode needs additionalProperties false, schema allows extra properties")
	}
	if _, ok := out["type"]; !ok {
		// An object given by its properties alone: strict mode wants the
		// type spelled out.
		out["type"] = "object"
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
		r, err := strictNode(p, ptr+"/properties/"+pointerToken(name))
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

// jsonTypes are the type names of JSON Schema.
var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// checkTypes refuses a "type" that names no JSON Schema type, and
// properties on a schema whose type rules out objects: such a node could not
// be closed as strict mode needs, and what it was meant to accept is
// unclear.
func checkTypes(m map[string]any, ptr string) error {
	var names []any
	switch t := m["type"].(type) {
	case nil:
		return nil
	case string:
		names = []any{t}
	case []any:
		names = t
	default:
		return unsupported(ptr+"/type", "type must be a type name or a list of them, not %s", jsonKind(t))
	}
	for i, n := range names {
		if s, ok := n.(string); !ok || !slices.Contains(jsonTypes, s) {
			return unsupported(fmt.Sprintf("%s/type/%d", ptr, i), "%s is not a JSON Schema type (one of %v)", compact(n), jsonTypes)
		}
	}
	if _, hasProps := m["properties"]; hasProps && !slices.Contains(names, any("object")) {
		return unsupported(ptr+"/properties", "properties on a schema whose type %s is not object", compact(m["type"]))
	}
	return nil
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

// orNull wraps a schema as anyOf [schema, {"type": "null"}].
func orNull(v any) any {
	return map[string]any{"anyOf": []any{v, map[string]any{"type": "null"}}}
}

// nullable makes a property schema accept null.
func nullable(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return orNull(v)
	}
	if c, ok := m["const"]; ok {
		if c == nil {
			return m // const null already is null
		}
		// Adding "null" to the type would leave the const ruling null
		// out: the property would stay forced.
		return orNull(m)
	}
	for _, k := range []string{"allOf", "oneOf", "not"} {
		if _, ok := m[k]; ok {
			// Each would have to admit null too; wrapping says it once.
			return orNull(m)
		}
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
	return orNull(m)
}

// OpenAIRootKeywords are the keywords OpenAI refuses at the top level of a
// function's parameters, strict or not: "Invalid schema for function 'x':
// schema must have type 'object' and not have
// 'oneOf'/'anyOf'/'allOf'/'enum'/'const'/'not' at the top level"
// (invalid_function_parameters; nspady/google-calendar-mcp #39,
// goruck/home-generative-agent PR #545).
var OpenAIRootKeywords = []string{"oneOf", "anyOf", "allOf", "enum", "const", "not"}

// RootKeyword returns the first of keywords that schema holds at its top
// level, or "". A schema that is not a JSON object holds none.
func RootKeyword(schema json.RawMessage, keywords []string) string {
	if len(keywords) == 0 {
		return ""
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil {
		return ""
	}
	for _, k := range keywords {
		if _, ok := top[k]; ok {
			return k
		}
	}
	return ""
}

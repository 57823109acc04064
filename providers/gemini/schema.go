package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolconform/conform/core"
)

// Rewrite is one change SanitizeSchema made, at a JSON path of the input
// schema ("$" is the root).
type Rewrite struct {
	Path   string `json:"path"`
	Action string `json:"action"`
}

func (r Rewrite) String() string { return r.Path + ": " + r.Action }

// schemaKeep lists the keywords of the OpenAPI subset Gemini's
// FunctionDeclaration.parameters accepts; every other keyword is dropped
// and reported (H01).
var schemaKeep = map[string]bool{
	"type": true, "format": true, "description": true, "nullable": true,
	"enum": true, "items": true, "properties": true, "required": true,
	"minItems": true, "maxItems": true, "minLength": true, "maxLength": true,
	"pattern": true, "minimum": true, "maximum": true, "minProperties": true,
	"maxProperties": true, "anyOf": true, "propertyOrdering": true, "example": true,
}

// schemaFormats lists the formats Gemini accepts; others are dropped.
var schemaFormats = map[string]bool{
	"enum": true, "date-time": true, "int32": true, "int64": true, "float": true, "double": true,
}

// SanitizeSchema rewrites a JSON Schema into the subset Gemini accepts for
// function parameters (H01, H02) and reports every change:
//
//   - $ref to "#/$defs/X" or "#/definitions/X" is inlined; a recursive
//     reference, or one that does not resolve, is an error naming its path;
//   - const becomes an enum of one value;
//   - type: [T, "null"] becomes type: T with nullable: true, an anyOf
//     member {"type":"null"} becomes nullable: true, and several non-null
//     types become an anyOf;
//   - oneOf becomes anyOf; allOf with one member is merged into its parent;
//   - required names absent from properties are dropped;
//   - every keyword outside the subset (additionalProperties, $schema,
//     $defs, default, title, examples, …) and unsupported formats are
//     dropped.
//
// The root must be an object schema (type "object", "OBJECT" or the
// gRPC-gateway enum 6, or no type with properties); anything else is an
// error. Integer types (the gRPC-gateway form) are kept as they are.
// SanitizeSchema is idempotent: its output sanitizes to itself with no
// rewrites.
func SanitizeSchema(schema json.RawMessage) (json.RawMessage, []Rewrite, error) {
	var root any
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return nil, nil, fmt.Errorf("gemini: sanitize schema: %w: %v", core.ErrUnsupported, err)
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("gemini: sanitize schema: $: %w: parameters must be an object schema, got %s", core.ErrUnsupported, jsonKind(root))
	}
	s := &sanitizer{root: obj}
	out, err := s.schema(obj, "$")
	if err != nil {
		return nil, nil, fmt.Errorf("gemini: sanitize schema: %w", err)
	}
	if !isObjectType(out["type"]) {
		if out["type"] == nil && out["properties"] != nil {
			out["type"] = "object"
			s.note("$", "added type object beside properties")
		} else {
			return nil, nil, fmt.Errorf("gemini: sanitize schema: $: %w: parameters must be an object schema, got type %v", core.ErrUnsupported, out["type"])
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, nil, fmt.Errorf("gemini: sanitize schema: %w", err)
	}
	return b, s.rewrites, nil
}

type sanitizer struct {
	root     map[string]any
	rewrites []Rewrite
	active   []string // $refs being expanded, to catch recursion
}

func (s *sanitizer) note(path, action string) {
	s.rewrites = append(s.rewrites, Rewrite{Path: path, Action: action})
}

func isObjectType(t any) bool {
	switch v := t.(type) {
	case string:
		return strings.EqualFold(v, "object")
	case json.Number:
		return v.String() == "6"
	}
	return false
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return fmt.Sprintf("%T", v)
}

func (s *sanitizer) schemaValue(v any, path string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		if b, isBool := v.(bool); isBool && b {
			s.note(path, "replaced schema true with {}")
			return map[string]any{}, nil
		}
		return nil, fmt.Errorf("%s: %w: schema must be an object, got %s", path, core.ErrUnsupported, jsonKind(v))
	}
	return s.schema(m, path)
}

func (s *sanitizer) resolve(ref, path string) (map[string]any, error) {
	var key, name string
	switch {
	case strings.HasPrefix(ref, "#/$defs/"):
		key, name = "$defs", strings.TrimPrefix(ref, "#/$defs/")
	case strings.HasPrefix(ref, "#/definitions/"):
		key, name = "definitions", strings.TrimPrefix(ref, "#/definitions/")
	default:
		return nil, fmt.Errorf("%s: %w: $ref %q is not a local #/$defs or #/definitions reference", path, core.ErrUnsupported, ref)
	}
	name = strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")
	defs, _ := s.root[key].(map[string]any)
	def, ok := defs[name]
	if !ok {
		return nil, fmt.Errorf("%s: %w: $ref %q does not resolve", path, core.ErrUnsupported, ref)
	}
	m, ok := def.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: %w: $ref %q is not an object schema", path, core.ErrUnsupported, ref)
	}
	return m, nil
}

func (s *sanitizer) schema(in map[string]any, path string) (map[string]any, error) {
	if ref, ok := in["$ref"]; ok {
		r, isStr := ref.(string)
		if !isStr {
			return nil, fmt.Errorf("%s: %w: $ref is not a string", path, core.ErrUnsupported)
		}
		if slices.Contains(s.active, r) {
			return nil, fmt.Errorf("%s: %w: recursive $ref %q cannot be inlined", path, core.ErrUnsupported, r)
		}
		target, err := s.resolve(r, path)
		if err != nil {
			return nil, err
		}
		s.note(path, "inlined $ref "+r)
		s.active = append(s.active, r)
		out, err := s.schema(target, path)
		s.active = s.active[:len(s.active)-1]
		if err != nil {
			return nil, err
		}
		// Siblings of $ref (such as a description) win over the target.
		for k, v := range in {
			if k == "$ref" {
				continue
			}
			sib, err := s.schema(map[string]any{k: v}, path)
			if err != nil {
				return nil, err
			}
			for sk, sv := range sib {
				out[sk] = sv
			}
		}
		return out, nil
	}

	out := map[string]any{}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := in[k]
		p := path + "." + k
		switch k {
		case "type":
			if err := s.typeKeyword(v, path, out); err != nil {
				return nil, err
			}
		case "const":
			out["enum"] = []any{v}
			s.note(p, "replaced const with an enum of one value")
		case "format":
			f, _ := v.(string)
			if schemaFormats[f] {
				out["format"] = f
			} else {
				s.note(p, fmt.Sprintf("dropped unsupported format %v", v))
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: %w: properties must be an object", p, core.ErrUnsupported)
			}
			np := make(map[string]any, len(props))
			for name, ps := range props {
				sub, err := s.schemaValue(ps, p+"."+name)
				if err != nil {
					return nil, err
				}
				np[name] = sub
			}
			out["properties"] = np
		case "items":
			if arr, ok := v.([]any); ok {
				return nil, fmt.Errorf("%s: %w: tuple items (an array of %d schemas) are not supported", p, core.ErrUnsupported, len(arr))
			}
			sub, err := s.schemaValue(v, p)
			if err != nil {
				return nil, err
			}
			out["items"] = sub
		case "anyOf", "oneOf":
			if err := s.anyOf(v, p, k, out); err != nil {
				return nil, err
			}
		case "allOf":
			arr, ok := v.([]any)
			if !ok || len(arr) != 1 {
				return nil, fmt.Errorf("%s: %w: allOf with more than one member cannot be expressed", p, core.ErrUnsupported)
			}
			sub, err := s.schemaValue(arr[0], p+"[0]")
			if err != nil {
				return nil, err
			}
			for sk, sv := range sub {
				if _, set := out[sk]; !set {
					out[sk] = sv
				}
			}
			s.note(p, "merged the single allOf member into its parent")
		default:
			if schemaKeep[k] {
				out[k] = v
			} else {
				s.note(p, "dropped unsupported keyword "+k)
			}
		}
	}
	if req, ok := out["required"]; ok {
		list, isList := req.([]any)
		if !isList {
			return nil, fmt.Errorf("%s.required: %w: required must be an array of names", path, core.ErrUnsupported)
		}
		props, _ := out["properties"].(map[string]any)
		kept := []any{}
		for _, n := range list {
			name, _ := n.(string)
			if _, ok := props[name]; ok {
				kept = append(kept, n)
			} else {
				s.note(path+".required", fmt.Sprintf("dropped required name %v absent from properties", n))
			}
		}
		if len(kept) == 0 {
			delete(out, "required")
		} else {
			out["required"] = kept
		}
	}
	return out, nil
}

func (s *sanitizer) typeKeyword(v any, path string, out map[string]any) error {
	p := path + ".type"
	switch t := v.(type) {
	case string, json.Number:
		out["type"] = t
		return nil
	case []any:
		var types []any
		for _, e := range t {
			if str, ok := e.(string); ok && str == "null" {
				out["nullable"] = true
				continue
			}
			types = append(types, e)
		}
		switch len(types) {
		case 0:
			return fmt.Errorf("%s: %w: type null alone cannot be expressed", p, core.ErrUnsupported)
		case 1:
			out["type"] = types[0]
		default:
			alts := make([]any, len(types))
			for i, e := range types {
				alts[i] = map[string]any{"type": e}
			}
			out["anyOf"] = alts
			s.note(p, "replaced a list of types with anyOf")
		}
		if out["nullable"] == true {
			s.note(p, `replaced type "null" in a list of types with nullable`)
		}
		return nil
	}
	return fmt.Errorf("%s: %w: type must be a string or a list of strings", p, core.ErrUnsupported)
}

func (s *sanitizer) anyOf(v any, p, key string, out map[string]any) error {
	arr, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%s: %w: %s must be an array", p, core.ErrUnsupported, key)
	}
	if key == "oneOf" {
		s.note(p, "replaced oneOf with anyOf")
	}
	var alts []any
	for i, e := range arr {
		if m, ok := e.(map[string]any); ok && len(m) == 1 && m["type"] == "null" {
			out["nullable"] = true
			s.note(p+"["+strconv.Itoa(i)+"]", "replaced a null alternative with nullable")
			continue
		}
		sub, err := s.schemaValue(e, p+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return err
		}
		alts = append(alts, sub)
	}
	if len(alts) == 1 {
		for k, v := range alts[0].(map[string]any) {
			if _, set := out[k]; !set {
				out[k] = v
			}
		}
		s.note(p, "merged the single remaining alternative into its parent")
		return nil
	}
	if len(alts) > 0 {
		out["anyOf"] = alts
	}
	return nil
}

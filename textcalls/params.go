package textcalls

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParamValue is the JSON value of a parameter a format writes as raw text
// (Qwen3-Coder, GLM, MiniMax, DeepSeek DSML, Seed-OSS), typed by the
// parameter's JSON Schema, the rule every such parser here follows:
//
//   - no schema (an undeclared tool or parameter): a string, as written;
//   - type names that are not JSON Schema's read as the type they mean
//     (float and double as number, int as integer, bool as boolean);
//   - a schema that allows "string" (its type, a type list, or a member of
//     anyOf/oneOf): a string, even when the text looks like a number,
//     unless the schema also allows an object or an array and the text is
//     one in JSON, or allows null and the text is null;
//   - otherwise the first of the allowed types the text is, trimmed:
//     integer, number, boolean (true/false), null, object or array (JSON
//     of that kind); text that is none of them stays a string, so a value
//     is never lost and validation reports the mismatch.
func ParamValue(schema json.RawMessage, raw string) json.RawMessage {
	types := schemaTypes(schema, 0)
	t := strings.TrimSpace(raw)
	if types["string"] {
		if types["null"] && t == "null" {
			return json.RawMessage("null")
		}
		// A string, unless the schema also allows an object or a list
		// and the text is one.
		for _, kind := range [...]struct {
			name string
			open byte
		}{{"object", '{'}, {"array", '['}} {
			if types[kind.name] && t != "" && t[0] == kind.open && json.Valid([]byte(t)) {
				return json.RawMessage(t)
			}
		}
		return jsonString(raw)
	}
	if len(types) == 0 {
		return jsonString(raw)
	}
	for _, kind := range []string{"integer", "number", "boolean", "null", "object", "array"} {
		if !types[kind] {
			continue
		}
		switch kind {
		case "integer":
			if _, err := strconv.ParseInt(t, 10, 64); err == nil {
				return json.RawMessage(t)
			}
		case "number":
			if isJSONNumber(t) {
				return json.RawMessage(t)
			}
		case "boolean":
			switch strings.ToLower(t) {
			case "true", "false":
				return json.RawMessage(strings.ToLower(t))
			}
		case "null":
			if t == "null" {
				return json.RawMessage(t)
			}
		case "object", "array":
			open := byte('{')
			if kind == "array" {
				open = '['
			}
			if t != "" && t[0] == open && json.Valid([]byte(t)) {
				return json.RawMessage(t)
			}
		}
	}
	return jsonString(raw)
}

// typeAliases are the type names tool schemas use that JSON Schema does
// not, read as the JSON Schema type they mean.
var typeAliases = map[string]string{
	"float": "number", "double": "number", "int": "integer", "bool": "boolean", "str": "string", "dict": "object", "list": "array",
}

// schemaTypes collects the types a schema allows; nil for no schema or
// one that names none.
func schemaTypes(schema json.RawMessage, depth int) map[string]bool {
	if len(schema) == 0 || depth > 8 {
		return nil
	}
	var s struct {
		Type  json.RawMessage   `json:"type"`
		AnyOf []json.RawMessage `json:"anyOf"`
		OneOf []json.RawMessage `json:"oneOf"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := map[string]bool{}
	var one string
	var list []string
	if json.Unmarshal(s.Type, &one) == nil && one != "" {
		list = []string{one}
	} else if json.Unmarshal(s.Type, &list) != nil {
		list = nil
	}
	for _, t := range list {
		if std, ok := typeAliases[t]; ok {
			t = std
		}
		out[t] = true
	}
	for _, sub := range append(s.AnyOf, s.OneOf...) {
		for t := range schemaTypes(sub, depth+1) {
			out[t] = true
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// paramSchema is the schema of parameter key of the declared tool name,
// or nil.
func (o *Options) paramSchema(name, key string) json.RawMessage {
	t := o.tool(name)
	if t == nil {
		return nil
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(t.Parameters, &s) != nil {
		return nil
	}
	return s.Properties[key]
}

// stringTyped reports whether a value of this schema is a string, so
// that it can stream before it ends.
func stringTyped(schema json.RawMessage) bool {
	types := schemaTypes(schema, 0)
	return len(types) == 0 || types["string"] && !types["object"] && !types["array"] && !types["null"]
}

func isJSONNumber(s string) bool {
	if s == "" || s[0] == '+' || !json.Valid([]byte(s)) {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// jsonString is s as a JSON string.
func jsonString(s string) json.RawMessage {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	b = appendEscaped(b, s)
	return append(b, '"')
}

// appendEscaped appends s escaped for the inside of a JSON string: quote,
// backslash and control characters escaped, bytes that are not UTF-8
// written as U+FFFD, everything else as it is (no HTML escaping).
func appendEscaped(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}

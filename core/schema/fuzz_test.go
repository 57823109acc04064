package schema

import (
	"errors"
	"testing"
)

// FuzzCompile checks that any document either compiles, and then validates
// a few values without panicking, or fails with a *SchemaError that has a
// place: a byte offset, or a JSON pointer that is empty or starts with "/".
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		weatherSchema,
		`{"type":"object"}`, `true`, `false`, `{}`, `[]`, `{"type":`, `{"$ref":"#"}`, `{"$ref":"#/x"}`,
		`{"$ref":"http://x/y"}`, `{"pattern":"(("}`, `{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`,
		`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, `{"$schema":"urn:nope"}`,
		`{"enum":[]}`, `{"minimum":"1"}`, `{"format":"date-time"}`, `{"$id":"http://a/b","$anchor":"x"}`,
	} {
		f.Add([]byte(s))
	}
	docs := [][]byte{[]byte(`{}`), []byte(`{"city":"x","a":[1,2]}`), []byte(`null`), []byte(`"s"`)}
	f.Fuzz(func(t *testing.T, doc []byte) {
		v, err := Compile(doc)
		if err != nil {
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("Compile error %T %v is not a *SchemaError", err, err)
			}
			if se.Offset < 0 && se.Path != "" && se.Path[0] != '/' {
				t.Fatalf("Compile error path %q is not a JSON pointer", se.Path)
			}
			return
		}
		for _, d := range docs {
			if _, err := v.Validate(d); err != nil {
				t.Fatalf("Validate(%s) = %v", d, err)
			}
		}
	})
}

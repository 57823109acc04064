package schema

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
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

// FuzzDecodeDeep builds deep documents in the target (count copies of
// unit, then tail; seeds of millions of brackets are too big for the
// corpus) and hands them to Compile and to a validator: neither may
// recurse on more than MaxDepth levels. A document deeper than that is an
// error wrapping ErrTooDeep with its byte offset.
func FuzzDecodeDeep(f *testing.F) {
	f.Add(uint32(2_090_000), "[", "")
	f.Add(uint32(MaxDepth), `{"not":`, "{}"+strings.Repeat("}", MaxDepth))
	f.Add(uint32(MaxDepth+1), `{"items":`, "true")
	f.Add(uint32(100_000), `[{"a":`, "1")
	v, err := Compile([]byte(`{"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#"}}}}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, count uint32, unit, tail string) {
		if unit == "" || len(unit) > 12 || len(tail) > 64 {
			return
		}
		n := int(count) % ((4<<20)/len(unit) + 2)
		doc := []byte(strings.Repeat(unit, n) + tail)
		deep := core.CheckDepth(doc) != nil
		_, cerr := Compile(doc)
		var se *SchemaError
		if cerr != nil && !errors.As(cerr, &se) {
			t.Fatalf("Compile: error %T is not a *SchemaError: %v", cerr, cerr)
		}
		if deep && (!errors.Is(cerr, ErrTooDeep) || se.Offset < 0 || se.Offset >= int64(len(doc))) {
			t.Fatalf("Compile(%d × %q + %q) = %v, want ErrTooDeep at a byte of the input", n, unit, tail, cerr)
		}
		_, verr := v.Validate(doc)
		if deep && !errors.Is(verr, ErrTooDeep) {
			t.Fatalf("Validate(%d × %q + %q) = %v, want ErrTooDeep", n, unit, tail, verr)
		}
	})
}

package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

const weatherSchema = `{
  "type": "object",
  "properties": {
    "city": {"type": "string"},
    "unit": {"enum": ["c", "f"]},
    "days": {"type": "array", "items": {"type": "integer", "minimum": 1}},
    "mode": {"const": "fast"},
    "a/b": {"type": "boolean"},
    "nested": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x", "y"], "additionalProperties": false},
    "never": false
  },
  "required": ["city"],
  "additionalProperties": false
}`

func TestValidate(t *testing.T) {
	v, err := Compile([]byte(weatherSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		doc  string
		want []Problem
	}{
		{"valid", `{"city":"Paris","unit":"c","days":[1,2]}`, nil},
		{"missing", `{}`, []Problem{{"/city", "missing"}}},
		{"every problem, sorted by path", `{"unit":"k","days":[0,"x"],"extra":1}`, []Problem{
			{"/city", "missing"},
			{"/days/0", "minimum: got 0, want 1"},
			{"/days/1", "got string, want integer"},
			{"/extra", "unknown property, not allowed"},
			{"/unit", `value must be one of "c", "f"`},
		}},
		{"const", `{"city":"x","mode":"slow"}`, []Problem{{"/mode", `value must be "fast"`}}},
		{"escaped pointer", `{"city":"x","a/b":1}`, []Problem{{"/a~1b", "got number, want boolean"}}},
		{"nested several", `{"city":"x","nested":{"x":"1","z":2}}`, []Problem{
			{"/nested/x", "got string, want number"},
			{"/nested/y", "missing"},
			{"/nested/z", "unknown property, not allowed"},
		}},
		{"false schema", `{"city":"x","never":1}`, []Problem{{"/never", "not allowed"}}},
		{"not an object", `[1]`, []Problem{{"", "got array, want object"}}},
		{"big integer kept exact", `{"city":"x","days":[12345678901234567890123]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Validate([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate(%s) mismatch (-want +got):\n%s", tt.doc, diff)
			}
		})
	}
}

func TestValidateSyntax(t *testing.T) {
	v, err := Compile([]byte(`{"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		doc    string
		offset int64
	}{
		{`{"a":`, 5},
		{`{"a":1}x`, 8},
		{`{"a" 1}`, 6},
		{``, 0},
	} {
		_, err := v.Validate([]byte(tt.doc))
		var se *json.SyntaxError
		if !errors.As(err, &se) || se.Offset != tt.offset {
			t.Errorf("Validate(%q) = %v, want a syntax error at byte %d", tt.doc, err, tt.offset)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name   string
		doc    string
		path   string
		offset int64
		msg    string // substring
	}{
		{"truncated", `{"type":"object",`, "", 17, "unexpected end of JSON input"},
		{"bad type", `{"type":"object","properties":{"a":{"type":"strin"}}}`, "/properties/a/type", -1, `value must be one of "array", "boolean"`},
		{"bad regex", `{"type":"object","properties":{"a":{"pattern":"(("}}}`, "/properties/a/pattern", -1, "not valid regex"},
		{"file reference refused", `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, "/properties/a/$ref", -1, "external reference"},
		{"remote reference refused", `{"allOf":[{"type":"object"},{"$ref":"https://example.com/s.json"}]}`, "/allOf/1/$ref", -1, "external reference"},
		{"dangling pointer", `{"type":"object","properties":{"a":{"$ref":"#/defs/x"}}}`, "/properties/a/$ref", -1, "not found"},
		{"missing anchor, relative reference", `{"$ref":"A#0"}`, "/$ref", -1, "not found"},
		{"missing pointer with a space", `{"properties":{"x":{"$ref":"#/a b"}}}`, "/properties/x/$ref", -1, "not found"},
		{"minimum not a number", `{"minimum":"1"}`, "/minimum", -1, "got string, want number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile([]byte(tt.doc))
			var se *SchemaError
			if !errors.As(err, &se) || !errors.Is(err, ErrInvalidSchema) {
				t.Fatalf("Compile = %v, want a *SchemaError", err)
			}
			if se.Path != tt.path || se.Offset != tt.offset || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("Compile = path %q offset %d msg %q; want path %q offset %d msg containing %q",
					se.Path, se.Offset, se.Msg, tt.path, tt.offset, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), "compile schema: at ") {
				t.Errorf("error %q lacks the operation prefix", err)
			}
		})
	}
}

func TestCheckObject(t *testing.T) {
	tests := []struct {
		doc  string
		want error
	}{
		{`{"type":"object"}`, nil},
		{`{"type":"object","properties":{}}`, nil},
		{`{}`, &SchemaError{Path: "/type", Offset: -1, Msg: `missing; a tool schema must have "type": "object"`}},
		{`{"type":"string"}`, &SchemaError{Path: "/type", Offset: -1, Msg: `"string"; a tool schema must have "type": "object"`}},
		{`{"type":["object","null"]}`, &SchemaError{Path: "/type", Offset: -1, Msg: `["object","null"]; a tool schema must have "type": "object"`}},
		{`true`, &SchemaError{Offset: -1, Msg: "a tool schema must be a JSON object, not true"}},
		{`{"type":`, &SchemaError{Offset: 8, Msg: "unexpected end of JSON input"}},
	}
	for _, tt := range tests {
		err := CheckObject([]byte(tt.doc))
		if tt.want == nil {
			if err != nil {
				t.Errorf("CheckObject(%s) = %v", tt.doc, err)
			}
			continue
		}
		var got *SchemaError
		if !errors.As(err, &got) {
			t.Errorf("CheckObject(%s) = %v, want %v", tt.doc, err, tt.want)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("CheckObject(%s) mismatch (-want +got):\n%s", tt.doc, diff)
		}
	}
}

func TestDepth(t *testing.T) {
	deep := func(n int) []byte {
		return []byte(strings.Repeat(`{"not":`, n) + "{}" + strings.Repeat("}", n))
	}
	if _, err := Compile(deep(MaxDepth - 1)); err != nil {
		t.Fatalf("Compile(%d levels) = %v, want it compiled", MaxDepth, err)
	}
	for _, n := range []int{MaxDepth, 2_000_000} {
		_, err := Compile(deep(n))
		var se *SchemaError
		if !errors.As(err, &se) || !errors.Is(err, ErrTooDeep) || !errors.Is(err, ErrInvalidSchema) || se.Offset != 7*MaxDepth {
			t.Errorf("Compile(%d levels) = %v, want a SchemaError wrapping ErrTooDeep at byte %d", n+1, err, 7*MaxDepth)
		}
	}
	v, err := Compile([]byte(`{"type":"array"}`))
	if err != nil {
		t.Fatal(err)
	}
	value := []byte(strings.Repeat("[", 2_090_000) + strings.Repeat("]", 2_090_000))
	if _, err := v.Validate(value); !errors.Is(err, ErrTooDeep) || !strings.Contains(err.Error(), fmt.Sprintf("at byte %d", MaxDepth)) {
		t.Errorf("Validate(2,090,000 levels) = %v, want ErrTooDeep at byte %d", err, MaxDepth)
	}
	if err := CheckObject(deep(MaxDepth)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("CheckObject(%d levels) = %v, want ErrTooDeep", MaxDepth+1, err)
	}
}

func TestProblemString(t *testing.T) {
	if got := (Problem{Path: "/a", Message: "m"}).String(); got != "/a: m" {
		t.Errorf("got %q", got)
	}
	if got := (Problem{Message: "m"}).String(); got != "m" {
		t.Errorf("got %q", got)
	}
	e := &SchemaError{Offset: -1, Msg: "m"}
	if got := e.Error(); got != "compile schema: at the top level: m" {
		t.Errorf("got %q", got)
	}
}

func TestComparePointers(t *testing.T) {
	got := []string{"/b", "/a/10", "", "/a/2", "/a/x", "/a/01", "/a", "/a/2/c", "/a/9", "/a/1x"}
	slices.SortFunc(got, comparePointers)
	want := []string{"", "/a", "/a/2", "/a/2/c", "/a/9", "/a/10", "/a/01", "/a/1x", "/a/x", "/b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sorted pointers (-want +got):\n%s", diff)
	}
}

// TestComparePointersOrder checks that comparePointers is a total order on
// generated pointers: antisymmetric and transitive.
func TestComparePointersOrder(t *testing.T) {
	tok := rapid.SampledFrom([]string{"", "0", "1", "2", "9", "10", "01", "1x", "a", "b"})
	ptr := rapid.Custom(func(t *rapid.T) string {
		n := rapid.IntRange(0, 3).Draw(t, "n")
		var b strings.Builder
		for i := range n {
			b.WriteString("/" + tok.Draw(t, fmt.Sprint("tok", i)))
		}
		return b.String()
	})
	rapid.Check(t, func(t *rapid.T) {
		a, b, c := ptr.Draw(t, "a"), ptr.Draw(t, "b"), ptr.Draw(t, "c")
		if comparePointers(a, b) != -comparePointers(b, a) {
			t.Fatalf("not antisymmetric on %q, %q", a, b)
		}
		if (comparePointers(a, b) == 0) != (a == b) {
			t.Fatalf("equal only if identical: %q, %q", a, b)
		}
		if comparePointers(a, b) < 0 && comparePointers(b, c) < 0 && comparePointers(a, c) >= 0 {
			t.Fatalf("not transitive: %q < %q < %q but not %q < %q", a, b, c, a, c)
		}
	})
}

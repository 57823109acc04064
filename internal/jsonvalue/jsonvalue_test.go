package jsonvalue

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		in     string
		want   any
		wantOK bool
	}{
		{`{"a":1.50}`, map[string]any{"a": json.Number("1.50")}, true},
		{` [1e400, -0] `, []any{json.Number("1e400"), json.Number("-0")}, true},
		{`"x"`, "x", true},
		{`null`, nil, true},
		{``, nil, false},
		{`   `, nil, false},
		{`{"a":1`, nil, false},
		{`{"a":1}{"b":2}`, nil, false}, // two values
		{`1 2`, nil, false},
		{`{"a":01}`, nil, false},
	}
	for _, tt := range tests {
		got, ok := Decode([]byte(tt.in))
		if ok != tt.wantOK {
			t.Errorf("Decode(%q) ok = %v, want %v", tt.in, ok, tt.wantOK)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Decode(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestCompare is the table of Equal and Within: each case gives
// two JSON texts and whether they are equal and whether the first is within
// the second.
func TestCompare(t *testing.T) {
	tests := []struct {
		a, b          string
		equal, within bool
	}{
		{`{"a":1,"b":"x"}`, `{ "b" : "x", "a" : 1 }`, true, true},
		{`1`, `1.0`, true, true},
		{`1`, `1e0`, true, true},
		{`1e400`, `10e399`, true, true},
		{`0.1`, `0.10000000000000001`, false, false}, // equal as float64, not as JSON numbers
		{`-0`, `0`, true, true},
		{`12345678901234567890`, `12345678901234567891`, false, false},
		{`"1"`, `1`, false, false},
		{`true`, `"true"`, false, false},
		{`null`, `{}`, false, false},
		{`{}`, `null`, false, false},
		{`{}`, `{"a":1}`, false, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false, true},
		{`{"a":{"x":1}}`, `{"a":{"x":1.0,"y":2}}`, false, true},
		{`{"a":1,"b":2}`, `{"a":1}`, false, false},
		{`{"a":1}`, `{"a":2}`, false, false},
		{`{"a":1}`, `{"b":1}`, false, false},
		{`{"a":[1,2]}`, `{"a":[1,2,3]}`, false, false}, // arrays must be equal
		{`[1,2]`, `[2,1]`, false, false},
		{`[{"a":1}]`, `[{"a":1,"b":2}]`, false, false},
		{`[]`, `{}`, false, false},
		{`{"a":null}`, `{}`, false, false},
		{`{"a":null}`, `{"a":null}`, true, true},
	}
	for _, tt := range tests {
		a, okA := Decode([]byte(tt.a))
		b, okB := Decode([]byte(tt.b))
		if !okA || !okB {
			t.Fatalf("bad case %s, %s", tt.a, tt.b)
		}
		if got := Equal(a, b); got != tt.equal {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.equal)
		}
		if got := Equal(b, a); got != tt.equal {
			t.Errorf("Equal(%s, %s) = %v, want %v (not symmetric)", tt.b, tt.a, got, tt.equal)
		}
		if got := Within(a, b); got != tt.within {
			t.Errorf("Within(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.within)
		}
	}
}

// genJSON generates JSON values as decoded by encoding/json with UseNumber,
// small enough to read when a property fails.
func genJSON(depth int) *rapid.Generator[any] {
	scalar := rapid.OneOf(
		rapid.Just[any](nil),
		rapid.Map(rapid.Bool(), func(b bool) any { return b }),
		rapid.Map(rapid.StringMatching(`[a-c]{0,3}`), func(s string) any { return s }),
		rapid.Map(rapid.IntRange(-20, 20), func(n int) any { return json.Number(strconv.Itoa(n)) }),
	)
	if depth == 0 {
		return scalar
	}
	inner := genJSON(depth - 1)
	return rapid.OneOf(
		scalar,
		rapid.Map(rapid.SliceOfN(inner, 0, 3), func(s []any) any { return s }),
		rapid.Map(rapid.MapOfN(rapid.StringMatching(`[a-d]`), inner, 0, 4), func(m map[string]any) any { return m }),
	)
}

// TestCompareProperties checks that Equal is reflexive and
// symmetric and implies Within, that a value survives a round trip
// through its encoding, and that adding a member to an object keeps the
// object within the larger one but not equal to it.
func TestCompareProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genJSON(3).Draw(t, "a")
		b := genJSON(3).Draw(t, "b")
		if !Equal(a, a) || !Within(a, a) {
			t.Fatalf("%v is not equal to or within itself", a)
		}
		if Equal(a, b) != Equal(b, a) {
			t.Fatalf("Equal not symmetric for %v, %v", a, b)
		}
		if Equal(a, b) && !Within(a, b) {
			t.Fatalf("%v equals %v but is not within it", a, b)
		}
		text, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		back, ok := Decode(text)
		if !ok || !Equal(a, back) {
			t.Fatalf("%s does not decode back to %v (ok %v): %v", text, a, ok, back)
		}
		if obj, isObj := a.(map[string]any); isObj {
			bigger := map[string]any{"zz": b}
			for k, v := range obj {
				bigger[k] = v
			}
			if !Within(a, bigger) || Equal(a, bigger) {
				t.Fatalf("%v with an extra member: within %v, equal %v", a, Within(a, bigger), Equal(a, bigger))
			}
		}
	})
}

// TestEqualText checks that text compares as the values it holds and that
// text that is not exactly one JSON value equals nothing, itself included.
func TestEqualText(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[true,null]}`, ` { "b" : [true, null], "a" : 1.0 } `, true},
		{`{"a":1}`, `{"a":2}`, false},
		{``, ``, false},
		{`{"a":`, `{"a":`, false},
		{`{}{}`, `{}{}`, false},
		{`{}`, `{}{}`, false},
	}
	for _, tt := range tests {
		if got := EqualText([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("EqualText(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

package wire

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestDecodeNumbers(t *testing.T) {
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
		got, ok := DecodeNumbers([]byte(tt.in))
		if ok != tt.wantOK {
			t.Errorf("DecodeNumbers(%q) ok = %v, want %v", tt.in, ok, tt.wantOK)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("DecodeNumbers(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestJSONCompare is the table of JSONEqual and JSONWithin: each case gives
// two JSON texts and whether they are equal and whether the first is within
// the second.
func TestJSONCompare(t *testing.T) {
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
		a, okA := DecodeNumbers([]byte(tt.a))
		b, okB := DecodeNumbers([]byte(tt.b))
		if !okA || !okB {
			t.Fatalf("bad case %s, %s", tt.a, tt.b)
		}
		if got := JSONEqual(a, b); got != tt.equal {
			t.Errorf("JSONEqual(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.equal)
		}
		if got := JSONEqual(b, a); got != tt.equal {
			t.Errorf("JSONEqual(%s, %s) = %v, want %v (not symmetric)", tt.b, tt.a, got, tt.equal)
		}
		if got := JSONWithin(a, b); got != tt.within {
			t.Errorf("JSONWithin(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.within)
		}
	}
}

func TestInputConflict(t *testing.T) {
	tests := []struct {
		start, streamed string
		want            bool
	}{
		{`{"city":"Paris"}`, `{"city":"Paris"}`, false},          // deltas repeat the start
		{`{"city":"Paris"}`, `{"city":"Paris","days":3}`, false}, // deltas extend it
		{`{"n":1}`, `{"n":1.0}`, false},                          // spelling of a number
		{`{}`, `{"city":"Paris"}`, false},
		{`{"city":"Paris"}`, `{"city":"Rome"}`, true},     // another value
		{`{"city":"Paris","days":3}`, `{"days":3}`, true}, // a member dropped
		{`{"city":"Paris"}`, `[]`, true},
		{`{"city":"Paris"}`, `{"city":`, false}, // streamed text not JSON: the Buffer reports it
		{`{"city":"Paris"}`, ``, false},
		{`{"city":`, `{"city":"Rome"}`, false}, // start not JSON: nothing to compare
		{`{"a":1}{"a":2}`, `{"a":3}`, false},
	}
	for _, tt := range tests {
		if got := InputConflict([]byte(tt.start), []byte(tt.streamed)); got != tt.want {
			t.Errorf("InputConflict(%s, %s) = %v, want %v", tt.start, tt.streamed, got, tt.want)
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

// TestJSONCompareProperties checks that JSONEqual is reflexive and
// symmetric and implies JSONWithin, that a value survives a round trip
// through its encoding, and that adding a member to an object keeps the
// object within the larger one but not equal to it.
func TestJSONCompareProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genJSON(3).Draw(t, "a")
		b := genJSON(3).Draw(t, "b")
		if !JSONEqual(a, a) || !JSONWithin(a, a) {
			t.Fatalf("%v is not equal to or within itself", a)
		}
		if JSONEqual(a, b) != JSONEqual(b, a) {
			t.Fatalf("JSONEqual not symmetric for %v, %v", a, b)
		}
		if JSONEqual(a, b) && !JSONWithin(a, b) {
			t.Fatalf("%v equals %v but is not within it", a, b)
		}
		text, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		back, ok := DecodeNumbers(text)
		if !ok || !JSONEqual(a, back) {
			t.Fatalf("%s does not decode back to %v (ok %v): %v", text, a, ok, back)
		}
		if InputConflict(text, text) {
			t.Fatalf("InputConflict(%s, %s) = true", text, text)
		}
		if obj, isObj := a.(map[string]any); isObj {
			bigger := map[string]any{"zz": b}
			for k, v := range obj {
				bigger[k] = v
			}
			if !JSONWithin(a, bigger) || JSONEqual(a, bigger) {
				t.Fatalf("%v with an extra member: within %v, equal %v", a, JSONWithin(a, bigger), JSONEqual(a, bigger))
			}
		}
	})
}

// FuzzInputConflict checks that InputConflict never panics, that a text
// never conflicts with itself, and that a verdict of conflict needs two
// JSON values.
func FuzzInputConflict(f *testing.F) {
	f.Add([]byte(`{"city":"Paris"}`), []byte(`{"city":"Rome"}`))
	f.Add([]byte(`{"n":1e400}`), []byte(`{"n":10e399,"m":[1,{"x":null}]}`))
	f.Add([]byte(`{"a":`), []byte(`{"a":1}`))
	f.Add([]byte(`{"a":1}{"a":2}`), []byte(`{"a":1}`))
	f.Add([]byte(`{"n":1e999999999999}`), []byte(`{"n":1.0e999999999999}`))
	f.Fuzz(func(t *testing.T, start, streamed []byte) {
		got := InputConflict(start, streamed)
		if got && (!json.Valid(start) || !json.Valid(streamed)) {
			t.Errorf("InputConflict(%q, %q) = true for text that is not JSON", start, streamed)
		}
		if InputConflict(start, start) {
			t.Errorf("InputConflict(%q, itself) = true", start)
		}
	})
}

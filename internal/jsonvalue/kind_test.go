package jsonvalue

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestKindOf(t *testing.T) {
	type mode string
	var v struct {
		List  []string       `json:"list"`
		Obj   map[string]int `json:"obj"`
		Mode  mode           `json:"mode"`
		Flag  *bool          `json:"flag"`
		Count int            `json:"count"`
	}
	for in, want := range map[string]string{
		`{"list": "x"}`: "an array", `{"obj": []}`: "an object", `{"mode": 5}`: "a string",
		`{"flag": 1}`: "true or false", `{"count": "7"}`: "a number",
	} {
		var te *json.UnmarshalTypeError
		if err := json.Unmarshal([]byte(in), &v); !errors.As(err, &te) {
			t.Fatalf("%s: %v, want a type error", in, err)
		}
		if got := KindOf(te.Type); got != want {
			t.Errorf("%s: KindOf(%v) = %q, want %q", in, te.Type, got, want)
		}
	}
}

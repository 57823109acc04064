// Package jsonvalue compares JSON values as JSON: object key order and white
// space make no difference, array order does, and numbers are compared by
// value (1, 1.0 and 1e0 are equal; so are 1e400 and 10e399, which no float64
// holds). It is the one JSON-equality helper of the module, below core, the
// adapters, serve, gateway and cassettes, and imports only the standard
// library.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"math/big"
)

// Decode decodes data, which must be exactly one JSON value, with numbers
// kept as json.Number so that no digit is lost; ok is false when data is
// anything else (invalid JSON, nothing, or two values).
func Decode(data []byte) (v any, ok bool) {
	if !json.Valid(data) {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

// EqualText reports whether a and b are each exactly one JSON value and
// those values are Equal. Text that is not JSON equals nothing; callers
// that want such text compared byte for byte say so themselves.
func EqualText(a, b []byte) bool {
	x, ok := Decode(a)
	if !ok {
		return false
	}
	y, ok := Decode(b)
	return ok && Equal(x, y)
}

// Equal reports whether two values decoded by Decode are equal as JSON. A
// number that big.Float cannot parse equals only the same spelling.
func Equal(a, b any) bool {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k, x := range av {
			if y, ok := bv[k]; !ok || !Equal(x, y) {
				return false
			}
		}
		return true
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k := range av {
			if !Equal(av[k], bv[k]) {
				return false
			}
		}
		return true
	case json.Number:
		bv, ok := b.(json.Number)
		if !ok {
			return false
		}
		if av == bv {
			return true
		}
		x, okx := new(big.Float).SetPrec(256).SetString(string(av))
		y, oky := new(big.Float).SetPrec(256).SetString(string(bv))
		return okx && oky && x.Cmp(y) == 0
	default: // string, bool, nil
		return a == b
	}
}

// Within reports whether the JSON value a is contained in b, both decoded
// by Decode: a and b are Equal, or both are objects and every member of a
// is within the member of b of the same name. b may have members a lacks,
// at any depth of objects; arrays and scalars must be equal.
func Within(a, b any) bool {
	ao, ok := a.(map[string]any)
	if !ok {
		return Equal(a, b)
	}
	bo, ok := b.(map[string]any)
	if !ok {
		return false
	}
	for k, av := range ao {
		if bv, ok := bo[k]; !ok || !Within(av, bv) {
			return false
		}
	}
	return true
}

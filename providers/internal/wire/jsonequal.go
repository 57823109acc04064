package wire

import (
	"bytes"
	"encoding/json"
	"math/big"
)

// DecodeNumbers decodes data, which must be exactly one JSON value, with
// numbers kept as json.Number so that no digit is lost; ok is false when
// data is anything else (invalid JSON, nothing, or two values).
func DecodeNumbers(data []byte) (v any, ok bool) {
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

// JSONEqual reports whether two values decoded by DecodeNumbers are equal
// as JSON: object key order does not matter, array order does, and numbers
// are compared by value (1, 1.0 and 1e0 are equal; so are 1e400 and
// 10e399, which no float64 holds). A number that big.Float cannot parse
// equals only the same spelling.
func JSONEqual(a, b any) bool {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k, x := range av {
			if y, ok := bv[k]; !ok || !JSONEqual(x, y) {
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
			if !JSONEqual(av[k], bv[k]) {
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

// JSONWithin reports whether the JSON value a is contained in b, both
// decoded by DecodeNumbers: a and b are JSONEqual, or both are objects and
// every member of a is within the member of b of the same name. b may have
// members a lacks, at any depth of objects; arrays and scalars must be
// equal.
func JSONWithin(a, b any) bool {
	ao, ok := a.(map[string]any)
	if !ok {
		return JSONEqual(a, b)
	}
	bo, ok := b.(map[string]any)
	if !ok {
		return false
	}
	for k, av := range ao {
		if bv, ok := bo[k]; !ok || !JSONWithin(av, bv) {
			return false
		}
	}
	return true
}

// InputConflict reports whether the streamed input of a tool call
// contradicts the populated input its start event carried (A18, as
// Anthropic's content_block_start and Bedrock's InvokeModel stream send
// it): a member of start is missing from streamed, or has another value
// there. Deltas that repeat the start's input or extend it with more
// members do not conflict. Either side that is not exactly one JSON value
// is not compared and reports no conflict: the Buffer judges argument text
// that is not JSON (repaired or incomplete), as for any call.
func InputConflict(start, streamed []byte) bool {
	s, ok := DecodeNumbers(start)
	if !ok {
		return false
	}
	d, ok := DecodeNumbers(streamed)
	return ok && !JSONWithin(s, d)
}

package adaptertest

import (
	"bytes"
	"encoding/json"

	"github.com/google/go-cmp/cmp"
)

// EquateJSON returns a go-cmp option that compares json.RawMessage values
// as JSON: key order and white space make no difference. Values that are
// not both valid JSON are compared byte for byte.
func EquateJSON() cmp.Option {
	return cmp.Comparer(func(a, b json.RawMessage) bool {
		var x, y any
		if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
			return bytes.Equal(a, b)
		}
		return cmp.Equal(x, y)
	})
}

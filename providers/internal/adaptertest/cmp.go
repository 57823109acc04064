package adaptertest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/internal/jsonvalue"
)

// EquateJSON returns a go-cmp option that compares json.RawMessage values
// as JSON (jsonvalue.EqualText): key order, white space and the spelling of
// a number make no difference. Values that are not both valid JSON are
// compared byte for byte.
func EquateJSON() cmp.Option {
	return cmp.Comparer(func(a, b json.RawMessage) bool {
		return jsonvalue.EqualText(a, b) || bytes.Equal(a, b)
	})
}

// CheckJSON compares two JSON texts as parsed values, so that key order and
// white space make no difference, and reports a (-want +got) diff. It
// fails the test at once if either is not JSON.
func CheckJSON(t testing.TB, want, got []byte) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("want: %v in %s", err, want)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got: %v in %s", err, got)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}

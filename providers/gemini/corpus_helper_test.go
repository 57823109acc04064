package gemini

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// isStream reports whether a response body is streamed (SSE or a JSON
// array) rather than one JSON object.
func isStream(body []byte) bool {
	t := bytes.TrimSpace(body)
	return len(t) > 0 && t[0] != '{'
}

// corpusBodies returns every recorded response body of the protocol, for
// fuzz seeds and the splitting property.
func corpusBodies(t testing.TB) [][]byte {
	t.Helper()
	var bodies [][]byte
	for _, rec := range adaptertest.Recordings(t, "gemini") {
		for _, ex := range rec.Exchanges {
			bodies = append(bodies, ex.Response)
		}
	}
	return bodies
}

// goldenPath is the golden file of a recording: its name with the last
// extension replaced by .json, under testdata/golden/dir.
func goldenPath(dir, name string) string {
	return filepath.Join("testdata", "golden", dir, strings.TrimSuffix(name, filepath.Ext(name))+".json")
}

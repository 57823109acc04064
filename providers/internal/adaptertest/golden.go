package adaptertest

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// update is the -update flag of every test package that imports adaptertest.
var update = flag.Bool("update", false, "rewrite golden files")

// Updating reports whether the test run was given -update.
func Updating() bool { return *update }

// CheckGolden compares got, written as indented JSON with a final newline,
// with the file at path (relative to the test's package, usually under
// testdata/golden), and reports a (-want +got) diff. With -update it
// writes the file instead.
func CheckGolden(t testing.TB, path string, got any) {
	t.Helper()
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatalf("golden %s: %v", path, err)
	}
	data = append(data, '\n')
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if diff := cmp.Diff(string(want), string(data)); diff != "" {
		t.Errorf("golden %s mismatch (-want +got):\n%s", path, diff)
	}
}

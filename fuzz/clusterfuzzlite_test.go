package fuzz

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	fuzzFunc   = regexp.MustCompile(`(?m)^func (Fuzz[A-Za-z0-9_]+)\(\w+ \*testing\.F\)`)
	fuzzerLine = regexp.MustCompile(`^fuzzer\s+(\S+)\s+(Fuzz[A-Za-z0-9_]+)\s*$`)
)

// treeTargets lists "dir FuzzName" for every fuzz target below root, leaving
// out bench/ (a module of its own) and testdata directories.
func treeTargets(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "bench", "testdata", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, m := range fuzzFunc.FindAllSubmatch(src, -1) {
			out = append(out, filepath.ToSlash(dir)+" "+string(m[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("list fuzz targets: %v", err)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// buildTargets lists "dir FuzzName" for every fuzzer line of build.sh.
func buildTargets(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("read build script: %v", err)
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		if m := fuzzerLine.FindStringSubmatch(s.Text()); m != nil {
			out = append(out, m[1]+" "+m[2])
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("read build script: %v", err)
	}
	slices.Sort(out)
	return out
}

// TestClusterFuzzLiteTargets: .clusterfuzzlite/build.sh builds exactly the
// fuzz targets in the tree, so that a new target is not left out of
// ClusterFuzzLite and a removed one does not break its build. The
// OSS-Fuzz images cannot run here; this is the part of the build that can
// be checked locally.
func TestClusterFuzzLiteTargets(t *testing.T) {
	tree := treeTargets(t, "..")
	if len(tree) < 30 {
		t.Errorf("found %d fuzz targets in the tree, want at least 30: is the walk broken?", len(tree))
	}
	build := buildTargets(t, filepath.Join("..", ".clusterfuzzlite", "build.sh"))
	if diff := cmp.Diff(tree, build); diff != "" {
		t.Errorf("build.sh fuzzer lines differ from the targets in the tree (-tree +build.sh); add or remove\n"+
			"a line \"fuzzer <dir> <FuzzName>\" in .clusterfuzzlite/build.sh:\n%s", diff)
	}
}

// TestTreeTargetsFindsThisPackage: the walk finds this package's own
// targets, so an empty or partial walk cannot pass the test above.
func TestTreeTargetsFindsThisPackage(t *testing.T) {
	tree := treeTargets(t, "..")
	for _, want := range []string{"fuzz FuzzStreamRoundTrip", "fuzz FuzzRecordedSplit", "fuzz FuzzDecodeCollect", "core/repair FuzzRepair"} {
		if !slices.Contains(tree, want) {
			t.Errorf("treeTargets misses %q", want)
		}
	}
}

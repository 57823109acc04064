package repair

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/repair.golden")

// TestGolden records what Repair and Preview make of model-made JSON, one
// case per input of testdata/inputs.txt, so that a change of behaviour (a
// new version of the repair library, say) shows as a diff to read.
func TestGolden(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "inputs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got strings.Builder
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		in, err := strconv.Unquote(line)
		if err != nil {
			t.Fatalf("inputs.txt:%d: %v", n, err)
		}
		fmt.Fprintf(&got, "input   %s\n", strconv.Quote(in))
		out, changed, err := Repair(in)
		switch {
		case err != nil:
			fmt.Fprintf(&got, "repair  error: %v\n", err)
		case changed:
			fmt.Fprintf(&got, "repair  %s\n", strconv.Quote(out))
		default:
			fmt.Fprintf(&got, "repair  unchanged\n")
		}
		if p, ok := Preview(in); ok {
			fmt.Fprintf(&got, "preview %s\n\n", strconv.Quote(string(p)))
		} else {
			fmt.Fprintf(&got, "preview none\n\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "repair.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGolden -update)", err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("%s (-want +got):\n%s", golden, diff)
	}
}

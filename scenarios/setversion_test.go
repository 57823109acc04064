package scenarios

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolconform/conform/cassettes"
)

var updateSet = flag.Bool("update-set", false, "rewrite testdata/set.lock from SetVersion and the built-in MUST cases")

const setLock = "testdata/set.lock"

// TestSetVersion fails when the built-in MUST cases changed and SetVersion
// did not change as the policy says: a MUST case added needs a new major
// number, one removed a new minor number. -update-set records the new set
// once SetVersion says what changed.
func TestSetVersion(t *testing.T) {
	cases, err := LoadBuiltin(VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	var must []string
	for _, sc := range cases {
		if sc.Severity == MUST {
			must = append(must, sc.Name)
		}
	}
	slices.Sort(must)
	if *updateSet {
		body := "version " + SetVersion + "\n" + strings.Join(must, "\n") + "\n"
		if err := os.WriteFile(setLock, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(setLock)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	locked, ok := strings.CutPrefix(lines[0], "version ")
	if !ok {
		t.Fatalf("%s: the first line is not \"version X.Y.Z\"", setLock)
	}
	var added, removed []string
	for _, n := range must {
		if !slices.Contains(lines[1:], n) {
			added = append(added, n)
		}
	}
	for _, n := range lines[1:] {
		if !slices.Contains(must, n) {
			removed = append(removed, n)
		}
	}
	if len(added)+len(removed) == 0 {
		if locked != SetVersion {
			t.Errorf("SetVersion is %s, %s records %s for the same MUST cases: run go test ./scenarios -run TestSetVersion -update-set", SetVersion, setLock, locked)
		}
		return
	}
	lockedV, err1 := parseVersion(locked)
	nowV, err2 := parseVersion(SetVersion)
	if err1 != nil || err2 != nil {
		t.Fatalf("versions %q and %q: want X.Y.Z", locked, SetVersion)
	}
	switch {
	case len(added) > 0 && nowV[0] <= lockedV[0]:
		t.Errorf("%d MUST cases are new since set %s (%s): that breaks implementations that passed, so SetVersion's major number must go up, then run go test ./scenarios -run TestSetVersion -update-set", len(added), locked, strings.Join(added[:min(len(added), 5)], ", "))
	case len(removed) > 0 && nowV[0] == lockedV[0] && nowV[1] <= lockedV[1]:
		t.Errorf("%d MUST cases are gone since set %s (%s): SetVersion's minor number must go up, then run go test ./scenarios -run TestSetVersion -update-set", len(removed), locked, strings.Join(removed[:min(len(removed), 5)], ", "))
	default:
		t.Errorf("the MUST cases changed and SetVersion %s says so: record them with go test ./scenarios -run TestSetVersion -update-set", SetVersion)
	}
}

func parseVersion(s string) ([3]int, error) {
	var v [3]int
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("not X.Y.Z")
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, err
		}
		v[i] = n
	}
	return v, nil
}

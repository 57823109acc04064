package conformtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
)

// TestOutsideModule runs the tests of testdata/outside, a module of its
// own that imports conform through a replace directive, as a user's module
// would: the index-only router named my-openai is an error without a
// protocol and fails with one, the correct wrapper named my-openai passes
// with its SHOULD failure not counted, and the stream-only adapter is
// graded on stream cases only. It builds from the module cache, offline.
func TestOutsideModule(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		t.Fatalf("the go command is needed to test the outside module: %v", err)
	}
	cmd := exec.Command(goTool, "test", "-count=1", "-v", "./...")
	cmd.Dir = filepath.Join("testdata", "outside")
	// Offline: modules come from the cache only, and a dependency the main
	// module adds later is taken from it without asking the checksum
	// database.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in %s: %v\n%s", cmd.Dir, err, out)
	}
	for _, want := range []string{
		`(?m)^--- PASS: TestIndexRouterNeedsProtocol `,
		`(?m)^--- PASS: TestIndexRouterFails `,
		`my-openai: graded ([0-9]+) of [0-9]+ openai-chat cases: [0-9]+ passed, [1-9][0-9]* failed`,
		`(?m)^--- PASS: TestWrapperPasses `,
		`my-openai: graded [0-9]+ of [0-9]+ openai-chat cases: [0-9]+ passed, 0 failed, 1 not counted \(SHOULD\)\n`,
		`(?m)^--- PASS: TestStreamOnly `,
		`stream-only: [0-9]+ cases, [0-9]+ passed, [0-9]+ not graded`,
		`(?m)^ok\s+example.com/outside`,
	} {
		if !regexp.MustCompile(want).Match(out) {
			t.Errorf("go test output lacks %s:\n%s", want, out)
		}
	}
	if m := regexp.MustCompile(`stream-only: .*`).Find(out); m != nil {
		t.Logf("%s", m)
	}
}

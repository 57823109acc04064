package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var addr = regexp.MustCompile(`127\.0\.0\.1:\d+`)

// TestProgram builds the example and runs it in each mode, comparing its
// output (the provider's port masked) with testdata/<mode>.golden.
func TestProgram(t *testing.T) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	bin := filepath.Join(t.TempDir(), "agent")
	build := exec.Command(goBin, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"native", nil},
		{"structured", []string{"-mode", "structured"}},
		{"structured-bedrock-stream", []string{"-mode", "structured", "-protocol", "bedrock", "-stream"}},
		{"validated-anthropic-stream", []string{"-mode", "validated", "-protocol", "anthropic", "-stream"}},
		{"auto-o3-capabilities", []string{"-mode", "auto", "-model", "o3-mini", "-capabilities", filepath.Join("testdata", "capabilities.json")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, tc.args...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("run: %v\nstderr: %s", err, stderr.String())
			}
			got := addr.ReplaceAll(stdout.Bytes(), []byte("127.0.0.1:PORT"))
			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUsageErrors checks that bad flags exit 2 with a message.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"-mode", "fast"}, {"-capabilities", "testdata/missing.json"}, {"-protocol", "grpc"}, {"-nope"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("run(%q) = %d with stderr %q, want 2 and a message", args, code, stderr.String())
		}
	}
}

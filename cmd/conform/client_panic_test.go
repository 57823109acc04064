package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestPrintClientResultCrash checks that a failed run's text report names
// the crash when the stack after it fills the stderr tail.
func TestPrintClientResultCrash(t *testing.T) {
	stderr := "panic: missing usage block\n\ngoroutine 1 [running]:\n" + strings.Repeat("main.f()\n\t/x/main.go:10 +0x1d\n", 20)
	var b bytes.Buffer
	printClientResult(&b, clientResult{Name: "n", Status: "fail", Reasons: []string{"exit status 2, want 0"}, Stderr: stderr, Panic: "panic: missing usage block"})
	if !strings.Contains(b.String(), "\tcrashed: panic: missing usage block\n") {
		t.Errorf("report does not name the crash:\n%s", b.String())
	}
}

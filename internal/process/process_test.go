package process

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestExit checks the exit code and status of a process that ends by
// itself, and that its output reaches the writers whole.
func TestExit(t *testing.T) {
	var out, errOut strings.Builder
	p, err := Start("echo out; echo err >&2; exit 3", Options{Stdout: &out, Stderr: &errOut})
	if err != nil {
		t.Fatal(err)
	}
	if timedOut := p.Wait(context.Background(), time.Hour); timedOut {
		t.Error("timed out")
	}
	if got := p.ExitCode(); got != 3 {
		t.Errorf("exit code %d, want 3", got)
	}
	if got := p.ExitStatus(); got != "exit status 3" {
		t.Errorf("exit status %q, want %q", got, "exit status 3")
	}
	if out.String() != "out\n" || errOut.String() != "err\n" {
		t.Errorf("stdout %q, stderr %q; want %q, %q", out.String(), errOut.String(), "out\n", "err\n")
	}
}

// TestPipes checks the pipes a line-speaking child gets: what is written to
// Stdin comes back on Stdout, and Kill ends a child that would run forever.
func TestPipes(t *testing.T) {
	p, err := Start("while read -r l; do echo \"got $l\"; done", Options{Stdin: true})
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(p.Stdout())
	for _, q := range []string{"a", "b"} {
		if _, err := io.WriteString(p.Stdin(), q+"\n"); err != nil {
			t.Fatal(err)
		}
		line, err := r.ReadString('\n')
		if err != nil || line != "got "+q+"\n" {
			t.Fatalf("read %q, %v; want %q", line, err, "got "+q+"\n")
		}
	}
	if got := p.ExitStatus(); got != "still running" {
		t.Errorf("exit status %q before Kill, want still running", got)
	}
	p.Kill()
	p.Kill() // a second call does nothing
	<-p.Exited()
}

// TestWaitEnds checks that Wait ends a process that would run forever,
// on its timeout or when its context ends, and says which.
func TestWaitEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		name     string
		ctx      context.Context
		timeout  int64
		timedOut bool
	}{
		{"timeout", context.Background(), 1, true},
		{"context", ctx, 1 << 62, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Start("exec sleep 300", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Wait(tt.ctx, time.Duration(tt.timeout)); got != tt.timedOut {
				t.Errorf("timed out %v, want %v", got, tt.timedOut)
			}
			if got := p.ExitCode(); got != -1 {
				t.Errorf("exit code %d, want -1 (killed)", got)
			}
		})
	}
}

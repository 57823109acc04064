package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output in testscript files")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"conform": func() { os.Exit(Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs every script under testdata/script, one behaviour of the
// command line each. ROOT is the repository, CORPUS the recorded provider
// traffic, MCPSERVER the MCP server of the tools/mcp tests (built here).
// Besides the standard commands, scripts have exitcode (see cmdExitcode)
// and gone (see cmdGone).
func TestScripts(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mcpServer := filepath.Join(t.TempDir(), "mcpserver")
	if out, err := exec.Command("go", "build", "-o", mcpServer, "../../tools/mcp/testdata/server").CombinedOutput(); err != nil {
		t.Fatalf("go build the MCP test server: %v\n%s", err, out)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"exitcode": cmdExitcode, "gone": cmdGone, "serve-bg": cmdServeBg},
		Setup: func(env *testscript.Env) error {
			env.Setenv("ROOT", root)
			env.Setenv("CORPUS", filepath.Join(root, "testdata", "corpus"))
			env.Setenv("MCPSERVER", mcpServer)
			return nil
		},
	})
}

// cmdExitcode is the script command
//
//	exitcode N PROGRAM [ARGS...]
//
// which runs PROGRAM as exec does (its output is then what stdout and
// stderr check) and fails unless it exits with status N exactly. "! exec"
// only tells zero from non-zero; conform's statuses 1 (a check failed) and
// 2 (bad usage or unreadable input) mean different things.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exitcode (give the status wanted)")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil || want < 0 {
		ts.Fatalf("exitcode: status %q is not a non-negative number", args[0])
	}
	if err := checkStatus(ts.Exec(args[1], args[2:]...), want); err != nil {
		ts.Fatalf("exitcode: %s: %v", args[1], err)
	}
}

// cmdGone is the script command
//
//	gone PIDFILE
//
// which fails unless the process whose id PIDFILE holds has exited or exits
// within 10 seconds (a process sent SIGKILL is gone a moment later, not at
// once): it checks that conform left no process of a client behind.
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gone PIDFILE")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(args[0])))
	if err != nil || pid <= 0 {
		ts.Fatalf("gone: %s holds no process id: %q", args[0], ts.ReadFile(args[0]))
	}
	if err := waitGone(pid, 10*time.Second); err != nil {
		ts.Fatalf("gone: process %d of %s: %v", pid, args[0], err)
	}
}

// checkStatus returns nil when runErr, the error of running a program, says
// it exited with status want, and an error saying what happened instead.
func checkStatus(runErr error, want int) error {
	got := 0
	if runErr != nil {
		var ee *exec.ExitError
		if !errors.As(runErr, &ee) {
			return fmt.Errorf("did not run to an exit status: %w", runErr)
		}
		got = ee.ExitCode()
	}
	if got != want {
		return fmt.Errorf("exit status %d, want %d", got, want)
	}
	return nil
}

// TestCheckStatus checks the comparison exitcode relies on, with the
// errors of real processes: each status is told from the others, and a
// program that could not start is never taken for any status.
func TestCheckStatus(t *testing.T) {
	run := func(status int) error {
		return exec.Command("sh", "-c", "exit "+strconv.Itoa(status)).Run()
	}
	for _, got := range []int{0, 1, 2} {
		for _, want := range []int{0, 1, 2} {
			err := checkStatus(run(got), want)
			if (err == nil) != (got == want) {
				t.Errorf("checkStatus(exit %d, %d) = %v", got, want, err)
			}
		}
	}
	notRun := exec.Command(filepath.Join(t.TempDir(), "no-such-program")).Run()
	for _, want := range []int{0, 1, 2} {
		if err := checkStatus(notRun, want); err == nil {
			t.Errorf("checkStatus(a program that did not start, %d) = nil", want)
		}
	}
}

// cmdServeBg runs conform serve with the given flags in the background of
// a script, on 127.0.0.1 port 0, sets the variable VAR to its URL once it
// listens, and stops it when the script ends.
func cmdServeBg(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: serve-bg VAR [SERVE FLAGS...]")
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args[1:]...), strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "conform serve: listening on ")
	if err != nil || !ok {
		cancel()
		ts.Fatalf("serve-bg: conform serve did not say where it listens: %q, %v (status %d)", line, err, <-done)
	}
	go io.Copy(io.Discard, pr)
	ts.Setenv(args[0], url)
	ts.Defer(func() {
		cancel()
		<-done
	})
}

package serve

import (
	"context"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// drainBound bounds how long the output of a client run is read after its
// process group is gone: a process that left the group (setsid) may still
// hold the pipes.
const drainBound = 2 * time.Second

// runGroup starts c in a process group of its own, its stdout and stderr
// copied to the writers, and waits until it exits, timeout passes or ctx
// ends. Then it kills the whole group, so that no child the program started
// outlives the run, and reads the output left in the pipes. It returns the
// exit status (-1 when killed), whether the timeout ended the run, and an
// error when the program could not start.
func runGroup(ctx context.Context, c *exec.Cmd, timeout time.Duration, stdout, stderr io.Writer) (exit int, timedOut bool, err error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return -1, false, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return -1, false, err
	}
	defer outR.Close()
	defer errR.Close()
	c.Stdout, c.Stderr = outW, errW
	setGroup(c)
	err = c.Start()
	// The child has its own copies; the parent's write ends must close,
	// or the readers never see the end of the output.
	outW.Close()
	errW.Close()
	if err != nil {
		return -1, false, err
	}
	copied := make(chan struct{}, 2)
	for _, p := range []struct {
		r *os.File
		w io.Writer
	}{{outR, stdout}, {errR, stderr}} {
		go func() {
			io.Copy(p.w, p.r)
			copied <- struct{}{}
		}()
	}
	exited := make(chan struct{})
	go func() {
		c.Wait() // the status is read from c.ProcessState
		close(exited)
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-exited:
	case <-timer.C:
		timedOut = true
	case <-ctx.Done():
	}
	// The program, or whatever it left behind, dies with its group,
	// which closes the pipes they held.
	killGroup(c.Process.Pid)
	<-exited
	drain := time.NewTimer(drainBound)
	defer drain.Stop()
	for n := 0; n < 2; n++ {
		select {
		case <-copied:
		case <-drain.C:
			outR.Close()
			errR.Close()
			<-copied
		}
	}
	return c.ProcessState.ExitCode(), timedOut, nil
}

// clientEnviron returns env without GOOGLE_API_KEY: the Google Gen AI SDKs
// read it or GEMINI_API_KEY, which RunClient sets, and warn on every run
// when both are set.
func clientEnviron(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "GOOGLE_API_KEY=")
	})
}

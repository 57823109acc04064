// Package process runs a subject under test as a child process: an adapter
// speaking JSON lines (conform run --exec) or a client program pointed at
// conform serve (conform run --client). Both start the same way, with
// "sh -c" in a process group of their own, keep the head and tail of their
// standard error, and die whole: Kill reaches every process the command
// started, so no orphan outlives a run.
package process

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// DrainBound bounds how long Kill reads the output left in the pipes once
// the process group is gone: a process that left the group on purpose
// (setsid) may still hold them.
const DrainBound = 2 * time.Second

// Options says what a process gets besides its command.
type Options struct {
	// Dir is the working directory; empty means the caller's.
	Dir string
	// Env is the whole environment; nil means none.
	Env []string
	// Stdin asks for a pipe to the process's standard input (Process.Stdin).
	Stdin bool
	// Stdout receives the standard output; nil gives a pipe to read it
	// from instead (Process.Stdout).
	Stdout io.Writer
	// Stderr receives the standard error; nil discards it.
	Stderr io.Writer
}

// Process is one running child. Kill must be called once it is no longer
// needed: it releases the pipes.
type Process struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  *os.File // the read end, when Options.Stdout is nil
	readers []*os.File
	copied  chan struct{} // one value per finished copier
	copiers int
	exited  chan struct{}
	waitErr error // cmd.Wait's result, once exited is closed
	killed  sync.Once
}

// Start starts command with /bin/sh -c in a process group of its own.
func Start(command string, o Options) (*Process, error) {
	c := exec.Command("/bin/sh", "-c", command)
	c.Dir, c.Env = o.Dir, o.Env
	if c.Env == nil {
		c.Env = []string{}
	}
	p := &Process{cmd: c, copied: make(chan struct{}, 2), exited: make(chan struct{})}
	var childEnds []*os.File
	closeAll := func() {
		for _, f := range append(childEnds, p.readers...) {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			childEnds = append(childEnds, w)
			p.readers = append(p.readers, r)
		}
		return r, w, err
	}
	if o.Stdin {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		c.Stdin, p.stdin = r, w
		childEnds = append(childEnds, r)
	}
	var copies []func()
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	c.Stdout = outW
	if o.Stdout == nil {
		p.stdout = outR
	} else {
		copies = append(copies, func() { io.Copy(o.Stdout, outR) })
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		if p.stdin != nil {
			p.stdin.Close()
		}
		return nil, err
	}
	c.Stderr = errW
	copies = append(copies, func() { io.Copy(o.Stderr, errR) })
	SetGroup(c)
	err = c.Start()
	// The child has its own copies; the parent's ends must close, or the
	// readers never see the end of the output.
	for _, f := range childEnds {
		f.Close()
	}
	if err != nil {
		for _, f := range p.readers {
			f.Close()
		}
		if p.stdin != nil {
			p.stdin.Close()
		}
		return nil, err
	}
	p.copiers = len(copies)
	for _, copy := range copies {
		go func() {
			copy()
			p.copied <- struct{}{}
		}()
	}
	go func() {
		p.waitErr = c.Wait()
		close(p.exited)
	}()
	return p, nil
}

// Stdin returns the pipe to the process's standard input, or nil when
// Options.Stdin was not set.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stdout returns the pipe to read the standard output from, or nil when
// Options.Stdout was given. Kill closes it.
func (p *Process) Stdout() io.Reader {
	if p.stdout == nil {
		return nil
	}
	return p.stdout
}

// Exited is closed when the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitCode returns the exit status, -1 when a signal ended the process. It
// may be called once Exited is closed.
func (p *Process) ExitCode() int { return p.cmd.ProcessState.ExitCode() }

// ExitStatus describes how the process ended ("exit status 0", "signal:
// killed"), or "still running".
func (p *Process) ExitStatus() string {
	select {
	case <-p.exited:
		var ee *exec.ExitError
		if p.waitErr == nil || errors.As(p.waitErr, &ee) {
			return p.cmd.ProcessState.String()
		}
		return p.waitErr.Error()
	default:
		return "still running"
	}
}

// Kill kills the process group, waits for the process to exit, and reads
// the output left in the pipes for at most DrainBound before closing them.
// Only the first call does anything.
func (p *Process) Kill() {
	p.killed.Do(func() {
		if p.stdin != nil {
			p.stdin.Close()
		}
		KillGroup(p.cmd.Process.Pid)
		<-p.exited
		drain := time.NewTimer(DrainBound)
		defer drain.Stop()
		for n := 0; n < p.copiers; n++ {
			select {
			case <-p.copied:
			case <-drain.C:
				p.closeReaders()
				<-p.copied
			}
		}
		p.closeReaders()
	})
}

func (p *Process) closeReaders() {
	for _, f := range p.readers {
		f.Close()
	}
}

// Wait waits until the process exits, timeout passes or ctx ends, then
// kills it (Kill). It reports whether the timeout ended the run.
func (p *Process) Wait(ctx context.Context, timeout time.Duration) (timedOut bool) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		timedOut = true
	case <-ctx.Done():
	}
	p.Kill()
	return timedOut
}

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// WaitDelay is how long Cmd.Wait waits for the program's pipes to close
// after the program was killed or exited; a process that escaped the kill
// and still holds them cannot keep Wait from returning.
const WaitDelay = 2 * time.Second

// Network is what a sandboxed program may reach.
type Network int

const (
	// NetworkNone gives the program a network namespace of its own whose
	// loopback interface stays down: every connect fails.
	NetworkNone Network = iota
	// NetworkLoopback gives the program a network namespace of its own with
	// its loopback interface up: it can talk to itself on 127.0.0.1, never
	// to the host's loopback or anything beyond.
	NetworkLoopback
)

// String returns "none" or "loopback".
func (n Network) String() string {
	switch n {
	case NetworkNone:
		return "none"
	case NetworkLoopback:
		return "loopback"
	}
	return fmt.Sprintf("Network(%d)", int(n))
}

// MarshalText returns the name String gives, for reports in JSON.
func (n Network) MarshalText() ([]byte, error) {
	if n != NetworkNone && n != NetworkLoopback {
		return nil, fmt.Errorf("sandbox: unknown network %d", int(n))
	}
	return []byte(n.String()), nil
}

// UnmarshalText reads "none" or "loopback".
func (n *Network) UnmarshalText(b []byte) error {
	switch string(b) {
	case "none":
		*n = NetworkNone
	case "loopback":
		*n = NetworkLoopback
	default:
		return fmt.Errorf("sandbox: unknown network %q; known: none, loopback", b)
	}
	return nil
}

// Limits are resource limits (setrlimit(2)), soft and hard alike, so the
// program cannot raise them. Zero leaves a resource unlimited.
type Limits struct {
	CPUSeconds   uint64 `json:"cpu_seconds,omitempty"`   // RLIMIT_CPU: the program gets SIGXCPU, then SIGKILL
	AddressSpace uint64 `json:"address_space,omitempty"` // RLIMIT_AS, bytes: allocations past it fail with ENOMEM
	FileSize     uint64 `json:"file_size,omitempty"`     // RLIMIT_FSIZE, bytes: a longer write gets SIGXFSZ or EFBIG
	OpenFiles    uint64 `json:"open_files,omitempty"`    // RLIMIT_NOFILE: open past it fails with EMFILE
	// Processes is RLIMIT_NPROC: the processes and threads the sandbox may
	// hold at once; a fork past it fails with EAGAIN. The kernel counts
	// them per user namespace and user, and the sandbox runs every program
	// in a user namespace of its own mapped to an unprivileged user, so the
	// count is the sandbox's own and the limit holds even when the caller
	// is root.
	Processes uint64 `json:"processes,omitempty"`
}

// Policy is what a sandboxed program may do. The zero value is the
// strictest: no network, no inherited environment, a read-only tree
// outside its private working directory, no resource limits.
type Policy struct {
	Network Network
	// Env is the allow-list of the environment: "NAME" copies NAME from
	// the calling process when it is set, "NAME=value" sets it. Nothing
	// else is inherited. HOME and TMPDIR are set to the working directory
	// unless listed.
	Env []string
	// WritableTree leaves the file tree as the caller sees it instead of
	// mounting it read-only; the working directory is private either way.
	WritableTree bool
	Limits       Limits
	// Probe says which facilities this machine has; nil probes the machine
	// once per process. Tests inject a probe to check the refusals.
	Probe func() Facilities
}

// Facilities are the kernel facilities a sandbox is built from. A missing
// one carries the reason in its Err field.
type Facilities struct {
	// UserNS: user namespaces, which the sandbox always needs (they make
	// the other namespaces available without privilege, and map the
	// program to an unprivileged user).
	UserNS error
	// NetNS: network namespaces, for NetworkNone and NetworkLoopback.
	NetNS error
	// Loopback: bringing the loopback interface up inside one.
	Loopback error
	// MountNS: mount namespaces with recursive read-only remounts, for the
	// read-only tree.
	MountNS error
	// PIDNS: PID namespaces, so that ending the sandbox's first process
	// ends every process in it.
	PIDNS error
}

// ErrUnavailable is wrapped by the error of Prepare when a restriction the
// policy asks for cannot be enforced on this machine.
var ErrUnavailable = errors.New("sandbox restriction unavailable")

// ErrSetup is wrapped by the error a sandboxed command reports when the
// sandbox could not be set up inside the new namespaces (its exit status
// is SetupExitCode and its standard error says why).
var ErrSetup = errors.New("sandbox setup failed")

// SetupExitCode is the exit status of a sandbox whose setup failed before
// the program started.
const SetupExitCode = 125

// setupPrefix starts the standard error of a failed setup.
const setupPrefix = "conform sandbox setup: "

// UnavailableError names a restriction that was asked for and why it
// cannot be enforced.
type UnavailableError struct {
	Restriction string
	Err         error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%v: %s: %v", ErrUnavailable, e.Restriction, e.Err)
}

// Unwrap returns ErrUnavailable and the reason.
func (e *UnavailableError) Unwrap() []error { return []error{ErrUnavailable, e.Err} }

// Report says which restrictions a sandbox enforces. Every field is a
// restriction in force, not one asked for.
type Report struct {
	// UID and GID are the host's ids the program runs as.
	UID     int     `json:"uid"`
	GID     int     `json:"gid"`
	Network Network `json:"network"`
	// Env lists the names of the environment variables the program gets.
	Env []string `json:"env"`
	// WorkDir is the private working directory, removed by Cleanup.
	WorkDir      string `json:"work_dir"`
	ReadOnlyTree bool   `json:"read_only_tree"`
	PIDNamespace bool   `json:"pid_namespace"`
	Limits       Limits `json:"limits"`
}

// String lists the restrictions in one line, such as
// "user namespace as uid 65534; network none; env PATH; private workdir;
// read-only tree; pid namespace; cpu 2s, address space 268435456 B".
func (r Report) String() string {
	parts := []string{fmt.Sprintf("user namespace as uid %d", r.UID), "network " + r.Network.String()}
	env := "env empty"
	if len(r.Env) > 0 {
		env = "env " + strings.Join(r.Env, ",")
	}
	parts = append(parts, env, "private workdir")
	if r.ReadOnlyTree {
		parts = append(parts, "read-only tree")
	}
	if r.PIDNamespace {
		parts = append(parts, "pid namespace")
	}
	var lim []string
	l := r.Limits
	for _, x := range []struct {
		name string
		v    uint64
		unit string
	}{{"cpu", l.CPUSeconds, "s"}, {"address space", l.AddressSpace, " B"}, {"file size", l.FileSize, " B"}, {"open files", l.OpenFiles, ""}, {"processes", l.Processes, ""}} {
		if x.v > 0 {
			lim = append(lim, fmt.Sprintf("%s %d%s", x.name, x.v, x.unit))
		}
	}
	if len(lim) > 0 {
		parts = append(parts, strings.Join(lim, ", "))
	}
	return strings.Join(parts, "; ")
}

// Command is a sandboxed program, prepared but not started. The caller
// sets Cmd's Stdin, Stdout and Stderr (its ExtraFiles, Env, Dir and
// SysProcAttr belong to the sandbox) and starts it; Cleanup removes the
// working directory once the program has exited.
type Command struct {
	Cmd    *exec.Cmd
	Report Report
	// workDir is removed and closeFiles called by Cleanup.
	workDir    string
	closeFiles func()
}

// Sandboxed reports true. A tool whose tools.Tool.Program is a Command
// runs in it: give tools.WithProgram(c) to the tools of an MCP server
// started with c, and the agent loop counts them as sandboxed where its
// configuration requires a sandbox.
func (c *Command) Sandboxed(context.Context) bool { return true }

// Cleanup removes the working directory and everything the program left
// in it. Call it after Cmd.Wait returned.
func (c *Command) Cleanup() error {
	if c.closeFiles != nil {
		c.closeFiles()
		c.closeFiles = nil
	}
	if c.workDir == "" {
		return nil
	}
	err := os.RemoveAll(c.workDir)
	c.workDir = ""
	if err != nil {
		return fmt.Errorf("sandbox cleanup: %w", err)
	}
	return nil
}

// environment resolves the allow-list against the calling process's
// environment, adding HOME and TMPDIR as the working directory when the
// list does not name them. It returns the environment and its names.
func environment(allow []string, workDir string) (env, names []string, err error) {
	seen := map[string]bool{}
	add := func(name, value string) {
		if seen[name] {
			return
		}
		seen[name] = true
		env = append(env, name+"="+value)
		names = append(names, name)
	}
	for _, e := range allow {
		name, value, set := strings.Cut(e, "=")
		if name == "" || strings.ContainsAny(name, "\x00") {
			return nil, nil, fmt.Errorf("sandbox env: bad entry %q: want NAME or NAME=value", e)
		}
		if set {
			add(name, value)
		} else if v, ok := os.LookupEnv(name); ok {
			add(name, v)
		}
	}
	add("HOME", workDir)
	add("TMPDIR", workDir)
	return env, names, nil
}

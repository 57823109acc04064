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

// Path is a host file or directory given to the program at the same path
// in its new root, read-only unless Writable.
type Path struct {
	Path     string `json:"path"`
	Writable bool   `json:"writable,omitempty"`
}

// SystemPaths are what every sandbox sees of the host, read-only, where
// they exist: the programs and libraries a command needs. /etc is not
// among them; the sandbox's /etc holds its own passwd, group and hosts and
// read-only binds of EtcPaths.
var SystemPaths = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// EtcPaths are the host's files of /etc a sandbox sees, read-only, where
// they exist: the dynamic linker's cache, the alternatives Debian links
// commands through, the time zone and the public certificates.
var EtcPaths = []string{"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime", "/etc/ssl/certs"}

// DefaultSocketFamilies are the socket families a program may open when
// its Policy names none.
var DefaultSocketFamilies = []string{"unix", "inet", "inet6"}

// DefaultTmpSize bounds each of the sandbox's /tmp and /dev/shm when its
// Policy sets no TmpSize.
const DefaultTmpSize = 64 << 20

// SandboxUID is the user and group id the program runs as inside its user
// namespace: not root, with no capability in any namespace.
const SandboxUID = 1000

// Policy is what a sandboxed program may do. The zero value is the
// strictest: no network, no inherited environment, nothing of the host's
// files but SystemPaths and EtcPaths, read-only, no resource limits.
type Policy struct {
	Network Network
	// SocketFamilies are the socket families the program may open:
	// "unix", "inet", "inet6", "netlink", "packet"; nil means
	// DefaultSocketFamilies. socket(2) of any other fails with
	// EAFNOSUPPORT.
	SocketFamilies []string
	// Env is the allow-list of the environment: "NAME" copies NAME from
	// the calling process when it is set, "NAME=value" sets it. Nothing
	// else is inherited. HOME and TMPDIR are set to the working directory
	// unless listed.
	Env []string
	// Paths are host files and directories the program is given besides
	// the system paths, each at its own absolute path, read-only unless
	// Writable. A path that does not exist is an error of Prepare.
	Paths []Path
	// TmpSize bounds, in bytes, each of the fresh tmpfs the program gets
	// as /tmp and /dev/shm (writes past it fail with ENOSPC); zero means
	// DefaultTmpSize.
	TmpSize uint64
	Limits  Limits
	// Probe says which facilities this machine has; nil probes the machine
	// once per process. Tests inject a probe to check the refusals.
	Probe func() Facilities `json:"-"`
}

// Facilities are the kernel facilities a sandbox is built from. A missing
// one carries the reason in its Err field. Every sandbox needs each of
// them but Loopback, which only NetworkLoopback needs.
type Facilities struct {
	// UserNS: user namespaces with ambient capabilities, which make the
	// other namespaces available without privilege and map the program to
	// an unprivileged user.
	UserNS error
	// NetNS: network namespaces.
	NetNS error
	// Loopback: bringing the loopback interface up inside one.
	Loopback error
	// MountNS: mount namespaces in which a new root is built (tmpfs, bind
	// mounts, mount_setattr, pivot_root) with a proc of the sandbox's PID
	// namespace.
	MountNS error
	// PIDNS: PID namespaces, so that ending the sandbox's first process
	// ends every process in it.
	PIDNS error
	// Seccomp: seccomp filters (and no_new_privs).
	Seccomp error
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
	// UID and GID are the host's ids the program runs as; inside its user
	// namespace it is SandboxUID.
	UID     int     `json:"uid"`
	GID     int     `json:"gid"`
	Network Network `json:"network"`
	// SocketFamilies are the families socket(2) may open.
	SocketFamilies []string `json:"socket_families"`
	// Env lists the names of the environment variables the program gets.
	Env []string `json:"env"`
	// WorkDir is the private working directory, removed by Cleanup.
	WorkDir string `json:"work_dir"`
	// NewRoot: the program sees a root of its own, with Paths besides the
	// system paths.
	NewRoot bool   `json:"new_root"`
	Paths   []Path `json:"paths,omitempty"`
	// NoCapabilities: every capability set is empty, no_new_privs is set.
	NoCapabilities bool   `json:"no_capabilities"`
	Seccomp        bool   `json:"seccomp"`
	PIDNamespace   bool   `json:"pid_namespace"`
	Limits         Limits `json:"limits"`
}

// String lists the restrictions in one line, such as
// "user namespace as uid 1000 (host 65534); no capabilities; seccomp;
// network none; sockets unix,inet,inet6; env PATH; private workdir; new
// root; pid namespace; cpu 2s".
func (r Report) String() string {
	parts := []string{fmt.Sprintf("user namespace as uid %d (host %d)", SandboxUID, r.UID)}
	if r.NoCapabilities {
		parts = append(parts, "no capabilities")
	}
	if r.Seccomp {
		parts = append(parts, "seccomp")
	}
	parts = append(parts, "network "+r.Network.String(), "sockets "+strings.Join(r.SocketFamilies, ","))
	env := "env empty"
	if len(r.Env) > 0 {
		env = "env " + strings.Join(r.Env, ",")
	}
	parts = append(parts, env, "private workdir")
	if r.NewRoot {
		root := "new root"
		for _, p := range r.Paths {
			mode := "ro"
			if p.Writable {
				mode = "rw"
			}
			root += fmt.Sprintf(" +%s (%s)", p.Path, mode)
		}
		parts = append(parts, root)
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

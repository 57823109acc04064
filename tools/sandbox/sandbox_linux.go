package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// helperArg0 and helperEnv mark the re-executed helper (see helper_linux.go).
const (
	helperArg0 = "conform-sandbox-init"
	helperEnv  = "CONFORM_SANDBOX_INIT"
)

// The helper's file descriptors: ExtraFiles 0 and 1.
const (
	helperFD = 3
	targetFD = 4
)

// nobody is the host user and group a root caller's sandbox runs as.
const nobody = 65534

// helperConfig tells the helper what to set up before it executes the
// program. It travels as JSON in the helper's second argument.
type helperConfig struct {
	Probe    bool   `json:"probe,omitempty"`
	Loopback bool   `json:"loopback,omitempty"`
	ReadOnly bool   `json:"read_only,omitempty"`
	WorkDir  string `json:"work_dir"`
	Limits   Limits `json:"limits"`
	// Script: the program starts with "#!", so its descriptor stays open
	// for the interpreter, which reads the script from /proc/self/fd/4.
	Script bool `json:"script,omitempty"`
}

var (
	probeOnce sync.Once
	probed    Facilities
)

// Probe returns the facilities of this machine, found by starting the
// helper once with each of them; the answer is kept for the process.
func Probe() Facilities {
	probeOnce.Do(func() { probed = probeMachine() })
	return probed
}

func probeMachine() Facilities {
	var f Facilities
	try := func(flags uintptr, cfg helperConfig) error {
		cfg.Probe = true
		cmd, closeFiles, err := helperCommand(context.Background(), flags, cfg, nil)
		if err != nil {
			return err
		}
		defer closeFiles()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			if msg := strings.TrimSpace(stderr.String()); msg != "" {
				return fmt.Errorf("%w: %s", err, msg)
			}
			return err
		}
		return nil
	}
	base := uintptr(syscall.CLONE_NEWUSER)
	if f.UserNS = try(base, helperConfig{}); f.UserNS != nil {
		f.NetNS, f.Loopback, f.MountNS, f.PIDNS = f.UserNS, f.UserNS, f.UserNS, f.UserNS
		return f
	}
	f.NetNS = try(base|syscall.CLONE_NEWNET, helperConfig{})
	f.Loopback = f.NetNS
	if f.NetNS == nil {
		f.Loopback = try(base|syscall.CLONE_NEWNET, helperConfig{Loopback: true})
	}
	dir, err := os.MkdirTemp("", "conform-sandbox-probe-")
	if err == nil && os.Geteuid() == 0 {
		err = os.Chown(dir, nobody, nobody)
	}
	if err == nil {
		defer os.RemoveAll(dir)
		f.MountNS = try(base|syscall.CLONE_NEWNS, helperConfig{ReadOnly: true, WorkDir: dir})
	} else {
		f.MountNS = err
	}
	f.PIDNS = try(base|syscall.CLONE_NEWPID, helperConfig{})
	return f
}

// Prepare returns the program name with args, sandboxed by p and not yet
// started, or an error before anything runs: an *UnavailableError naming
// the first restriction p asks for that this machine cannot enforce, or a
// program that cannot be found or opened. The program runs in new user,
// network, PID, IPC and UTS namespaces (and a mount namespace unless
// p.WritableTree), in its own process group, as an unprivileged user,
// with the environment of p.Env only, in a private working directory.
// Cancelling ctx kills every process of the sandbox. Cmd's ExtraFiles are
// the sandbox's own; set Stdin, Stdout and Stderr as needed.
func Prepare(ctx context.Context, p Policy, name string, args ...string) (*Command, error) {
	probe := p.Probe
	if probe == nil {
		probe = Probe
	}
	fac := probe()
	need := []struct {
		what string
		err  error
	}{
		{"user namespace", fac.UserNS},
		{"network namespace (network " + p.Network.String() + ")", fac.NetNS},
		{"pid namespace", fac.PIDNS},
	}
	if p.Network == NetworkLoopback {
		need = append(need, struct {
			what string
			err  error
		}{"loopback interface in the network namespace", fac.Loopback})
	}
	if !p.WritableTree {
		need = append(need, struct {
			what string
			err  error
		}{"mount namespace (read-only tree)", fac.MountNS})
	}
	for _, n := range need {
		if n.err != nil {
			return nil, &UnavailableError{Restriction: n.what, Err: n.err}
		}
	}
	if p.Network != NetworkNone && p.Network != NetworkLoopback {
		return nil, fmt.Errorf("sandbox: unknown network %v", p.Network)
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	work, err := os.MkdirTemp("", "conform-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: working directory: %w", err)
	}
	fail := func(err error) (*Command, error) {
		os.RemoveAll(work)
		return nil, err
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(work, nobody, nobody); err != nil {
			return fail(fmt.Errorf("sandbox: working directory: %w", err))
		}
	}
	env, names, err := environment(p.Env, work)
	if err != nil {
		return fail(err)
	}
	script, err := isScript(path)
	if err != nil {
		return fail(fmt.Errorf("sandbox: %w", err))
	}
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS)
	if !p.WritableTree {
		flags |= syscall.CLONE_NEWNS
	}
	cfg := helperConfig{Loopback: p.Network == NetworkLoopback, ReadOnly: !p.WritableTree, WorkDir: work, Limits: p.Limits, Script: script}
	target, err := os.Open(path)
	if err != nil {
		return fail(fmt.Errorf("sandbox: %w", err))
	}
	cmd, closeFiles, err := helperCommand(ctx, flags, cfg, target, append([]string{name}, args...)...)
	if err != nil {
		target.Close()
		return fail(err)
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = work
	c := &Command{Cmd: cmd, workDir: work, closeFiles: closeFiles, Report: Report{
		UID: hostUID(), GID: hostGID(), Network: p.Network, Env: names, WorkDir: work,
		ReadOnlyTree: !p.WritableTree, PIDNamespace: true, Limits: p.Limits,
	}}
	return c, nil
}

// helperCommand builds the command that starts the helper in new
// namespaces (flags). target, when not nil, is the program the helper
// executes with argv. closeFiles closes the descriptors the parent opened
// for the child; call it once the command has started or will not.
func helperCommand(ctx context.Context, flags uintptr, cfg helperConfig, target *os.File, argv ...string) (*exec.Cmd, func(), error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: helper: %w", err)
	}
	self, err := os.Open(exe)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: helper: %w", err)
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir = "/"
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		self.Close()
		return nil, nil, fmt.Errorf("sandbox: helper: %w", err) // unreachable: plain fields
	}
	// The helper is executed through its open descriptor, since the
	// unprivileged user may not search the directory it lies in.
	cmd := exec.CommandContext(ctx, fmt.Sprintf("/proc/self/fd/%d", helperFD))
	cmd.Args = append([]string{helperArg0, string(b)}, argv...)
	cmd.Env = []string{helperEnv + "=1"}
	cmd.ExtraFiles = []*os.File{self}
	if target != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, target)
	}
	attr := &syscall.SysProcAttr{
		Cloneflags:  flags,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: hostUID(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: hostGID(), Size: 1}},
		Setpgid:     true,
		Pdeathsig:   syscall.SIGKILL,
	}
	if os.Geteuid() == 0 {
		// Root may map another user and must drop its own groups, which
		// the child would otherwise keep.
		attr.GidMappingsEnableSetgroups = true
		attr.Credential = &syscall.Credential{Uid: 0, Gid: 0, Groups: []uint32{}}
	}
	cmd.SysProcAttr = attr
	cmd.Cancel = func() error {
		// The first process is the PID namespace's init: killing it ends
		// every process in the namespace. The group goes too, in case.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return cmd.Process.Kill()
	}
	cmd.WaitDelay = WaitDelay
	closeFiles := func() {
		for _, f := range cmd.ExtraFiles {
			f.Close()
		}
	}
	return cmd, closeFiles, nil
}

// hostUID and hostGID are the host ids the sandbox runs as: nobody for a
// root caller, the caller's own ids otherwise (all an unprivileged user
// namespace may map).
func hostUID() int {
	if os.Geteuid() == 0 {
		return nobody
	}
	return os.Geteuid()
}

func hostGID() int {
	if os.Geteuid() == 0 {
		return nobody
	}
	return os.Getegid()
}

// isScript reports whether the file at path starts with "#!".
func isScript(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var head [2]byte
	n, _ := f.Read(head[:])
	return n == 2 && string(head[:]) == "#!", nil
}

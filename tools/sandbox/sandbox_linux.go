package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// helperArg0 and helperEnv mark the re-executed helper (see helper_linux.go).
const (
	helperArg0 = "conform-sandbox-init"
	helperEnv  = "CONFORM_SANDBOX_INIT"
)

// The capabilities the helper needs for the setup (capability.h).
const (
	capSetpcap  = 8
	capNetAdmin = 12
	capSysAdmin = 21
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
	Probe    bool `json:"probe,omitempty"`
	Loopback bool `json:"loopback,omitempty"`
	// Root is an empty host directory the new root is built on; empty
	// for a probe that builds none.
	Root    string `json:"root,omitempty"`
	WorkDir string `json:"work_dir"`
	Paths   []Path `json:"paths,omitempty"`
	// Sources are the host paths bound at Paths, links resolved.
	Sources []string `json:"sources,omitempty"`
	TmpSize uint64   `json:"tmp_size,omitempty"`
	// Seccomp: load the filter, allowing these socket families.
	Seccomp bool     `json:"seccomp,omitempty"`
	Sockets []uint64 `json:"sockets,omitempty"`
	Limits  Limits   `json:"limits"`
	// Script: the program starts with "#!", so its descriptor (a sealed
	// copy) stays open for the interpreter, which reads the script from
	// /proc/self/fd/4.
	Script bool `json:"script,omitempty"`
}

// allFlags are the namespaces of every sandbox.
const allFlags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWNET | syscall.CLONE_NEWPID |
	syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS | syscall.CLONE_NEWCGROUP

var (
	probeOnce sync.Once
	probed    Facilities
)

// Probe returns the facilities of this machine, found by starting the
// helper with all of them and, if that fails, once with each; the answer
// is kept for the process.
func Probe() Facilities {
	probeOnce.Do(func() { probed = probeMachine() })
	return probed
}

func probeMachine() Facilities {
	try := func(flags uintptr, cfg helperConfig) error {
		cfg.Probe = true
		if cfg.Root != "" {
			dir, err := newLayout()
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir.base)
			cfg.Root, cfg.WorkDir = dir.root, dir.work
		}
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
	full := helperConfig{Loopback: true, Root: "new", Seccomp: true, Sockets: []uint64{syscall.AF_UNIX}}
	if try(allFlags, full) == nil {
		return Facilities{}
	}
	var f Facilities
	base := uintptr(syscall.CLONE_NEWUSER)
	if f.UserNS = try(base, helperConfig{}); f.UserNS != nil {
		f.NetNS, f.Loopback, f.MountNS, f.PIDNS, f.Seccomp = f.UserNS, f.UserNS, f.UserNS, f.UserNS, f.UserNS
		return f
	}
	f.NetNS = try(base|syscall.CLONE_NEWNET, helperConfig{})
	f.Loopback = f.NetNS
	if f.NetNS == nil {
		f.Loopback = try(base|syscall.CLONE_NEWNET, helperConfig{Loopback: true})
	}
	f.PIDNS = try(base|syscall.CLONE_NEWPID, helperConfig{})
	f.MountNS = try(base|syscall.CLONE_NEWNS|syscall.CLONE_NEWPID, helperConfig{Root: "new"})
	f.Seccomp = try(base, helperConfig{Seccomp: true, Sockets: []uint64{syscall.AF_UNIX}})
	return f
}

// layout is the host directory of one sandbox: base holds root, the empty
// directory the new root is mounted on, and work, the private working
// directory, owned by the sandbox's host user.
type layout struct{ base, root, work string }

func newLayout() (layout, error) {
	base, err := os.MkdirTemp("", "conform-sandbox-")
	if err != nil {
		return layout{}, fmt.Errorf("sandbox: working directory: %w", err)
	}
	l := layout{base: base, root: filepath.Join(base, "root"), work: filepath.Join(base, "work")}
	err = os.Mkdir(l.root, 0o700)
	if err == nil {
		err = os.Mkdir(l.work, 0o700)
	}
	if err == nil && os.Geteuid() == 0 {
		// The sandbox user (nobody) must reach both and own the work.
		err = os.Chmod(base, 0o711)
		if err == nil {
			err = os.Chown(l.work, nobody, nobody)
		}
		if err == nil {
			err = os.Chown(l.root, nobody, nobody)
		}
	}
	if err != nil {
		os.RemoveAll(base)
		return layout{}, fmt.Errorf("sandbox: working directory: %w", err)
	}
	return l, nil
}

// Prepare returns the program name with args, sandboxed by p and not yet
// started, or an error before anything runs: an *UnavailableError naming
// the first facility this machine lacks, a bad policy, or a program that
// cannot be found or opened. The program runs in new user, mount,
// network, PID, IPC, UTS and cgroup namespaces, in a session of its own,
// as SandboxUID with no capabilities under a seccomp filter, in a new root
// holding SystemPaths, EtcPaths and p.Paths, with the environment of p.Env
// only, in a private working directory. Cancelling ctx kills every
// process of the sandbox. Cmd's ExtraFiles are the sandbox's own; set
// Stdin, Stdout and Stderr as needed.
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
		{"mount namespace (new root)", fac.MountNS},
		{"seccomp filter", fac.Seccomp},
	}
	if p.Network == NetworkLoopback {
		need = append(need, struct {
			what string
			err  error
		}{"loopback interface in the network namespace", fac.Loopback})
	}
	for _, n := range need {
		if n.err != nil {
			return nil, &UnavailableError{Restriction: n.what, Err: n.err}
		}
	}
	if p.Network != NetworkNone && p.Network != NetworkLoopback {
		return nil, fmt.Errorf("sandbox: unknown network %v", p.Network)
	}
	families := p.SocketFamilies
	if families == nil {
		families = DefaultSocketFamilies
	}
	var sockets []uint64
	for _, f := range families {
		n, ok := socketFamilies[f]
		if !ok {
			return nil, fmt.Errorf("sandbox: unknown socket family %q; known: inet, inet6, netlink, packet, unix", f)
		}
		sockets = append(sockets, n)
	}
	paths, sources, err := givenPaths(p.Paths)
	if err != nil {
		return nil, err
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	dir, err := newLayout()
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Command, error) {
		os.RemoveAll(dir.base)
		return nil, err
	}
	env, names, err := environment(p.Env, dir.work)
	if err != nil {
		return fail(err)
	}
	script, err := isScript(path)
	if err != nil {
		return fail(fmt.Errorf("sandbox: %w", err))
	}
	tmp := p.TmpSize
	if tmp == 0 {
		tmp = DefaultTmpSize
	}
	cfg := helperConfig{Loopback: p.Network == NetworkLoopback, Root: dir.root, WorkDir: dir.work, Paths: paths, Sources: sources,
		TmpSize: tmp, Seccomp: true, Sockets: sockets, Limits: p.Limits, Script: script}
	target, err := os.Open(path)
	if err == nil && script {
		target, err = sealedCopy(target)
	}
	if err != nil {
		return fail(fmt.Errorf("sandbox: %w", err))
	}
	cmd, closeFiles, err := helperCommand(ctx, allFlags, cfg, target, append([]string{name}, args...)...)
	if err != nil {
		target.Close()
		return fail(err)
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = dir.work
	c := &Command{Cmd: cmd, workDir: dir.base, closeFiles: closeFiles, Report: Report{
		UID: hostUID(), GID: hostGID(), Network: p.Network, SocketFamilies: slices.Clone(families), Env: names,
		WorkDir: dir.work, NewRoot: true, Paths: paths, NoCapabilities: true, Seccomp: true, PIDNamespace: true,
		Limits: p.Limits,
	}}
	return c, nil
}

// givenPaths checks the paths a policy adds: absolute, existing, and
// cleaned, so that the helper binds what the report names. sources are
// the paths with their symbolic links resolved: a path that is a link is
// given as what it points to, at the path the policy names.
func givenPaths(ps []Path) (paths []Path, sources []string, err error) {
	for _, p := range ps {
		if !filepath.IsAbs(p.Path) {
			return nil, nil, fmt.Errorf("sandbox: path %q is not absolute", p.Path)
		}
		clean := filepath.Clean(p.Path)
		if clean == "/" {
			return nil, nil, fmt.Errorf("sandbox: path %q is the whole tree; give the directories the program needs", p.Path)
		}
		if _, err := os.Stat(clean); err != nil {
			return nil, nil, fmt.Errorf("sandbox: path: %w", err)
		}
		src, err := filepath.EvalSymlinks(clean)
		if err != nil {
			return nil, nil, fmt.Errorf("sandbox: path: %w", err)
		}
		paths = append(paths, Path{Path: clean, Writable: p.Writable})
		sources = append(sources, src)
	}
	return paths, sources, nil
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
	// The helper runs as SandboxUID with the capabilities it needs for
	// the setup as ambient ones, which it drops before the program runs.
	attr := &syscall.SysProcAttr{
		Cloneflags:  flags,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: SandboxUID, HostID: hostUID(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: SandboxUID, HostID: hostGID(), Size: 1}},
		Credential:  &syscall.Credential{Uid: SandboxUID, Gid: SandboxUID, NoSetGroups: true},
		AmbientCaps: []uintptr{capSysAdmin, capNetAdmin, capSetpcap},
		Setsid:      true,
		Pdeathsig:   syscall.SIGKILL,
	}
	if os.Geteuid() == 0 {
		// Root may map another user and must drop its own groups, which
		// the child would otherwise keep.
		attr.GidMappingsEnableSetgroups = true
		attr.Credential = &syscall.Credential{Uid: SandboxUID, Gid: SandboxUID, Groups: []uint32{}}
	}
	cmd.SysProcAttr = attr
	cmd.Cancel = func() error {
		// The first process is the PID namespace's init: killing it ends
		// every process in the namespace. Its session's group goes too.
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

// MaxScriptBytes bounds a script the sandbox runs, which it copies.
const MaxScriptBytes = 16 << 20

// sealedCopy returns a sealed memfd holding the script f, and closes f.
// The interpreter reads a script through the descriptor it was executed
// from, which the program could open again for writing: a copy that no one
// may write keeps the host's file out of reach. (A kernel whose
// vm.memfd_noexec is 2 refuses to execute it, and the setup says so.)
func sealedCopy(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.MemfdCreate("conform-sandbox-script", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("copy script %s: %w", f.Name(), err)
	}
	c := os.NewFile(uintptr(fd), f.Name())
	n, err := io.Copy(c, io.LimitReader(f, MaxScriptBytes+1))
	if err == nil && n > MaxScriptBytes {
		err = fmt.Errorf("longer than %d bytes", MaxScriptBytes)
	}
	if err == nil {
		_, err = unix.FcntlInt(c.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE)
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("copy script %s: %w", f.Name(), err)
	}
	return c, nil
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

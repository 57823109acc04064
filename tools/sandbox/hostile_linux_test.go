package sandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolconform/conform/tools/sandbox"
)

// The hostile tests run testdata/hostile (C, built by TestMain with gcc)
// and testdata/prog inside the sandbox, once per caller: this process
// (root on CI), and, when this process is root, a copy of the test binary
// run as an unprivileged user, which prepares the sandbox itself (the
// driver below). Each attempt is checked against a control: the same
// program outside the sandbox, or in a bare user and mount namespace
// where the old sandbox left its programs, succeeds.

// hostile is testdata/hostile, driver the copy of the test binary the
// unprivileged caller runs.
var hostile, driver string

// unprivilegedUID is the host user the unprivileged caller runs as.
const unprivilegedUID = 4242

// driverEnv makes the test binary a driver: argv is the policy as JSON,
// then the program and its arguments; it prepares and runs the program and
// writes a driverOutcome as JSON to the file named by driverOutEnv.
const (
	driverEnv    = "CONFORM_SANDBOX_TEST_DRIVER"
	driverOutEnv = "CONFORM_SANDBOX_TEST_DRIVER_OUT"
)

type driverOutcome struct {
	Unavailable string         `json:"unavailable,omitempty"`
	Error       string         `json:"error,omitempty"`
	Code        int            `json:"code"`
	Signal      string         `json:"signal,omitempty"`
	Report      sandbox.Report `json:"report"`
}

// runDriver is the driver's main.
func runDriver() {
	var o driverOutcome
	defer func() {
		b, _ := json.Marshal(o)
		os.WriteFile(os.Getenv(driverOutEnv), b, 0o644)
		os.Exit(0)
	}()
	var p sandbox.Policy
	if err := json.Unmarshal([]byte(os.Args[1]), &p); err != nil {
		o.Error = err.Error()
		return
	}
	c, err := sandbox.Prepare(context.Background(), p, os.Args[2], os.Args[3:]...)
	var ue *sandbox.UnavailableError
	if errors.As(err, &ue) {
		o.Unavailable = err.Error()
		return
	}
	if err != nil {
		o.Error = err.Error()
		return
	}
	defer c.Cleanup()
	o.Report = c.Report
	c.Cmd.Stdin, c.Cmd.Stdout, c.Cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	o.Code, o.Signal = status(c.Cmd.Run())
}

// status returns the exit status of a finished command, and the name of
// the signal that ended it, if one did.
func status(err error) (int, string) {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -1, ws.Signal().String()
		}
		return ee.ExitCode(), ""
	}
	if err != nil {
		return -2, err.Error()
	}
	return 0, ""
}

// buildHostile compiles testdata/hostile/hostile.c and copies the test
// binary for the driver into dir, which anyone may read.
func buildHostile(dir string) error {
	hostile = filepath.Join(dir, "hostile")
	if out, err := exec.Command("gcc", "-O1", "-Wall", "-o", hostile, "testdata/hostile/hostile.c").CombinedOutput(); err != nil {
		return fmt.Errorf("gcc testdata/hostile/hostile.c: %v\n%s", err, out)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	b, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	driver = filepath.Join(dir, "driver")
	return os.WriteFile(driver, b, 0o755)
}

// outcome is one sandboxed run seen by a test.
type outcome struct {
	out    string
	code   int
	signal string
	report sandbox.Report
}

// caller runs a program in the sandbox as one kind of caller.
type caller struct {
	name string
	run  func(t *testing.T, p sandbox.Policy, name string, args ...string) outcome
}

// callers are this process and, when it is root, the unprivileged driver.
// On a machine without the facilities a sandbox needs, it checks the
// refusal names one and skips the test: nothing runs unfenced.
func callers(t *testing.T) []caller {
	t.Helper()
	c, err := sandbox.Prepare(context.Background(), sandbox.Policy{}, prog)
	if err != nil {
		var ue *sandbox.UnavailableError
		if !errors.As(err, &ue) || ue.Restriction == "" {
			t.Fatalf("prepare: %v", err)
		}
		t.Skipf("refused on this machine, as it must be: %v", err)
	}
	c.Cleanup()
	self := caller{name: "root", run: runHere}
	if os.Geteuid() != 0 {
		self.name = "unprivileged"
		return []caller{self}
	}
	return []caller{self, {name: "unprivileged", run: runUnprivileged}}
}

func runHere(t *testing.T, p sandbox.Policy, name string, args ...string) outcome {
	t.Helper()
	c := prepare(t, context.Background(), p, name, args...)
	defer c.Cleanup()
	var stdout, stderr strings.Builder
	c.Cmd.Stdout, c.Cmd.Stderr = &stdout, &stderr
	code, sig := status(c.Cmd.Run())
	if code == sandbox.SetupExitCode || code == -2 {
		t.Fatalf("sandbox setup failed: %s %s", sig, stderr.String())
	}
	return outcome{out: stdout.String(), code: code, signal: sig, report: c.Report}
}

func runUnprivileged(t *testing.T, p sandbox.Policy, name string, args ...string) outcome {
	t.Helper()
	pj, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(sharedDir(t), "outcome.json")
	cmd := exec.Command(driver, append([]string{string(pj), name}, args...)...)
	cmd.Env = []string{driverEnv + "=1", driverOutEnv + "=" + result, "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: unprivilegedUID, Gid: unprivilegedUID}}
	// The driver may not create files in the shared directory: it gets
	// one of its own to write.
	if err := os.WriteFile(result, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chmod(result, 0o666)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("driver: %v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	var o driverOutcome
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("driver outcome %q: %v; stderr: %s", b, err, stderr.String())
	}
	switch {
	case o.Unavailable != "":
		t.Skipf("refused for an unprivileged caller on this machine, as it must be: %s", o.Unavailable)
	case o.Error != "":
		t.Fatalf("driver: %s", o.Error)
	case o.Code == sandbox.SetupExitCode:
		t.Fatalf("sandbox setup failed: %s", stderr.String())
	}
	return outcome{out: stdout.String(), code: o.Code, signal: o.Signal, report: o.Report}
}

// plain runs name with args outside the sandbox and returns its output
// and exit status; flags, if not zero, are namespaces to start it in, as
// root of a new user namespace with every capability there.
func plain(t *testing.T, flags uintptr, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	if flags != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Cloneflags:  flags,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}},
		}
	}
	out, err := cmd.Output()
	code, sig := status(err)
	if sig != "" {
		t.Fatalf("control %s %v: %s", name, args, sig)
	}
	return string(out), code
}

const bareNS = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS

// TestHostileSystemCalls runs each attempt to leave the fence through the
// kernel: mounts of every kind, new namespaces, other processes, the
// kernel itself, a uid change. Each succeeds in the control (a bare user
// and mount namespace, or no namespace at all) and is refused in the
// sandbox with the errno the filter or the missing capability gives.
func TestHostileSystemCalls(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		control uintptr // the namespaces of the control run, 0 for none
		want    string
		// controlWant is what the control prints, "done" when empty.
		controlWant string
	}{
		// The escape of issue 29: remounting a read-only bind writable.
		// On the host /usr is no mount of its own: the control's kernel
		// checks the capability first, then refuses the argument.
		{"remount usr", []string{"remount", "/usr"}, bareNS, "denied: EPERM\n", "denied: EINVAL\n"},
		{"remount root", []string{"remount", "/"}, bareNS, "denied: EPERM\n", ""},
		{"mount tmpfs", []string{"mount-tmpfs", "/tmp"}, bareNS, "denied: EPERM\n", ""},
		{"fsopen", []string{"fsopen"}, bareNS, "denied: EPERM\n", ""},
		{"open_tree", []string{"open-tree"}, bareNS, "denied: EPERM\n", ""},
		{"chroot", []string{"chroot", "/tmp"}, bareNS, "denied: EPERM\n", ""},
		{"unshare", []string{"unshare"}, 0, "denied: EPERM\n", ""},
		{"clone with CLONE_NEWUSER", []string{"clone-newuser"}, 0, "denied: EPERM\n", ""},
		{"clone3", []string{"clone3"}, 0, "denied: ENOSYS\n", ""},
		{"setns", []string{"setns"}, bareNS, "denied: EPERM\n", ""},
		{"ptrace a sibling", []string{"ptrace"}, 0, "denied: EPERM\n", ""},
		// The kernel reads the attributes of the control's call, and
		// refuses them (EINVAL); the sandbox's never gets that far.
		{"bpf", []string{"bpf"}, 0, "denied: EPERM\n", "denied: EINVAL\n"},
		{"keyctl", []string{"keyctl"}, 0, "denied: EPERM\n", ""},
		// Root of the namespace is not even mapped: no uid to become.
		{"setuid 0", []string{"setuid"}, 0, "denied: EINVAL\n", ""},
		{"netlink socket", []string{"netlink"}, 0, "denied: EAFNOSUPPORT\n", ""},
		{"packet socket", []string{"packet"}, 0, "denied: EAFNOSUPPORT\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := callers(t)
			if os.Geteuid() == 0 || tc.control != 0 {
				want := tc.controlWant
				if want == "" {
					want = "done\n"
				}
				if out, code := plain(t, tc.control, hostile, tc.args...); out != want {
					t.Fatalf("control: exit %d, %q; want %q: the attempt must get past the kernel's checks without the sandbox", code, out, want)
				}
			}
			for _, c := range cs {
				t.Run(c.name, func(t *testing.T) {
					o := c.run(t, sandbox.Policy{}, hostile, tc.args...)
					if o.out != tc.want || o.code != 3 {
						t.Errorf("exit %d %s, %q; want 3, %q", o.code, o.signal, o.out, tc.want)
					}
				})
			}
		})
	}
	// finit_module and the like have no harmless control: the kernel
	// refuses them to a root without CAP_SYS_MODULE too, with EBADF for
	// the bad descriptor; the filter answers first.
	for _, c := range callers(t) {
		t.Run("finit_module/"+c.name, func(t *testing.T) {
			if o := c.run(t, sandbox.Policy{}, hostile, "init-module"); o.out != "denied: EPERM\n" {
				t.Errorf("exit %d, %q", o.code, o.out)
			}
		})
	}
}

// TestHostileForeignABI makes a system call through the 32-bit ABI of an
// x86-64 kernel (int 0x80), whose numbers the filter does not list: the
// filter kills the program (SIGSYS) instead of letting it through.
func TestHostileForeignABI(t *testing.T) {
	cs := callers(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("the 32-bit ABI exists on x86-64 only")
	}
	if out, _ := plain(t, 0, hostile, "int80"); !strings.HasPrefix(out, "pid ") {
		t.Skipf("this kernel has no 32-bit ABI (int 0x80 gave %q): nothing to bypass the filter with", out)
	}
	for _, c := range cs {
		t.Run(c.name, func(t *testing.T) {
			if o := c.run(t, sandbox.Policy{}, hostile, "int80"); o.signal != "bad system call" {
				t.Errorf("exit %d, signal %q, %q; want death by SIGSYS", o.code, o.signal, o.out)
			}
		})
	}
}

// TestNoCapabilities reads the program's own credentials from its /proc:
// every capability set empty, no_new_privs, a seccomp filter, SandboxUID.
func TestNoCapabilities(t *testing.T) {
	for _, c := range callers(t) {
		t.Run(c.name, func(t *testing.T) {
			o := c.run(t, sandbox.Policy{}, prog, "read", "/proc/self/status")
			fields := map[string]string{}
			for _, line := range strings.Split(o.out, "\n") {
				if k, v, ok := strings.Cut(line, ":"); ok {
					fields[k] = strings.TrimSpace(v)
				}
			}
			uid := strconv.Itoa(sandbox.SandboxUID)
			for k, want := range map[string]string{
				"CapInh": "0000000000000000", "CapPrm": "0000000000000000", "CapEff": "0000000000000000",
				"CapBnd": "0000000000000000", "CapAmb": "0000000000000000", "NoNewPrivs": "1", "Seccomp": "2",
				"Uid": uid + "\t" + uid + "\t" + uid + "\t" + uid, "Gid": uid + "\t" + uid + "\t" + uid + "\t" + uid,
			} {
				if fields[k] != want {
					t.Errorf("%s: %q, want %q", k, fields[k], want)
				}
			}
			if !o.report.NoCapabilities || !o.report.Seccomp {
				t.Errorf("report: %s", o.report)
			}
		})
	}
}

// TestHostUnixSocket listens on a unix socket in the host's /tmp, as a
// container runtime, D-Bus or an ssh agent do: the program cannot connect
// (the path is not in its root), under either network; the listener
// accepts nothing. Given by the policy, the same socket is reachable:
// what the program reaches is what it is given.
func TestHostUnixSocket(t *testing.T) {
	cs := callers(t)
	dir := sharedDir(t)
	path := filepath.Join(dir, "host.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.Chmod(path, 0o777)
	accepted := make(chan struct{}, 64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("host secret"))
			c.Close()
			accepted <- struct{}{}
		}
	}()
	if out, _ := plain(t, 0, hostile, "connect", path); !strings.Contains(out, "host secret") {
		t.Fatalf("control: %q", out)
	}
	<-accepted
	for _, c := range cs {
		for _, n := range []sandbox.Network{sandbox.NetworkNone, sandbox.NetworkLoopback} {
			t.Run(c.name+"/"+n.String(), func(t *testing.T) {
				if o := c.run(t, sandbox.Policy{Network: n}, hostile, "connect", path); o.out != "denied: ENOENT\n" {
					t.Errorf("exit %d, %q; want ENOENT", o.code, o.out)
				}
			})
		}
		t.Run(c.name+"/given", func(t *testing.T) {
			o := c.run(t, sandbox.Policy{Paths: []sandbox.Path{{Path: dir}}}, hostile, "connect", path)
			if !strings.Contains(o.out, "host secret") {
				t.Errorf("exit %d, %q; the socket given by the policy must be reachable", o.code, o.out)
			}
			<-accepted
		})
	}
	select {
	case <-accepted:
		t.Error("the host listener accepted a connection from a sandbox not given it")
	default:
	}
}

// sleeper starts a host process whose command line holds a planted key
// and returns its pid; it is killed when the test ends.
func sleeper(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(prog, "sleep", "planted-secret-argument")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// TestHostProc lists the program's /proc: only the sandbox's own
// processes are there, and a host process's command line, holding a
// planted key, cannot be read (ENOENT), though the unsandboxed program
// reads it.
func TestHostProc(t *testing.T) {
	cs := callers(t)
	pid := sleeper(t)
	cmdline := fmt.Sprintf("/proc/%d/cmdline", pid)
	if out, _ := plain(t, 0, prog, "read", cmdline); !strings.Contains(out, "planted-secret") {
		t.Fatalf("control: %q", out)
	}
	for _, c := range cs {
		t.Run(c.name, func(t *testing.T) {
			if o := c.run(t, sandbox.Policy{}, prog, "read", cmdline); o.out != "denied: ENOENT\n" {
				t.Errorf("read %s: exit %d, %q", cmdline, o.code, o.out)
			}
			o := c.run(t, sandbox.Policy{}, prog, "pids")
			if o.out != "1\n" {
				t.Errorf("processes in /proc: %q, want only the program, pid 1", o.out)
			}
		})
	}
}

// TestSignalHostProcess has the program kill a host process by its pid,
// and every process it may signal (kill -1): the host process lives.
func TestSignalHostProcess(t *testing.T) {
	for _, c := range callers(t) {
		t.Run(c.name, func(t *testing.T) {
			pid := sleeper(t)
			if o := c.run(t, sandbox.Policy{}, hostile, "kill", strconv.Itoa(pid)); o.out != "denied: ESRCH\n" {
				t.Errorf("kill %d: exit %d, %q", pid, o.code, o.out)
			}
			c.run(t, sandbox.Policy{}, hostile, "kill-all")
			if err := syscall.Kill(pid, 0); err != nil {
				t.Errorf("the host process %d is gone: %v", pid, err)
			}
		})
	}
	// The control: the same kill outside the sandbox.
	pid := sleeper(t)
	if out, _ := plain(t, 0, hostile, "kill", strconv.Itoa(pid)); out != "done\n" {
		t.Errorf("control: %q", out)
	}
}

// TestCallerFiles plants a key that the sandbox's host user may read
// (its own file, as a non-root caller's home is), outside what the
// policy gives: the program cannot find it (ENOENT). Given read-only, it
// reads it and cannot write it (EROFS).
func TestCallerFiles(t *testing.T) {
	for _, c := range callers(t) {
		t.Run(c.name, func(t *testing.T) {
			// Outside /tmp, which the sandbox replaces with its own.
			home, err := os.MkdirTemp("/var/tmp", "conform-sandbox-home-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(home) })
			uid := hostUser(c)
			key := filepath.Join(home, ".ssh", "id_rsa")
			if err := os.MkdirAll(filepath.Dir(key), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(key, []byte("planted-secret"), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{home, filepath.Dir(key), key} {
				os.Chown(p, uid, uid)
			}
			os.Chmod(home, 0o755)
			if o := c.run(t, sandbox.Policy{}, prog, "read", key); o.out != "denied: ENOENT\n" {
				t.Errorf("read %s: exit %d, %q", key, o.code, o.out)
			}
			given := sandbox.Policy{Paths: []sandbox.Path{{Path: home}}}
			if o := c.run(t, given, prog, "read", key); o.out != "planted-secret" {
				t.Errorf("read %s given read-only: exit %d, %q; the sandbox user owns it", key, o.code, o.out)
			}
			if o := c.run(t, given, prog, "write", key); o.out != "denied: EROFS\n" {
				t.Errorf("write %s given read-only: exit %d, %q", key, o.code, o.out)
			}
			if b, _ := os.ReadFile(key); string(b) != "planted-secret" {
				t.Errorf("the key now holds %q", b)
			}
			writable := sandbox.Policy{Paths: []sandbox.Path{{Path: home, Writable: true}}}
			if o := c.run(t, writable, prog, "write", filepath.Join(home, "new")); o.out != "written\n" {
				t.Errorf("write in %s given writable: exit %d, %q", home, o.code, o.out)
			}
		})
	}
}

// hostUser is the host uid a caller's sandbox runs as.
func hostUser(c caller) int {
	if c.name == "unprivileged" {
		return unprivilegedUID
	}
	if os.Geteuid() == 0 {
		return 65534
	}
	return os.Geteuid()
}

// TestWriteOutside writes where the program might reach the host: the
// system paths, the root, /etc and /dev are read-only (EROFS); /tmp and
// /dev/shm are the sandbox's own tmpfs, so the write lands there and the
// host's /tmp and /dev/shm never see it.
func TestWriteOutside(t *testing.T) {
	marker := fmt.Sprintf("conform-sandbox-escape-%d", time.Now().UnixNano())
	for _, c := range callers(t) {
		t.Run(c.name, func(t *testing.T) {
			for _, path := range []string{"/usr/" + marker, "/" + marker, "/etc/" + marker, "/dev/" + marker, "/bin/" + marker} {
				if o := c.run(t, sandbox.Policy{}, hostile, "write", path); o.out != "denied: EROFS\n" {
					t.Errorf("write %s: exit %d, %q", path, o.code, o.out)
				}
			}
			for _, path := range []string{"/tmp/" + marker, "/dev/shm/" + marker, "/var/tmp/" + marker} {
				c.run(t, sandbox.Policy{}, hostile, "write", path)
				if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
					os.Remove(path)
					t.Errorf("%s exists on the host after the sandbox wrote it: %v", path, err)
				}
			}
		})
	}
}

// TestWorkDirEscape leaves links and dot-dot paths in the working
// directory that point at a host directory: inside, they lead nowhere;
// after the run, Cleanup removes the links and never what they point at.
func TestWorkDirEscape(t *testing.T) {
	host := sharedDir(t)
	os.Chmod(host, 0o777)
	victim := filepath.Join(host, "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o666); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`ln -s %[1]s link && ln -s / rootlink && mkdir d && ln -s ../../../../../../../%[1]s d/up
cat link/victim 2>/dev/null && echo read-through-link
cat ../../../../../../..%[2]s 2>/dev/null && echo read-through-dotdot
echo x > link/new 2>/dev/null && echo wrote-through-link
ls ..; ls ../..
ln %[2]s hard 2>/dev/null && echo hard-linked
true`, host, victim)
	for _, c := range callers(t) {
		t.Run(c.name, func(t *testing.T) {
			o := c.run(t, sandbox.Policy{}, "/bin/sh", "-c", script)
			for _, bad := range []string{"read-through", "wrote-through", "hard-linked", "victim", "root\n"} {
				if strings.Contains(o.out, bad) {
					t.Errorf("output holds %q:\n%s", bad, o.out)
				}
			}
			if b, err := os.ReadFile(victim); err != nil || string(b) != "keep me" {
				t.Errorf("the victim after the run and Cleanup: %q, %v", b, err)
			}
			if _, err := os.Stat(filepath.Join(host, "new")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a file was written through a link: %v", err)
			}
		})
	}
}

// TestBombs runs a fork bomb and a memory bomb under limits, and fills
// /tmp and /dev/shm: each is stopped by its bound (EAGAIN, ENOMEM,
// ENOSPC); without the limits the same program gets further.
func TestBombs(t *testing.T) {
	for _, c := range callers(t) {
		t.Run(c.name, func(t *testing.T) {
			if o := c.run(t, sandbox.Policy{Limits: sandbox.Limits{Processes: 32}}, hostile, "forkbomb", "100000"); o.out != "denied: EAGAIN\n" {
				t.Errorf("fork bomb: exit %d, %q", o.code, o.out)
			}
			if o := c.run(t, sandbox.Policy{}, hostile, "forkbomb", "64"); o.out != "done\n" {
				t.Errorf("64 forks without the limit: exit %d, %q", o.code, o.out)
			}
			if o := c.run(t, sandbox.Policy{Limits: sandbox.Limits{AddressSpace: 32 << 20}}, hostile, "touch-memory", "100000"); o.out != "denied: ENOMEM\n" {
				t.Errorf("memory bomb: exit %d, %q", o.code, o.out)
			}
			if o := c.run(t, sandbox.Policy{}, hostile, "touch-memory", "48"); o.out != "done\n" {
				t.Errorf("48 MiB without the limit: exit %d, %q", o.code, o.out)
			}
			for _, dir := range []string{"/tmp", "/dev/shm"} {
				if o := c.run(t, sandbox.Policy{TmpSize: 8 << 20}, hostile, "fill", dir+"/big"); o.out != "denied: ENOSPC\n" {
					t.Errorf("fill %s: exit %d, %q", dir, o.code, o.out)
				}
			}
		})
	}
}

// TestDaemonPastTimeout has the program leave a daemon (double fork, new
// session) and exit, or sleep past its context's deadline: when Wait
// returns, no process of the sandbox is left on the host.
func TestDaemonPastTimeout(t *testing.T) {
	for _, mode := range []string{"exits", "times out"} {
		t.Run(mode, func(t *testing.T) {
			marker := fmt.Sprintf("%d.%d", 3000+len(mode), time.Now().UnixNano()%1000000)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			script := fmt.Sprintf("%s daemon %s; sleep 3600", hostile, marker)
			if mode == "exits" {
				// Long enough for the test to see the daemon.
				script = fmt.Sprintf("%s daemon %s; sleep 0.5", hostile, marker)
			}
			c := prepare(t, ctx, sandbox.Policy{Paths: []sandbox.Path{{Path: filepath.Dir(hostile)}}}, "/bin/sh", "-c", script)
			defer c.Cleanup()
			if err := c.Cmd.Start(); err != nil {
				t.Fatal(err)
			}
			seen := false
			for range 100 {
				if len(processesWith("sleep\x00"+marker)) > 0 {
					seen = true
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if !seen {
				t.Fatal("the daemon never appeared on the host: the test would prove nothing")
			}
			c.Cmd.Wait()
			if left := processesWith(marker); len(left) > 0 {
				t.Errorf("processes left after Wait returned: %v", left)
				for _, pid := range left {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

// processesWith returns the host pids whose command line holds s.
func processesWith(s string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if strings.Contains(string(b), s) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// sharedDir returns a new directory that every user may search, removed
// when the test ends (t.TempDir's parent is the test user's alone).
func sharedDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sandbox-shared-")
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// TestScriptStaysUnchanged runs a script that the sandbox's host user
// owns and may write, which appends to itself through the descriptor its
// interpreter reads it from and through /proc/self/fd: the file on the
// host is unchanged, and the script still ran.
func TestScriptStaysUnchanged(t *testing.T) {
	for _, c := range callers(t) {
		t.Run(c.name, func(t *testing.T) {
			dir := sharedDir(t)
			script := filepath.Join(dir, "script")
			body := "#!/bin/sh\nfor fd in /proc/self/fd/*; do echo escaped >> \"$fd\"; done 2>/dev/null\necho escaped >> \"$0\" 2>/dev/null\necho ran\n"
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			uid := hostUser(c)
			os.Chown(script, uid, uid)
			o := c.run(t, sandbox.Policy{}, script)
			if !strings.HasSuffix(o.out, "ran\n") {
				t.Errorf("exit %d, %q; want the script to run", o.code, o.out)
			}
			if b, err := os.ReadFile(script); err != nil || string(b) != body {
				t.Errorf("the script on the host is now %q (%v)", b, err)
			}
		})
	}
}

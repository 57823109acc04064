package sandbox_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/tools/sandbox"
)

// prog is testdata/prog, built once by TestMain.
var prog string

func TestMain(m *testing.M) {
	if os.Getenv(driverEnv) == "1" {
		runDriver()
	}
	dir, err := os.MkdirTemp("", "sandbox-test-")
	if err == nil {
		// The unprivileged caller runs what is in dir.
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	prog = filepath.Join(dir, "prog")
	if out, err := exec.Command("go", "build", "-o", prog, "./testdata/prog").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build testdata/prog: %v\n%s", err, out)
		os.Exit(1)
	}
	if err := buildHostile(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs prog with args under p and returns its standard output and
// exit status; the working directory is removed afterwards.
func run(t *testing.T, p sandbox.Policy, args ...string) (string, int, sandbox.Report) {
	t.Helper()
	c := prepare(t, context.Background(), p, prog, args...)
	var stderr strings.Builder
	c.Cmd.Stderr = &stderr
	out, err := c.Cmd.Output()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	if code == sandbox.SetupExitCode {
		t.Fatalf("sandbox setup failed: %s", stderr.String())
	}
	if err := c.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.Report.WorkDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("working directory %s still there after Cleanup: %v", c.Report.WorkDir, err)
	}
	return string(out), code, c.Report
}

// prepare prepares program name with args under p. On a machine without the
// facilities p needs, it checks that the refusal names one and skips.
func prepare(t *testing.T, ctx context.Context, p sandbox.Policy, name string, args ...string) *sandbox.Command {
	t.Helper()
	c, err := sandbox.Prepare(ctx, p, name, args...)
	var ue *sandbox.UnavailableError
	if errors.As(err, &ue) && errors.Is(err, sandbox.ErrUnavailable) && ue.Restriction != "" {
		t.Skipf("refused on this machine, as it must be: %v", err)
	}
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	return c
}

// unsandboxed runs prog with args as an ordinary subprocess, so that each
// test shows the action succeeds without the sandbox.
func unsandboxed(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(prog, args...).Output()
	if err != nil {
		t.Fatalf("unsandboxed %v: %v", args, err)
	}
	return string(out)
}

// denied checks that the program reported the kernel's refusal errno.
func denied(t *testing.T, out string, code int, errno string) {
	t.Helper()
	if want := "denied: " + errno + "\n"; out != want || code != 3 {
		t.Errorf("got exit status %d, output %q; want 3, %q", code, out, want)
	}
}

// TestHostLoopbackUnreachable opens a listener on the host's 127.0.0.1
// and has the program connect to it, and only to it: under NetworkNone
// the sandbox's loopback is down (ENETUNREACH), under NetworkLoopback it
// is the sandbox's own, where nothing listens (ECONNREFUSED). The host's
// listener accepts nothing.
func TestHostLoopbackUnreachable(t *testing.T) {
	addr, accepted, events := hostListener(t)
	if out := unsandboxed(t, "net", addr); out != "connected\n" {
		t.Fatalf("unsandboxed connect: %q", out)
	}
	<-events // the unsandboxed connection, counted
	before := accepted.Load()
	for _, tc := range []struct {
		network sandbox.Network
		errno   string
	}{{sandbox.NetworkNone, "ENETUNREACH"}, {sandbox.NetworkLoopback, "ECONNREFUSED"}} {
		t.Run(tc.network.String(), func(t *testing.T) {
			out, code, rep := run(t, sandbox.Policy{Network: tc.network}, "net", addr)
			denied(t, out, code, tc.errno)
			if rep.Network != tc.network {
				t.Errorf("report says network %v, want %v", rep.Network, tc.network)
			}
		})
	}
	if n := accepted.Load() - before; n != 0 {
		t.Errorf("the host listener accepted %d connections from the sandbox", n)
	}
}

// TestEnvironmentAllowList plants keys in the environment; the program
// sees only the allow-list and the working directory as HOME and TMPDIR.
func TestEnvironmentAllowList(t *testing.T) {
	t.Setenv("CONFORM_TEST_API_KEY", "planted-secret")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "planted-aws")
	t.Setenv("KEPT", "kept-value")
	if out := unsandboxed(t, "env"); !strings.Contains(out, "planted-secret") {
		t.Fatalf("the planted key is not in the unsandboxed environment:\n%s", out)
	}
	out, _, rep := run(t, sandbox.Policy{Env: []string{"KEPT", "SET=value", "UNSET_IN_CALLER"}}, "env")
	want := fmt.Sprintf("HOME=%s\nKEPT=kept-value\nSET=value\nTMPDIR=%s\n", rep.WorkDir, rep.WorkDir)
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("environment (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"KEPT", "SET", "HOME", "TMPDIR"}, rep.Env); diff != "" {
		t.Errorf("report env (-want +got):\n%s", diff)
	}
}

// TestWorkDir writes in the private working directory, which the host
// sees, and in a directory given writable; a directory given read-only
// refuses (EROFS) and is unchanged.
func TestWorkDir(t *testing.T) {
	given := sharedDir(t)
	os.Chmod(given, 0o777)
	out, code, rep := run(t, sandbox.Policy{Paths: []sandbox.Path{{Path: given}}}, "write", filepath.Join(given, "f"))
	denied(t, out, code, "EROFS")
	if !rep.NewRoot || len(rep.Paths) != 1 || rep.Paths[0].Path != given || rep.Paths[0].Writable {
		t.Errorf("report: %s", rep)
	}
	if _, err := os.Stat(filepath.Join(given, "f")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused write happened: %v", err)
	}
	if out, code, _ := run(t, sandbox.Policy{Paths: []sandbox.Path{{Path: given, Writable: true}}}, "write", filepath.Join(given, "f")); out != "written\n" || code != 0 {
		t.Errorf("write in a writable path: exit %d, %q", code, out)
	}
	if b, err := os.ReadFile(filepath.Join(given, "f")); err != nil || string(b) != "escaped\n" {
		t.Errorf("the host sees %q, %v", b, err)
	}
	if out, code, _ := run(t, sandbox.Policy{}, "write", "inside"); out != "written\n" || code != 0 {
		t.Errorf("write in the working directory: exit %d, %q", code, out)
	}
	// A path that is a link is given as what it points to, at the path
	// the policy names; the target's own path is not given.
	link := filepath.Join(sharedDir(t), "link")
	if err := os.Symlink(given, link); err != nil {
		t.Fatal(err)
	}
	if out, code, _ := run(t, sandbox.Policy{Paths: []sandbox.Path{{Path: link}}}, "read", filepath.Join(link, "f")); out != "escaped\n" || code != 0 {
		t.Errorf("read through a given link: exit %d, %q", code, out)
	}
	out, code, _ = run(t, sandbox.Policy{Paths: []sandbox.Path{{Path: link}}}, "read", filepath.Join(given, "f"))
	denied(t, out, code, "ENOENT")
}

// TestBadPaths refuses, before anything runs, paths a policy cannot give.
func TestBadPaths(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"relative/dir", `sandbox: path "relative/dir" is not absolute`},
		{"/", `sandbox: path "/" is the whole tree; give the directories the program needs`},
		{"/no/such/dir", "sandbox: path: stat /no/such/dir: no such file or directory"},
	} {
		_, err := sandbox.Prepare(context.Background(), sandbox.Policy{Paths: []sandbox.Path{{Path: tc.path}}}, prog, "env")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %s", tc.path, err, tc.want)
		}
	}
	_, err := sandbox.Prepare(context.Background(), sandbox.Policy{SocketFamilies: []string{"bluetooth"}}, prog, "env")
	if want := `sandbox: unknown socket family "bluetooth"; known: inet, inet6, netlink, packet, unix`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestSocketFamilies allows only unix sockets: the program's TCP dial
// fails with EAFNOSUPPORT instead of reaching the namespace's network.
func TestSocketFamilies(t *testing.T) {
	out, code, rep := run(t, sandbox.Policy{Network: sandbox.NetworkLoopback, SocketFamilies: []string{"unix"}}, "net", "127.0.0.1:1")
	denied(t, out, code, "EAFNOSUPPORT")
	if diff := cmp.Diff([]string{"unix"}, rep.SocketFamilies); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

// TestLimits runs each resource limit against a program that passes it,
// and the same program without the limit.
func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits sandbox.Limits
		args   []string
		ok     string
		errno  string
	}{
		// 2 GiB is about the least a Go program starts in; the mapping
		// asks for 8 GiB without touching it.
		{"address space", sandbox.Limits{AddressSpace: 2 << 30}, []string{"alloc", "8589934592"}, "allocated\n", "ENOMEM"},
		// The program holds about five threads; RLIMIT_NPROC counts them.
		{"processes", sandbox.Limits{Processes: 16}, []string{"fork", "64"}, "forked\n", "EAGAIN"},
		{"open files", sandbox.Limits{OpenFiles: 32}, []string{"files", "100"}, "opened\n", "EMFILE"},
		{"file size", sandbox.Limits{FileSize: 1 << 20}, []string{"bigfile", "4194304"}, "written\n", "EFBIG"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code, rep := run(t, sandbox.Policy{Limits: tc.limits}, tc.args...)
			denied(t, out, code, tc.errno)
			if rep.Limits != tc.limits {
				t.Errorf("report limits %+v, want %+v", rep.Limits, tc.limits)
			}
			if out, code, _ := run(t, sandbox.Policy{}, tc.args...); out != tc.ok || code != 0 {
				t.Errorf("without the limit: exit %d, %q; want %q", code, out, tc.ok)
			}
		})
	}
}

// TestCPULimit spins past one CPU second: the kernel ends the program
// with SIGXCPU.
func TestCPULimit(t *testing.T) {
	c := prepare(t, context.Background(), sandbox.Policy{Limits: sandbox.Limits{CPUSeconds: 1}}, prog, "spin")
	defer c.Cleanup()
	err := c.Cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("got %v, want an exit error", err)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || (ws.Signal() != syscall.SIGXCPU && ws.Signal() != syscall.SIGKILL) {
		t.Errorf("got %v, want death by SIGXCPU (or the SIGKILL at the hard limit)", ws)
	}
}

// TestCancelKillsEverything starts a program whose child holds its pipes,
// waits until both run, finds them on the host by a marker argument,
// cancels, and checks that Wait returns and neither process is left.
func TestCancelKillsEverything(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	marker := fmt.Sprintf("marker-%d", os.Getpid())
	c := prepare(t, ctx, sandbox.Policy{}, prog, "hold", marker)
	defer c.Cleanup()
	var stdout strings.Builder
	c.Cmd.Stdout = &stdout // a pipe and a copying goroutine: the child holds it
	stderr, err := c.Cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for n := 0; n < 2 && sc.Scan(); n++ {
		if sc.Text() != "started" {
			t.Fatalf("unexpected line %q", sc.Text())
		}
	}
	pids := processesWith(marker)
	if len(pids) != 2 {
		t.Fatalf("found pids %v on the host, want the program and its child", pids)
	}
	cancel()
	if err := c.Cmd.Wait(); err == nil {
		t.Error("Wait returned no error for a killed program")
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("pid %d left behind after Wait returned: kill(0) = %v", pid, err)
		}
	}
}

// TestRefusals injects a probe without each facility: a policy that
// needs it is refused before anything runs, naming the restriction; one
// that does not need it still runs.
func TestRefusals(t *testing.T) {
	missing := errors.New("not on this machine")
	for _, tc := range []struct {
		name    string
		fac     sandbox.Facilities
		policy  sandbox.Policy
		refused string // "" means it runs
	}{
		{"no user namespaces", sandbox.Facilities{UserNS: missing}, sandbox.Policy{}, "user namespace"},
		{"no network namespaces", sandbox.Facilities{NetNS: missing}, sandbox.Policy{}, "network namespace (network none)"},
		{"no pid namespaces", sandbox.Facilities{PIDNS: missing}, sandbox.Policy{}, "pid namespace"},
		{"no loopback, loopback asked", sandbox.Facilities{Loopback: missing}, sandbox.Policy{Network: sandbox.NetworkLoopback}, "loopback interface in the network namespace"},
		{"no loopback, none asked", sandbox.Facilities{Loopback: missing}, sandbox.Policy{}, ""},
		{"no mount namespaces", sandbox.Facilities{MountNS: missing}, sandbox.Policy{}, "mount namespace (new root)"},
		{"no seccomp", sandbox.Facilities{Seccomp: missing}, sandbox.Policy{}, "seccomp filter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.policy
			p.Probe = func() sandbox.Facilities { return tc.fac }
			c, err := sandbox.Prepare(context.Background(), p, prog, "env")
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				c.Cleanup()
				return
			}
			if err == nil {
				c.Cleanup()
				t.Fatal("prepared; want a refusal")
			}
			var ue *sandbox.UnavailableError
			if !errors.As(err, &ue) || !errors.Is(err, sandbox.ErrUnavailable) || !errors.Is(err, missing) {
				t.Fatalf("got %v, want an *UnavailableError wrapping ErrUnavailable and the reason", err)
			}
			if ue.Restriction != tc.refused {
				t.Errorf("refused %q, want %q", ue.Restriction, tc.refused)
			}
		})
	}
}

// TestReportJSON checks the report's JSON form, as the agent's trace
// writes it.
func TestReportJSON(t *testing.T) {
	r := sandbox.Report{UID: 65534, GID: 65534, Network: sandbox.NetworkLoopback, SocketFamilies: []string{"unix"}, Env: []string{"PATH"},
		WorkDir: "/tmp/w", NewRoot: true, Paths: []sandbox.Path{{Path: "/data"}, {Path: "/out", Writable: true}},
		NoCapabilities: true, Seccomp: true, PIDNamespace: true, Limits: sandbox.Limits{Processes: 16}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"uid":65534,"gid":65534,"network":"loopback","socket_families":["unix"],"env":["PATH"],"work_dir":"/tmp/w","new_root":true,` +
		`"paths":[{"path":"/data"},{"path":"/out","writable":true}],"no_capabilities":true,"seccomp":true,"pid_namespace":true,"limits":{"processes":16}}`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	var back sandbox.Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if err := json.Unmarshal([]byte(`{"network":"host"}`), &back); err == nil || !strings.Contains(err.Error(), `unknown network "host"`) {
		t.Errorf("network host: got %v", err)
	}
}

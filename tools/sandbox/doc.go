// Package sandbox runs a program fenced in by what the Linux kernel offers
// without a daemon or privileges: namespaces, a root of its own, no
// capabilities, a seccomp filter and resource limits. Command tools
// (tools/command) and stdio MCP servers use it through Prepare, which
// returns an *exec.Cmd not yet started and a Report of what is enforced:
//
//	c, err := sandbox.Prepare(ctx, sandbox.Policy{Env: []string{"PATH"}}, "my-tool", "--flag")
//	if err != nil { … } // errors.Is(err, sandbox.ErrUnavailable): this machine cannot fence it
//	defer c.Cleanup()
//	c.Cmd.Stdin = …
//	err = c.Cmd.Run()
//
// For an MCP server, hand c.Cmd to tools/mcp.ConnectCommand and give its
// tools tools.WithProgram(c): the agent loop and a registry under
// command.WithConfig then count them as sandboxed.
//
// What every sandbox guarantees, each with the test that tries to break it
// with a real program (hostile_linux_test.go, sandbox_linux_test.go), as
// root and as an unprivileged caller:
//
//   - No privilege: the program runs as SandboxUID of a new user namespace
//     (root of it is not mapped; the host sees nobody for a root caller,
//     the caller otherwise), with the bounding, ambient, effective,
//     permitted and inheritable sets empty, the securebits locked and
//     no_new_privs set (TestNoCapabilities).
//   - A seccomp filter refuses mounts of every kind, new namespaces,
//     ptrace and the other ways into a process, bpf, keyrings, modules,
//     kexec and the clock (EPERM); clone3 and io_uring get ENOSYS; a call
//     through another architecture's ABI kills the program
//     (TestHostileSystemCalls, TestHostileForeignABI).
//   - Files: a new root (pivot_root) holding read-only SystemPaths and
//     EtcPaths, its own passwd, group and hosts, a /dev of null, zero,
//     full, random, urandom and tty, a proc of its PID namespace, fresh
//     tmpfs /tmp and /dev/shm of Policy.TmpSize, the private working
//     directory (HOME and TMPDIR) and Policy.Paths; nothing else of the
//     host exists there: not /tmp, not a home, not a socket file; a
//     script runs from a sealed copy, so it cannot write the host's file
//     (TestCallerFiles, TestWriteOutside, TestWorkDirEscape,
//     TestHostUnixSocket, TestHostProc, TestWorkDir,
//     TestScriptStaysUnchanged).
//   - Network: a new network namespace; NetworkNone leaves its loopback
//     down, NetworkLoopback brings its own up; socket(2) of a family
//     outside Policy.SocketFamilies fails (TestHostLoopbackUnreachable,
//     TestSocketFamilies).
//   - Processes: new PID, IPC, UTS and cgroup namespaces and a session of
//     its own: no host process can be seen or signalled, and killing the
//     first process (a cancelled context does) ends every process in it,
//     daemons too (TestSignalHostProcess, TestCancelKillsEverything,
//     TestDaemonPastTimeout). Pdeathsig kills it when the thread that
//     started it ends; start long-lived sandboxes from unlocked goroutines.
//   - Environment: only Policy.Env, plus HOME and TMPDIR
//     (TestEnvironmentAllowList). Limits: Policy.Limits as rlimits, soft
//     and hard (TestLimits, TestCPULimit, TestBombs).
//
// What it does not guarantee: the program reads what SystemPaths and
// EtcPaths hold and what the policy gives; it may use the CPU and memory
// its limits allow (no cgroup bounds the whole sandbox), and fill its
// working directory, which is on the host's disk, up to RLIMIT_FSIZE per
// file; a non-root caller's supplementary groups stay (an unprivileged
// user namespace cannot drop them); the kernel itself is shared, so a bug
// in a system call the filter allows is a way out.
//
// The setup is done by a helper: the running binary, executed again
// through an open descriptor, whose package init function recognises its
// argv[0]; it runs as SandboxUID with CAP_SYS_ADMIN, CAP_NET_ADMIN and
// CAP_SETPCAP as ambient capabilities, builds the root, drops them all,
// loads the filter and executes the program in place. The filter is built
// with github.com/elastic/go-seccomp-bpf, pure Go, so conform builds
// without cgo or libseccomp. Probe finds which facilities the machine has;
// one that is missing is an *UnavailableError before anything runs, never
// a weaker sandbox. Off Linux, Prepare always refuses.
package sandbox

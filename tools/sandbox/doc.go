// Package sandbox runs a program fenced in by what the Linux kernel offers
// without a daemon or privileges: namespaces, resource limits and a
// process group. Command tools (tools/command) and stdio MCP servers use
// it through Prepare, which returns an *exec.Cmd not yet started and a
// Report of what is enforced:
//
//	c, err := sandbox.Prepare(ctx, sandbox.Policy{Env: []string{"PATH"}}, "my-tool", "--flag")
//	if err != nil { … } // errors.Is(err, sandbox.ErrUnavailable): asked for, cannot be enforced here
//	defer c.Cleanup()
//	c.Cmd.Stdin = …
//	err = c.Cmd.Run()
//
// For an MCP server, hand c.Cmd to tools/mcp.ConnectCommand and give its
// tools tools.WithProgram(c): the agent loop then counts them as sandboxed
// where its configuration requires a sandbox (Command.Sandboxed).
//
// What a Policy enforces:
//
//   - User namespace: the program runs as root of a new user namespace
//     mapped to an unprivileged host user (nobody for a root caller, the
//     caller otherwise), with no supplementary groups. It has no rights
//     over host files beyond what that user has.
//   - Network: a new network namespace. NetworkNone leaves its loopback
//     down, so every connect fails (ENETUNREACH); NetworkLoopback brings
//     its own lo up, so the program reaches itself on 127.0.0.1 but never
//     the host's loopback (ECONNREFUSED) or anything beyond.
//   - Environment: only Policy.Env, plus HOME and TMPDIR pointing at the
//     working directory. No *_API_KEY, no AWS_*, unless listed.
//   - Files: a private working directory, created per command, owned by
//     the sandbox user and removed by Cleanup; unless WritableTree, a new
//     mount namespace where every other mount is read-only (EROFS).
//   - Processes: a new PID namespace whose first process is the program,
//     in its own process group. Killing it (a cancelled context does)
//     ends every process in the namespace, including children that hold
//     the program's pipes; Cmd.WaitDelay bounds the wait for the pipes.
//   - Parent: the first process gets SIGKILL when the thread that started
//     it ends (Pdeathsig), so a sandbox does not outlive a crashed caller;
//     Go ends a thread only when a goroutine that locked it exits locked,
//     so start long-lived sandboxes (MCP servers) from unlocked goroutines.
//   - Limits: RLIMIT_CPU, RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NOFILE and
//     RLIMIT_NPROC, soft and hard. RLIMIT_NPROC does not bind root, but
//     the sandbox user is not root, and the kernel counts processes per
//     user namespace, each sandbox having its own: the limit bounds the
//     sandbox's own processes and threads.
//
// The setup inside the namespaces (lo up with the SIOCSIFFLAGS ioctl, the
// read-only tree with mount_setattr(2) and AT_RECURSIVE, the rlimits) is
// done by a helper: the running binary itself, executed again through an
// open descriptor, whose package init function recognises its argv[0],
// sets up and executes the program in place. No external tool (ip,
// unshare, prlimit) is used. Programs are also executed through an open
// descriptor, so the sandbox user needs only execute permission on the
// file, not search permission on its directory.
//
// Probe finds which facilities the machine has by starting the helper
// once with each. A restriction that a Policy asks for and the machine
// lacks is an *UnavailableError before anything runs, never a weaker
// sandbox. Off Linux, Prepare always refuses.
package sandbox

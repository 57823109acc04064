package sandbox

import (
	"fmt"
	"syscall"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// refusedSyscalls are refused with EPERM whatever their arguments: they
// change mounts or namespaces, reach into other processes, load code into
// the kernel or change the machine. The program has no capability they
// would need, so the filter is a second wall, not the first.
var refusedSyscalls = []string{
	// Mounts and roots.
	"mount", "umount2", "pivot_root", "chroot", "mount_setattr", "open_tree", "move_mount",
	"fsopen", "fsconfig", "fsmount", "fspick",
	// Namespaces.
	"unshare", "setns",
	// Other processes.
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
	// The kernel and the machine.
	"bpf", "perf_event_open", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"reboot", "swapon", "swapoff", "acct", "syslog", "quotactl", "quotactl_fd", "lookup_dcookie",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "iopl", "ioperm",
	"open_by_handle_at", "name_to_handle_at", "userfaultfd", "vhangup",
	// Keyrings: a non-root caller's session keyring would otherwise be
	// the sandbox's too.
	"keyctl", "add_key", "request_key",
}

// enosysSyscalls fail with ENOSYS, which callers treat as "not on this
// kernel" and fall back from: clone3 passes its flags in memory the filter
// cannot read (glibc then uses clone, whose flags it can), and io_uring
// runs operations the filter never sees.
var enosysSyscalls = []string{"clone3", "io_uring_setup", "io_uring_enter", "io_uring_register"}

// namespaceFlags are the clone(2) flags that make a new namespace.
const namespaceFlags = syscall.CLONE_NEWNS | syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET |
	syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS | syscall.CLONE_NEWCGROUP | unix.CLONE_NEWTIME

// socketFamilies are the families Policy.SocketFamilies may name.
var socketFamilies = map[string]uint64{
	"unix": syscall.AF_UNIX, "inet": syscall.AF_INET, "inet6": syscall.AF_INET6,
	"netlink": syscall.AF_NETLINK, "packet": syscall.AF_PACKET,
}

// filterProgram assembles the filter: a system call of another
// architecture's ABI (int 0x80 on x86-64, say) kills the process, since
// its numbers are not the ones listed; clone with a namespace flag and the
// listed calls get EPERM; socket and socketpair of a family outside
// allowed get EAFNOSUPPORT; everything else runs.
func filterProgram(allowed []uint64) ([]syscall.SockFilter, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, err
	}
	notAllowed := make(seccomp.ArgumentConditions, len(allowed))
	for i, f := range allowed {
		notAllowed[i] = seccomp.Condition{Argument: 0, Operation: seccomp.NotEqual, Value: f}
	}
	p := seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Names: refusedSyscalls, Action: seccomp.ActionErrno | seccomp.Action(syscall.EPERM)},
			{Names: enosysSyscalls, Action: seccomp.ActionErrno | seccomp.Action(syscall.ENOSYS)},
			{NamesWithCondtions: []seccomp.NameWithConditions{
				{Name: "clone", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: namespaceFlags}}},
			}, Action: seccomp.ActionErrno | seccomp.Action(syscall.EPERM)},
			{NamesWithCondtions: []seccomp.NameWithConditions{
				{Name: "socket", Conditions: notAllowed}, {Name: "socketpair", Conditions: notAllowed},
			}, Action: seccomp.ActionErrno | seccomp.Action(syscall.EAFNOSUPPORT)},
		},
	}
	insts, err := p.Assemble()
	if err != nil {
		return nil, err
	}
	// The library lets another architecture's calls through to the
	// default action; this prefix kills them first.
	const archOffset = 4 // struct seccomp_data: int nr, __u32 arch
	prog := append([]bpf.Instruction{
		bpf.LoadAbsolute{Off: archOffset, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(seccomp.ActionKillProcess)},
	}, insts...)
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, err
	}
	out := make([]syscall.SockFilter, len(raw))
	for i, r := range raw {
		out[i] = syscall.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return out, nil
}

// loadFilter installs the filter on the calling thread, which must have
// no_new_privs set; the program it executes inherits it.
func loadFilter(allowed []uint64) error {
	f, err := filterProgram(allowed)
	if err != nil {
		return fmt.Errorf("assemble: %w", err)
	}
	prog := syscall.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	if _, _, e := syscall.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); e != 0 {
		return e
	}
	return nil
}

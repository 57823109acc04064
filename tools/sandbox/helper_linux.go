package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"unsafe"
)

// The helper is the binary that imports this package, executed again by
// Prepare as the first process of the new namespaces. Its init function
// recognises itself by argv[0] and the helperEnv variable, sets up what
// only a process inside the namespaces can (the loopback interface, the
// read-only tree, the resource limits) and executes the program, which
// keeps its PID, process group and namespaces. A failure is written to
// standard error after setupPrefix and the helper exits with
// SetupExitCode before the program ever runs.
func init() {
	if len(os.Args) < 2 || os.Args[0] != helperArg0 || os.Getenv(helperEnv) != "1" {
		return
	}
	if err := runHelper(); err != nil {
		fmt.Fprintf(os.Stderr, "%s%v\n", setupPrefix, err)
		os.Exit(SetupExitCode)
	}
	os.Exit(0) // a probe: everything was set up
}

func runHelper() error {
	var cfg helperConfig
	if err := json.Unmarshal([]byte(os.Args[1]), &cfg); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if cfg.Loopback {
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("loopback up: %w", err)
		}
	}
	if cfg.ReadOnly {
		if err := readOnlyTree(cfg.WorkDir); err != nil {
			return fmt.Errorf("read-only tree: %w", err)
		}
	}
	if err := os.Chdir(cfg.WorkDir); err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	if cfg.Probe {
		return nil
	}
	l := cfg.Limits
	for _, r := range []struct {
		name     string
		resource int
		v        uint64
	}{
		{"cpu", syscall.RLIMIT_CPU, l.CPUSeconds},
		{"address space", syscall.RLIMIT_AS, l.AddressSpace},
		{"file size", syscall.RLIMIT_FSIZE, l.FileSize},
		{"open files", syscall.RLIMIT_NOFILE, l.OpenFiles},
		{"processes", rlimitNPROC, l.Processes},
	} {
		if r.v == 0 {
			continue
		}
		if err := syscall.Setrlimit(r.resource, &syscall.Rlimit{Cur: r.v, Max: r.v}); err != nil {
			return fmt.Errorf("limit %s to %d: %w", r.name, r.v, err)
		}
	}
	// The helper's own descriptor must not reach the program; the
	// program's stays open only for an interpreter to read the script.
	syscall.CloseOnExec(helperFD)
	if !cfg.Script {
		syscall.CloseOnExec(targetFD)
	}
	env := slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, helperEnv+"=") })
	err := syscall.Exec(fmt.Sprintf("/proc/self/fd/%d", targetFD), os.Args[2:], env)
	return fmt.Errorf("execute %s: %w", os.Args[2], err)
}

// rlimitNPROC is RLIMIT_NPROC, which package syscall does not name.
const rlimitNPROC = 6

// loopbackUp sets the IFF_UP flag of "lo" with the SIOCGIFFLAGS and
// SIOCSIFFLAGS ioctls (netdevice(7)).
func loopbackUp() error {
	const (
		siocgifflags = 0x8913
		siocsifflags = 0x8914
		iffUp        = 0x1
	)
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var ifr [40]byte // struct ifreq: a 16-byte name, then a union whose first member is the short ifr_flags
	copy(ifr[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), siocgifflags, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return e
	}
	flags := binary.NativeEndian.Uint16(ifr[16:]) | iffUp
	binary.NativeEndian.PutUint16(ifr[16:], flags)
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), siocsifflags, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return e
	}
	return nil
}

// readOnlyTree makes every mount of the new mount namespace read-only
// except a bind mount of work over itself. mount_setattr(2) with
// AT_RECURSIVE changes the whole tree in one call; remounting mount by
// mount would have to repeat each one's locked flags.
func readOnlyTree(work string) error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make / private: %w", err)
	}
	if err := syscall.Mount(work, work, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", work, err)
	}
	if err := mountSetattr("/", mountAttrRdonly, 0); err != nil {
		return fmt.Errorf("mount_setattr /: %w", err)
	}
	if err := mountSetattr(work, 0, mountAttrRdonly); err != nil {
		return fmt.Errorf("mount_setattr %s: %w", work, err)
	}
	return nil
}

const (
	sysMountSetattr = 442 // the same number on every architecture
	atRecursive     = 0x8000
	mountAttrRdonly = 0x1
)

// mountSetattr sets and clears mount attributes of the tree at path.
func mountSetattr(path string, set, clear uint64) error {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	attr := struct{ set, clr, propagation, usernsFD uint64 }{set: set, clr: clear}
	atFDCWD := -100
	_, _, e := syscall.Syscall6(sysMountSetattr, uintptr(atFDCWD), uintptr(unsafe.Pointer(p)), atRecursive, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return e
	}
	return nil
}

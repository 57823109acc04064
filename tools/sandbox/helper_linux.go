package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The helper is the binary that imports this package, executed again by
// Prepare as the first process of the new namespaces, as SandboxUID with
// three ambient capabilities. Its init function recognises itself by
// argv[0] and the helperEnv variable, sets up what only a process inside
// the namespaces can (the loopback interface, the new root, the resource
// limits), drops every capability, sets no_new_privs, loads the seccomp
// filter and executes the program, which keeps its PID, session and
// namespaces. A failure is written to standard error after setupPrefix and
// the helper exits with SetupExitCode before the program ever runs.
func init() {
	if len(os.Args) < 2 || os.Args[0] != helperArg0 || os.Getenv(helperEnv) != "1" {
		return
	}
	// Capabilities, no_new_privs and the filter belong to a thread; the
	// one that sets them is the one that executes the program.
	runtime.LockOSThread()
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
	if cfg.Root != "" {
		if err := newRoot(cfg); err != nil {
			return fmt.Errorf("new root: %w", err)
		}
	}
	if err := os.Chdir(cfg.WorkDir); err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	if cfg.Seccomp {
		if err := loadFilter(cfg.Sockets); err != nil {
			return fmt.Errorf("seccomp filter: %w", err)
		}
	}
	if cfg.Probe {
		return setLimits(cfg.Limits)
	}
	// The helper's own descriptor must not reach the program; the
	// program's stays open only for an interpreter to read the script.
	syscall.CloseOnExec(helperFD)
	if !cfg.Script {
		syscall.CloseOnExec(targetFD)
	}
	env := slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, helperEnv+"=") })
	path, err := syscall.BytePtrFromString(fmt.Sprintf("/proc/self/fd/%d", targetFD))
	if err != nil {
		return err
	}
	argv, err := syscall.SlicePtrFromStrings(os.Args[2:])
	if err != nil {
		return err
	}
	envv, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return err
	}
	// The limits come last, with execve's arguments already built: under
	// an address-space limit the helper, a Go program, may get no more
	// memory, and a runtime that cannot grow dies before the program runs.
	if err := setLimits(cfg.Limits); err != nil {
		return err
	}
	_, _, e := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])))
	return fmt.Errorf("execute %s: %w", os.Args[2], e)
}

// setLimits sets the resource limits of the policy on the helper, which
// the program it executes inherits.
func setLimits(l Limits) error {
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
	return nil
}

// dropCapabilities locks the securebits that would let a uid change or an
// execve give capabilities back, empties the bounding and ambient sets,
// then the effective, permitted and inheritable ones, and sets
// no_new_privs, on the calling thread.
func dropCapabilities() error {
	// SECBIT_NOROOT, NO_SETUID_FIXUP, KEEP_CAPS and NO_CAP_AMBIENT_RAISE,
	// each locked (securebits.h); KEEP_CAPS itself stays off.
	const bits = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<5 | 1<<6 | 1<<7
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
		return fmt.Errorf("securebits: %w", err)
	}
	for c := 0; ; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) && c > capSysAdmin {
			break // past the kernel's last capability
		}
		if err != nil {
			return fmt.Errorf("bounding set, capability %d: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("ambient set: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	return nil
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

// newRoot builds the program's root on the empty directory cfg.Root and
// makes it the root of the mount namespace: a read-only tmpfs holding
// read-only binds of SystemPaths, a minimal /etc, a /dev of six devices,
// a proc of the sandbox's PID namespace, fresh tmpfs /tmp and /dev/shm,
// the working directory read-write and the policy's paths. The host's
// mounts are detached afterwards, so nothing else is reachable.
func newRoot(cfg helperConfig) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make / private: %w", err)
	}
	r := cfg.Root
	if err := unix.Mount("tmpfs", r, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=1m"); err != nil {
		return fmt.Errorf("tmpfs on %s: %w", r, err)
	}
	for _, p := range SystemPaths {
		if err := give(r, p, p, false, true); err != nil {
			return err
		}
	}
	if err := os.Mkdir(r+"/etc", 0o755); err != nil {
		return err
	}
	etc := map[string]string{
		"passwd":        fmt.Sprintf("sandbox:x:%d:%d:sandbox:%s:/bin/sh\n", SandboxUID, SandboxUID, cfg.WorkDir),
		"group":         fmt.Sprintf("sandbox:x:%d:\n", SandboxUID),
		"hosts":         "127.0.0.1 localhost\n::1 localhost\n",
		"nsswitch.conf": "passwd: files\ngroup: files\nhosts: files\n",
	}
	for name, text := range etc {
		if err := os.WriteFile(r+"/etc/"+name, []byte(text), 0o644); err != nil {
			return err
		}
	}
	for _, p := range EtcPaths {
		if err := give(r, p, p, false, true); err != nil {
			return err
		}
	}
	if err := os.Mkdir(r+"/proc", 0o555); err != nil {
		return err
	}
	if err := unix.Mount("proc", r+"/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("proc: %w", err)
	}
	if err := newDev(r, cfg.TmpSize); err != nil {
		return fmt.Errorf("/dev: %w", err)
	}
	if err := tmpfs(r+"/tmp", cfg.TmpSize); err != nil {
		return err
	}
	if err := give(r, cfg.WorkDir, cfg.WorkDir, true, false); err != nil {
		return err
	}
	for i, p := range cfg.Paths {
		if err := give(r, cfg.Sources[i], p.Path, p.Writable, false); err != nil {
			return err
		}
	}
	if err := mountSetattr(r, unix.MOUNT_ATTR_RDONLY, 0, 0); err != nil {
		return fmt.Errorf("read-only root: %w", err)
	}
	// pivot_root(".", ".") stacks the old root under the new one at "/",
	// and detaching it leaves only the new.
	if err := os.Chdir(r); err != nil {
		return err
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detach the host's root: %w", err)
	}
	return os.Chdir("/")
}

// give makes host path p appear at path at under root r: a symbolic
// link is copied, a file or directory bind-mounted (with the mounts below
// it), read-only unless writable, never with set-user-ID programs or
// devices. A missing path is skipped when optional.
func give(r, p, at string, writable, optional bool) error {
	fi, err := os.Lstat(p)
	if err != nil {
		if optional && errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	dst := r + at
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	case fi.IsDir():
		err = os.Mkdir(dst, 0o755)
	default:
		err = os.WriteFile(dst, nil, 0o644)
	}
	if err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if err := unix.Mount(p, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", p, err)
	}
	set := uint64(unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV)
	clear := uint64(0)
	if writable {
		clear = unix.MOUNT_ATTR_RDONLY
	} else {
		set |= unix.MOUNT_ATTR_RDONLY
	}
	if err := mountSetattr(dst, set, clear, unix.AT_RECURSIVE); err != nil {
		return fmt.Errorf("mount_setattr %s: %w", p, err)
	}
	return nil
}

// devices are the host's devices the sandbox's /dev holds.
var devices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// newDev mounts a tmpfs on r/dev with binds of devices, the usual links
// into /proc/self/fd and a tmpfs /dev/shm, then makes it read-only.
func newDev(r string, shmSize uint64) error {
	dev := r + "/dev"
	if err := os.Mkdir(dev, 0o755); err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", dev, "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return err
	}
	for _, d := range devices {
		if err := os.WriteFile(dev+"/"+d, nil, 0o644); err != nil {
			return err
		}
		if err := unix.Mount("/dev/"+d, dev+"/"+d, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind /dev/%s: %w", d, err)
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, dev+"/"+name); err != nil {
			return err
		}
	}
	if err := tmpfs(dev+"/shm", shmSize); err != nil {
		return err
	}
	return mountSetattr(dev, unix.MOUNT_ATTR_RDONLY, 0, 0)
}

// tmpfs mounts a fresh tmpfs anyone may write to, of at most size bytes,
// on the new directory dir.
func tmpfs(dir string, size uint64) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	opts := fmt.Sprintf("mode=1777,size=%d", size)
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("tmpfs on %s: %w", dir, err)
	}
	return nil
}

// mountSetattr sets and clears mount attributes of the mount at path (and
// those below it, with flags AT_RECURSIVE). Unlike a remount it need not
// repeat the flags the kernel locked on the host's mounts.
func mountSetattr(path string, set, clear uint64, flags int) error {
	return unix.MountSetattr(unix.AT_FDCWD, path, uint(flags), &unix.MountAttr{Attr_set: set, Attr_clr: clear})
}

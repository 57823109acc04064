//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"runtime"
)

// errNotLinux is why every facility is missing off Linux.
var errNotLinux = errors.New("the sandbox is built from Linux namespaces; this is " + runtime.GOOS)

// Probe reports every facility missing: the sandbox exists only on Linux.
func Probe() Facilities {
	return Facilities{UserNS: errNotLinux, NetNS: errNotLinux, Loopback: errNotLinux, MountNS: errNotLinux, PIDNS: errNotLinux, Seccomp: errNotLinux}
}

// Prepare refuses with an *UnavailableError: the sandbox exists only on
// Linux.
func Prepare(ctx context.Context, p Policy, name string, args ...string) (*Command, error) {
	return nil, &UnavailableError{Restriction: "user namespace", Err: errNotLinux}
}

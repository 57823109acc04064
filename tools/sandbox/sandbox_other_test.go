//go:build !linux

package sandbox_test

import (
	"context"
	"errors"
	"testing"

	"github.com/toolconform/conform/tools/sandbox"
)

// TestRefusedOffLinux checks that every policy is refused before anything
// runs, naming the user namespace, and that the probe finds nothing.
func TestRefusedOffLinux(t *testing.T) {
	for _, p := range []sandbox.Policy{{}, {Network: sandbox.NetworkLoopback}, {Paths: []sandbox.Path{{Path: "/usr"}}}} {
		c, err := sandbox.Prepare(context.Background(), p, "true")
		var ue *sandbox.UnavailableError
		if c != nil || !errors.As(err, &ue) || !errors.Is(err, sandbox.ErrUnavailable) || ue.Restriction != "user namespace" {
			t.Errorf("policy %+v: got %v, %v; want an *UnavailableError for the user namespace", p, c, err)
		}
	}
	f := sandbox.Probe()
	for name, err := range map[string]error{"user": f.UserNS, "network": f.NetNS, "loopback": f.Loopback, "mount": f.MountNS, "pid": f.PIDNS, "seccomp": f.Seccomp} {
		if err == nil {
			t.Errorf("Probe reports %s namespaces available", name)
		}
	}
}

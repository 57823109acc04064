//go:build unix

package process

import (
	"os/exec"
	"syscall"
)

// SetGroup makes c the leader of a new process group, which holds every
// process it starts unless one leaves on purpose.
func SetGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// KillGroup kills every process of the group pgid leads. A group already
// gone is no error.
func KillGroup(pgid int) {
	syscall.Kill(-pgid, syscall.SIGKILL)
}

// TermGroup asks every process of the group pgid leads to stop (SIGTERM).
func TermGroup(pgid int) {
	syscall.Kill(-pgid, syscall.SIGTERM)
}

//go:build unix

package process

import (
	"os/exec"
	"syscall"
)

// setGroup makes c the leader of a new process group, which holds every
// process it starts unless one leaves on purpose.
func setGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills every process of the group pgid leads. A group already
// gone is no error.
func killGroup(pgid int) {
	syscall.Kill(-pgid, syscall.SIGKILL)
}

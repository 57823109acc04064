//go:build !unix

package process

import (
	"os"
	"os/exec"
)

// setGroup does nothing where there are no process groups.
func setGroup(c *exec.Cmd) {}

// killGroup kills the process pid; where there are no process groups, its
// children are not reached.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

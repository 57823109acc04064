//go:build !unix

package process

import (
	"os"
	"os/exec"
)

// SetGroup does nothing where there are no process groups.
func SetGroup(c *exec.Cmd) {}

// KillGroup kills the process pid; where there are no process groups, its
// children are not reached.
func KillGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// TermGroup kills the process pid: where there are no process groups there
// is no signal to ask it to stop.
func TermGroup(pid int) { KillGroup(pid) }

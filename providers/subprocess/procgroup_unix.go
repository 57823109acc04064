//go:build unix

package subprocess

import (
	"os/exec"
	"syscall"
)

func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	// A negative pid names the process group.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

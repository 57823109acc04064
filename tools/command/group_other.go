//go:build !unix

package command

import "os/exec"

// killGroupOnCancel leaves exec's default, killing the process only: this
// system has no process groups that os/exec can signal. cmd.WaitDelay
// still bounds the wait for pipes that a child holds.
func killGroupOnCancel(cmd *exec.Cmd) {}

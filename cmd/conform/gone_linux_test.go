package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// sysPidfdOpen is pidfd_open(2), number 434 on amd64, arm64 and the other
// architectures of the common system call table.
const sysPidfdOpen = 434

// waitGone waits up to bound for process pid to exit. A pidfd is readable
// once its process has exited, so this waits on the event, not a clock; a
// process already reaped has no pidfd (ESRCH) and is gone too.
func waitGone(pid int, bound time.Duration) error {
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno == syscall.ESRCH {
		return nil
	}
	if errno != 0 {
		return os.NewSyscallError("pidfd_open", errno)
	}
	defer syscall.Close(int(fd))
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return os.NewSyscallError("epoll_create1", err)
	}
	defer syscall.Close(ep)
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, int(fd), &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	events := make([]syscall.EpollEvent, 1)
	deadline := time.Now().Add(bound)
	for {
		n, err := syscall.EpollWait(ep, events, int(time.Until(deadline).Milliseconds()))
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return os.NewSyscallError("epoll_wait", err)
		}
		if n > 0 {
			return nil
		}
		return fmt.Errorf("still running after %v", bound)
	}
}

// Command prog is the program the sandbox tests run: each subcommand tries
// one thing a sandbox must stop and prints "denied: ERRNO" with exit status
// 3 when the kernel refuses it.
package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"syscall"
	"time"
)

var names = map[syscall.Errno]string{
	syscall.ECONNREFUSED: "ECONNREFUSED", syscall.ENETUNREACH: "ENETUNREACH", syscall.EROFS: "EROFS",
	syscall.EACCES: "EACCES", syscall.ENOMEM: "ENOMEM", syscall.EAGAIN: "EAGAIN", syscall.EMFILE: "EMFILE",
	syscall.EPERM: "EPERM", syscall.EFBIG: "EFBIG", syscall.ENOENT: "ENOENT", syscall.EAFNOSUPPORT: "EAFNOSUPPORT",
}

func deny(err error) {
	var e syscall.Errno
	if errors.As(err, &e) {
		if n, ok := names[e]; ok {
			fmt.Printf("denied: %s\n", n)
			fmt.Fprintf(os.Stderr, "denied: %s\n", n)
			os.Exit(3)
		}
	}
	fmt.Printf("failed: %v\n", err)
	os.Exit(4)
}

func main() {
	switch os.Args[1] {
	case "echo":
		io.Copy(os.Stdout, os.Stdin)
	case "net":
		c, err := net.DialTimeout("tcp", os.Args[2], 10*time.Second)
		if err != nil {
			deny(err)
		}
		c.Close()
		fmt.Println("connected")
	case "env":
		env := os.Environ()
		sort.Strings(env)
		for _, e := range env {
			fmt.Println(e)
		}
	case "read":
		b, err := os.ReadFile(os.Args[2])
		if err != nil {
			deny(err)
		}
		os.Stdout.Write(b)
	case "write":
		if err := os.WriteFile(os.Args[2], []byte("escaped\n"), 0o644); err != nil {
			deny(err)
		}
		fmt.Println("written")
	case "alloc":
		n, _ := strconv.Atoi(os.Args[2])
		if _, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE); err != nil {
			deny(err)
		}
		fmt.Println("allocated")
	case "fork":
		n, _ := strconv.Atoi(os.Args[2])
		for range n {
			if _, err := syscall.ForkExec("/bin/sleep", []string{"sleep", "3600"}, nil); err != nil {
				deny(err)
			}
		}
		fmt.Println("forked")
	case "hold":
		// A child that inherits stdout and stderr and outlives its parent's
		// timeout; both say so on stderr first. Extra arguments mark
		// them for a test to find on the host.
		child := exec.Command("/proc/self/exe", append([]string{"child"}, os.Args[2:]...)...)
		child.Stdout, child.Stderr = os.Stdout, os.Stderr
		if err := child.Start(); err != nil {
			deny(err)
		}
		fmt.Fprintln(os.Stderr, "started")
		time.Sleep(time.Hour)
	case "child":
		fmt.Fprintln(os.Stderr, "started")
		time.Sleep(time.Hour)
	case "pids":
		// The processes the program's /proc lists.
		entries, err := os.ReadDir("/proc")
		if err != nil {
			deny(err)
		}
		for _, e := range entries {
			if _, err := strconv.Atoi(e.Name()); err == nil {
				fmt.Println(e.Name())
			}
		}
	case "sleep":
		time.Sleep(time.Hour)
	case "spin":
		for {
		}
	case "flood":
		line := []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n")
		for {
			if _, err := os.Stdout.Write(line); err != nil {
				os.Exit(5)
			}
		}
	case "fail":
		fmt.Fprintln(os.Stderr, "no such city")
		os.Exit(1)
	case "files":
		n, _ := strconv.Atoi(os.Args[2])
		for range n {
			if _, err := os.Open("/dev/null"); err != nil {
				deny(err)
			}
		}
		fmt.Println("opened")
	case "bigfile":
		n, _ := strconv.Atoi(os.Args[2])
		if err := os.WriteFile("big", make([]byte, n), 0o644); err != nil {
			deny(err)
		}
		fmt.Println("written")
	default:
		fmt.Fprintf(os.Stderr, "unknown subcommand %q\n", os.Args[1])
		os.Exit(2)
	}
}

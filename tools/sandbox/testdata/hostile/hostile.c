// hostile tries, one subcommand at a time, to break out of the sandbox
// with the system calls themselves, not through a library that might check
// first. It prints "done" and exits 0 when the attempt succeeded, or
// "denied: ERRNO" and exits 3 when the kernel refused it.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *errname(int e) {
	switch (e) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case ENOSYS: return "ENOSYS";
	case ESRCH: return "ESRCH";
	case EROFS: return "EROFS";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	}
	return strerror(e);
}

// check ends the program with the outcome of a call that returned r.
static void check(long r) {
	if (r < 0) {
		printf("denied: %s\n", errname(errno));
		exit(3);
	}
	printf("done\n");
	exit(0);
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: hostile subcommand [args]\n");
		return 2;
	}
	const char *cmd = argv[1];
	const char *arg = argc > 2 ? argv[2] : "";
	if (!strcmp(cmd, "remount")) {
		// What undid the old read-only tree: a bind remount without
		// MS_RDONLY makes the mount at arg writable.
		check(mount("none", arg, NULL, MS_REMOUNT | MS_BIND, NULL));
	} else if (!strcmp(cmd, "mount-tmpfs")) {
		check(mount("tmpfs", arg, "tmpfs", 0, NULL));
	} else if (!strcmp(cmd, "fsopen")) {
		check(syscall(SYS_fsopen, "tmpfs", 0));
	} else if (!strcmp(cmd, "open-tree")) {
		check(syscall(SYS_open_tree, AT_FDCWD, "/", 1 /* OPEN_TREE_CLONE */ | AT_RECURSIVE));
	} else if (!strcmp(cmd, "pivot-root")) {
		check(syscall(SYS_pivot_root, ".", "."));
	} else if (!strcmp(cmd, "chroot")) {
		check(chroot(arg));
	} else if (!strcmp(cmd, "unshare")) {
		check(unshare(CLONE_NEWUSER | CLONE_NEWNS));
	} else if (!strcmp(cmd, "clone-newuser")) {
		long r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
		if (r == 0)
			_exit(0);
		if (r > 0)
			waitpid(r, NULL, 0);
		check(r);
	} else if (!strcmp(cmd, "clone3")) {
		unsigned long long args[11] = {0};
		args[0] = CLONE_NEWUSER; // flags
		args[4] = SIGCHLD;       // exit_signal
		long r = syscall(SYS_clone3, args, sizeof args);
		if (r == 0)
			_exit(0);
		if (r > 0)
			waitpid(r, NULL, 0);
		check(r);
	} else if (!strcmp(cmd, "setns")) {
		int fd = open("/proc/self/ns/mnt", O_RDONLY);
		if (fd < 0)
			check(fd);
		check(setns(fd, 0));
	} else if (!strcmp(cmd, "ptrace")) {
		// A sibling the program started itself: same user, same
		// namespaces.
		pid_t child = fork();
		if (child == 0) {
			pause();
			_exit(0);
		}
		long r = ptrace(PTRACE_ATTACH, child, 0, 0);
		int e = errno;
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		errno = e;
		check(r);
	} else if (!strcmp(cmd, "kill")) {
		check(kill(atoi(arg), SIGKILL));
	} else if (!strcmp(cmd, "kill-all")) {
		check(kill(-1, SIGKILL));
	} else if (!strcmp(cmd, "connect")) {
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0)
			check(fd);
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		strncpy(a.sun_path, arg, sizeof a.sun_path - 1);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
			check(-1);
		char buf[64] = {0};
		ssize_t n = read(fd, buf, sizeof buf - 1);
		printf("read %zd: %s\n", n, buf);
		check(0);
	} else if (!strcmp(cmd, "netlink")) {
		check(socket(AF_NETLINK, SOCK_RAW, 0));
	} else if (!strcmp(cmd, "packet")) {
		check(socket(AF_PACKET, SOCK_RAW, 0));
	} else if (!strcmp(cmd, "bpf")) {
		char attr[128] = {0};
		check(syscall(SYS_bpf, 0 /* BPF_MAP_CREATE */, attr, sizeof attr));
	} else if (!strcmp(cmd, "keyctl")) {
		// KEYCTL_GET_KEYRING_ID of KEY_SPEC_SESSION_KEYRING.
		check(syscall(SYS_keyctl, 0, -3, 0));
	} else if (!strcmp(cmd, "init-module")) {
		check(syscall(SYS_finit_module, 0, "", 0));
	} else if (!strcmp(cmd, "setuid")) {
		check(setuid(0));
	} else if (!strcmp(cmd, "int80")) {
#if defined(__x86_64__)
		// getpid through the 32-bit ABI, whose numbers differ: a filter
		// that checks only x86-64 numbers would let anything through.
		long r;
		__asm__ volatile("int $0x80" : "=a"(r) : "a"(20) : "memory");
		printf("pid %ld\n", r);
		return 0;
#else
		fprintf(stderr, "int80 is x86-64 only\n");
		return 2;
#endif
	} else if (!strcmp(cmd, "write")) {
		int fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			check(fd);
		check(write(fd, "escaped\n", 8));
	} else if (!strcmp(cmd, "fill")) {
		// Writes 1 MiB blocks into arg until a write fails.
		int fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			check(fd);
		static char block[1 << 20];
		for (long total = 0; total < (4L << 30); total += sizeof block) {
			if (write(fd, block, sizeof block) < 0)
				check(-1);
		}
		check(0);
	} else if (!strcmp(cmd, "touch-memory")) {
		// Allocates and touches arg MiB.
		long n = atol(arg);
		for (long i = 0; i < n; i++) {
			char *p = malloc(1 << 20);
			if (!p) {
				errno = ENOMEM;
				check(-1);
			}
			memset(p, 1, 1 << 20);
		}
		check(0);
	} else if (!strcmp(cmd, "forkbomb")) {
		// Forks children that sleep until the count is reached or a
		// fork fails.
		for (long i = 0; i < atol(arg); i++) {
			pid_t p = fork();
			if (p == 0) {
				sleep(3600);
				_exit(0);
			}
			if (p < 0)
				check(-1);
		}
		check(0);
	} else if (!strcmp(cmd, "daemon")) {
		// Double fork and a new session: the grandchild outlives the
		// program, which exits at once.
		if (fork() == 0) {
			setsid();
			if (fork() == 0) {
				close(0), close(1), close(2);
				execl("/bin/sleep", "sleep", arg, (char *)NULL);
				_exit(1);
			}
			_exit(0);
		}
		wait(NULL);
		check(0);
	}
	fprintf(stderr, "unknown subcommand %s\n", cmd);
	return 2;
}

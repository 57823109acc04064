//go:build unix

package cassettes

import (
	"os"
	"syscall"
)

// lockTemp takes an exclusive lock on a temporary file being written; the
// system drops it when the process ends, killed or not.
func lockTemp(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// unusedTemp reports whether no live process holds the lock of the
// temporary file called name.
func unusedTemp(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

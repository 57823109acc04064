//go:build !unix

package cassettes

import "os"

// lockTemp does nothing where the system has no flock: a temporary file is
// then taken for stale by its age alone.
func lockTemp(*os.File) error { return nil }

// unusedTemp reports true: without locks the age of a file decides.
func unusedTemp(string) bool { return true }

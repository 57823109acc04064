//go:build !linux

package main

import (
	"errors"
	"time"
)

// waitGone needs Linux pidfds; elsewhere the gone command fails, saying so.
func waitGone(pid int, bound time.Duration) error {
	return errors.New("gone needs Linux (pidfd_open)")
}

//go:build unix

package process

import (
	"errors"
	"syscall"
)

// Exists reports whether a process with pid exists (signal 0 is
// only checked, never sent). EPERM means it exists under another user.
func Exists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}

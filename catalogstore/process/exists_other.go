//go:build !unix

package process

// Exists cannot tell here: every process is presumed alive (a lease
// only expires).
func Exists(int) bool { return true }

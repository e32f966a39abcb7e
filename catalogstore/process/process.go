// Package process identifies a process durably enough that another process
// on the same machine can tell, from the record alone, that it is gone: a
// lease holder killed mid-compaction, a CREATE TABLE … AS SELECT killed
// before its rows committed.
//
// "The same machine" must be certain, or a live process would be taken
// for dead: the host name alone is not (two machines, or two containers
// sharing a UTS namespace, may share one), so on Linux the kernel's boot
// id and the PID namespace are recorded as well and all must match. Where
// they cannot be read no process is ever presumed gone.
package process

import (
	"os"
	"strconv"
	"strings"
)

// Identity is a process as recorded in a document.
type Identity struct {
	PID       int    `json:"pid,omitempty"`
	Host      string `json:"host,omitempty"`
	BootID    string `json:"boot-id,omitempty"`
	PIDNS     string `json:"pid-namespace,omitempty"`
	StartTime string `json:"process-start,omitempty"` // /proc/<pid>/stat field 22, so a reused pid is not mistaken for the process
}

// This is the identity of the calling process.
func This() Identity {
	h := Identity{PID: os.Getpid()}
	h.Host, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		h.BootID = strings.TrimSpace(string(b))
	}
	if ns, err := os.Readlink("/proc/self/ns/pid"); err == nil {
		h.PIDNS = ns
	}
	h.StartTime = Start(h.PID)
	return h
}

// SameMachine reports whether h ran on the machine (and PID namespace)
// of here, as far as both records can tell.
func (h Identity) SameMachine(here Identity) bool {
	return h.PID > 0 && h.Host != "" && h.Host == here.Host &&
		h.BootID != "" && h.BootID == here.BootID && h.PIDNS != "" && h.PIDNS == here.PIDNS
}

// Gone reports whether the process h has certainly exited: it ran on this
// machine and no process has its pid, or the process that has it started
// at another time (the pid was reused). here itself is never gone.
func (h Identity) Gone(here Identity) bool {
	if !h.SameMachine(here) || h.PID == here.PID {
		return false
	}
	if !Exists(h.PID) {
		return true
	}
	start := Start(h.PID)
	return h.StartTime != "" && start != "" && start != h.StartTime
}

// Start is the start time of process pid in clock ticks since boot (field
// 22 of /proc/<pid>/stat), or "" where it cannot be read.
func Start(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count fields after its closing one.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19] // fields 3.. follow ')': field 22 is the 20th
}

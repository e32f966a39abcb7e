package maintenance

import (
	"os"
	"strconv"
	"strings"
)

// holderProcess identifies the process holding a lease, so that another
// process on the same machine can tell when the holder is gone (killed
// mid-compaction) and take the lease over at once instead of waiting for
// it to expire.
//
// "The same machine" must be certain, or a live holder's lease would be
// taken: the host name alone is not (two machines, or two containers
// sharing a UTS namespace, may share one), so on Linux the kernel's boot id
// and the PID namespace are recorded as well and all must match. Where
// they cannot be read the lease only expires. A holder wrongly taken over
// is fenced anyway: its commit checks the lease in the same transaction
// (Lease.checkTx) and it stops with ErrLeaseLost.
type holderProcess struct {
	PID       int    `json:"pid,omitempty"`
	Host      string `json:"host,omitempty"`
	BootID    string `json:"boot-id,omitempty"`
	PIDNS     string `json:"pid-namespace,omitempty"`
	StartTime string `json:"process-start,omitempty"` // /proc/<pid>/stat field 22, so a reused pid is not mistaken for the holder
}

// thisProcess is the identity of the calling process.
func thisProcess() holderProcess {
	h := holderProcess{PID: os.Getpid()}
	h.Host, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		h.BootID = strings.TrimSpace(string(b))
	}
	if ns, err := os.Readlink("/proc/self/ns/pid"); err == nil {
		h.PIDNS = ns
	}
	h.StartTime = processStart(h.PID)
	return h
}

// sameMachine reports whether h ran on the machine (and PID namespace)
// of here, as far as both records can tell.
func (h holderProcess) sameMachine(here holderProcess) bool {
	return h.PID > 0 && h.Host != "" && h.Host == here.Host &&
		h.BootID != "" && h.BootID == here.BootID && h.PIDNS != "" && h.PIDNS == here.PIDNS
}

// gone reports whether the holder process has certainly exited: it ran on
// this machine and no process has its pid, or the process that has it
// started at another time (the pid was reused).
func (h holderProcess) gone(here holderProcess) bool {
	if !h.sameMachine(here) || h.PID == here.PID {
		return false
	}
	if !processExists(h.PID) {
		return true
	}
	start := processStart(h.PID)
	return h.StartTime != "" && start != "" && start != h.StartTime
}

// processStart is the start time of process pid in clock ticks since boot
// (field 22 of /proc/<pid>/stat), or "" where it cannot be read.
func processStart(pid int) string {
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

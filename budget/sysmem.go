package budget

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// fallbackMemory is assumed when the machine's memory cannot be read.
const fallbackMemory = 4 << 30

// DefaultLimit is the default query budget: a quarter of the memory the
// process may use (the machine's, or its cgroup's limit when lower).
func DefaultLimit() int64 { return SystemMemory() / 4 }

// DefaultServerLimit is the default server cap (lakesql_server_memory):
// half of the memory the process may use, leaving the rest to the Go
// runtime's overhead, caches and the OS.
func DefaultServerLimit() int64 { return SystemMemory() / 2 }

// SystemMemory is the memory the process may use in bytes: MemTotal from
// /proc/meminfo, lowered to the cgroup's memory limit when one is set
// (containers), or 4 GiB where neither can be read.
func SystemMemory() int64 {
	total := memTotal()
	if lim := cgroupLimit(); lim > 0 && (total <= 0 || lim < total) {
		total = lim
	}
	if total <= 0 {
		return fallbackMemory
	}
	return total
}

func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// cgroupLimit reads cgroup v2's memory.max, then v1's limit; 0 when
// there is none ("max", or v1's huge sentinel).
func cgroupLimit() int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<60 {
			return 0
		}
		return n
	}
	return 0
}

// Package sysmem reads the process's and the machine's memory figures from
// /proc (Linux) and formats byte counts. Elsewhere the figures are 0,
// which callers treat as unknown.
package sysmem

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// PeakRSS returns the process's peak resident set size in bytes from
// /proc/self/status (VmHWM), or 0 where that is unavailable.
func PeakRSS() int64 { return procStatusBytes("VmHWM:") }

// Available returns the memory the process may still take, in bytes:
// MemAvailable from /proc/meminfo, or less under a cgroup memory limit
// (a container's, as Docker and Kubernetes set it: the limit less the
// cgroup's usage), or 0 where neither is known.
func Available() int64 {
	read := func(path string) string {
		b, _ := os.ReadFile(path)
		return string(b)
	}
	limit, usage := read("/sys/fs/cgroup/memory.max"), read("/sys/fs/cgroup/memory.current") // cgroup v2
	if limit == "" {
		limit, usage = read("/sys/fs/cgroup/memory/memory.limit_in_bytes"), read("/sys/fs/cgroup/memory/memory.usage_in_bytes") // v1
	}
	return available(read("/proc/meminfo"), limit, usage)
}

// available is Available from the texts of /proc/meminfo and of the
// cgroup's limit and usage files ("" when absent; a limit of "max", or
// one beyond 2^62 as cgroup v1 writes none, is no limit).
func available(meminfo, limit, usage string) int64 {
	free := fieldKB(meminfo, "MemAvailable:")
	lim, err1 := strconv.ParseInt(strings.TrimSpace(limit), 10, 64)
	used, err2 := strconv.ParseInt(strings.TrimSpace(usage), 10, 64)
	if err1 != nil || err2 != nil || lim <= 0 || lim >= 1<<62 {
		return free
	}
	room := max(lim-used, 0)
	if free > 0 && free < room {
		return free
	}
	return room
}

func procStatusBytes(key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	return fieldKB(string(b), key)
}

func fieldKB(text, key string) int64 {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0
			}
			v, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return 0
			}
			return v * 1024
		}
	}
	return 0
}

// FormatBytes formats a byte count with a binary unit (KiB, MiB, GiB).
func FormatBytes(b int64) string {
	x := float64(b)
	for _, unit := range []string{"B", "KiB", "MiB", "GiB"} {
		if math.Abs(x) < 1024 || unit == "GiB" {
			if unit == "B" {
				return fmt.Sprintf("%d B", b)
			}
			return fmt.Sprintf("%.1f %s", x, unit)
		}
		x /= 1024
	}
	return ""
}

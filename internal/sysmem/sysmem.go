// Package sysmem reads the process's and the machine's memory figures from
// /proc (Linux) and formats byte counts. Elsewhere the figures are 0,
// which callers treat as unknown.
package sysmem

import (
	"fmt"
	"math"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
)

// PeakRSS returns the process's peak resident set size in bytes from
// /proc/self/status (VmHWM), or 0 where that is unavailable.
func PeakRSS() int64 { return procStatusBytes("VmHWM:") }

// Available returns the memory the process may still take, in bytes:
// MemAvailable from /proc/meminfo, or less under a cgroup memory limit
// (a container's, as Docker and Kubernetes set it: the limit less the
// cgroup's usage, the tightest of the process's cgroup and its
// ancestors), or 0 where neither is known.
func Available() int64 {
	read := func(path string) string {
		b, _ := os.ReadFile(path)
		return string(b)
	}
	return available(read("/proc/meminfo"), cgroupRoom(read))
}

// cgroupRoom returns the room left under the memory limits of the
// process's cgroup (from /proc/self/cgroup) and of its ancestors, read
// with read ("" for a file that is absent), or -1 where none is set.
// cgroup v2 keeps memory.max and memory.current under /sys/fs/cgroup;
// v1, memory.limit_in_bytes and memory.usage_in_bytes under
// /sys/fs/cgroup/memory. A limit of "max", or beyond 2^62 as v1 writes
// none, is no limit.
func cgroupRoom(read func(string) string) int64 {
	room := int64(-1)
	for _, line := range strings.Split(read("/proc/self/cgroup"), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		root, limitFile, usageFile := "/sys/fs/cgroup", "memory.max", "memory.current"
		switch {
		case f[0] == "0" && f[1] == "":
		case slices.Contains(strings.Split(f[1], ","), "memory"):
			root, limitFile, usageFile = "/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"
		default:
			continue
		}
		for dir := path.Join(root, f[2]); ; dir = path.Dir(dir) {
			lim, err1 := strconv.ParseInt(strings.TrimSpace(read(dir+"/"+limitFile)), 10, 64)
			used, err2 := strconv.ParseInt(strings.TrimSpace(read(dir+"/"+usageFile)), 10, 64)
			if err1 == nil && err2 == nil && lim > 0 && lim < 1<<62 && (room < 0 || lim-used < room) {
				room = max(lim-used, 0)
			}
			if dir == root || len(dir) <= len(root) {
				break
			}
		}
	}
	return room
}

// available is Available from the text of /proc/meminfo and the room
// under the cgroup limits (-1: none).
func available(meminfo string, room int64) int64 {
	free := fieldKB(meminfo, "MemAvailable:")
	if room < 0 || free > 0 && free < room {
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

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

// Available returns MemAvailable from /proc/meminfo in bytes, or 0
// where that is unavailable.
func Available() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	return fieldKB(string(b), "MemAvailable:")
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

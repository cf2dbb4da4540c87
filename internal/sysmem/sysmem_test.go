package sysmem

import "testing"

// TestAvailable: the machine's MemAvailable, or the room under a cgroup
// limit when that is less; "max" and cgroup v1's huge "no limit" value
// leave MemAvailable.
func TestAvailable(t *testing.T) {
	const meminfo = "MemTotal:       24000000 kB\nMemAvailable:   20000000 kB\n"
	const free = 20000000 * 1024
	for _, c := range []struct {
		meminfo, limit, usage string
		want                  int64
	}{
		{meminfo, "", "", free},
		{meminfo, "max\n", "1000\n", free},
		{meminfo, "9223372036854771712\n", "1000\n", free},
		{meminfo, "4294967296\n", "1073741824\n", 3 << 30},
		{meminfo, "4294967296\n", "5000000000\n", 0},
		{meminfo, "1099511627776\n", "0\n", free},
		{"", "4294967296\n", "0\n", 4 << 30},
		{"", "", "", 0},
	} {
		if got := available(c.meminfo, c.limit, c.usage); got != c.want {
			t.Errorf("limit %q usage %q: %d, want %d", c.limit, c.usage, got, c.want)
		}
	}
}

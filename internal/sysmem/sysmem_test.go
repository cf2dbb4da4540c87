package sysmem

import "testing"

// TestAvailable: the machine's MemAvailable, or the room under the
// tightest cgroup limit of the process's cgroup and its ancestors when
// that is less; "max" and cgroup v1's huge "no limit" value are no limit.
func TestAvailable(t *testing.T) {
	const meminfo = "MemTotal:       24000000 kB\nMemAvailable:   20000000 kB\n"
	const free = 20000000 * 1024
	for _, c := range []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{"no cgroup", map[string]string{}, free},
		{"v2 root, max", map[string]string{"/proc/self/cgroup": "0::/\n", "/sys/fs/cgroup/memory.max": "max\n", "/sys/fs/cgroup/memory.current": "1000\n"}, free},
		{"v2 nested", map[string]string{"/proc/self/cgroup": "0::/kubepods/pod1/c1\n",
			"/sys/fs/cgroup/kubepods/pod1/c1/memory.max": "max\n", "/sys/fs/cgroup/kubepods/pod1/c1/memory.current": "1073741824\n",
			"/sys/fs/cgroup/kubepods/pod1/memory.max": "4294967296\n", "/sys/fs/cgroup/kubepods/pod1/memory.current": "1073741824\n"}, 3 << 30},
		{"v1 nested, over", map[string]string{"/proc/self/cgroup": "4:memory:/process_api/abc\n3:cpuset:/\n",
			"/sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes": "4294967296\n", "/sys/fs/cgroup/memory/process_api/abc/memory.usage_in_bytes": "5000000000\n"}, 0},
		{"v1 root, no limit", map[string]string{"/proc/self/cgroup": "4:memory:/\n",
			"/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n", "/sys/fs/cgroup/memory/memory.usage_in_bytes": "1000\n"}, free},
		{"limit above MemAvailable", map[string]string{"/proc/self/cgroup": "0::/\n", "/sys/fs/cgroup/memory.max": "1099511627776\n", "/sys/fs/cgroup/memory.current": "0\n"}, free},
	} {
		read := func(p string) string { return c.files[p] }
		if got := available(meminfo, cgroupRoom(read)); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	if got := available("", cgroupRoom(func(p string) string {
		return map[string]string{"/proc/self/cgroup": "0::/\n", "/sys/fs/cgroup/memory.max": "4294967296\n", "/sys/fs/cgroup/memory.current": "0\n"}[p]
	})); got != 4<<30 {
		t.Errorf("without MemAvailable: %d, want the cgroup's room", got)
	}
}

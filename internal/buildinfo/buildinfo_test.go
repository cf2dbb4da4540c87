package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestFormat: the version, the Go release and the commit cut to 12
// digits, marked dirty, from build information written out by hand.
func TestFormat(t *testing.T) {
	for _, c := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{}, "cmd (devel) (" + runtime.Version() + ")"},
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}}},
			"cmd v1.2.3 (" + runtime.Version() + ", commit 0123456789ab)"},
		{debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}},
			"cmd (devel) (" + runtime.Version() + ", commit abc+dirty)"},
	} {
		if got := format("cmd", &c.bi); got != c.want {
			t.Errorf("%+v: %q, want %q", c.bi, got, c.want)
		}
	}
	if v := Version("wys"); !strings.HasPrefix(v, "wys ") || !strings.Contains(v, runtime.Version()) {
		t.Errorf("Version: %q", v)
	}
	if d := Dependency("no.such/module"); d != "" {
		t.Errorf("Dependency of a module the build lacks: %q", d)
	}
}

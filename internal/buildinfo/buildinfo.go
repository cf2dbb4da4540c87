// Package buildinfo says which build of a command is running: the
// module's version, the Go release and the commit it was built from, as
// the commands' -version flags print them.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version returns "command VERSION (goX.Y.Z, commit REV[+dirty])": the
// main module's version ("(devel)" for a build from a working tree), the
// Go release, and the VCS revision the build recorded, cut to 12 hex
// digits, with "+dirty" when the tree had uncommitted changes (no commit
// part when the build recorded none).
func Version(command string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Sprintf("%s (devel) (%s)", command, runtime.Version())
	}
	return format(command, bi)
}

// Dependency returns the version of the module at path that the build
// uses (its replacement's, when replaced; "(devel)" for a local
// directory), or "" when it uses none.
func Dependency(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range bi.Deps {
		if m.Path == path {
			if m.Replace != nil && m.Replace.Version != "" {
				return m.Replace.Version
			}
			return m.Version
		}
	}
	return ""
}

func format(command string, bi *debug.BuildInfo) string {
	v := "(devel)"
	if bi.Main.Version != "" {
		v = bi.Main.Version
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	commit := ""
	if rev != "" {
		commit = ", commit " + rev + dirty
	}
	return fmt.Sprintf("%s %s (%s%s)", command, v, runtime.Version(), commit)
}

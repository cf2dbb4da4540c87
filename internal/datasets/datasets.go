// Package datasets finds the project's read-only data mirror,
// shared/datasets beside the repository, for tests and benchmarks.
package datasets

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the path of shared/datasets found in the working directory
// or one of its parents, or "" when there is none.
func Dir() string {
	dir, _ := os.Getwd()
	for {
		p := filepath.Join(dir, "shared", "datasets")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Path returns the path of rel under shared/datasets, or skips the test
// when the mirror or the file is absent.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	d := Dir()
	if d == "" {
		tb.Skipf("shared/datasets/%s not found beside the repository; CI provides it", rel)
	}
	p := filepath.Join(d, rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared/datasets/%s not found beside the repository; CI provides it", rel)
	}
	return p
}

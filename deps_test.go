package wys

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/wys-project/wys"

// layer gives each package directory its rank; a package may import only
// packages of a strictly lower rank (or its own subpackages' parents, see
// allowed). Unlisted directories fail the test so that new packages are
// placed deliberately.
var layer = map[string]int{
	"sparse":             1,
	"lowrank":            2,
	"pipeline":           3,
	"pipeline/reference": 4,
	"cmd/wys-sparse":     5,
	"benchmarks":         5,
	"viz/tsne":           1, // imports only gonum
}

// TestImportLayering reads every package's imports (test files included)
// and fails on an import that points up or sideways in the layering, as the
// Go toolchain's own deps_test.go does.
func TestImportLayering(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		base := d.Name()
		if path != "." && (strings.HasPrefix(base, ".") || base == "testdata" || base == "data") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, build.ImportComment)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		if path == "." {
			return nil
		}
		rel := filepath.ToSlash(path)
		rank, ok := rankOf(rel)
		if !ok {
			t.Errorf("package %s has no place in the layering; add it to deps_test.go", rel)
			return nil
		}
		imports := append(append(append([]string{}, pkg.Imports...), pkg.TestImports...), pkg.XTestImports...)
		xtest := map[string]bool{}
		for _, imp := range pkg.XTestImports {
			xtest[imp] = true
		}
		for _, imp := range imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if dep == rel {
				continue // external test package importing its own package
			}
			if xtest[imp] && !contains(pkg.Imports, imp) && !contains(pkg.TestImports, imp) && strings.HasPrefix(dep, rel+"/") {
				continue // an external test may use its own subpackage as an oracle (pipeline_test uses pipeline/reference)
			}
			depRank, ok := rankOf(dep)
			if !ok {
				t.Errorf("%s imports unknown package %s", rel, dep)
				continue
			}
			if depRank >= rank && !(rel == "benchmarks" || strings.HasPrefix(rel, "benchmarks/")) {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must flow sparse → lowrank → pipeline → cmd", rel, rank, dep, depRank)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// rankOf returns the layer of a package directory; subdirectories of
// benchmarks and cmd/wys-sparse inherit their parent's layer.
func rankOf(rel string) (int, bool) {
	for p := rel; p != "." && p != ""; p = filepath.ToSlash(filepath.Dir(p)) {
		if r, ok := layer[p]; ok {
			if p != rel && p != "benchmarks" && p != "cmd/wys-sparse" {
				return 0, false
			}
			return r, true
		}
	}
	return 0, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

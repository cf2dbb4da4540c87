package wys

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/wys-project/wys"

// layer gives each package directory its rank; a package (its tests
// included) may import only packages of a strictly lower rank, so imports
// flow one way with no exemptions:
//
//	internal/* ── sparse ── lowrank ── pipeline (core) ── graphio ── {reference, baseline, eval, knn} ── train ── cmd ── benchmarks
//
// (internal/outcheck, the commands' shared checks of -out and -format
// and their shared messages, imports graphio and so sits beside train.)
//
// The dense reference sits below the sparse trainer because it is the
// trainer's test oracle. Unlisted directories fail the test so that new
// packages are placed deliberately.
var layer = map[string]int{
	"internal/atomicfile":        0,
	"internal/buildinfo":         0,
	"internal/ctxtest":           0, // tests' cancelling context
	"internal/datasets":          0,
	"internal/interrupt":         0,
	"internal/filelock":          0,
	"internal/sysmem":            0,
	"pipeline/internal/kernels":  0,
	"sparse":                     1,
	"viz/tsne":                   1, // gonum only
	"viz/qplot":                  1, // gonum/plot; the library never draws
	"lowrank":                    2,
	"pipeline":                   3,
	"pipeline/internal/logmf":    3, // dense log targets: sparse, lowrank, kernels
	"pipeline/graphio":           4,
	"pipeline/reference":         5,
	"pipeline/baseline":          5,
	"pipeline/eval":              5,
	"pipeline/knn":               5, // kernels only
	"pipeline/train":             6,
	"internal/outcheck":          6, // the commands' shared checks (-out, -format) and messages (settings by flag, an unfit model): pipeline and graphio only
	"cmd/wys-sparse":             7,
	"benchmarks":                 8,
	"benchmarks/internal/smoke":  8, // the commands' test helpers; internal/datasets only
	"benchmarks/cmd/bucketed":    9,
	"benchmarks/cmd/classify":    9,
	"benchmarks/cmd/directed":    9,
	"benchmarks/cmd/figures":     9,
	"benchmarks/cmd/kernels":     9,
	"benchmarks/cmd/large":       9,
	"benchmarks/cmd/lowrank":     9,
	"benchmarks/cmd/multilabel":  9,
	"benchmarks/cmd/reconstruct": 9,
	"benchmarks/cmd/rank":        9,
	"benchmarks/cmd/scale":       9,
	"benchmarks/cmd/sensitivity": 9,
	"benchmarks/cmd/speed":       9,
	"benchmarks/cmd/table1":      9,
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
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
			return filepath.SkipDir // a module of its own (beam): it may import any of ours
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
		for _, imp := range imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if dep == rel {
				continue // external test package importing its own package
			}
			depRank, ok := rankOf(dep)
			if !ok {
				t.Errorf("%s imports unknown package %s", rel, dep)
				continue
			}
			if depRank >= rank {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must flow one way (see layer)", rel, rank, dep, depRank)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// rankOf returns the layer of a package directory.
func rankOf(rel string) (int, bool) {
	r, ok := layer[rel]
	return r, ok
}

// sourceFiles returns the non-test Go files of the module by package
// directory, skipping hidden directories and testdata.
func sourceFiles(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dir := filepath.ToSlash(filepath.Dir(path))
			out[dir] = append(out[dir], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPackageShare keeps every package below 30% of the module's
// non-test lines, so that no package becomes a grab bag again.
func TestPackageShare(t *testing.T) {
	lines := map[string]int{}
	total := 0
	for dir, files := range sourceFiles(t) {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			n := strings.Count(string(b), "\n")
			lines[dir] += n
			total += n
		}
	}
	for dir, n := range lines {
		if share := float64(n) / float64(total); share > 0.30 {
			t.Errorf("package %s holds %.0f%% of the %d non-test lines (limit 30%%): split it by concern", dir, 100*share, total)
		}
	}
}

// TestFunctionLength keeps functions outside tests at 80 lines or fewer,
// unless their doc comment says why they are longer ("longer than 80
// lines because …").
func TestFunctionLength(t *testing.T) {
	fset := token.NewFileSet()
	for _, files := range sourceFiles(t) {
		for _, path := range files {
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
				if n > 80 && !strings.Contains(fd.Doc.Text(), "longer than 80 lines because") {
					t.Errorf("%s: %s is %d lines; split it, or say in its doc comment why it is longer than 80 lines because …", fset.Position(fd.Pos()), fd.Name.Name, n)
				}
			}
		}
	}
}

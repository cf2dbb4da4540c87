// Package benchmarks holds the end-to-end comparisons of wys: Table 1 on
// the released splits (dense reference against the sparse trainer and the
// paper), scaling runs on synthetic graphs, and helpers shared by the
// commands under benchmarks/cmd. Results are written under
// benchmarks/results/ with the date, commit and machine they ran on.
package benchmarks

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/wys-project/wys/pipeline"
)

// MeanStd returns the mean and sample standard deviation of xs (0 for a
// single value).
func MeanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)-1))
}

// FormatQ formats the first k entries of Q.
func FormatQ(q []float64, k int) string {
	var parts []string
	for i, x := range q {
		if i == k {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("%.3f", x))
	}
	return strings.Join(parts, ", ")
}

// startCommit is the checkout's commit when the program started (read
// then, not when the result is written, so that a long run is not labelled
// with commits made while it ran).
var startCommit = gitCommit()

func gitCommit() string {
	commit := "unknown"
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			commit += "+dirty"
		}
	}
	return commit
}

// MachineLine describes when and where a result was measured: date,
// commit at start, Go version, CPU and cores.
func MachineLine() string {
	commit := startCommit
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	return fmt.Sprintf("Measured %s, commit %s, %s, %s, %d cores.",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), commit, runtime.Version(), cpu, runtime.NumCPU())
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory and a rename, so that readers never see a partial file.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}

// WriteEdgeListTemp writes the undirected edges of the CSR adjacency adj
// (each stored as both arcs) to a new temporary file as a SNAP edge list,
// "u<TAB>v" with u < v, and returns its path; the caller removes it.
func WriteEdgeListTemp(adj interface {
	Dims() (int, int)
	Row(int) ([]int32, []float64)
}) (string, error) {
	f, err := os.CreateTemp("", "wys-edges-*.txt")
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, _ := adj.Dims()
	for v := 0; v < n; v++ {
		idx, _ := adj.Row(v)
		for _, u := range idx {
			if int(u) > v {
				fmt.Fprintf(w, "%d\t%d\n", v, u)
			}
		}
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// RunSplit runs a method of the common shape Run(ctx, g, eval, cfg, rec)
// (train.Run, reference.Run, baseline.Run) on the training graph of split,
// evaluating on its pairs.
func RunSplit[C any](ctx context.Context, run func(context.Context, *pipeline.Graph, *pipeline.Split, C, pipeline.Recorder) (*pipeline.Result, error),
	split *pipeline.Split, cfg C, rec pipeline.Recorder) (*pipeline.Result, error) {
	g, err := split.TrainGraph()
	if err != nil {
		return nil, err
	}
	return run(ctx, g, split, cfg, rec)
}

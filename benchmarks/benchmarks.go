// Package benchmarks holds the end-to-end comparisons of wys: Table 1 on
// the released splits (dense reference against the sparse trainer and the
// paper), scaling runs on synthetic graphs, and what the commands under
// benchmarks/cmd share: the Harness (flags -data, -out and -allow-dirty,
// signals, exit codes, the results header) and small helpers. Results are
// written under benchmarks/results/ with the date, commit, build tags,
// machine and command line they ran with.
package benchmarks

import (
	"bufio"
	"context"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wys-project/wys/internal/atomicfile"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/eval"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// MeanStd returns the mean and sample standard deviation of xs (0 for a
// single value, NaN for none): eval.MeanStd, which the multi-label scores
// use too.
func MeanStd(xs []float64) (mean, std float64) { return eval.MeanStd(xs) }

// EpochsText describes a -epochs value for a results file: the number,
// or the trainer's default rule for 0.
func EpochsText(e float64) string {
	if e == 0 {
		return "by the trainer's default rule"
	}
	return fmt.Sprint(e)
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

// WriteFileAtomic writes data to path through a temporary file in the same
// directory and a rename, so that readers never see a partial file.
func WriteFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
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
	g, err := split.TrainGraph(ctx)
	if err != nil {
		return nil, err
	}
	return run(ctx, g, split, cfg, rec)
}

// Palette holds the line colours of the commands' plots, in order.
var Palette = []color.RGBA{
	{R: 204, G: 0, B: 0, A: 255}, {R: 52, G: 101, B: 164, A: 255}, {R: 78, G: 154, B: 6, A: 255},
	{R: 245, G: 121, B: 0, A: 255}, {R: 117, G: 80, B: 123, A: 255}, {R: 85, G: 87, B: 83, A: 255},
	{R: 6, G: 152, B: 154, A: 255}, {R: 143, G: 89, B: 2, A: 255}, {R: 196, G: 160, B: 0, A: 255},
	{R: 0, G: 0, B: 0, A: 255},
}

// SavePNG draws p on a w x h canvas and writes it as a PNG to path
// atomically, creating path's directory.
func SavePNG(path string, p *plot.Plot, w, h vg.Length) error {
	wt, err := p.WriterTo(w, h, "png")
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, func(out io.Writer) error {
		_, err := wt.WriteTo(out)
		return err
	})
}

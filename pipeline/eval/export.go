package eval

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/sbinet/npyio"

	"github.com/wys-project/wys/internal/atomicfile"
	"github.com/wys-project/wys/pipeline"
)

// ExportMultiLabel writes the inputs of MultiLabel as .npy files into dir,
// for an independent scorer (benchmarks/sklearn/multilabel.py) to use the
// same features and the same splits:
//
//	x.npy       n·f float64, the row-major feature matrix (shape (n·f,); f = len/n)
//	y.npy       n·Count uint8, the label indicator matrix, row-major
//	shape.npy   int64 [n, f, Count]
//	rows.npy    int32, split after split: its training rows, then its test rows
//	ntrain.npy  int32, the number of training rows of each split
//	ratio.npy   float64, the ratio of each split
//
// Every file is written atomically.
func ExportMultiLabel(dir string, x []float64, n, f int, lab *pipeline.MultiLabels, splits []LabelSplit) error {
	if len(x) != n*f || len(lab.Of) != n {
		return fmt.Errorf("eval: export of %d features and %d label rows for %d x %d", len(x), len(lab.Of), n, f)
	}
	y := make([]uint8, n*lab.Count)
	for v, ls := range lab.Of {
		for _, l := range ls {
			y[v*lab.Count+int(l)] = 1
		}
	}
	var rows, ntrain []int32
	var ratio []float64
	for _, sp := range splits {
		for _, set := range [][]int{sp.Train, sp.Test} {
			for _, v := range set {
				rows = append(rows, int32(v))
			}
		}
		ntrain = append(ntrain, int32(len(sp.Train)))
		ratio = append(ratio, sp.Ratio)
	}
	files := []struct {
		name string
		v    any
	}{{"x.npy", x}, {"y.npy", y}, {"shape.npy", []int64{int64(n), int64(f), int64(lab.Count)}},
		{"rows.npy", rows}, {"ntrain.npy", ntrain}, {"ratio.npy", ratio}}
	for _, file := range files {
		err := atomicfile.Write(filepath.Join(dir, file.name), func(w io.Writer) error { return npyio.Write(w, file.v) })
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
	}
	return nil
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/sbinet/npyio/npy"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
)

// gensimOptions are the DeepWalk baseline's settings.
type gensimOptions struct {
	python, script                                   string
	walks, length, window, negative, epochs, workers int
	seed                                             uint64
	dim                                              int
}

func (o *gensimOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.python, "python", "/usr/bin/python3", "python3 with gensim and numpy (Debian: apt-get install python3-gensim)")
	fs.StringVar(&o.script, "script", "benchmarks/gensim/deepwalk.py", "the DeepWalk script, relative to the working directory")
	fs.IntVar(&o.walks, "gensim-walks", 10, "gensim: walks per node")
	fs.IntVar(&o.length, "gensim-length", 80, "gensim: nodes per walk")
	fs.IntVar(&o.window, "gensim-window", 10, "gensim: skip-gram window")
	fs.IntVar(&o.negative, "gensim-negative", 5, "gensim: negatives per positive pair")
	fs.IntVar(&o.epochs, "gensim-epochs", 1, "gensim: passes over the walks (gensim's own default is 5; one pass over 10 walks of 80 per node takes longer than wys's whole default run here)")
	fs.IntVar(&o.workers, "gensim-workers", 2, "gensim: worker threads")
}

func (o *gensimOptions) describe() string {
	return fmt.Sprintf("4.2 skip-gram on DeepWalk walks (%d walks of %d per node, window %d, %d negatives, d = %d, %d epoch(s), %d workers, no subsampling)",
		o.walks, o.length, o.window, o.negative, o.dim, o.epochs, o.workers)
}

// gensimEvent is one JSON line of deepwalk.py.
type gensimEvent struct {
	Version string  `json:"gensim"`
	Epoch   int     `json:"epoch"`
	Elapsed float64 `json:"elapsed"`
	Y       string  `json:"y"`
	YC      string  `json:"yc"`
}

// runGensim runs deepwalk.py on the training graph and scores the
// embeddings after each epoch by Y·Y and by Y·Y′.
func runGensim(ctx context.Context, h *benchmarks.Harness, o gensimOptions, tg *pipeline.Graph, split *pipeline.Split) ([]curve, error) {
	edges, err := benchmarks.WriteEdgeListTemp(tg.Adj)
	if err != nil {
		return nil, err
	}
	defer os.Remove(edges)
	dir, err := os.MkdirTemp("", "wys-deepwalk-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cmd := exec.CommandContext(ctx, o.python, o.script, edges, fmt.Sprint(tg.N()), dir,
		"--walks", fmt.Sprint(o.walks), "--length", fmt.Sprint(o.length), "--dim", fmt.Sprint(o.dim),
		"--window", fmt.Sprint(o.window), "--negative", fmt.Sprint(o.negative), "--epochs", fmt.Sprint(o.epochs),
		"--workers", fmt.Sprint(o.workers), "--seed", fmt.Sprint(o.seed))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("gensim: %w (give -python, or -methods wys)", err)
	}
	yy, yyc := curve{name: "gensim Y·Y"}, curve{name: "gensim Y·Y′"}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var ev gensimEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("gensim: %q: %v", sc.Text(), err)
		}
		if ev.Y == "" {
			continue
		}
		a, b, err := scoreGensim(ev, tg.N(), o.dim, split)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h.Stderr, "  gensim epoch %d  %.0fs  test AUC Y·Y %.4f  Y·Y′ %.4f\n", ev.Epoch, ev.Elapsed, a, b)
		yy.points = append(yy.points, point{ev.Elapsed, a})
		yyc.points = append(yyc.points, point{ev.Elapsed, b})
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("gensim: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	if len(yy.points) == 0 {
		return nil, errors.New("gensim: the script wrote no embeddings")
	}
	yy.final, yyc.final = yy.points[len(yy.points)-1].auc, yyc.points[len(yyc.points)-1].auc
	return []curve{yy, yyc}, nil
}

// scoreGensim reads one epoch's Y and Y′, removes the files, and returns
// the test AUC of Y·Y and of Y·Y′.
func scoreGensim(ev gensimEvent, n, dim int, split *pipeline.Split) (float64, float64, error) {
	y, err := readMatrix(ev.Y, n*dim)
	if err != nil {
		return 0, 0, err
	}
	yc, err := readMatrix(ev.YC, n*dim)
	if err != nil {
		return 0, 0, err
	}
	os.Remove(ev.Y)
	os.Remove(ev.YC)
	return pipeline.PairAUC(y, y, dim, split.Test, split.TestNeg), pipeline.PairAUC(y, yc, dim, split.Test, split.TestNeg), nil
}

// readMatrix reads a float32 .npy file of want values.
func readMatrix(path string, want int) ([]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := npy.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var v []float32
	if err := r.Read(&v); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(v) != want {
		return nil, fmt.Errorf("%s: %d values, want %d", path, len(v), want)
	}
	return v, nil
}

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/wys-project/wys/internal/sysmem"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/baseline"
	"github.com/wys-project/wys/pipeline/eval"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/reference"
	"github.com/wys-project/wys/pipeline/train"
)

// report is the JSON report of a run.
type report struct {
	Tool    string `json:"tool"`
	Started string `json:"started"`
	// WorkingDir is the directory the run started in, which the
	// relative paths of inputs, outputs and args are relative to.
	WorkingDir string               `json:"working_dir"`
	Inputs     []inputFile          `json:"inputs"`
	Graph      graphStats           `json:"graph"`
	Load       *graphio.LoadReport  `json:"load,omitempty"`
	Settings   settings             `json:"settings"`
	Result     resultSummary        `json:"result"`
	Classify   *eval.ClassifyResult `json:"classification,omitempty"`
	// ClassifyLogReg is the logistic regression on the same split.
	ClassifyLogReg *eval.LogRegClassifyResult `json:"classification_logreg,omitempty"`
	Curve          []curvePoint               `json:"curve"`
	Stages         []stage                    `json:"stages"`
	PeakRSS        int64                      `json:"peak_rss_bytes"`
	Outputs        []string                   `json:"outputs"`
}

// settings records the method and the resolved configuration it ran with
// (the configuration itself, marshalled, never a copy of selected fields).
type settings struct {
	Method           string              `json:"method"`
	Trainer          string              `json:"trainer,omitempty"`
	Sparse           *train.Config       `json:"sparse,omitempty"`
	Dense            *reference.Config   `json:"dense,omitempty"`
	Baseline         *baseline.Config    `json:"baseline,omitempty"`
	Refine           *train.RefineConfig `json:"refine,omitempty"`
	FixedQ           string              `json:"fixed_q_name,omitempty"`
	ResumedFromBatch int64               `json:"resumed_from_batch,omitempty"`
	// How the evaluation pairs were made: the share of -graph's edges
	// held out (absent with -split, a released split, or a whole graph),
	// the share of those that select the model, and -lcc.
	TestFraction float64 `json:"test_fraction,omitempty"`
	ValFraction  float64 `json:"val_fraction,omitempty"`
	LCC          bool    `json:"lcc,omitempty"`
	// The command line and the build that ran it.
	Args    []string `json:"args"`
	Version string   `json:"version"`
	Go      string   `json:"go"`
}

type inputFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

type graphStats struct {
	Nodes      int  `json:"nodes"`
	TrainArcs  int  `json:"train_arcs"`
	Directed   bool `json:"directed"`
	TrainPairs int  `json:"train_pairs"`
	TestPairs  int  `json:"test_pairs"`
	ValPairs   int  `json:"validation_pairs,omitempty"`
}

type resultSummary struct {
	Method          string   `json:"method"`
	TrainAUC        *float64 `json:"train_auc"`
	ValAUC          *float64 `json:"validation_auc,omitempty"`
	TestAUC         *float64 `json:"test_auc"`
	TestDirectedAUC *float64 `json:"test_directed_auc,omitempty"`
	rankMetrics
	BestStep       int       `json:"best_step"`
	Q              []float64 `json:"Q"`
	QLogits        []float64 `json:"q_logits"`
	PairsPerSecond float64   `json:"pairs_per_second,omitempty"`
	EstimatedBytes int64     `json:"estimated_bytes"`
	// MemoryLimitBytes is the limit of the memory pre-flight check, as
	// -max-memory gives it or as taken from the machine (sparse trainer).
	MemoryLimitBytes int64 `json:"memory_limit_bytes,omitempty"`
	// Stopped is what ended a sparse run (pipeline.Stats.Stopped).
	Stopped string `json:"stopped,omitempty"`
}

// curvePoint is one evaluation during training; an AUC that was not
// measured (no such pairs) is null.
type curvePoint struct {
	Step     int       `json:"step"`
	Epoch    float64   `json:"epoch"`
	Loss     *float64  `json:"loss"`
	TrainAUC *float64  `json:"train_auc"`
	ValAUC   *float64  `json:"validation_auc,omitempty"`
	TestAUC  *float64  `json:"test_auc"`
	Q        []float64 `json:"Q"`
	Seconds  float64   `json:"seconds"`
}

type stage struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// setResult records the metrics and the curve of res and, when ranks is
// set and there is a split, the ranking measures of split's pairs. Those
// score every pair again and sort the lists (14 s at R-MAT scale 20),
// and only the JSON report holds them, so a run without -report skips
// them.
func (r *report) setResult(ctx context.Context, res *pipeline.Result, split *pipeline.Split, ranks bool) error {
	val := split.HasValidation()
	r.Result = resultSummary{Method: res.Method, TestAUC: finite(res.TestAUC),
		TestDirectedAUC: finite(res.TestDirectedAUC), BestStep: res.BestStep, Q: res.Q, QLogits: res.QLogits,
		PairsPerSecond: res.Stats.PairsPerSecond, EstimatedBytes: res.Stats.EstimatedBytes,
		MemoryLimitBytes: res.Stats.MemoryLimitBytes, Stopped: res.Stats.Stopped}
	r.Result.TrainAUC, r.Result.ValAUC = selectionAUC(res.TrainAUC, val)
	var train, test *pipeline.Ranking
	if split != nil && res.L != nil && ranks {
		var err error
		if train, test, err = rankSplit(ctx, res, split); err != nil {
			return err
		}
		r.Result.rankMetrics = newRankMetrics(train, test)
	}
	switch {
	case val && res.L != nil:
		// The train AUC beside the train AP, although the model was
		// selected on the validation pairs.
		if train != nil {
			r.Result.TrainAUC = finite(train.AUC())
		}
	case r.Result.TrainAUC == nil:
		// The whole graph embedded: the selection AUC is the fit to a
		// sample of its own arcs, on the curve at the selected step.
		r.Result.TrainAUC = finite(selectedFit(res))
	}
	r.Curve = make([]curvePoint, len(res.Curve))
	for i, p := range res.Curve {
		r.Curve[i] = curvePoint{Step: p.Step, Epoch: p.Epoch, Loss: finite(p.Loss),
			TestAUC: finite(p.TestAUC), Q: p.Q, Seconds: p.Elapsed.Seconds()}
		r.Curve[i].TrainAUC, r.Curve[i].ValAUC = selectionAUC(p.TrainAUC, val)
	}
	return nil
}

// rankSplit scores and sorts split's train and test pairs under res's
// embeddings, once for every measure the report takes from them; tests
// replace it to count its calls.
var rankSplit = func(ctx context.Context, res *pipeline.Result, split *pipeline.Split) (train, test *pipeline.Ranking, err error) {
	if train, err = pipeline.RankPairs(ctx, res.L, res.R, res.Half, split.Train, split.TrainNeg); err != nil {
		return nil, nil, err
	}
	test, err = pipeline.RankPairs(ctx, res.L, res.R, res.Half, split.Test, split.TestNeg)
	return train, test, err
}

// selectedFit returns the selection AUC on res's curve at its selected
// step (a whole-graph run's fit to a sample of the graph's own arcs), or
// NaN; after -refine, at its last step, whose model is the result's.
func selectedFit(res *pipeline.Result) float64 {
	if n := len(res.Curve); res.Stats.RefineSteps > 0 && n > 0 {
		return res.Curve[n-1].TrainAUC // the refined model, the last step's
	}
	for _, p := range res.Curve {
		if p.Step == res.BestStep {
			return p.TrainAUC
		}
	}
	return math.NaN()
}

// write hashes the inputs that were given (besides those already hashed
// while they were read) and writes the report to path.
func (r *report) write(path string, started time.Time, inputs ...string) error {
	var given []string
	for _, p := range inputs {
		if p != "" {
			given = append(given, p)
		}
	}
	files, err := hashFiles(given...)
	if err != nil {
		return err
	}
	r.Inputs = append(r.Inputs, files...)
	if r.Inputs == nil {
		r.Inputs = []inputFile{} // the demo reads no file
	}
	if r.Outputs == nil {
		r.Outputs = []string{}
	}
	r.Settings.Go, r.Settings.Version = runtime.Version(), version()
	r.WorkingDir, _ = os.Getwd()
	r.PeakRSS = sysmem.PeakRSS()
	r.Stages = append(r.Stages, stage{"total", time.Since(started).Seconds()})
	return graphio.WriteJSON(path, r)
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// hashFiles returns the sha256 and size of each file, or of each file of
// a directory.
func hashFiles(paths ...string) ([]inputFile, error) {
	var out []inputFile
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		files := []string{p}
		if st.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, err
			}
			files = files[:0]
			for _, e := range entries {
				if !e.IsDir() {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
		}
		for _, f := range files {
			h := sha256.New()
			r, err := os.Open(f)
			if err != nil {
				return nil, err
			}
			n, err := io.Copy(h, r)
			r.Close()
			if err != nil {
				return nil, err
			}
			out = append(out, inputFile{Path: f, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: n})
		}
	}
	return out, nil
}

// selectionAUC files a run's model-selection AUC (pipeline.Result's
// TrainAUC) under its name: the train AUC, or with validation pairs
// (-val-fraction) the validation AUC, the train AUC then being null (an
// evaluation's; the result's is measured on the train pairs after it).
func selectionAUC(x float64, val bool) (train, validation *float64) {
	if val {
		return nil, finite(x)
	}
	return finite(x), nil
}

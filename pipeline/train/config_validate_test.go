package train_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/train"
)

// TestConfigValidate checks Config.Validate field by field against the
// field documentation: every zero value (the defaults) and every value the
// documentation allows is accepted; every other value is rejected with an
// error that starts with the package name and names the field (the
// mention), so that a rejection for the wrong reason fails too.
func TestConfigValidate(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	ten := func(x float64) []float64 { // a fixed Q of the default length C = 10
		q := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
		q[3] = x
		return q
	}
	cases := []struct {
		name    string
		cfg     train.Config
		mention string // "" when cfg is valid
	}{
		// Accepted: the zero value, each field's zero, and allowed values.
		{"zero value", train.Config{}, ""},
		{"dim 2", train.Config{Dim: 2}, ""},
		{"dim 128", train.Config{Dim: 128}, ""},
		{"fractional epochs", train.Config{Epochs: 0.5}, ""},
		{"batch 1", train.Config{BatchWalks: 1}, ""},
		{"negatives 5", train.Config{Negatives: 5}, ""},
		{"adam", train.Config{Optimizer: train.OptAdam}, ""},
		{"sgd", train.Config{Optimizer: train.OptSGD, LR: 0.5}, ""},
		{"percentdelta", train.Config{Optimizer: train.OptPercentDelta}, ""},
		{"lr", train.Config{LR: 1e-4, QLR: 1e-3}, ""},
		{"walk source", train.Config{Source: train.SourceWalk}, ""},
		{"factored source", train.Config{Source: train.SourceFactored, FactorRank: 3}, ""},
		{"spectral start", train.Config{Start: train.StartSpectral}, ""},
		{"random start", train.Config{Start: train.StartRandom}, ""},
		{"eval every", train.Config{EvalEvery: 0.25, EvalPairs: 10, Patience: 3}, ""},
		{"workers", train.Config{Workers: 1, Seed: math.MaxUint64}, ""},
		{"memory limit", train.Config{MemoryLimit: 1}, ""},
		{"checkpoint every", train.Config{CheckpointEvery: time.Second}, ""},
		{"converge", train.Config{Converge: true, Tolerance: 1e-4, TimeBudget: time.Minute}, ""},
		{"average", train.Config{Average: 0.5, Patience: 2}, ""},
		{"average all", train.Config{Average: 1}, ""},
		{"average above 1", train.Config{Average: 1.5}, "average"},
		{"negative average", train.Config{Average: -0.5}, "average"},
		{"NaN average", train.Config{Average: nan}, "average"},
		{"average with converge", train.Config{Average: 0.5, Converge: true}, "average = 0.5 with converge: averaging"},
		{"average with a time budget", train.Config{Average: 0.5, TimeBudget: time.Minute}, "average = 0.5 with time_budget_ns: averaging"},
		{"average with both", train.Config{Average: 0.5, Converge: true, TimeBudget: time.Minute}, "average = 0.5 with converge and time_budget_ns: averaging"},
		{"NaN tolerance", train.Config{Tolerance: nan}, "tolerance"},
		{"negative tolerance", train.Config{Tolerance: -0.1}, "tolerance"},
		{"negative time budget", train.Config{TimeBudget: -time.Second}, "time_budget_ns = -1s"},
		{"negatives above the maximum", train.Config{Negatives: train.MaxNegatives + 1}, "negatives"},
		{"negatives at the maximum", train.Config{Negatives: train.MaxNegatives}, ""},
		{"fixed Q", train.Config{FixedQ: ten(0)}, ""},
		{"fixed Q with the extra contexts", train.Config{Objective: pipeline.ObjectiveConfig{C: 2, PPR: 0.15, AdamicAdar: true}, FixedQ: []float64{1, 0.5, 0.25, 0.125}}, ""},
		{"objective", train.Config{Objective: pipeline.ObjectiveConfig{Formulation: pipeline.FormulationPaper, C: 1000, Beta: -1, WalksPerNode: 1, PPR: 0.5}}, ""},

		// The objective is validated too.
		{"formulation", train.Config{Objective: pipeline.ObjectiveConfig{Formulation: "book"}}, "formulation"},
		{"negative C", train.Config{Objective: pipeline.ObjectiveConfig{C: -1}}, "C = -1"},
		{"C above 1000", train.Config{Objective: pipeline.ObjectiveConfig{C: 1001}}, "C = 1001"},
		{"NaN beta", train.Config{Objective: pipeline.ObjectiveConfig{Beta: nan}}, "beta"},
		{"infinite beta", train.Config{Objective: pipeline.ObjectiveConfig{Beta: inf}}, "beta"},
		{"PPR 1", train.Config{Objective: pipeline.ObjectiveConfig{PPR: 1}}, "ppr = 1"},
		{"PPR below the minimum", train.Config{Objective: pipeline.ObjectiveConfig{PPR: 1e-9}}, "ppr = 1e-09: want a restart probability of at least 0.001"},
		{"PPR at the minimum", train.Config{Objective: pipeline.ObjectiveConfig{PPR: 0.001}}, ""},
		{"negative PPR", train.Config{Objective: pipeline.ObjectiveConfig{PPR: -0.1}}, "ppr = -0.1"},
		{"negative walks", train.Config{Objective: pipeline.ObjectiveConfig{WalksPerNode: -1}}, "walks_per_node = "},
		{"infinite walks", train.Config{Objective: pipeline.ObjectiveConfig{WalksPerNode: inf}}, "walks_per_node = "},

		// Rejected values of each field.
		{"dim 1", train.Config{Dim: 1}, "dim = 1"},
		{"odd dim", train.Config{Dim: 5}, "dim = 5"},
		{"negative dim", train.Config{Dim: -2}, "dim = -2"},
		{"negative epochs", train.Config{Epochs: -1}, "epochs"},
		{"NaN epochs", train.Config{Epochs: nan}, "epochs"},
		{"infinite epochs", train.Config{Epochs: inf}, "epochs"},
		{"negative batch", train.Config{BatchWalks: -1}, "batch_walks = -1"},
		{"negative negatives", train.Config{Negatives: -1}, "negatives"},
		{"unknown optimizer", train.Config{Optimizer: "adagrad"}, `optimizer = "adagrad": want adam, rmsprop, rowrms, sgd or percentdelta`},
		{"optimizer case", train.Config{Optimizer: "Adam"}, "optimizer"},
		{"negative lr", train.Config{LR: -0.1}, "lr = -0.1"},
		{"NaN lr", train.Config{LR: nan}, "learning rate"},
		{"infinite lr", train.Config{LR: inf}, "learning rate"},
		{"negative qlr", train.Config{QLR: -0.1}, "qlr = "},
		{"NaN qlr", train.Config{QLR: nan}, "qlr = "},
		{"infinite qlr", train.Config{QLR: inf}, "qlr = "},
		{"unknown source", train.Config{Source: "svd"}, `source = "svd"`},
		{"unknown start", train.Config{Start: "zeros"}, `start = "zeros"`},
		{"negative rank", train.Config{FactorRank: -1}, "factor_rank = -1"},
		{"negative eval every", train.Config{EvalEvery: -1}, "eval_every_epochs = "},
		{"NaN eval every", train.Config{EvalEvery: nan}, "eval_every_epochs = "},
		{"infinite eval every", train.Config{EvalEvery: inf}, "eval_every_epochs = "},
		{"negative eval pairs", train.Config{EvalPairs: -1}, "eval_pairs = -1"},
		{"negative patience", train.Config{Patience: -1}, "patience"},
		{"negative workers", train.Config{Workers: -1}, "workers"},
		{"negative memory limit", train.Config{MemoryLimit: -1}, "memory_limit_bytes = -1"},
		{"negative checkpoint interval", train.Config{CheckpointEvery: -time.Second}, "checkpoint_every = -1s"},
		{"fixed Q too short", train.Config{FixedQ: []float64{1, 1}}, "has 2 entries, want 10"},
		{"fixed Q without the extra contexts", train.Config{Objective: pipeline.ObjectiveConfig{C: 2, PPR: 0.15}, FixedQ: []float64{1, 1}}, "want 3"},
		{"empty fixed Q", train.Config{FixedQ: []float64{}}, "has 0 entries"},
		{"negative fixed Q", train.Config{FixedQ: ten(-0.5)}, "entry -0.5 is not"},
		{"NaN fixed Q", train.Config{FixedQ: ten(nan)}, "entry NaN is not"},
		{"infinite fixed Q", train.Config{FixedQ: ten(inf)}, "entry +Inf is not"},
		{"fixed Q of zeros", train.Config{FixedQ: make([]float64, 10)}, "sums to 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.cfg.Validate()
			switch {
			case c.mention == "" && err != nil:
				t.Errorf("rejected: %v", err)
			case c.mention != "" && err == nil:
				t.Errorf("accepted; want an error mentioning %q", c.mention)
			case err != nil && !strings.Contains(err.Error(), c.mention):
				t.Errorf("error %q does not mention %q", err, c.mention)
			case err != nil && !strings.HasPrefix(err.Error(), "train: ") && !strings.HasPrefix(err.Error(), "pipeline: "):
				t.Errorf("error %q does not start with the package name", err)
			}
			// Every rejected field is named for a front end to map to
			// its flag.
			var se *pipeline.SettingError
			if err != nil && !errors.As(err, &se) {
				t.Errorf("error %q is not a *pipeline.SettingError", err)
			}
		})
	}
}

// TestConfigResolveValidates checks that the defaults themselves are
// valid: Resolve of the zero value, and of every accepted optimiser and
// source, passes Validate.
func TestConfigResolveValidates(t *testing.T) {
	t.Parallel()
	for _, c := range []train.Config{
		{}, {Optimizer: train.OptSGD}, {Optimizer: train.OptPercentDelta},
		{Source: train.SourceFactored, Start: train.StartSpectral},
		{Objective: pipeline.ObjectiveConfig{Formulation: pipeline.FormulationPaper, PPR: 0.2, AdamicAdar: true}},
	} {
		for _, g := range []struct{ n, nnz int }{{0, 0}, {10, 30}, {100000, 2000000}} {
			r := c.Resolve(g.n, g.nnz)
			if err := r.Validate(); err != nil {
				t.Errorf("%+v resolved for %d nodes, %d arcs: %v", c, g.n, g.nnz, err)
			}
			if r.Dim == 0 || r.Epochs == 0 || r.BatchWalks == 0 || r.Negatives == 0 || r.LR == 0 || r.QLR == 0 ||
				r.EvalEvery == 0 || r.EvalPairs == 0 || r.Workers == 0 || r.FactorRank == 0 || r.CheckpointEvery == 0 ||
				r.NegativeBlock == 0 || r.Optimizer == "" || r.Source == "" || r.Start == "" {
				t.Errorf("Resolve left a zero field: %+v", r)
			}
		}
	}
}

// TestLargeGraphDefaults checks the rule that resolves Optimizer and
// NegativeBlock: Adam pair by pair below DefaultBlockNodes nodes, RMSProp
// in blocks of DefaultNegativeBlock from there, blocks by default only
// with RMSProp, explicit settings kept, and the bucketed schedule's
// negatives pair by pair at any size, with the trainer's optimizer rule.
func TestLargeGraphDefaults(t *testing.T) {
	t.Parallel()
	big := train.DefaultBlockNodes
	for _, c := range []struct {
		cfg   train.Config
		n     int
		opt   string
		block int
	}{
		{train.Config{}, big - 1, train.OptAdam, train.NegativePairs},
		{train.Config{}, big, train.OptRMSProp, train.DefaultNegativeBlock},
		{train.Config{Optimizer: train.OptAdam}, big, train.OptAdam, train.NegativePairs},
		{train.Config{Optimizer: train.OptRowRMS}, big, train.OptRowRMS, train.NegativePairs},
		{train.Config{Optimizer: train.OptRMSProp}, big - 1, train.OptRMSProp, train.NegativePairs},
		{train.Config{NegativeBlock: train.NegativePairs}, big, train.OptRMSProp, train.NegativePairs},
		{train.Config{NegativeBlock: 4}, big - 1, train.OptAdam, 4},
		{train.Config{NegativeBlock: 4}, big, train.OptRMSProp, 4},
	} {
		r := c.cfg.Resolve(c.n, 10*c.n)
		if r.Optimizer != c.opt || r.NegativeBlock != c.block {
			t.Errorf("%+v on %d nodes: optimizer %q, negative block %d, want %q and %d", c.cfg, c.n, r.Optimizer, r.NegativeBlock, c.opt, c.block)
		}
		if again := r.Resolve(c.n, 10*c.n); again.Optimizer != r.Optimizer || again.NegativeBlock != r.NegativeBlock {
			t.Errorf("%+v on %d nodes: resolving twice gives %q and %d", c.cfg, c.n, again.Optimizer, again.NegativeBlock)
		}
	}
	if err := (train.Config{NegativeBlock: train.NegativePairs - 1}).Validate(); err == nil {
		t.Errorf("negative block %d accepted", train.NegativePairs-1)
	}
	for n, opt := range map[int]string{big - 1: train.OptAdam, big: train.OptRMSProp} {
		s, err := train.NewSchedule(smallGraph(n, 2*n, false, 3), train.Config{Epochs: 1}, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r := s.Config(); r.Optimizer != opt || r.NegativeBlock != train.NegativePairs {
			t.Errorf("bucketed schedule on %d nodes: optimizer %q, negative block %d, want %s pair by pair", n, r.Optimizer, r.NegativeBlock, opt)
		}
	}
}

// TestStartDefault checks the rule that resolves Start: spectral on graphs
// of at least FactorRank and at most DefaultSpectralNodes nodes, random
// otherwise and in the bucketed schedule, and an explicit start kept.
func TestStartDefault(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg  train.Config
		n    int
		want string
	}{
		{train.Config{}, 100000, train.StartSpectral},
		{train.Config{}, train.DefaultSpectralNodes, train.StartSpectral},
		{train.Config{}, train.DefaultSpectralNodes + 1, train.StartRandom},
		{train.Config{}, 64, train.StartSpectral}, // rank d/2 = 64
		{train.Config{}, 63, train.StartRandom},
		{train.Config{FactorRank: 8}, 63, train.StartSpectral},
		{train.Config{Start: train.StartRandom}, 100000, train.StartRandom},
		{train.Config{Start: train.StartSpectral}, train.DefaultSpectralNodes + 1, train.StartSpectral},
	} {
		if got := c.cfg.Resolve(c.n, 10*c.n).Start; got != c.want {
			t.Errorf("%+v on %d nodes: start %q, want %q", c.cfg, c.n, got, c.want)
		}
	}
	g, err := pipeline.PlantedPartition(200, 4, 0.2, 0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := train.NewSchedule(g, train.Config{Epochs: 1}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Config().Start; got != train.StartRandom {
		t.Errorf("bucketed schedule: start %q, want %q", got, train.StartRandom)
	}
	if _, err := train.NewSchedule(g, train.Config{Epochs: 1, Start: train.StartSpectral}, 2, 1); err == nil {
		t.Error("bucketed schedule accepted the spectral start")
	}
}

package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/train"
)

// variant is one wys training setting of the benchmark: the base
// configuration (the command's flags) with the formulation, the reading
// of the .mat weights, the learning rate, the batch size, the length or
// the tail averaging changed.
type variant struct {
	spec     string // as given, e.g. "paper+weighted+lr=0.005"; "default" for the base
	weighted bool   // train on the .mat weights
	cfg      train.Config
}

// name is the variant's row label: "wys" for the base, else the settings
// in brackets.
func (v variant) name() string {
	if v.spec == "default" {
		return "wys"
	}
	return "wys [" + strings.ReplaceAll(v.spec, "+", ", ") + "]"
}

// parseVariant reads a "+"-separated list of settings on top of base:
// default (nothing changed), code or paper (the formulation), weighted,
// lr=X, batch=N, epochs=X and average=S.
func parseVariant(spec string, base train.Config) (variant, error) {
	v := variant{spec: spec, cfg: base}
	if spec == "default" {
		return v, nil
	}
	for _, s := range strings.Split(spec, "+") {
		switch {
		case s == "code":
			v.cfg.Objective.Formulation = pipeline.FormulationCode
		case s == "paper":
			v.cfg.Objective.Formulation = pipeline.FormulationPaper
		case s == "weighted":
			v.weighted = true
		default:
			name, val, _ := strings.Cut(s, "=")
			set, ok := numeric[name]
			if !ok || val == "" {
				return v, fmt.Errorf("unknown setting %q (want default, or code, paper, weighted, lr=X, batch=N, epochs=X and average=S joined by +)", s)
			}
			x, err := strconv.ParseFloat(val, 64)
			if err != nil || !(x > 0) || math.IsInf(x, 0) {
				return v, fmt.Errorf("%q: %s is not a positive number", s, val)
			}
			if name == "batch" && x != math.Trunc(x) {
				return v, fmt.Errorf("%q: a batch is a whole number of walks", s)
			}
			set(&v.cfg, x)
		}
	}
	return v, v.cfg.Validate()
}

// numeric sets the variant settings that take a number.
var numeric = map[string]func(*train.Config, float64){
	"lr":      func(c *train.Config, x float64) { c.LR = x },
	"batch":   func(c *train.Config, x float64) { c.BatchWalks = int(x) },
	"epochs":  func(c *train.Config, x float64) { c.Epochs = x },
	"average": func(c *train.Config, x float64) { c.Average = x },
}

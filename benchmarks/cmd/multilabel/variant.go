package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/train"
)

// variant is one wys training setting of the benchmark: the base
// configuration (the command's flags) with the formulation, the reading
// of the .mat weights and the learning rate changed.
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
// and lr=X.
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
		case strings.HasPrefix(s, "lr="):
			lr, err := strconv.ParseFloat(s[len("lr="):], 64)
			if err != nil || !(lr > 0) {
				return v, fmt.Errorf("%q: the learning rate is not a positive number", s)
			}
			v.cfg.LR = lr
		default:
			return v, fmt.Errorf("unknown setting %q (want default, or code, paper, weighted and lr=X joined by +)", s)
		}
	}
	return v, nil
}

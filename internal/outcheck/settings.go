package outcheck

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/wys-project/wys/pipeline"
)

// settingFlags maps the settings that the libraries' Validate methods
// name (pipeline.SettingError) to the flags that set them in wys-sparse
// and wys-beam, so that a refused value is reported under the flag the
// user gave.
var settingFlags = map[string]string{
	"dim": "dim", "epochs": "epochs", "batch_walks": "batch", "negatives": "negatives",
	"negative_block": "negative-block", "optimizer": "optimizer", "lr": "lr", "qlr": "qlr",
	"source": "source", "start": "start", "tolerance": "tol", "time_budget_ns": "time",
	"average": "average", "eval_every_epochs": "eval-every", "patience": "patience",
	"workers": "workers", "steps": "steps", "formulation": "formulation", "C": "C",
	"beta": "beta", "ppr": "ppr", "walks_per_node": "walks-per-node", "method": "method",
	"window": "C", "converge": "converge", "refine.steps": "refine", "refine.lr": "refine-lr",
	"exact_logs": "exact-logs",
}

// SettingFlag returns the flag (without its dash) that sets a setting a
// library names (pipeline.SettingError's Setting), or "" when no flag of
// the commands sets it.
func SettingFlag(setting string) string { return settingFlags[setting] }

// SettingText returns err, a setting a library refused, in the words of
// the flags that set it ("-epochs -1: want …") when it is a
// pipeline.SettingError whose settings all have flags; otherwise err's
// text without its package's prefix (TrimPackage).
func SettingText(err error) string {
	var se *pipeline.SettingError
	if !errors.As(err, &se) || settingFlags[se.Setting] == "" {
		return TrimPackage(err.Error())
	}
	var with []string
	for _, w := range se.With {
		if settingFlags[w] == "" {
			return TrimPackage(err.Error())
		}
		with = append(with, "-"+settingFlags[w])
	}
	if len(with) > 0 {
		return fmt.Sprintf("-%s %s with %s: %s", settingFlags[se.Setting], se.ValueText(), strings.Join(with, " and "), se.Want)
	}
	return fmt.Sprintf("-%s %s: %s", settingFlags[se.Setting], se.ValueText(), se.Want)
}

// TrimPackage drops a library package's prefix ("train: ") from an
// error's text: a command's message starts with the command's name.
func TrimPackage(msg string) string {
	for _, p := range []string{"pipeline: ", "graphio: ", "train: ", "reference: ", "baseline: ", "eval: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

// ParseUint64 reads a whole-number flag such as -seed, refusing anything
// else in the words both commands use (the flag package says only
// "parse error").
func ParseUint64(s string) (uint64, error) {
	x, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, errors.New("want a whole number from 0 to 18446744073709551615 (2^64 − 1)")
	}
	return x, nil
}

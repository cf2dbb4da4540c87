package outcheck

import "fmt"

// UnfitAUC is the AUC on a model's own training arcs below which a run
// is said not to have fit its graph: a trained model scores them near 1.
const UnfitAUC = 0.6

// FewSteps is the number of minibatch steps below which a run that did
// not fit its graph is said to have been too short, not mistuned.
const FewSteps = 200

// Unfit is the note a command prints when model, the model it trained
// ("the selected model", "the trained model"), tells its own training
// arcs from non-edges at AUC fit below UnfitAUC (a diverging step size,
// an input read wrong, a run too short), after steps minibatch steps, or
// full-batch steps when dense (negative: not known); rate is the flag of
// the step size that made the model (-lr, or -refine-lr for a refined
// one). It is "" for a model that fits, or a fit that is NaN (not
// measured).
func Unfit(model string, fit float64, steps int64, dense bool, rate string) string {
	if !(fit < UnfitAUC) {
		return ""
	}
	how := "close to chance (0.5)"
	if fit < 0.5 {
		how = "worse than chance (0.5)"
	}
	fix := fmt.Sprintf("check the learning rate (%s) and how the input was read", rate)
	switch {
	case steps < 0 || steps >= FewSteps:
	case dense:
		fix += fmt.Sprintf("; the run took only %d full-batch steps: it may be too short (more -steps)", steps)
	default:
		fix += fmt.Sprintf("; the run took only %d minibatch steps (an epoch is N walks, so a small graph gets few): it may be too short (more -epochs)", steps)
	}
	return fmt.Sprintf("note: %s tells its own training arcs from non-edges at AUC %.4f, %s: training did not fit the graph; %s", model, fit, how, fix)
}

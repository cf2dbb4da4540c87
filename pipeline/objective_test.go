package pipeline

import "testing"

// TestObjectiveResolveIdempotent: a resolved objective resolves to
// itself, a β turned off (negative) included, whose weight stays 0.
func TestObjectiveResolveIdempotent(t *testing.T) {
	for _, c := range []struct{ beta, resolved, weight float64 }{
		{0, DefaultBeta, DefaultBeta}, {-1, -1, 0}, {-0.25, -1, 0}, {0.3, 0.3, 0.3},
	} {
		o := ObjectiveConfig{Beta: c.beta}.Resolve()
		if o.Beta != c.resolved || o.Resolve() != o || o.BetaWeight() != c.weight {
			t.Errorf("beta %v: resolved %v (again %v), weight %v; want %v, weight %v", c.beta, o.Beta, o.Resolve().Beta, o.BetaWeight(), c.resolved, c.weight)
		}
	}
}

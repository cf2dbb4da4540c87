package benchmarks

import (
	"errors"
	"slices"
	"testing"
)

// TestLists parses good and bad comma-separated lists of numbers; every
// error must be a usage error (exit 2) naming the flag and the element.
func TestLists(t *testing.T) {
	h := newHarness("test", nil, nil, nil)
	even := func(d int) bool { return d >= 2 && d%2 == 0 }
	ints, err := h.Ints("dims", "128, 64 ,2", even, "an even width")
	if err != nil || !slices.Equal(ints, []int{128, 64, 2}) {
		t.Errorf("Ints = %v, %v; want [128 64 2]", ints, err)
	}
	fl, err := h.Floats("ratios", "0.1,0.9", func(r float64) bool { return r > 0 && r < 1 }, "a share")
	if err != nil || !slices.Equal(fl, []float64{0.1, 0.9}) {
		t.Errorf("Floats = %v, %v; want [0.1 0.9]", fl, err)
	}
	if fl, err := h.Floats("beta", "-1.5e-1", nil, "a number"); err != nil || !slices.Equal(fl, []float64{-0.15}) {
		t.Errorf("Floats with nil ok = %v, %v; want [-0.15]", fl, err)
	}
	for _, tc := range []struct{ s, want string }{
		{"128,63", `-dims: "63" is not an even width (want a comma-separated list)`},
		{"128,,64", `-dims: "" is not an even width (want a comma-separated list)`},
		{"128;64", `-dims: "128;64" is not an even width (want a comma-separated list)`},
		{"", `-dims: "" is not an even width (want a comma-separated list)`},
	} {
		_, err := h.Ints("dims", tc.s, even, "an even width")
		var ue *usageError
		if err == nil || err.Error() != tc.want || !errors.As(err, &ue) {
			t.Errorf("Ints(%q) error %v, want the usage error %q", tc.s, err, tc.want)
		}
	}
	if names, err := h.Names("datasets", " ca-HepTh, PPI"); err != nil || !slices.Equal(names, []string{"ca-HepTh", "PPI"}) {
		t.Errorf("Names = %v, %v; want [ca-HepTh PPI]", names, err)
	}
	for _, s := range []string{"", "PPI,", "a,,b", " , "} {
		var ue *usageError
		if _, err := h.Names("datasets", s); err == nil || !errors.As(err, &ue) || err.Error() != `-datasets: "" is not a name (want a comma-separated list)` {
			t.Errorf("Names(%q) error %v, want the usage error for an empty name", s, err)
		}
	}
	for _, s := range []string{"NaN", "Inf", "1,x"} {
		if _, err := h.Floats("C", s, nil, "a number"); err == nil {
			t.Errorf("Floats(%q) accepted it", s)
		}
	}
}

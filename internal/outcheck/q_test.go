package outcheck

import (
	"strings"
	"testing"
)

// TestFormatQ: Q is printed ten values to a line; above 40 powers the
// middle ones are left out with a line that says which, and the last five
// powers and the extra contexts still show.
func TestFormatQ(t *testing.T) {
	q := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = float64(i) / 1000 // value i/1000 prints as i's digits
		}
		return out
	}
	for _, c := range []struct {
		q     []float64
		c     int
		lines []string
	}{
		{q(10), 10, []string{"0.000 0.001 0.002 0.003 0.004 0.005 0.006 0.007 0.008 0.009"}},
		{q(12), 11, []string{"0.000 0.001 0.002 0.003 0.004 0.005 0.006 0.007 0.008 0.009", "0.010 0.011"}},
		{q(40), 40, []string{"0.000 0.001 0.002 0.003 0.004 0.005 0.006 0.007 0.008 0.009",
			"0.010 0.011 0.012 0.013 0.014 0.015 0.016 0.017 0.018 0.019",
			"0.020 0.021 0.022 0.023 0.024 0.025 0.026 0.027 0.028 0.029",
			"0.030 0.031 0.032 0.033 0.034 0.035 0.036 0.037 0.038 0.039"}},
		{q(102), 100, []string{"0.000 0.001 0.002 0.003 0.004 0.005 0.006 0.007 0.008 0.009",
			"0.010 0.011 0.012 0.013 0.014 0.015 0.016 0.017 0.018 0.019",
			"0.020 0.021 0.022 0.023 0.024 0.025 0.026 0.027 0.028 0.029",
			"… k = 31..95 not shown (-q-out FILE writes every value)",
			"0.095 0.096 0.097 0.098 0.099 0.100 0.101"}},
	} {
		if got, want := FormatQ(c.q, c.c), strings.Join(c.lines, "\n  "); got != want {
			t.Errorf("C = %d, %d values:\n  %s\nwant\n  %s", c.c, len(c.q), got, want)
		}
	}
}

package outcheck

import (
	"fmt"
	"strings"
)

// FormatQ formats a context distribution Q (c powers, then any extra
// context types) for a command's summary, ten values to a line. Above qShown+10 powers, k =
// qShown+1..C−5 are left out and a line says so (hundreds of powers are a
// screenful; -q-out writes every value); the last five powers and the
// extra contexts after the C powers are shown.
func FormatQ(q []float64, c int) string {
	var lines, line []string
	flush := func() {
		if len(line) > 0 {
			lines, line = append(lines, strings.Join(line, " ")), nil
		}
	}
	elide := c > qShown+10
	for i, x := range q {
		if elide && i >= qShown && i < c-5 {
			if i == qShown {
				flush()
				lines = append(lines, fmt.Sprintf("… k = %d..%d not shown (-q-out FILE writes every value)", qShown+1, c-5))
			}
			continue
		}
		line = append(line, fmt.Sprintf("%.3f", x))
		if len(line) == 10 {
			flush()
		}
	}
	flush()
	return strings.Join(lines, "\n  ")
}

// qShown is how many of Q's first values FormatQ prints when C is
// large.
const qShown = 30

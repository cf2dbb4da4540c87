package benchmarks

import (
	"math"
	"strconv"
	"strings"
)

// Ints parses the comma-separated value s of the flag -name: every
// element, spaces around it ignored, must be an integer that ok accepts
// (nil accepts any). The error is a usage error naming the flag, the
// element and want, what a valid element is ("an even width of at least
// 2").
func (h *Harness) Ints(name, s string, ok func(int) bool, want string) ([]int, error) {
	return parseList(h, name, s, want, func(f string) (int, bool) {
		v, err := strconv.Atoi(f)
		return v, err == nil && (ok == nil || ok(v))
	})
}

// Floats is Ints for finite numbers.
func (h *Harness) Floats(name, s string, ok func(float64) bool, want string) ([]float64, error) {
	return parseList(h, name, s, want, func(f string) (float64, bool) {
		v, err := strconv.ParseFloat(f, 64)
		return v, err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) && (ok == nil || ok(v))
	})
}

// Names splits the comma-separated value s of the flag -name into its
// elements, spaces around each trimmed. An empty element ("", "a,,b", a
// trailing comma) is a usage error naming the flag, where it used to
// reach the command as a dataset named "" (a path one level up).
func (h *Harness) Names(name, s string) ([]string, error) {
	return parseList(h, name, s, "a name", func(f string) (string, bool) { return f, f != "" })
}

func parseList[T any](h *Harness, name, s, want string, parse func(string) (T, bool)) ([]T, error) {
	var out []T
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v, ok := parse(f)
		if !ok {
			return nil, h.Usagef("-%s: %q is not %s (want a comma-separated list)", name, f, want)
		}
		out = append(out, v)
	}
	return out, nil
}

package train

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/wys-project/wys/sparse"
)

// zeroEvery is a random source that returns 0 in place of every k-th
// value of a PCG stream: IntN(n) rejects a 0 when n is not a power of
// two, so draws that take two values or more come often instead of
// about once in 2⁶⁴/n.
type zeroEvery struct {
	pcg rand.PCG
	k   int
	i   int
}

func (z *zeroEvery) Uint64() uint64 {
	z.i++
	x := z.pcg.Uint64()
	if z.k > 0 && z.i%z.k == 0 {
		return 0
	}
	return x
}

// TestDrawWalksInTurn checks that walks drawn side by side (drawWalks)
// are those drawn one after another from the same stream, an anchor and
// its steps at a time, and that the stream is left at the same place:
// on directed graphs with nodes without out-arcs (walks that end early),
// weighted and not, with uniform and degree anchors, and with a stream
// whose draws are often rejected.
func TestDrawWalksInTurn(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 48 {
		n := 2 + rng.IntN(40)
		weighted, uniform := trial%2 == 1, trial%4 >= 2
		var src, dst []int32
		var val []float64
		for v := range int32(n) {
			if rng.IntN(4) == 0 {
				continue // no out-arcs
			}
			for _, u := range rng.Perm(n)[:1+rng.IntN(min(6, n))] {
				src, dst = append(src, v), append(dst, int32(u))
				val = append(val, 1+float64(rng.IntN(3))*float64(btoi(weighted)))
			}
		}
		if len(src) == 0 {
			continue
		}
		if weighted {
			val[0] = 2.5
			// A single arc has one weight, which walks as unweighted.
			weighted = slices.ContainsFunc(val, func(x float64) bool { return x != val[0] })
		}
		adj, err := sparse.NewFromCOO(t.Context(), n, n, src, dst, val, sparse.DupSum)
		if err != nil {
			t.Fatal(err)
		}
		c := []int{1, 3, 10}[trial%3]
		tr := &trainer{c: c, half: 2, l: make([]float32, 2*n), r: make([]float32, 2*n), walker: newWalker(adj, uniform)}
		if tr.walker.weighted != weighted {
			t.Fatalf("trial %d: weighted %v, want %v", trial, tr.walker.weighted, weighted)
		}
		for _, walks := range []int{1, 3, 4, 5, 64, 67} {
			for _, k := range []int{0, 3, 7} {
				name := fmt.Sprintf("trial %d (n = %d, C = %d, weighted %v, uniform %v), %d walks, zero every %d", trial, n, c, weighted, uniform, walks, k)
				ref := &zeroEvery{pcg: *rand.NewPCG(uint64(trial), uint64(walks)), k: k}
				one := rand.New(ref)
				d := &draws{src: &zeroEvery{pcg: *rand.NewPCG(uint64(trial), uint64(walks)), k: k}}
				side := rand.New(d)
				var g walkGroup
				for w := 0; w < walks; {
					m := tr.drawWalks(side, d, &g, min(lanes, walks-w))
					for j := range m {
						v, got := g.walk(j, c)
						want := []int32{tr.walker.anchor(one)}
						for len(want) <= c {
							next, ok := tr.walker.step(one, want[len(want)-1])
							if !ok {
								break
							}
							want = append(want, next)
						}
						if v != want[0] || !slices.Equal(got, want[1:]) {
							t.Fatalf("%s: walk %d is %d %v, drawn in turn %v", name, w+j, v, got, want)
						}
					}
					w += m
				}
				for i := range 3 {
					if a, b := side.Uint64(), one.Uint64(); a != b {
						t.Fatalf("%s: value %d after the walks is %#x, drawn in turn %#x", name, i, a, b)
					}
				}
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

package train

import (
	"math/rand/v2"

	"github.com/wys-project/wys/pipeline/internal/kernels"
)

// lanes is how many walks drawWalks takes side by side. A walk step is
// two dependent loads (the row's range, then the arc), each a cache miss
// on a large graph; four walks in step keep four such chains in flight.
const lanes = 4

// draws is a shard's random source: its PCG stream read through a
// buffer, so that drawWalks can read the values a walk would get, drawn
// one walk after another, before the walks ahead of it are done. Only
// reserve drops values, so any position below len(buf) can be revisited.
type draws struct {
	src rand.Source
	buf []uint64 // stream values, buf[pos] the next one
	pos int
}

// Uint64 returns the value at pos and moves past it.
func (d *draws) Uint64() uint64 {
	if d.pos == len(d.buf) {
		d.buf = append(d.buf, d.src.Uint64())
	}
	x := d.buf[d.pos]
	d.pos++
	return x
}

// reserve drops the values before pos, which becomes 0, and makes the
// next n values readable.
func (d *draws) reserve(n int) {
	d.buf = d.buf[:copy(d.buf, d.buf[d.pos:])]
	d.pos = 0
	for len(d.buf) < n {
		d.buf = append(d.buf, d.src.Uint64())
	}
}

// walkGroup holds up to lanes walks: walk j starts at anchor[j] and
// visits nodes[j*c : j*c+steps[j]].
type walkGroup struct {
	anchor [lanes]int32
	steps  [lanes]int
	nodes  []int32
}

// walk returns walk j's anchor and nodes.
func (g *walkGroup) walk(j, c int) (int32, []int32) {
	return g.anchor[j], g.nodes[j*c : j*c+g.steps[j]]
}

// drawWalks draws the next walks of a shard, at most m ≤ lanes, into g
// and returns how many it drew. rng must read d. The walks are exactly
// those drawn one after another from d's position (anchor, then up to
// C steps, each one value of the stream when the walk runs its full
// length and no draw is rejected): walk j is drawn side by side with the
// others from position j·(C+1). A walk that deviates (it reaches a node
// without out-arcs, or a draw takes other than one value) is drawn again
// from its true position by the one-after-another rule and ends the
// group; the walks after it are dropped. So d ends where drawing the
// returned walks in turn would leave it.
func (t *trainer) drawWalks(rng *rand.Rand, d *draws, g *walkGroup, m int) int {
	c, per, h := t.c, t.c+1, t.half
	if len(g.nodes) < lanes*c {
		g.nodes = make([]int32, lanes*c)
	}
	d.reserve(m * per)
	var regular [lanes]bool
	var cur [lanes]int32
	for j := range m {
		d.pos = j * per
		v := t.walker.anchor(rng)
		g.anchor[j], cur[j] = v, v
		regular[j] = d.pos == j*per+1
		kernels.Prefetch(t.l[int(v)*h : int(v)*h+h])
	}
	for k := range c {
		for j := range m {
			if !regular[j] {
				continue
			}
			at := j*per + 1 + k
			d.pos = at
			next, ok := t.walker.step(rng, cur[j])
			if !ok || d.pos != at+1 {
				regular[j] = false
				continue
			}
			g.nodes[j*c+k], cur[j] = next, next
			kernels.Prefetch(t.r[int(next)*h : int(next)*h+h])
		}
	}
	for j := range m {
		if !regular[j] {
			d.pos = j * per
			g.anchor[j], g.steps[j] = t.walkFrom(rng, g.nodes[j*c:j*c+c])
			return j + 1
		}
		g.steps[j] = c
	}
	// Every walk was regular, so the last step read position m·per − 1.
	return m
}

// walkFrom draws an anchor and its walk, one step after another, into
// nodes (of length C) and returns the anchor and the steps taken.
func (t *trainer) walkFrom(rng *rand.Rand, nodes []int32) (int32, int) {
	h := t.half
	v := t.walker.anchor(rng)
	kernels.Prefetch(t.l[int(v)*h : int(v)*h+h])
	cur, n := v, 0
	for n < len(nodes) {
		next, ok := t.walker.step(rng, cur)
		if !ok {
			break
		}
		cur = next
		nodes[n] = cur
		n++
		kernels.Prefetch(t.r[int(cur)*h : int(cur)*h+h])
	}
	return v, n
}

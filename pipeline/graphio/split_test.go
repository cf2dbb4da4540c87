package graphio

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wys-project/wys/internal/datasets"
	"github.com/wys-project/wys/pipeline"
)

// connected reports whether every node of the undirected view of the
// pairs (over n nodes, ignoring isolated nodes of g0) is reachable: BFS.
func components(n int, pairs []pipeline.Pair) int {
	adj := make([][]int32, n)
	for _, p := range pairs {
		adj[p.U] = append(adj[p.U], p.V)
		adj[p.V] = append(adj[p.V], p.U)
	}
	seen := make([]bool, n)
	comps := 0
	for s := 0; s < n; s++ {
		if seen[s] {
			continue
		}
		comps++
		queue := []int32{int32(s)}
		seen[s] = true
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for _, u := range adj[v] {
				if !seen[u] {
					seen[u] = true
					queue = append(queue, u)
				}
			}
		}
	}
	return comps
}

// edgeSet lists the edges of g by brute force over the dense matrix (over
// the stored arcs for large graphs): arcs of a directed graph, pairs
// u <= v of an undirected one.
func edgeSet(g *pipeline.Graph) map[pipeline.Pair]bool {
	set := map[pipeline.Pair]bool{}
	if g.N() > 1000 {
		for _, p := range graphPairs(g) {
			if g.Directed || p.U <= p.V {
				set[p] = true
			}
		}
		return set
	}
	for u := 0; u < g.N(); u++ {
		for v := 0; v < g.N(); v++ {
			if g.Adj.At(u, v) != 0 && (g.Directed || u <= v) {
				set[pipeline.Pair{U: int32(u), V: int32(v)}] = true
			}
		}
	}
	return set
}

// graphPairs lists the arcs of g as pairs (both arcs of undirected edges).
func graphPairs(g *pipeline.Graph) []pipeline.Pair {
	var out []pipeline.Pair
	for u := 0; u < g.N(); u++ {
		idx, _ := g.Adj.Row(u)
		for _, v := range idx {
			out = append(out, pipeline.Pair{U: int32(u), V: v})
		}
	}
	return out
}

// checkSplit checks the protocol's properties of s, a split of g.
func checkSplit(t *testing.T, g *pipeline.Graph, s *pipeline.Split, frac float64) {
	t.Helper()
	want := edgeSet(g)
	got := map[pipeline.Pair]bool{}
	for _, p := range append(slices.Clone(s.Train), s.Test...) {
		if !g.Directed && p.U > p.V {
			t.Fatalf("undirected pair %v not stored as u <= v", p)
		}
		if got[p] {
			t.Fatalf("pair %v appears twice in train ∪ test", p)
		}
		got[p] = true
	}
	if !maps.Equal(got, want) {
		t.Fatalf("train ∪ test has %d pairs, the graph %d edges, or they differ", len(got), len(want))
	}
	for _, p := range s.Test {
		if p.U == p.V {
			t.Fatalf("self-loop %v held out", p)
		}
	}
	if k := int(math.Round(frac * float64(len(want)))); max(k, 1) != len(s.Test) {
		t.Errorf("%d test edges, want round(%v·%d) = %d", len(s.Test), frac, len(want), k)
	}
	if c0, c1 := components(g.N(), graphPairs(g)), components(g.N(), s.Train); c0 != c1 {
		t.Errorf("the graph has %d components, the training graph %d", c0, c1)
	}
	if len(s.TestNeg) != len(s.Test) || len(s.TrainNeg) != len(s.Train) {
		t.Errorf("%d/%d negatives for %d/%d test/train", len(s.TestNeg), len(s.TrainNeg), len(s.Test), len(s.Train))
	}
	for _, p := range append(slices.Clone(s.TestNeg), s.TrainNeg...) {
		if p.U == p.V || g.Adj.At(int(p.U), int(p.V)) != 0 {
			t.Fatalf("negative %v is an edge or a loop", p)
		}
		if !g.Directed && p.U > p.V {
			t.Fatalf("undirected negative %v not written u < v, as the test edges are", p)
		}
	}
	if !g.Directed {
		if s.TestDirectedNeg != nil {
			t.Error("undirected split has directed negatives")
		}
		return
	}
	var rev []pipeline.Pair
	for _, p := range s.Test {
		if g.Adj.At(int(p.V), int(p.U)) == 0 {
			rev = append(rev, pipeline.Pair{U: p.V, V: p.U})
		}
	}
	if !slices.Equal(s.TestDirectedNeg, append(rev, s.TestNeg...)) {
		t.Error("TestDirectedNeg is not the non-edge reversed test arcs followed by TestNeg")
	}
}

func sameSplit(a, b *pipeline.Split) bool {
	return a.N == b.N && a.Directed == b.Directed && slices.Equal(a.Train, b.Train) && slices.Equal(a.Test, b.Test) &&
		slices.Equal(a.TrainNeg, b.TrainNeg) && slices.Equal(a.TestNeg, b.TestNeg) && slices.Equal(a.TestDirectedNeg, b.TestDirectedNeg)
}

// randomGraph draws m arcs among n nodes (with self-loops and repeats) in
// a few separate blocks, so the graph has several components.
func randomGraph(t *testing.T, n, m, blocks int, directed bool, seed uint64) *pipeline.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 5))
	var sb strings.Builder
	for e := 0; e < m; e++ {
		b := rng.IntN(blocks)
		lo, hi := b*n/blocks, (b+1)*n/blocks
		fmt.Fprintf(&sb, "%d %d\n", lo+rng.IntN(hi-lo), lo+rng.IntN(hi-lo))
	}
	g, _, err := ReadEdgeList(context.Background(), strings.NewReader(sb.String()), "random", LoadOptions{Directed: directed, KeepSelfLoops: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestSplitEdgesRandom(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, directed := range []bool{false, true} {
		for _, frac := range []float64{0.1, 0.3, 0.5} {
			for seed := uint64(1); seed <= 3; seed++ {
				g := randomGraph(t, 60, 400, 3, directed, seed)
				s, err := pipeline.SplitEdges(ctx, g, frac, seed)
				if err != nil {
					t.Fatalf("directed=%v frac=%v seed=%d: %v", directed, frac, seed, err)
				}
				checkSplit(t, g, s, frac)
				if again, _ := pipeline.SplitEdges(ctx, g, frac, seed); !sameSplit(s, again) {
					t.Error("same seed gave a different split")
				}
				if other, _ := pipeline.SplitEdges(ctx, g, frac, seed+100); sameSplit(s, other) {
					t.Error("another seed gave the same split")
				}
			}
		}
	}
}

func TestSplitEdgesHepTh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, directed := range []bool{false, true} {
		g, _, err := LoadEdgeList(ctx, datasets.Path(t, "ca-HepTh/CA-HepTh.txt.gz"), LoadOptions{Directed: directed})
		if err != nil {
			t.Fatal(err)
		}
		g = pipeline.LargestComponent(g)
		if g.N() != 8638 {
			t.Fatalf("largest component has %d nodes, MANIFEST says 8638", g.N())
		}
		s, err := pipeline.SplitEdges(ctx, g, 0.5, 7)
		if err != nil {
			t.Fatal(err)
		}
		if c := components(g.N(), s.Train); c != 1 {
			t.Errorf("directed=%v: train graph has %d components", directed, c)
		}
		if !directed {
			// MANIFEST: 24,827 raw LCC edges, less the 21 self-loops that
			// are dropped here.
			if len(s.Train)+len(s.Test) != 24827-21 {
				t.Errorf("%d + %d edges, want %d", len(s.Train), len(s.Test), 24827-21)
			}
			checkSplit(t, g, s, 0.5)
		}
		// Undirected, 8637 forest edges of 24,806 must stay: at most 65%
		// can be held out.
		if _, err := pipeline.SplitEdges(ctx, g, 0.8, 7); !directed && (!errors.Is(err, pipeline.ErrSplit) || !strings.Contains(err.Error(), "lower the test fraction")) {
			t.Errorf("frac 0.8: got %v, want ErrSplit", err)
		}
	}
}

func TestSplitEdgesErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	read := func(text string) *pipeline.Graph {
		g, _, err := ReadEdgeList(ctx, strings.NewReader(text), "g", LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	// A forest (here a path, a star, and a path beside a star) cannot lose
	// any edge and stay connected, at any test fraction: the error says so
	// instead of suggesting a lower fraction.
	for _, forest := range []string{"1 2\n2 3\n3 4\n", "0 1\n0 2\n0 3\n0 4\n0 5\n", "1 2\n2 3\n7 8\n7 9\n7 10\n"} {
		for _, frac := range []float64{0.01, 0.5, 0.99} {
			_, err := pipeline.SplitEdges(ctx, read(forest), frac, 1)
			if !errors.Is(err, pipeline.ErrSplit) || !strings.Contains(err.Error(), "is a forest") || strings.Contains(err.Error(), "lower the test fraction") {
				t.Errorf("forest %q at %v: got %v, want ErrSplit naming a forest, without a lower fraction", forest, frac, err)
			}
		}
	}
	// A complete graph has no non-edges to use as negatives.
	if _, err := pipeline.SplitEdges(ctx, read("1 2\n1 3\n1 4\n2 3\n2 4\n3 4\n"), 0.3, 1); !errors.Is(err, pipeline.ErrSplit) || !strings.Contains(err.Error(), "no non-edges") {
		t.Errorf("complete graph: got %v, want ErrSplit about non-edges", err)
	}
	for _, frac := range []float64{0, 1, -0.5, math.NaN()} {
		if _, err := pipeline.SplitEdges(ctx, read("1 2\n2 3\n3 1\n"), frac, 1); !errors.Is(err, pipeline.ErrSplit) {
			t.Errorf("frac %v: got %v", frac, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := pipeline.SplitEdges(cancelled, read("1 2\n2 3\n3 1\n1 4\n"), 0.3, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
}

// TestSplitEdgesDense covers the negative sampler's dense path: K5 less
// the edge {0, 1} has only the non-edge {0, 1}, written (0, 1) when
// undirected; as a directed graph (arcs as listed) its non-arcs are the
// reversed arcs and both orders of (0, 1).
func TestSplitEdgesDense(t *testing.T) {
	t.Parallel()
	const k5 = "0 2\n0 3\n0 4\n1 2\n1 3\n1 4\n2 3\n2 4\n3 4\n"
	for _, directed := range []bool{false, true} {
		g, _, err := ReadEdgeList(context.Background(), strings.NewReader(k5), "k5", LoadOptions{Directed: directed})
		if err != nil {
			t.Fatal(err)
		}
		s, err := pipeline.SplitEdges(context.Background(), g, 0.3, 4)
		if err != nil {
			t.Fatal(err)
		}
		checkSplit(t, g, s, 0.3)
		seen := map[pipeline.Pair]bool{}
		for _, p := range append(s.TestNeg, s.TrainNeg...) {
			seen[p] = true
		}
		if !directed && (len(seen) != 1 || !seen[pipeline.Pair{U: 0, V: 1}]) {
			t.Errorf("undirected negatives %v, want only (0, 1)", seen)
		}
		if directed && (!seen[pipeline.Pair{U: 0, V: 1}] || !seen[pipeline.Pair{U: 1, V: 0}] || !seen[pipeline.Pair{U: 4, V: 3}]) {
			t.Errorf("directed negatives %v, want both orders of (0, 1) among the reversed arcs", seen)
		}
	}
}

// TestSplitNegativesUniform checks that the negatives are uniform over the
// non-edges, listed by brute force: unordered pairs of an undirected graph,
// ordered pairs of a directed one, on a sparse graph (rejection path) and a
// dense one (list path). The statistic is Pearson's χ² over the non-edges,
// compared with its mean plus six standard deviations.
func TestSplitNegativesUniform(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n, m     int
		directed bool
	}{{12, 14, false}, {12, 14, true}, {9, 30, false}, {9, 55, true}} {
		var counts map[pipeline.Pair]int
		var non []pipeline.Pair
		total := 0
		for seed := uint64(0); total < 200*max(1, len(non)); seed++ {
			g := ringPlus(t, c.n, c.m, c.directed)
			if non == nil {
				counts = map[pipeline.Pair]int{}
				for u := 0; u < c.n; u++ {
					for v := 0; v < c.n; v++ {
						if u != v && (c.directed || u < v) && g.Adj.At(u, v) == 0 {
							non = append(non, pipeline.Pair{U: int32(u), V: int32(v)})
							counts[non[len(non)-1]] = 0
						}
					}
				}
			}
			s, err := pipeline.SplitEdges(context.Background(), g, 0.2, seed)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range append(s.TestNeg, s.TrainNeg...) {
				if _, ok := counts[p]; !ok {
					t.Fatalf("%+v: negative %v is not a non-edge in the graph's orientation", c, p)
				}
				counts[p]++
				total++
			}
		}
		exp := float64(total) / float64(len(non))
		chi := 0.0
		for _, k := range counts {
			chi += (float64(k) - exp) * (float64(k) - exp) / exp
		}
		df := float64(len(non) - 1)
		if limit := df + 6*math.Sqrt(2*df); chi > limit {
			t.Errorf("%+v: χ² = %.1f over %d non-edges (%d draws), above %.1f", c, chi, len(non), total, limit)
		}
	}
}

// ringPlus is the cycle 0-1-…-(n-1)-0 plus the chords {i, i+2}, {i, i+3}, …
// in order up to m edges (arcs i→j when directed): connected, with edges
// outside a spanning tree to hold out.
func ringPlus(t *testing.T, n, m int, directed bool) *pipeline.Graph {
	t.Helper()
	var sb strings.Builder
	e := 0
	for step := 1; step < n && e < m; step++ {
		for i := 0; i < n && e < m; i++ {
			fmt.Fprintf(&sb, "%d %d\n", i, (i+step)%n)
			e++
		}
	}
	g, _, err := ReadEdgeList(context.Background(), strings.NewReader(sb.String()), "ring", LoadOptions{Directed: directed})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestLargestComponent(t *testing.T) {
	t.Parallel()
	// Components {a, b, c} (weakly, through c→b), {x, y}, {z}; ids kept.
	for _, directed := range []bool{false, true} {
		g, _, err := ReadEdgeList(context.Background(), strings.NewReader("a b 2\nc b 3\nx y 1\nz z 1\n"), "g",
			LoadOptions{Directed: directed, Weighted: true, KeepSelfLoops: true})
		if err != nil {
			t.Fatal(err)
		}
		l := pipeline.LargestComponent(g)
		if l.N() != 3 || l.IDs.Name(0) != "a" || l.IDs.Name(1) != "b" || l.IDs.Name(2) != "c" {
			t.Fatalf("directed=%v: got %d nodes", directed, l.N())
		}
		if l.Adj.At(0, 1) != 2 || l.Adj.At(2, 1) != 3 || l.Directed != directed || !l.Weighted {
			t.Errorf("directed=%v: arcs or flags lost", directed)
		}
		if err := l.Adj.Validate(); err != nil {
			t.Error(err)
		}
		if !directed && (l.Adj.At(1, 0) != 2 || l.Adj.NNZ() != 4) {
			t.Error("reverse arcs lost")
		}
	}
	// Equal sizes: the component holding the lowest row wins.
	g, _, _ := ReadEdgeList(context.Background(), strings.NewReader("5 6\n1 2\n"), "g", LoadOptions{})
	if l := pipeline.LargestComponent(g); l.IDs.Name(0) != "1" || l.N() != 2 {
		t.Errorf("tie: kept %s", l.IDs.Name(0))
	}
	// A connected graph is returned as is.
	g, _, _ = ReadEdgeList(context.Background(), strings.NewReader("1 2\n2 3\n"), "g", LoadOptions{})
	if pipeline.LargestComponent(g) != g {
		t.Error("connected graph copied")
	}
}

func TestWriteSplitDirRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, directed := range []bool{false, true} {
		g, _, err := ReadEdgeList(ctx, strings.NewReader("alice bob\nbob carol\ncarol alice\ncarol dave\ndave erin\nerin carol\nbob dave\n"), "g", LoadOptions{Directed: directed})
		if err != nil {
			t.Fatal(err)
		}
		s, err := pipeline.SplitEdges(ctx, g, 0.3, 9)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "split")
		// Stale files from an earlier split must not leak into the result.
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, splitTestDirectedNeg), mkNPY("<i4", "(1, 2)", le32(0, 1)), 0o644)
		os.WriteFile(filepath.Join(dir, splitTrain+".gz"), gzipped(t, "junk"), 0o644)
		if err := WriteSplitDir(ctx, dir, s); err != nil {
			t.Fatal(err)
		}
		back, err := LoadSplitDir(ctx, dir, directed)
		if err != nil {
			t.Fatal(err)
		}
		if !sameSplit(s, back) {
			t.Errorf("directed=%v: split changed in the round trip", directed)
		}
		for i := 0; i < s.N; i++ {
			if back.IDs.Name(i) != s.IDs.Name(i) {
				t.Errorf("row %d: id %q, want %q", i, back.IDs.Name(i), s.IDs.Name(i))
			}
		}
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), ".gz") {
				t.Errorf("left %s behind", e.Name())
			}
			names = append(names, filepath.Join(dir, e.Name()))
		}
		if listed := slices.Sorted(slices.Values(SplitDirFiles(dir, s))); !slices.Equal(listed, names) {
			t.Errorf("directed=%v: SplitDirFiles %q, the directory holds %q", directed, listed, names)
		}
		index, _ := os.ReadFile(filepath.Join(dir, splitIndex))
		if !strings.HasPrefix(string(index), "# original_id\tnode\nalice\t0\n") {
			t.Errorf("index.tsv starts %q", index[:min(len(index), 40)])
		}
	}
	// The released split survives a round trip too.
	if dir := datasets.Path(t, "ca-HepTh/asymproj"); dir != "" {
		s, err := LoadSplitDir(ctx, dir, false)
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		if err := WriteSplitDir(ctx, out, s); err != nil {
			t.Fatal(err)
		}
		back, err := LoadSplitDir(ctx, out, false)
		if err != nil || !sameSplit(s, back) || back.IDs.Name(17) != s.IDs.Name(17) {
			t.Errorf("ca-HepTh round trip: %v", err)
		}
	}
	bad := &pipeline.Split{N: 2, Train: []pipeline.Pair{{U: 0, V: 2}}}
	if err := WriteSplitDir(ctx, t.TempDir(), bad); !errors.Is(err, pipeline.ErrUnknownNode) {
		t.Errorf("out-of-range pair: got %v", err)
	}
}

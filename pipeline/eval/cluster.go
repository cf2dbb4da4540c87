package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/wys-project/wys/pipeline"
)

// streamCluster is the random stream purpose of KMeans's seeding.
const streamCluster uint64 = 0x6b6d6e73 // "kmns"

// ClusterConfig sets up KMeans and Cluster.
type ClusterConfig struct {
	// K is the number of clusters; Cluster uses the number of labels when
	// it is 0.
	K int
	// Restarts is the number of k-means++ seedings, each run to
	// convergence, of which the lowest inertia is kept (scikit-learn's
	// n_init); 0 means 10.
	Restarts int
	// MaxIter caps the Lloyd iterations of a restart; 0 means 300.
	MaxIter int
	// Seed seeds the seedings: restart i draws from its own stream, so
	// the result does not depend on Workers.
	Seed uint64
	// Workers runs restarts in parallel; 0 means GOMAXPROCS.
	Workers int
}

// withDefaults fills the zero fields.
func (c ClusterConfig) withDefaults() ClusterConfig {
	if c.Restarts == 0 {
		c.Restarts = 10
	}
	if c.MaxIter == 0 {
		c.MaxIter = 300
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c
}

// ClusterResult holds the agreement of a k-means clustering with the
// labels, the measures node-clustering papers report.
type ClusterResult struct {
	// Nodes counts the nodes clustered: those with exactly one label.
	Nodes int `json:"nodes"`
	// K is the number of clusters, Restarts the seedings tried.
	K        int `json:"k"`
	Restarts int `json:"restarts"`
	// NMI is the normalised mutual information of clusters and labels
	// (arithmetic mean of the two entropies, scikit-learn's default).
	NMI float64 `json:"nmi"`
	// ARI is the adjusted Rand index.
	ARI float64 `json:"ari"`
	// Accuracy is the share of nodes whose cluster is matched to their
	// label by the best one-to-one matching of clusters to labels.
	Accuracy float64 `json:"accuracy"`
	// Inertia is the sum of squared distances to the cluster centres.
	Inertia float64 `json:"inertia"`
}

// Cluster clusters the rows of x (n × f, row-major) whose label in
// labels is not negative with KMeans, into cfg.K clusters (the number of
// distinct labels when 0), and scores the clusters against the labels.
func Cluster(ctx context.Context, x []float64, n, f int, labels []int, cfg ClusterConfig) (*ClusterResult, error) {
	if len(labels) != n || len(x) != n*f {
		return nil, fmt.Errorf("eval: Cluster: %d labels and %d features for %d rows of %d", len(labels), len(x), n, f)
	}
	var rows, truth []int
	for i, c := range labels {
		if c >= 0 {
			rows, truth = append(rows, i), append(truth, c)
		}
	}
	cfg = cfg.withDefaults()
	if cfg.K == 0 {
		cfg.K = len(distinct(truth))
	}
	sub := make([]float64, 0, len(rows)*f)
	for _, i := range rows {
		sub = append(sub, x[i*f:i*f+f]...)
	}
	pred, inertia, err := KMeans(ctx, sub, len(rows), f, cfg)
	if err != nil {
		return nil, err
	}
	return &ClusterResult{Nodes: len(rows), K: cfg.K, Restarts: cfg.Restarts,
		NMI: NMI(truth, pred), ARI: ARI(truth, pred), Accuracy: ClusterAccuracy(truth, pred), Inertia: inertia}, nil
}

// KMeans partitions the n rows of x (n × f, row-major) into cfg.K
// clusters by Lloyd's algorithm from cfg.Restarts k-means++ seedings,
// and returns the assignment of the seeding whose converged inertia (sum
// of squared distances to the centres) is lowest, the first on ties, with
// that inertia. A cluster left empty (rows repeated more often than
// there are distinct ones to seed with) keeps its centre. It checks ctx
// while it seeds (after each centre) and while it assigns rows (every
// cancelRows rows), so a cancel takes effect within O(cancelRows·K·f) work.
func KMeans(ctx context.Context, x []float64, n, f int, cfg ClusterConfig) ([]int, float64, error) {
	cfg = cfg.withDefaults()
	switch {
	case len(x) != n*f || f <= 0:
		return nil, 0, fmt.Errorf("eval: KMeans: %d values for %d rows of %d", len(x), n, f)
	case cfg.K < 1 || cfg.K > n:
		return nil, 0, fmt.Errorf("eval: KMeans: %d clusters of %d rows; want 1..%d", cfg.K, n, n)
	case cfg.Restarts < 0 || cfg.MaxIter < 0:
		return nil, 0, errors.New("eval: KMeans: negative Restarts or MaxIter")
	}
	assign := make([][]int, cfg.Restarts)
	inertia := make([]float64, cfg.Restarts)
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(cfg.Workers)
	for i := range cfg.Restarts {
		eg.Go(func() error {
			rng := pipeline.Stream(cfg.Seed, streamCluster, uint64(i))
			var err error
			centres, err := seedPlusPlus(ectx, x, n, f, cfg.K, rng)
			if err != nil {
				return err
			}
			assign[i], inertia[i], err = lloyd(ectx, x, n, f, centres, cfg.MaxIter)
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, 0, err
	}
	best := 0
	for i, v := range inertia {
		if v < inertia[best] {
			best = i
		}
	}
	return assign[best], inertia[best], nil
}

// seedPlusPlus picks k centres by k-means++: the first uniformly, each
// next with probability proportional to its squared distance to the
// nearest centre so far. It returns ctx's error once ctx is done.
func seedPlusPlus(ctx context.Context, x []float64, n, f, k int, rng *rand.Rand) ([]float64, error) {
	centres := make([]float64, 0, k*f)
	first := rng.IntN(n)
	centres = append(centres, x[first*f:first*f+f]...)
	d2 := make([]float64, n)
	for i := range n {
		d2[i] = sqDist(x[i*f:i*f+f], centres[:f])
	}
	for len(centres) < k*f {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var total float64
		for _, d := range d2 {
			total += d
		}
		pick := n - 1
		if total > 0 {
			t := rng.Float64() * total
			for i, d := range d2 {
				if t -= d; t < 0 {
					pick = i
					break
				}
			}
		} else {
			pick = rng.IntN(n) // every row sits on a centre
		}
		c := x[pick*f : pick*f+f]
		centres = append(centres, c...)
		for i := range n {
			d2[i] = min(d2[i], sqDist(x[i*f:i*f+f], c))
		}
	}
	return centres, nil
}

// cancelRows is how many rows lloyd assigns between checks of its
// context: one iteration over a large table with many clusters takes
// seconds.
const cancelRows = 1024

// lloyd runs Lloyd's iterations from the given centres until no row
// changes cluster (or maxIter), and returns the assignment and inertia.
func lloyd(ctx context.Context, x []float64, n, f int, centres []float64, maxIter int) ([]int, float64, error) {
	k := len(centres) / f
	assign := make([]int, n)
	for i := range assign {
		assign[i] = -1
	}
	count, sums := make([]int, k), make([]float64, k*f)
	dist := make([]float64, n)
	for iter := 0; ; iter++ {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		changed := false
		for i := range n {
			if i%cancelRows == cancelRows-1 {
				if err := ctx.Err(); err != nil {
					return nil, 0, err
				}
			}
			row := x[i*f : i*f+f]
			best, bd := 0, math.Inf(1)
			for c := range k {
				if d := sqDist(row, centres[c*f:c*f+f]); d < bd {
					best, bd = c, d
				}
			}
			if assign[i] != best {
				assign[i], changed = best, true
			}
			dist[i] = bd
		}
		if !changed || iter == maxIter {
			var inertia float64
			for _, d := range dist {
				inertia += d
			}
			return assign, inertia, nil
		}
		clear(sums)
		clear(count)
		for i, c := range assign {
			count[c]++
			for j, v := range x[i*f : i*f+f] {
				sums[c*f+j] += v
			}
		}
		for c := range k {
			if count[c] == 0 {
				continue // an empty cluster keeps its centre
			}
			for j := range f {
				centres[c*f+j] = sums[c*f+j] / float64(count[c])
			}
		}
	}
}

// sqDist is the squared Euclidean distance of a and b.
func sqDist(a, b []float64) float64 {
	var s float64
	for j, v := range a {
		d := v - b[j]
		s += d * d
	}
	return s
}

// distinct returns the sorted distinct values of a.
func distinct(a []int) []int {
	s := slices.Clone(a)
	slices.Sort(s)
	return slices.Compact(s)
}

// contingency returns the table of counts n_ij of rows with a = the i-th
// distinct value of a and b = the j-th of b, and its row and column sums.
// It panics when a and b label different numbers of rows, or none: as
// gonum's functions panic on mismatched lengths, a caller's bug, not a
// score.
func contingency(a, b []int) (tab [][]float64, rows, cols []float64) {
	if len(a) != len(b) || len(a) == 0 {
		panic(fmt.Sprintf("eval: labellings of %d and %d rows; want the same rows, at least one", len(a), len(b)))
	}
	da, db := distinct(a), distinct(b)
	tab = make([][]float64, len(da))
	for i := range tab {
		tab[i] = make([]float64, len(db))
	}
	rows, cols = make([]float64, len(da)), make([]float64, len(db))
	for t := range a {
		i, _ := slices.BinarySearch(da, a[t])
		j, _ := slices.BinarySearch(db, b[t])
		tab[i][j]++
		rows[i]++
		cols[j]++
	}
	return tab, rows, cols
}

// entropy is the entropy (natural log) of the counts c summing to n.
func entropy(c []float64, n float64) float64 {
	var h float64
	for _, x := range c {
		if x > 0 {
			h -= x / n * math.Log(x/n)
		}
	}
	return h
}

// NMI is the normalised mutual information of two labellings of the same
// rows, MI / mean(H(a), H(b)) (scikit-learn's
// normalized_mutual_info_score with its default arithmetic mean); 1 when
// both put every row in one class. It panics when a and b differ in
// length or are empty.
func NMI(a, b []int) float64 {
	tab, rows, cols := contingency(a, b)
	n := float64(len(a))
	ha, hb := entropy(rows, n), entropy(cols, n)
	if len(rows) == 1 && len(cols) == 1 || ha == 0 && hb == 0 {
		return 1
	}
	var mi float64
	for i, r := range tab {
		for j, x := range r {
			if x > 0 {
				mi += x / n * math.Log(x*n/(rows[i]*cols[j]))
			}
		}
	}
	return max(0, mi) / max((ha+hb)/2, math.SmallestNonzeroFloat64)
}

// ARI is the adjusted Rand index of two labellings of the same rows
// (Hubert and Arabie; scikit-learn's adjusted_rand_score): 1 for the
// same partition, about 0 for independent ones. It panics when a and b
// differ in length or are empty.
func ARI(a, b []int) float64 {
	tab, rows, cols := contingency(a, b)
	pairs := func(x float64) float64 { return x * (x - 1) / 2 }
	var sum, sumA, sumB float64
	for _, r := range tab {
		for _, x := range r {
			sum += pairs(x)
		}
	}
	for _, x := range rows {
		sumA += pairs(x)
	}
	for _, x := range cols {
		sumB += pairs(x)
	}
	expected := sumA * sumB / pairs(float64(len(a)))
	den := (sumA+sumB)/2 - expected
	if den == 0 {
		return 1 // one class on both sides, or every row its own
	}
	return (sum - expected) / den
}

// ClusterAccuracy is the clustering accuracy of node-clustering papers:
// the share of rows whose cluster b is mapped to their class a by the
// one-to-one map of clusters to classes that maximises it (the Hungarian
// algorithm on the contingency table; unmatched clusters count as wrong).
// It panics when a and b differ in length or are empty.
func ClusterAccuracy(a, b []int) float64 {
	tab, _, _ := contingency(a, b)
	m := max(len(tab), len(tab[0]))
	cost := make([][]float64, m)
	for i := range cost {
		cost[i] = make([]float64, m)
		for j := range cost[i] {
			if i < len(tab) && j < len(tab[0]) {
				cost[i][j] = -tab[i][j]
			}
		}
	}
	var hit float64
	for i, j := range hungarian(cost) {
		if i < len(tab) && j < len(tab[0]) {
			hit += tab[i][j]
		}
	}
	return hit / float64(len(a))
}

// hungarian returns, for the square cost matrix, the column assigned to
// each row by a one-to-one assignment of least total cost (the
// Kuhn–Munkres algorithm with potentials, O(m³)).
func hungarian(cost [][]float64) []int {
	m := len(cost)
	u, v := make([]float64, m+1), make([]float64, m+1)
	p, way := make([]int, m+1), make([]int, m+1) // p[j]: row of column j (1-based, 0 none)
	for i := 1; i <= m; i++ {
		p[0] = i
		j0 := 0
		minv := make([]float64, m+1)
		used := make([]bool, m+1)
		for j := range minv {
			minv[j] = math.Inf(1)
		}
		for p[j0] != 0 {
			used[j0] = true
			i0, delta, j1 := p[j0], math.Inf(1), 0
			for j := 1; j <= m; j++ {
				if used[j] {
					continue
				}
				if cur := cost[i0-1][j-1] - u[i0] - v[j]; cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= m; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	col := make([]int, m)
	for j := 1; j <= m; j++ {
		col[p[j]-1] = j - 1
	}
	return col
}

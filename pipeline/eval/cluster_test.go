package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestClusterScoresSklearn checks NMI and ARI against scikit-learn's
// normalized_mutual_info_score and adjusted_rand_score on the labellings
// of testdata/cluster/sklearn.json (benchmarks/scripts/cluster_check.py:
// one row, one class, every row its own class, non-contiguous values).
func TestClusterScoresSklearn(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "cluster", "sklearn.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fix struct {
		Cases []struct {
			A, B     []int
			NMI, ARI float64
		}
	}
	if err := json.Unmarshal(data, &fix); err != nil {
		t.Fatal(err)
	}
	if len(fix.Cases) < 20 {
		t.Fatalf("%d cases", len(fix.Cases))
	}
	for i, c := range fix.Cases {
		if got := NMI(c.A, c.B); math.Abs(got-c.NMI) > 1e-12 {
			t.Errorf("case %d (%d rows): NMI %v, scikit-learn %v", i, len(c.A), got, c.NMI)
		}
		if got := ARI(c.A, c.B); math.Abs(got-c.ARI) > 1e-12 {
			t.Errorf("case %d (%d rows): ARI %v, scikit-learn %v", i, len(c.A), got, c.ARI)
		}
	}
}

// TestClusterAccuracyBruteForce checks the Hungarian matching against
// every one-to-one map of clusters to classes, on random labellings with
// fewer, as many and more clusters than classes.
func TestClusterAccuracyBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n, ka, kb := 1+rng.IntN(40), 1+rng.IntN(5), 1+rng.IntN(5)
		a, b := make([]int, n), make([]int, n)
		for i := range n {
			a[i], b[i] = 7*rng.IntN(ka), rng.IntN(kb)-3
			if trial%3 == 0 && rng.IntN(4) > 0 {
				b[i] = a[i]/7 - 3 // mostly agreeing
			}
		}
		if got, want := ClusterAccuracy(a, b), bruteAccuracy(a, b); math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: accuracy %v, brute force %v\na %v\nb %v", trial, got, want, a, b)
		}
	}
}

// bruteAccuracy tries every injective map between the distinct values of
// b and those of a (padded to a common size m, m! maps).
func bruteAccuracy(a, b []int) float64 {
	da, db := distinct(a), distinct(b)
	m := max(len(da), len(db))
	perm := make([]int, m)
	for i := range perm {
		perm[i] = i
	}
	best := 0
	var try func(int)
	try = func(k int) {
		if k == m {
			hit := 0
			for t := range a {
				i := slices.Index(db, b[t])
				if j := perm[i]; j < len(da) && da[j] == a[t] {
					hit++
				}
			}
			best = max(best, hit)
			return
		}
		for i := k; i < m; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			try(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	try(0)
	return float64(best) / float64(len(a))
}

// TestKMeansOptimum: on small random point sets the kept restart reaches
// the least inertia over every partition into k non-empty clusters
// (k^n assignments, each with its means as centres), and the result does
// not depend on the workers.
func TestKMeansOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 6 {
		n, f, k := 9, 2, 2+trial%2
		x := make([]float64, n*f)
		for i := range x {
			x[i] = rng.NormFloat64() + float64(3*((i/f)%k))
		}
		assign, inertia, err := KMeans(context.Background(), x, n, f, ClusterConfig{K: k, Seed: uint64(trial), Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if want := bruteInertia(x, n, f, k); math.Abs(inertia-want) > 1e-9*want {
			t.Errorf("trial %d: inertia %v, optimum %v", trial, inertia, want)
		}
		if got := partitionInertia(x, n, f, k, assign); math.Abs(got-inertia) > 1e-9*inertia {
			t.Errorf("trial %d: reported inertia %v, of the assignment %v", trial, inertia, got)
		}
		again, _, err := KMeans(context.Background(), x, n, f, ClusterConfig{K: k, Seed: uint64(trial), Workers: 3})
		if err != nil || !slices.Equal(again, assign) {
			t.Errorf("trial %d: 3 workers give %v, 1 gives %v (%v)", trial, again, assign, err)
		}
	}
}

// bruteInertia is the least inertia over all assignments of n rows to k
// non-empty clusters.
func bruteInertia(x []float64, n, f, k int) float64 {
	best := math.Inf(1)
	assign := make([]int, n)
	for code := range int(math.Pow(float64(k), float64(n))) {
		c := code
		for i := range assign {
			assign[i], c = c%k, c/k
		}
		if v := partitionInertia(x, n, f, k, assign); v < best {
			best = v
		}
	}
	return best
}

// partitionInertia is the inertia of assign with each cluster's mean as
// its centre (+Inf when a cluster is empty).
func partitionInertia(x []float64, n, f, k int, assign []int) float64 {
	sum := make([]float64, k*f)
	count := make([]int, k)
	for i, c := range assign {
		count[c]++
		for j := range f {
			sum[c*f+j] += x[i*f+j]
		}
	}
	if slices.Contains(count, 0) {
		return math.Inf(1)
	}
	var s float64
	for i, c := range assign {
		for j := range f {
			d := x[i*f+j] - sum[c*f+j]/float64(count[c])
			s += d * d
		}
	}
	return s
}

// TestKMeansEmptyCluster: with as many clusters as rows and two equal
// rows, seedings repeat a centre and leave a cluster empty; the run still
// ends with each distinct row on a centre.
func TestKMeansEmptyCluster(t *testing.T) {
	x := []float64{0, 0, 1, 1, 1, 1, 5, 5}
	for seed := range uint64(20) {
		assign, inertia, err := KMeans(context.Background(), x, 4, 2, ClusterConfig{K: 4, Seed: seed, Restarts: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(distinct(assign)) < 3 || inertia != 0 || assign[1] != assign[2] {
			t.Fatalf("seed %d: assignment %v, inertia %v; want the 3 distinct rows on 3 centres", seed, assign, inertia)
		}
	}
}

// TestClusterSeparated: well-separated blobs labelled by blob are found
// exactly (NMI, ARI and accuracy 1); unlabelled rows (−1) are left out.
func TestClusterSeparated(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n, f := 120, 4
	x := make([]float64, n*f)
	labels := make([]int, n)
	for i := range n {
		labels[i] = i % 3
		for j := range f {
			x[i*f+j] = 0.1*rng.NormFloat64() + 10*float64(labels[i]*(j%2))
		}
		if i%10 == 9 {
			labels[i] = -1
		}
	}
	res, err := Cluster(context.Background(), x, n, f, labels, ClusterConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Nodes != 108 || res.K != 3 || res.NMI != 1 || res.ARI != 1 || res.Accuracy != 1 {
		t.Errorf("%+v", res)
	}
}

// TestKMeansCancel: a k-means whose seeding alone is minutes of work (as
// many clusters as rows) returns the context's error once it is
// cancelled, whether before the call or during it. KMeans checked ctx only
// between Lloyd iterations, so every restart first seeded all its centres
// (48 s after a cancel on 131,072 rows and K = 100). The deadline is a
// hang guard, not a measurement.
func TestKMeansCancel(t *testing.T) {
	const n, f = 200000, 2
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, n*f)
	for i := range x {
		x[i] = rng.Float64()
	}
	for _, during := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		if !during {
			cancel()
		}
		done := make(chan error, 1)
		go func() {
			_, _, err := KMeans(ctx, x, n, f, ClusterConfig{K: n, Seed: 1})
			done <- err
		}()
		if during {
			time.Sleep(50 * time.Millisecond)
			cancel()
		}
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled (during the call: %v): got %v, want context.Canceled", during, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("cancelled (during the call: %v): KMeans did not return", during)
		}
		cancel()
	}
}

// TestClusterScoresLengths: labellings of different rows, or of none,
// are a caller's bug: each score panics instead of scoring them (NMI of
// 2 labels against 3 had been 1).
func TestClusterScoresLengths(t *testing.T) {
	for name, f := range map[string]func(a, b []int) float64{"NMI": NMI, "ARI": ARI, "ClusterAccuracy": ClusterAccuracy} {
		for _, ab := range [][2][]int{{{0, 1}, {0, 1, 2}}, {{0, 1, 2}, {0, 1}}, {nil, nil}} {
			func() {
				defer func() {
					if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "labellings of") {
						t.Errorf("%s(%v, %v): recovered %v, want the lengths' panic", name, ab[0], ab[1], r)
					}
				}()
				f(ab[0], ab[1])
			}()
		}
	}
}

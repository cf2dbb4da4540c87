// Command lowrank measures the factored power series of package lowrank:
//
//   - -mode accuracy: on the largest component of ca-HepTh, the relative
//     Frobenius error of the factored Σ_k Q_k T^k (C = 10, uniform Q)
//     against the exact dense sum, by rank and number of exact powers;
//
//   - -mode timing: factorization time by phase and peak RSS at several
//     ranks on soc-Slashdot0902 (directed: SVD of T) and on a seeded R-MAT
//     graph of 1M nodes and about 10M edges (undirected: eigenpairs of
//     D^{-1/2}AD^{-1/2}), one child process per run.
//
//     go run -tags openblas ./benchmarks/cmd/lowrank -mode accuracy -out benchmarks/results/lowrank-accuracy.md
//     go run -tags openblas ./benchmarks/cmd/lowrank -mode timing -out benchmarks/results/lowrank-timing.md
//
// The shared flags (-data, -out, -allow-dirty) and the exit statuses are
// those of benchmarks.Harness; the timing children get -data.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/internal/sysmem"
	"github.com/wys-project/wys/lowrank"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/sparse"
)

func main() { os.Exit(benchmarks.Main("lowrank", run)) }

func run(ctx context.Context, h *benchmarks.Harness) error {
	mode := h.Flags.String("mode", "accuracy", "accuracy or timing")
	ranksFlag := h.Flags.String("ranks", "", "ranks (default: accuracy 16,32,64,128,256,512,1024; timing 64,128,256)")
	graphs := h.Flags.String("graphs", "slashdot,rmat20", "timing: graphs to factor: slashdot (soc-Slashdot0902 under -data) or rmatS (R-MAT of scale S, edge factor 5)")
	one := h.Flags.String("one", "", "internal: graph:rank to time in this process, printed as one JSON row")
	if err := h.Parse(); err != nil {
		return err
	}
	if *one != "" {
		return timeOne(ctx, h, *one)
	}
	def := map[string]string{"accuracy": "16,32,64,128,256,512,1024", "timing": "64,128,256"}[*mode]
	if def == "" {
		return h.Usagef("-mode %q: want accuracy or timing", *mode)
	}
	if *ranksFlag == "" {
		*ranksFlag = def
	}
	ranks, err := h.Ints("ranks", *ranksFlag, func(r int) bool { return r > 0 }, "a positive rank")
	if err != nil {
		return err
	}
	if *mode == "timing" {
		for _, name := range strings.Split(*graphs, ",") {
			if err := checkGraph(name); err != nil {
				return h.Usagef("-graphs: %v", err)
			}
		}
	}
	var title, body string
	if *mode == "accuracy" {
		title, body, err = accuracy(ctx, h, ranks)
	} else {
		title, body, err = timing(ctx, h, *graphs, ranks)
	}
	if err != nil {
		return err
	}
	return h.WriteResult(h.Header(title) + fmt.Sprintf("BLAS: %s.\n\n", blasName) + body)
}

// accuracy returns the title and body of the accuracy table.
func accuracy(ctx context.Context, h *benchmarks.Harness, ranks []int) (title, body string, err error) {
	g, _, err := graphio.LoadEdgeList(ctx, filepath.Join(h.Data, "ca-HepTh", "CA-HepTh.txt.gz"), graphio.LoadOptions{})
	if err != nil {
		return "", "", err
	}
	g = pipeline.LargestComponent(g)
	n := g.N()
	c := make([]float64, 10)
	for k := range c {
		c[k] = 0.1
	}
	t := time.Now()
	want, err := lowrank.DensePowerSeries(g.Adj, c)
	if err != nil {
		return "", "", err
	}
	fmt.Fprintf(h.Stderr, "dense sum of 10 powers for %d nodes in %v\n", n, time.Since(t).Round(time.Millisecond))
	var b strings.Builder
	fmt.Fprintf(&b, "Largest component of CA-HepTh.txt (%d nodes, %d arcs, self-loops dropped); Σ_k Q_k T^k for C = 10 and uniform Q (Q_k = 0.1), factored with the randomized eigendecomposition of D^{-1/2}AD^{-1/2} (oversampling 10, 2 power iterations, seed 1) or, in the last three columns, with its converged eigenpairs of largest magnitude (`lowrank.SeriesOptions.Converged`: TopEigSym on S and on −S, as the trainer's factored source uses them; residual: their largest relative residual, aim 1e-6); relative Frobenius error ‖F − E‖_F / ‖E‖_F against the exact dense sum E. \"exact k ≤ K0\" means the first K0 powers come from the sparse matrix and the eigenpairs cover the rest.\n\n", n, g.Adj.NNZ())
	b.WriteString("| rank | exact k ≤ 0 | exact k ≤ 1 | exact k ≤ 2 | factorization time | converged: exact k ≤ 2 | converged: factorization time | converged: residual |\n|---|---|---|---|---|---|---|---|\n")
	got := mat.NewDense(n, n, nil)
	for _, r := range ranks {
		if r > n {
			continue
		}
		row := fmt.Sprintf("| %d |", r)
		var ft time.Duration
		var res float64
		for i, exact := range []int{-1, 1, 2, 2} {
			converged := i == 3
			if converged {
				row += fmt.Sprintf(" %.2f s |", ft.Seconds())
			}
			t := time.Now()
			s, err := lowrank.NewSeries(ctx, g.Adj, lowrank.SeriesOptions{Options: lowrank.Options{Rank: r, Seed: 1}, C: 10, Exact: exact, Converged: converged})
			if err != nil {
				return "", "", err
			}
			ft = time.Since(t)
			if err := s.DenseTo(got, c); err != nil {
				return "", "", err
			}
			row += fmt.Sprintf(" %.4f |", lowrank.RelativeError(got, want))
			res = s.Residual
		}
		row += fmt.Sprintf(" %.2f s | %.1g |", ft.Seconds(), res)
		fmt.Fprintln(h.Stderr, row)
		b.WriteString(row + "\n")
	}
	return "Accuracy of the factored power series on ca-HepTh", b.String(), nil
}

type timingRow struct {
	Graph             string
	Nodes, NNZ, Rank  int
	Seconds           float64
	SpMM, QR, Small   float64
	Other             float64
	PeakRSS           int64
	CSRBytes, Factors int64
}

// checkGraph fails, before any child starts, on a -graphs name that
// loadGraph would refuse.
func checkGraph(name string) error {
	if name == "slashdot" {
		return nil
	}
	if s, ok := strings.CutPrefix(name, "rmat"); ok {
		if scale, err := strconv.Atoi(s); err == nil && scale >= 1 && scale <= 30 {
			return nil
		}
	}
	return fmt.Errorf("unknown graph %q (slashdot or rmatS with S from 1 to 30, e.g. rmat20)", name)
}

// loadGraph returns the adjacency of a timing graph and whether it is
// directed: "slashdot" (soc-Slashdot0902 under data) or "rmatS", the
// undirected R-MAT graph of scale S, edge factor 5, seed 1.
func loadGraph(ctx context.Context, data, name string) (*sparse.CSR, bool, error) {
	if name == "slashdot" {
		g, _, err := graphio.LoadEdgeList(ctx, filepath.Join(data, "soc-Slashdot0902", "soc-Slashdot0902.txt.gz"), graphio.LoadOptions{Directed: true})
		if err != nil {
			return nil, false, err
		}
		return g.Adj, true, nil
	}
	if s, ok := strings.CutPrefix(name, "rmat"); ok {
		if scale, err := strconv.Atoi(s); err == nil {
			g, err := pipeline.RMAT(ctx, scale, 5, false, 1)
			if err != nil {
				return nil, false, err
			}
			return g.Adj, false, nil
		}
	}
	return nil, false, fmt.Errorf("unknown graph %q (slashdot or rmatS, e.g. rmat20)", name)
}

// timeOne factors one graph at one rank ("graph:rank") and prints its
// timingRow as JSON: the child process of timing.
func timeOne(ctx context.Context, h *benchmarks.Harness, spec string) error {
	name, rs, _ := strings.Cut(spec, ":")
	r, err := strconv.Atoi(rs)
	if err != nil {
		return h.Usagef("-one %q: want graph:rank", spec)
	}
	adj, directed, err := loadGraph(ctx, h.Data, name)
	if err != nil {
		return err
	}
	n, _ := adj.Dims()
	s, err := lowrank.NewSeries(ctx, adj, lowrank.SeriesOptions{Options: lowrank.Options{Rank: r, Seed: 1}, C: 10, Directed: directed})
	if err != nil {
		return err
	}
	st := s.Stats
	factors := s.Bytes()
	csr := adj.Bytes() * 2 // T and its transpose (or S and its transpose)
	row := timingRow{Graph: name, Nodes: n, NNZ: adj.NNZ(), Rank: r, Seconds: st.Total.Seconds(), SpMM: st.SpMM.Seconds(),
		QR: st.QR.Seconds(), Small: st.Small.Seconds(), Other: st.Other.Seconds(), PeakRSS: sysmem.PeakRSS(), CSRBytes: csr, Factors: factors}
	return json.NewEncoder(h.Stdout).Encode(row)
}

// timing returns the title and body of the timing table, one child
// process per graph and rank.
func timing(ctx context.Context, h *benchmarks.Harness, graphs string, ranks []int) (title, body string, err error) {
	self, err := os.Executable()
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	b.WriteString("Rank-r factorization as lowrank.NewSeries builds it for C = 10 powers (oversampling 10, 2 power iterations, CholeskyQR2 between products with Householder as the fallback): soc-Slashdot0902 is directed (truncated SVD of T = D⁻¹A, then the r x r cores and the C n x r tables V·core_kᵀ that make a pair's powers cost O(C·r)); the R-MAT graphs (rmatS: scale S, edge factor 5, seed 1, undirected) use the eigenpairs of D^{-1/2}AD^{-1/2}. One child process per row; peak RSS is its VmHWM (loading included); \"CSR + series\" is T and its transpose plus what the series holds (Series.Bytes: the factors, and for a directed graph its tables). \"in SpMM + QR\" is the share of the factorization's time spent in sparse products and orthonormalisation.\n\n")
	b.WriteString("| graph | nodes | nnz | rank | time | SpMM | QR | small dense | other | in SpMM + QR | peak RSS | CSR + series | ratio |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, g := range strings.Split(graphs, ",") {
		for _, r := range ranks {
			cmd := exec.CommandContext(ctx, self, "-one", g+":"+strconv.Itoa(r), "-data", h.Data)
			cmd.Stderr = h.Stderr
			var buf bytes.Buffer
			cmd.Stdout = &buf
			if err := cmd.Run(); err != nil {
				return "", "", fmt.Errorf("%s rank %d: %w", g, r, err)
			}
			var t timingRow
			if err := json.Unmarshal(buf.Bytes(), &t); err != nil {
				return "", "", fmt.Errorf("%s rank %d: %w", g, r, err)
			}
			base := t.CSRBytes + t.Factors
			line := fmt.Sprintf("| %s | %d | %d | %d | %.1f s | %.1f s | %.1f s | %.1f s | %.1f s | %.0f%% | %s | %s | %.1f× |",
				t.Graph, t.Nodes, t.NNZ, t.Rank, t.Seconds, t.SpMM, t.QR, t.Small, t.Other, 100*(t.SpMM+t.QR)/t.Seconds,
				sysmem.FormatBytes(t.PeakRSS), sysmem.FormatBytes(base), float64(t.PeakRSS)/float64(base))
			fmt.Fprintln(h.Stderr, line)
			b.WriteString(line + "\n")
		}
	}
	return "Factorization time and memory", b.String(), nil
}

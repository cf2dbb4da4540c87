package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sbinet/npyio"
	"github.com/wys-project/wys/internal/interrupt"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/eval"
	"github.com/wys-project/wys/pipeline/graphio"
	"gonum.org/v1/gonum/mat"
)

// readJSON decodes a JSON file into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// writeSplit writes a split of a random graph to dir: undirected from a
// planted partition, or directed from random arcs (with the reversed-arc
// negatives).
func writeSplit(t *testing.T, dir string, directed bool) {
	t.Helper()
	var g *pipeline.Graph
	var err error
	if directed {
		var b strings.Builder
		for i := 0; i < 600; i++ {
			u, v := (i*37)%97, (i*61+i/97)%97
			b.WriteString(strconv.Itoa(u) + " " + strconv.Itoa(v) + "\n")
		}
		g, _, err = graphio.ReadEdgeList(context.Background(), strings.NewReader(b.String()), "arcs", graphio.LoadOptions{Directed: true})
	} else {
		g, err = pipeline.PlantedPartition(120, 3, 0.15, 0.01, 3)
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.SplitEdges(context.Background(), g, 0.3, 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := graphio.WriteSplitDir(context.Background(), dir, s); err != nil {
		t.Fatal(err)
	}
}

// TestEvalReproducesTrainingAUC trains on a split through the command,
// writes the embeddings as .npy and as word2vec text, and checks that
// eval reports bit-for-bit the AUCs training reported (undirected and
// directed, the latter with the reversed-arc negatives).
func TestEvalReproducesTrainingAUC(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{false, true} {
		tmp := t.TempDir()
		split := filepath.Join(tmp, "split")
		writeSplit(t, split, directed)
		dirFlag := []string{}
		if directed {
			dirFlag = []string{"-directed"}
		}
		trainRep := filepath.Join(tmp, "train.json")
		args := append([]string{"-split", split, "-epochs", "30", "-dim", "16", "-out", filepath.Join(tmp, "emb.npy"), "-report", trainRep, "-quiet"}, dirFlag...)
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatal(stderr)
		}
		var trained struct{ Result resultSummary }
		readJSON(t, trainRep, &trained)
		if trained.Result.TestAUC == nil || (directed && trained.Result.TestDirectedAUC == nil) {
			t.Fatalf("training report lacks AUCs: %+v", trained.Result)
		}
		// The same embeddings as word2vec text, with the marker.
		e, err := graphio.ReadEmbeddings(context.Background(), filepath.Join(tmp, "emb.npy"), graphio.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		l, r := e.Sides()
		if err := graphio.WriteEmbeddings(context.Background(), filepath.Join(tmp, "emb.txt"), graphio.FormatWord2Vec, &pipeline.Result{N: e.N(), Half: e.Dim / 2, L: l, R: r}, e.IDs); err != nil {
			t.Fatal(err)
		}
		for _, file := range []string{"emb.npy", "emb.txt"} {
			evalRep := filepath.Join(tmp, file+".eval.json")
			code, stdout, stderr := runCLI(t, append([]string{"eval", "-emb", filepath.Join(tmp, file), "-split", split, "-report", evalRep}, dirFlag...)...)
			if code != 0 {
				t.Fatal(stderr)
			}
			var got struct {
				LinkPrediction linkResult `json:"link_prediction"`
			}
			readJSON(t, evalRep, &got)
			g, w := got.LinkPrediction, trained.Result
			if *g.TestAUC != *w.TestAUC || *g.TrainAUC != *w.TrainAUC || (directed && *g.TestDirectedAUC != *w.TestDirectedAUC) {
				t.Errorf("directed=%v %s: eval test %v train %v, training printed %v %v\n%s", directed, file, *g.TestAUC, *g.TrainAUC, *w.TestAUC, *w.TrainAUC, stdout)
			}
			if g.TestAP == nil || w.TestAP == nil || *g.TestAP != *w.TestAP || *g.TrainAP != *w.TrainAP || !maps.Equal(g.TestHits, w.TestHits) || len(g.TestHits) != 3 {
				t.Errorf("directed=%v %s: eval's average precision and Hits@k %+v, the training report's %+v", directed, file, g.rankMetrics, w.rankMetrics)
			}
			if !strings.Contains(stdout, "score lr = L_u·R_v") {
				t.Errorf("%s: not scored as [L | R]:\n%s", file, stdout)
			}
		}
	}
}

// TestEvalSymScore scores a random [L | R] file on an undirected split
// with -score sym and compares its AUCs with a brute-force count over all
// positive-negative pairs of L_u·R_v + L_v·R_u in float64 (ties count
// one half); a single table and -directed are refused.
func TestEvalSymScore(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	split := filepath.Join(tmp, "split")
	writeSplit(t, split, false)
	s, err := graphio.LoadSplitDir(context.Background(), split, false)
	if err != nil {
		t.Fatal(err)
	}
	const half = 4
	rng := rand.New(rand.NewPCG(7, 7))
	res := &pipeline.Result{N: s.N, Half: half, L: make([]float32, s.N*half), R: make([]float32, s.N*half)}
	for i := range res.L {
		res.L[i], res.R[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	emb := filepath.Join(tmp, "emb.npy")
	if err := graphio.WriteEmbeddings(context.Background(), emb, graphio.FormatNPY, res, s.IDs); err != nil {
		t.Fatal(err)
	}
	sym := func(p pipeline.Pair) float64 {
		x := 0.0
		for k := 0; k < half; k++ {
			u, v := int(p.U)*half+k, int(p.V)*half+k
			x += float64(res.L[u])*float64(res.R[v]) + float64(res.L[v])*float64(res.R[u])
		}
		return x
	}
	auc := func(pos, neg []pipeline.Pair) float64 {
		wins := 0.0
		for _, p := range pos {
			for _, n := range neg {
				switch a, b := sym(p), sym(n); {
				case a > b:
					wins++
				case a == b:
					wins += 0.5
				}
			}
		}
		return wins / float64(len(pos)*len(neg))
	}
	rep := filepath.Join(tmp, "eval.json")
	code, stdout, stderr := runCLI(t, "eval", "-emb", emb, "-split", split, "-score", "sym", "-report", rep)
	if code != 0 {
		t.Fatal(stderr)
	}
	var got struct {
		LinkPrediction linkResult `json:"link_prediction"`
	}
	readJSON(t, rep, &got)
	test, train := auc(s.Test, s.TestNeg), auc(s.Train, s.TrainNeg)
	if g := got.LinkPrediction; math.Abs(*g.TestAUC-test) > 1e-6 || math.Abs(*g.TrainAUC-train) > 1e-6 || !strings.Contains(stdout, "score sym = L_u·R_v + L_v·R_u") {
		t.Errorf("eval -score sym: test %v train %v, brute force %v %v\n%s", *g.TestAUC, *g.TrainAUC, test, train, stdout)
	}
	for _, args := range [][]string{{"-layout", "single"}, {"-directed"}} {
		if code, _, stderr := runCLI(t, append([]string{"eval", "-emb", emb, "-split", split, "-score", "sym"}, args...)...); code != 2 || !strings.Contains(stderr, "-score") {
			t.Errorf("-score sym %v: exit %d, %s", args, code, stderr)
		}
	}
	// A directed split is refused even without -directed (by the loader,
	// which refuses to read it as undirected): its reversed-arc negatives
	// would score as their arcs do.
	directed := filepath.Join(tmp, "directed")
	writeSplit(t, directed, true)
	ds, err := graphio.LoadSplitDir(context.Background(), directed, true)
	if err != nil {
		t.Fatal(err)
	}
	demb := filepath.Join(tmp, "directed.npy")
	res.N, res.L, res.R = ds.N, res.L[:0], res.R[:0]
	for range ds.N * half {
		res.L, res.R = append(res.L, float32(rng.NormFloat64())), append(res.R, float32(rng.NormFloat64()))
	}
	if err := graphio.WriteEmbeddings(context.Background(), demb, graphio.FormatNPY, res, ds.IDs); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "eval", "-emb", demb, "-split", directed, "-score", "sym"); code == 0 || !strings.Contains(stderr, "directed split") {
		t.Errorf("-score sym on a directed split: exit %d, %s", code, stderr)
	}
}

// TestEvalMatchesSklearn scores the gensim word2vec file of
// testdata/evalcheck (written by benchmarks/scripts/eval_check.py, with
// scikit-learn's roc_auc_score and average_precision_score of its vectors
// and numpy's Hits@k by OGB's rule in expected.json) by dot product and
// cosine, and the reconstruction of the split's training graph
// (train.edges.txt) against scikit-learn's per-node average precision and
// numpy's precision@k. Tolerance 1e-6: eval sums in float32, the script in float64;
// with 60 x 60 pairs one swapped pair would move the AUC by 3e-4.
func TestEvalMatchesSklearn(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "evalcheck")
	var want map[string]json.RawMessage
	readJSON(t, filepath.Join(dir, "expected.json"), &want)
	for _, score := range []string{"dot", "cosine"} {
		var w struct {
			linkResult
			Reconstruction eval.ReconstructionResult `json:"reconstruction"`
		}
		if err := json.Unmarshal(want[score], &w); err != nil {
			t.Fatal(err)
		}
		rep := filepath.Join(t.TempDir(), "eval.json")
		code, stdout, stderr := runCLI(t, "eval", "-emb", filepath.Join(dir, "gensim.txt"), "-split", filepath.Join(dir, "split"), "-score", score, "-report", rep,
			"-graph", filepath.Join(dir, "train.edges.txt"), "-k", "10,100,1000")
		if code != 0 {
			t.Fatal(stderr)
		}
		var got struct {
			LinkPrediction linkResult  `json:"link_prediction"`
			Reconstruction reconResult `json:"reconstruction"`
			Args           []string
		}
		readJSON(t, rep, &got)
		if len(got.Args) != 6 || got.Args[3] != "-report="+rep || got.Args[4] != "-score="+score {
			t.Errorf("the report's args %q", got.Args)
		}
		rc := got.Reconstruction
		if rc.ReconstructionResult == nil || rc.Rows != 60 || math.Abs(rc.MAP-w.Reconstruction.MAP) > 1e-6 || len(rc.PrecisionAtK) != 3 {
			t.Errorf("%s: eval's reconstruction %+v, scikit-learn's MAP %v", score, rc.ReconstructionResult, w.Reconstruction.MAP)
		} else {
			for k, p := range w.Reconstruction.PrecisionAtK {
				if math.Abs(rc.PrecisionAtK[k]-p) > 1e-9 {
					t.Errorf("%s: eval precision@%s %v, numpy %v", score, k, rc.PrecisionAtK[k], p)
				}
			}
		}
		if math.Abs(*got.LinkPrediction.TestAUC-*w.TestAUC) > 1e-6 || math.Abs(*got.LinkPrediction.TrainAUC-*w.TrainAUC) > 1e-6 {
			t.Errorf("%s: eval test %v train %v, sklearn %v %v", score, *got.LinkPrediction.TestAUC, *got.LinkPrediction.TrainAUC, *w.TestAUC, *w.TrainAUC)
		}
		g := got.LinkPrediction
		if g.TestAP == nil || g.TrainAP == nil || math.Abs(*g.TestAP-*w.TestAP) > 1e-6 || math.Abs(*g.TrainAP-*w.TrainAP) > 1e-6 {
			t.Errorf("%s: eval average precision test %v train %v, sklearn %v %v", score, g.TestAP, g.TrainAP, *w.TestAP, *w.TrainAP)
		}
		if len(w.TestHits) != 3 || len(g.TestHits) != len(w.TestHits) {
			t.Errorf("%s: Hits@k of eval %v, the script %v", score, g.TestHits, w.TestHits)
		}
		for k, h := range w.TestHits {
			if g.TestHits[k] != h {
				t.Errorf("%s: eval Hits@%s %v, the script %v", score, k, g.TestHits[k], h)
			}
		}
		if !strings.Contains(stdout, "a single table (no wys marker beside it)") {
			t.Errorf("gensim file not read as a single table:\n%s", stdout)
		}
	}
}

// TestEvalRankMatchesNumpy ranks the test pairs of testdata/evalcheck's
// split against every node (-mrr all) with the gensim file, by dot product
// and cosine, and compares MRR, mean rank and Hits@k with numpy's in
// rank.json (benchmarks/scripts/rank_check.py). With -mrr 57 (of the 58
// nodes other than a pair's two, 6,840 draws in all) the sampled mean
// rank comes within 10% of the full one scaled by 57/58.
func TestEvalRankMatchesNumpy(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "evalcheck")
	var want map[string]json.RawMessage
	readJSON(t, filepath.Join(dir, "rank.json"), &want)
	for _, score := range []string{"dot", "cosine"} {
		var w eval.RankResult
		if err := json.Unmarshal(want[score], &w); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"all", "57"} {
			rep := filepath.Join(t.TempDir(), "eval.json")
			code, stdout, stderr := runCLI(t, "eval", "-emb", filepath.Join(dir, "gensim.txt"), "-split", filepath.Join(dir, "split"), "-score", score, "-mrr", k, "-report", rep)
			if code != 0 {
				t.Fatal(stderr)
			}
			var got struct {
				LinkPrediction linkResult `json:"link_prediction"`
			}
			readJSON(t, rep, &got)
			g := got.LinkPrediction.Ranking
			if g == nil || !strings.Contains(stdout, "MRR") {
				t.Fatalf("%s -mrr %s: no ranking in\n%s", score, k, stdout)
			}
			if k == "all" {
				if g.Pairs != 60 || g.Candidates != 58 || math.Abs(g.MRR-w.MRR) > 1e-12 || math.Abs(g.MeanRank-w.MeanRank) > 1e-9 || !maps.Equal(g.Hits, w.Hits) {
					t.Errorf("%s: eval %+v, numpy %+v", score, g, w)
				}
				continue
			}
			// (rank − 1) scales with the candidates: 57/58 per node above.
			if g.Candidates != 57 {
				t.Errorf("%s -mrr 57: %d candidates in the report", score, g.Candidates)
			}
			full := 1 + 57.0/58*(w.MeanRank-1)
			if math.Abs(g.MeanRank-full) > 0.1*full {
				t.Errorf("%s -mrr 57: mean rank %v, want about %v", score, g.MeanRank, full)
			}
		}
	}
}

// TestClassifyLogRegMatchesSklearn runs -planetoid on the Planetoid-style
// files of testdata/evalcheck with the gensim file and compares the
// logistic regression's test accuracy and Macro-F1, at C = 1 and 0.1,
// with scikit-learn's OneVsRestClassifier in expected.json.
func TestClassifyLogRegMatchesSklearn(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "evalcheck")
	var want struct {
		ClassifyLogReg map[string]struct {
			Accuracy float64 `json:"test_accuracy"`
			MacroF1  float64 `json:"test_macro_f1"`
		} `json:"classify_logreg"`
	}
	readJSON(t, filepath.Join(dir, "expected.json"), &want)
	if len(want.ClassifyLogReg) != 2 {
		t.Fatalf("expected.json holds %d settings of C", len(want.ClassifyLogReg))
	}
	for c, w := range want.ClassifyLogReg {
		rep := filepath.Join(t.TempDir(), "eval.json")
		code, stdout, stderr := runCLI(t, "eval", "-emb", filepath.Join(dir, "gensim.txt"), "-planetoid", filepath.Join(dir, "planetoid"), "-logreg-c", c, "-report", rep)
		if code != 0 {
			t.Fatal(stderr)
		}
		var got struct {
			ClassifyLogReg *eval.LogRegClassifyResult `json:"classification_logreg"`
		}
		readJSON(t, rep, &got)
		g := got.ClassifyLogReg
		if g == nil || math.Abs(g.TestAccuracy-w.Accuracy) > 1e-12 || math.Abs(g.TestMacroF1-w.MacroF1) > 1e-12 || g.Train != 30 || g.Test != 20 || g.Classes != 4 || g.Features != 8 {
			t.Errorf("C = %s: eval %+v, scikit-learn accuracy %v Macro-F1 %v\n%s", c, g, w.Accuracy, w.MacroF1, stdout)
		}
		// gensim.txt is a single table: its kNN scores are Y·Y (LR and
		// sym) and 2·Y·Y (dot), named as such.
		if !strings.Contains(stdout, "best validation accuracy per score: Y·Y ") || !strings.Contains(stdout, ", 2·Y·Y ") || strings.Contains(stdout, "sym ") {
			t.Errorf("C = %s: the single table's kNN scores are not named Y·Y and 2·Y·Y:\n%s", c, stdout)
		}
	}
	// -features Y+norm: the logistic regression says its rows were scaled.
	if code, stdout, stderr := runCLI(t, "eval", "-emb", filepath.Join(dir, "gensim.txt"), "-planetoid", filepath.Join(dir, "planetoid"), "-features", "Y+norm"); code != 0 || !strings.Contains(stdout, "(the rows of the file, scaled to unit length)") {
		t.Errorf("-features Y+norm: exit %d, the logistic regression does not say its rows were scaled:\n%s%s", code, stdout, stderr)
	}
	// With -score cosine the rows are unit vectors: the scores are cosines.
	code, stdout, stderr := runCLI(t, "eval", "-emb", filepath.Join(dir, "gensim.txt"), "-planetoid", filepath.Join(dir, "planetoid"), "-score", "cosine")
	if code != 0 || !strings.Contains(stdout, "best validation accuracy per score: cos(Y, Y) ") || !strings.Contains(stdout, ", 2·cos(Y, Y) ") || strings.Contains(stdout, "Y·Y") {
		t.Errorf("-score cosine: exit %d, the kNN scores are not named cos(Y, Y) and 2·cos(Y, Y):\n%s%s", code, stdout, stderr)
	}
}

// TestEdgeClassifierMatchesSklearn runs node2vec's protocol (-edge-ops
// all) on the gensim file of testdata/evalcheck and compares each
// operator's test AUC and AP with scikit-learn's LogisticRegression (fitted
// to its exact optimum) in expected.json.
func TestEdgeClassifierMatchesSklearn(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "evalcheck")
	var want struct {
		EdgeClassifier map[string]struct {
			TestAUC float64 `json:"test_auc"`
			TestAP  float64 `json:"test_ap"`
		} `json:"edge_classifier"`
	}
	readJSON(t, filepath.Join(dir, "expected.json"), &want)
	rep := filepath.Join(t.TempDir(), "eval.json")
	code, stdout, stderr := runCLI(t, "eval", "-emb", filepath.Join(dir, "gensim.txt"), "-split", filepath.Join(dir, "split"), "-edge-ops", "all", "-report", rep)
	if code != 0 {
		t.Fatal(stderr)
	}
	var got struct {
		LinkPrediction linkResult `json:"link_prediction"`
	}
	readJSON(t, rep, &got)
	ops := got.LinkPrediction.EdgeClassifier
	if len(ops) != 4 || len(want.EdgeClassifier) != 4 {
		t.Fatalf("%d operators scored, %d expected:\n%s", len(ops), len(want.EdgeClassifier), stdout)
	}
	for _, r := range ops {
		w := want.EdgeClassifier[r.Operator]
		if math.Abs(r.TestAUC-w.TestAUC) > 1e-9 || math.Abs(r.TestAP-w.TestAP) > 1e-9 || r.NotConverged || r.TrainPairs != [2]int{140, 140} {
			t.Errorf("%s: eval %+v, scikit-learn AUC %v AP %v", r.Operator, r, w.TestAUC, w.TestAP)
		}
	}
	if !strings.Contains(stdout, "node2vec's edge classifier (logistic regression C = 1 on op(x_u, x_v), 8 features, 140 + 140 train pairs): test ROC-AUC average 0.4931, hadamard 0.7806, l1 0.7286, l2 0.7428") {
		t.Errorf("summary line:\n%s", stdout)
	}
}

// TestSubcommandHelp: -help of each subcommand goes to stdout with exit 0
// and fits 80 columns; the main command's -help names both.
func TestSubcommandHelp(t *testing.T) {
	t.Parallel()
	for _, sub := range []string{"eval", "neighbors"} {
		code, stdout, stderr := runCLI(t, sub, "-help")
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "wys-sparse "+sub) || !strings.Contains(stdout, "-emb FILE") {
			t.Errorf("%s -help: exit %d, stderr %q, stdout %.80q", sub, code, stderr, stdout)
		}
		for _, l := range strings.Split(stdout, "\n") {
			if utf8.RuneCountInString(l) > 80 {
				t.Errorf("%s -help line of %d columns: %q", sub, utf8.RuneCountInString(l), l)
			}
		}
	}
	if _, stdout, _ := runCLI(t, "-help"); !strings.Contains(stdout, "wys-sparse eval") || !strings.Contains(stdout, "wys-sparse neighbors") {
		t.Error("main -help does not name the subcommands")
	}
}

// TestSubcommandInterrupted: a cancelled context exits 130.
func TestSubcommandInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := filepath.Join("testdata", "evalcheck")
	for _, args := range [][]string{
		{"eval", "-emb", filepath.Join(dir, "gensim.txt"), "-split", filepath.Join(dir, "split")},
		{"neighbors", "-emb", filepath.Join(dir, "gensim.txt"), "-node", "n1000"},
	} {
		var out, errb strings.Builder
		if code := run(ctx, args, &out, &errb); code != interrupt.CodeInterrupted || !strings.Contains(errb.String(), "interrupted") {
			t.Errorf("%s: exit %d, stderr %q", args[0], code, errb.String())
		}
	}
}

// ppiIndicator reads PPI's .mat file and returns its path, graph and
// labels, and an [L | R] embedding whose columns are the label
// indicators (one column per label, L holding the first half).
func ppiIndicator(t *testing.T) (string, *pipeline.Graph, *pipeline.MultiLabels, *pipeline.Result) {
	t.Helper()
	mat := filepath.Join(sharedDatasets(t), "PPI", "Homo_sapiens.mat.gz")
	g, lab, _, err := graphio.LoadMAT(context.Background(), mat, graphio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n, half := g.N(), (lab.Count+1)/2
	indicator := &pipeline.Result{N: n, Half: half, L: make([]float32, n*half), R: make([]float32, n*half)}
	for v, ls := range lab.Of {
		for _, l := range ls {
			if int(l) < half {
				indicator.L[v*half+int(l)] = 1
			} else {
				indicator.R[v*half+int(l)-half] = 1
			}
		}
	}
	return mat, g, lab, indicator
}

// TestEvalMultiLabelPPI runs -mat on PPI with two embeddings of its
// nodes: the label indicator vectors (one column per label, so that
// logistic regression recovers every label: Micro-F1 near 1) and random
// vectors (F1 far below). One split at 50%.
func TestEvalMultiLabelPPI(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 50 logistic regressions twice on 3,890 nodes")
	}
	mat, g, _, indicator := ppiIndicator(t)
	tmp := t.TempDir()
	n, half := g.N(), indicator.Half
	random := &pipeline.Result{N: n, Half: half, L: make([]float32, n*half), R: make([]float32, n*half)}
	for i := range random.L {
		random.L[i], random.R[i] = float32((i*7919)%13)-6, float32((i*104729)%11)-5
	}
	for name, res := range map[string]*pipeline.Result{"indicator": indicator, "random": random} {
		path := filepath.Join(tmp, name+".txt")
		if err := graphio.WriteEmbeddings(context.Background(), path, graphio.FormatWord2Vec, res, g.IDs); err != nil {
			t.Fatal(err)
		}
		os.Remove(graphio.MarkerPath(path)) // read as another tool's single table
		rep := filepath.Join(tmp, name+".json")
		code, stdout, stderr := runCLI(t, "eval", "-emb", path, "-mat", mat, "-ratios", "0.5", "-repeats", "1", "-report", rep)
		if code != 0 {
			t.Fatal(stderr)
		}
		var got struct {
			MultiLabel struct {
				Ratios []struct {
					MicroMean float64 `json:"micro_mean"`
				}
			}
		}
		readJSON(t, rep, &got)
		micro := got.MultiLabel.Ratios[0].MicroMean
		t.Logf("%s: Micro-F1 %.4f", name, micro)
		if (name == "indicator" && micro < 0.95) || (name == "random" && micro > 0.3) {
			t.Errorf("%s: Micro-F1 %v\n%s", name, micro, stdout)
		}
	}
}

// TestEvalMultiLabelOtherGraph gives -mat an embedding with a vector for
// each of PPI's nodes 0..3889 and two more (ids 3890 and 3891, as an
// embedding of a larger graph has): refused, naming the first stranger.
func TestEvalMultiLabelOtherGraph(t *testing.T) {
	mat, g, _, indicator := ppiIndicator(t)
	n, half := g.N()+2, indicator.Half
	res := &pipeline.Result{N: n, Half: half, L: make([]float32, n*half), R: make([]float32, n*half)}
	copy(res.L, indicator.L)
	copy(res.R, indicator.R)
	path := filepath.Join(t.TempDir(), "other.txt")
	if err := graphio.WriteEmbeddings(context.Background(), path, graphio.FormatWord2Vec, res, nil); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "eval", "-emb", path, "-mat", mat)
	if want := `2 of the 3892 vectors in ` + path + ` name no node of ` + mat + ` (e.g. id "3890"; its network has 3890 nodes, 0..3889)`; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	// Numbered from 1 (ids 1..3890): one id outside, one node without a
	// vector; the shift is named rather than another graph.
	ids := make([]uint64, g.N())
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	res.N, res.L, res.R = g.N(), res.L[:g.N()*half], res.R[:g.N()*half]
	if err := graphio.WriteEmbeddings(context.Background(), path, graphio.FormatWord2Vec, res, pipeline.NewNumericIDs(ids)); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "eval", "-emb", path, "-mat", mat)
	if code != 1 || !strings.Contains(stderr, "every node has a vector under its id + 1") || strings.Contains(stderr, "another graph") {
		t.Errorf("ids from 1: exit %d, stderr %q; want the shift named", code, stderr)
	}
}

// TestEvalPlanetoid classifies a small Planetoid-style dataset whose
// embeddings are the one-hot class vectors (every test node right) or
// carry no class information (all nodes one vector: the rule then
// predicts one class for everyone).
func TestEvalPlanetoid(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	prefix := filepath.Join(tmp, "toy")
	var edges, labels, split, onehot, flat strings.Builder
	onehot.WriteString("30 3\n")
	flat.WriteString("30 3\n")
	for i := 0; i < 30; i++ {
		id := "p" + strconv.Itoa(i)
		edges.WriteString(id + "\tp" + strconv.Itoa((i+1)%30) + "\n")
		labels.WriteString(id + "\t" + strconv.Itoa(i%3) + "\n")
		set := []string{"train", "val", "test"}[i/10]
		split.WriteString(id + "\t" + set + "\n")
		vec := []string{"0", "0", "0"}
		vec[i%3] = "1"
		onehot.WriteString(id + " " + strings.Join(vec, " ") + "\n")
		flat.WriteString(id + " 1 1 1\n")
	}
	for suffix, text := range map[string]string{".edges.tsv": edges.String(), ".labels.tsv": labels.String(), ".split.tsv": split.String(),
		".onehot.txt": onehot.String(), ".flat.txt": flat.String()} {
		if err := os.WriteFile(prefix+suffix, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for emb, want := range map[string]string{"onehot": "test 100.0% of 10 nodes, validation 100.0% of 10", "flat": "test 30.0% of 10 nodes"} {
		code, stdout, stderr := runCLI(t, "eval", "-emb", prefix+"."+emb+".txt", "-planetoid", prefix)
		if code != 0 || !strings.Contains(stdout, "node classification accuracy: "+want) || strings.Contains(stdout, "no train node") {
			t.Errorf("%s: exit %d, want %q\n%s%s", emb, code, want, stdout, stderr)
		}
	}
	// Class 2's train nodes (p2, p5, p8) moved to the validation set: its
	// four test nodes (p20, p23, p26, p29) cannot be predicted, and the
	// output says so.
	text := strings.NewReplacer("p2\ttrain", "p2\tval", "p5\ttrain", "p5\tval", "p8\ttrain", "p8\tval").Replace(split.String())
	if err := os.WriteFile(prefix+".split.tsv", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "eval", "-emb", prefix+".onehot.txt", "-planetoid", prefix)
	if want := "note: 4 test nodes are of classes no train node has (2), which no rule can predict"; code != 0 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "test 60.0% of 10 nodes") {
		t.Errorf("class 2 untrained: exit %d, want %q and 60%%\n%s%s", code, want, stdout, stderr)
	}
}

// TestEvalPlanetoidMatchesTraining: eval -planetoid on the embeddings a
// run on Cora wrote gives exactly the classifications (the paper's rule
// and the logistic regression) that run reported.
func TestEvalPlanetoidMatchesTraining(t *testing.T) {
	t.Parallel()
	prefix := filepath.Join(sharedDatasets(t), "Cora", "cora")
	tmp := t.TempDir()
	emb, trainRep, evalRep := filepath.Join(tmp, "cora.txt"), filepath.Join(tmp, "train.json"), filepath.Join(tmp, "eval.json")
	if code, _, stderr := runCLI(t, "-graph", prefix+".edges.tsv.gz", "-labels", prefix+".labels.tsv.gz", "-label-split", prefix+".split.tsv.gz",
		"-epochs", "5", "-dim", "16", "-out", emb, "-report", trainRep, "-quiet"); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runCLI(t, "eval", "-emb", emb, "-planetoid", prefix, "-report", evalRep); code != 0 {
		t.Fatal(stderr)
	}
	var trained, got struct {
		Classification json.RawMessage `json:"classification"`
		LogReg         json.RawMessage `json:"classification_logreg"`
	}
	readJSON(t, trainRep, &trained)
	readJSON(t, evalRep, &got)
	if len(trained.Classification) == 0 || string(trained.Classification) != string(got.Classification) {
		t.Errorf("eval's classification differs from training's:\n%s\n%s", got.Classification, trained.Classification)
	}
	if len(trained.LogReg) == 0 || string(trained.LogReg) != string(got.LogReg) {
		t.Errorf("eval's logistic regression differs from training's:\n%s\n%s", got.LogReg, trained.LogReg)
	}
}

// TestPlanetoidBaselineFeatures: a baseline whose R is its L (ProNE) is
// classified after training on the rows of L, not on [L | R], which
// would repeat every column; eval on the file it wrote sees the equal
// halves, says so, and gives the same logistic regression.
func TestPlanetoidBaselineFeatures(t *testing.T) {
	t.Parallel()
	prefix := filepath.Join(sharedDatasets(t), "Cora", "cora")
	tmp := t.TempDir()
	emb, trainRep, evalRep := filepath.Join(tmp, "cora.npy"), filepath.Join(tmp, "train.json"), filepath.Join(tmp, "eval.json")
	if code, _, stderr := runCLI(t, "-graph", prefix+".edges.tsv.gz", "-labels", prefix+".labels.tsv.gz", "-label-split", prefix+".split.tsv.gz",
		"-method", "prone", "-dim", "16", "-out", emb, "-report", trainRep, "-quiet"); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, stderr := runCLI(t, "eval", "-emb", emb, "-planetoid", prefix, "-report", evalRep)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stdout, "are equal (a baseline whose R is its L): its features are the rows of L (-features L)") {
		t.Errorf("no note on the equal halves:\n%s", stdout)
	}
	var trained, got struct {
		LogReg *eval.LogRegClassifyResult `json:"classification_logreg"`
	}
	readJSON(t, trainRep, &trained)
	readJSON(t, evalRep, &got)
	if trained.LogReg == nil || got.LogReg == nil || trained.LogReg.Features != 8 || *trained.LogReg != *got.LogReg {
		t.Errorf("training's logistic regression %+v, eval's %+v", trained.LogReg, got.LogReg)
	}
}

// TestEvalSaysExtraVectors: vectors of nodes the split does not name are
// left out, and eval says how many.
func TestEvalSaysExtraVectors(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "evalcheck")
	b, err := os.ReadFile(filepath.Join(dir, "gensim.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "60 8\n", "62 8\n", 1) + "extra1 1 2 3 4 5 6 7 8\nextra2 8 7 6 5 4 3 2 1\n"
	emb := filepath.Join(t.TempDir(), "more.txt")
	if err := os.WriteFile(emb, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{emb: "2 of the 62 vectors in " + emb + " name no node of", filepath.Join(dir, "gensim.txt"): ""} {
		code, stdout, stderr := runCLI(t, "eval", "-emb", file, "-split", filepath.Join(dir, "split"))
		if code != 0 {
			t.Fatal(stderr)
		}
		if got := strings.Contains(stdout, "name no node of"); got != (want != "") || !strings.Contains(stdout, want) {
			t.Errorf("%s: want %q in stdout:\n%s", file, want, stdout)
		}
	}
}

// TestEvalLogRegC checks that -logreg-c reaches the fit: with C = 1e-9 the
// weights all but vanish and the unpenalised intercepts rank the labels
// by their share of the training rows, so every test node gets the k
// labels most frequent in training; the Micro-F1 must lie within that
// rule's, counted here by brute force over the ways to break ties, while
// C = 1 must use the features.
func TestEvalLogRegC(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 50 logistic regressions twice on 3,890 nodes")
	}
	// The labels themselves as features: C = 1 classifies nearly every
	// node right, C = 1e-9 cannot use them.
	mat, g, lab, indicator := ppiIndicator(t)
	tmp := t.TempDir()
	path := filepath.Join(tmp, "indicator.txt")
	if err := graphio.WriteEmbeddings(context.Background(), path, graphio.FormatWord2Vec, indicator, g.IDs); err != nil {
		t.Fatal(err)
	}
	os.Remove(graphio.MarkerPath(path))

	// The prevalence rule on the same split (seed 1, one split at 50%).
	splits, err := eval.MultiLabelSplits(lab.Labelled(), []float64{0.5}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	count := make([]int, lab.Count)
	for _, v := range splits[0].Train {
		for _, l := range lab.Of[v] {
			count[l]++
		}
	}
	// Labels of equal count tie on the intercept, and the vanishing
	// weights break the tie: bound the rule's F1 by breaking every tie at
	// the k-th place against the node's labels and in their favour.
	byCount := slices.Clone(count)
	slices.SortFunc(byCount, func(a, b int) int { return b - a })
	tpLow, tpHigh, total := 0, 0, 0
	for _, v := range splits[0].Test {
		k := len(lab.Of[v])
		if k == 0 {
			continue
		}
		kth := byCount[k-1]
		above, tiedTrue, tied, trueAbove := 0, 0, 0, 0
		for l, c := range count {
			isTrue := slices.Contains(lab.Of[v], int32(l))
			switch {
			case c > kth:
				above++
				if isTrue {
					trueAbove++
				}
			case c == kth:
				tied++
				if isTrue {
					tiedTrue++
				}
			}
		}
		need := k - above // places left for the tied labels
		tpHigh += trueAbove + min(need, tiedTrue)
		tpLow += trueAbove + max(0, need-(tied-tiedTrue))
		total += 2 * k // predicted plus actual labels
	}
	low, high := 2*float64(tpLow)/float64(total), 2*float64(tpHigh)/float64(total)

	micro := func(c string) (float64, float64) {
		rep := filepath.Join(tmp, "c"+c+".json")
		code, _, stderr := runCLI(t, "eval", "-emb", path, "-mat", mat, "-ratios", "0.5", "-repeats", "1", "-logreg-c", c, "-report", rep)
		if code != 0 {
			t.Fatal(stderr)
		}
		var got struct {
			MultiLabel struct {
				C      float64
				Ratios []struct {
					MicroMean float64 `json:"micro_mean"`
				}
			}
		}
		readJSON(t, rep, &got)
		return got.MultiLabel.C, got.MultiLabel.Ratios[0].MicroMean
	}
	cTiny, tiny := micro("1e-9")
	cOne, one := micro("1")
	t.Logf("prevalence rule %.4f to %.4f; C = %g: %.4f; C = %g: %.4f", low, high, cTiny, tiny, cOne, one)
	if cTiny != 1e-9 || cOne != 1 {
		t.Errorf("report says C = %g and %g, want 1e-9 and 1", cTiny, cOne)
	}
	if tiny < low-1e-12 || tiny > high+1e-12 {
		t.Errorf("C = 1e-9: Micro-F1 %.4f, the prevalence rule gives %.4f to %.4f", tiny, low, high)
	}
	if one < 0.95 {
		t.Errorf("C = 1: Micro-F1 %.4f on the label indicators, want at least 0.95", one)
	}
}

// TestEvalLabelsMatchesMat writes PPI's labels as the text a label file
// holds (one "node,label" line per pair, shuffled, as BlogCatalog's
// group-edges.csv) and requires -labels to give every split's Micro- and
// Macro-F1 that -mat gives from the .mat file itself: the two readers
// must agree on nodes, labels and rows, since the splits are drawn over
// rows.
func TestEvalLabelsMatchesMat(t *testing.T) {
	if testing.Short() {
		t.Skip("reads PPI twice and fits 200 logistic regressions on each")
	}
	mat, g, lab, _ := ppiIndicator(t)
	tmp := t.TempDir()
	n, half := g.N(), 8
	noisy := &pipeline.Result{N: n, Half: half, L: make([]float32, n*half), R: make([]float32, n*half)}
	rng := rand.New(rand.NewPCG(5, 6))
	for v, ls := range lab.Of {
		for i := range half {
			noisy.L[v*half+i] = float32(rng.NormFloat64())
			noisy.R[v*half+i] = float32(rng.NormFloat64())
		}
		for _, l := range ls { // a weak signal, so that F1 is neither 0 nor 1
			noisy.L[v*half+int(l)%half] += 0.5
		}
	}
	emb := filepath.Join(tmp, "emb.npy")
	if err := graphio.WriteEmbeddings(context.Background(), emb, graphio.FormatNPY, noisy, g.IDs); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for v, ls := range lab.Of {
		for _, l := range ls {
			lines = append(lines, fmt.Sprintf("%d,%d", v, l))
		}
	}
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	text := filepath.Join(tmp, "group-edges.csv")
	if err := os.WriteFile(text, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type f1 struct {
		MultiLabel struct {
			Nodes, Labels int
			Ratios        []struct{ Micro, Macro []float64 }
		}
	}
	var got [2]f1
	for i, src := range [][]string{{"-mat", mat}, {"-labels", text}} {
		rep := filepath.Join(tmp, fmt.Sprint(i, ".json"))
		args := append([]string{"eval", "-emb", emb, "-ratios", "0.3,0.7", "-repeats", "2", "-report", rep}, src...)
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatal(stderr)
		}
		readJSON(t, rep, &got[i])
	}
	m, l := got[0].MultiLabel, got[1].MultiLabel
	t.Logf("-mat %+v\n-labels %+v", m, l)
	if m.Nodes != 3890 || l.Nodes != m.Nodes || l.Labels != m.Labels || len(l.Ratios) != 2 || len(m.Ratios) != 2 {
		t.Fatalf("-mat %+v, -labels %+v", m, l)
	}
	for r := range m.Ratios {
		if !slices.Equal(m.Ratios[r].Micro, l.Ratios[r].Micro) || !slices.Equal(m.Ratios[r].Macro, l.Ratios[r].Macro) {
			t.Errorf("ratio %d: -mat %v / %v, -labels %v / %v", r, m.Ratios[r].Micro, m.Ratios[r].Macro, l.Ratios[r].Micro, l.Ratios[r].Macro)
		}
		if mi := m.Ratios[r].Micro[0]; mi < 0.05 || mi > 0.95 {
			t.Errorf("ratio %d: Micro-F1 %v carries no signal to compare", r, mi)
		}
	}
}

// TestEvalNotes: what eval cannot score is said, not dropped silently: a
// directed split without reversed test arcs, and a precision@k beyond the
// pairs ranked.
func TestEvalNotes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "evalcheck")
	emb := filepath.Join(dir, "gensim.txt")
	code, stdout, stderr := runCLI(t, "eval", "-emb", emb, "-split", filepath.Join(dir, "split"), "-directed")
	if code != 0 || !strings.Contains(stdout, "has no test.directed.neg.txt.npy (reversed test arcs): the test AUC is against its random non-edges only") {
		t.Errorf("directed split: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "eval", "-emb", emb, "-graph", filepath.Join(dir, "train.edges.txt"), "-k", "10,5000")
	// 60 nodes, every row ranked: 60·59 pairs, and no more to rank.
	if code != 0 || !strings.Contains(stdout, "note: no precision@5000: more than the 3540 pairs ranked (every node's row is ranked: the graph has no more pairs)") {
		t.Errorf("large k: exit %d\n%s%s", code, stdout, stderr)
	}
	// 10 rows sampled: 10·59 pairs; more rows would rank more.
	code, stdout, stderr = runCLI(t, "eval", "-emb", emb, "-graph", filepath.Join(dir, "train.edges.txt"), "-k", "10,1000", "-rows", "10")
	if code != 0 || !strings.Contains(stdout, "note: no precision@1000: more than the 590 pairs ranked (rank more rows with -rows)") {
		t.Errorf("large k on sampled rows: exit %d\n%s%s", code, stdout, stderr)
	}
	// -quiet needs -report, where its results go; with it, stdout is empty.
	code, stdout, stderr = runCLI(t, "eval", "-emb", emb, "-split", filepath.Join(dir, "split"), "-quiet")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "-quiet prints only errors, so without -report FILE the results would go nowhere") {
		t.Errorf("-quiet without -report: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	rep := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr = runCLI(t, "eval", "-emb", emb, "-split", filepath.Join(dir, "split"), "-quiet", "-report", rep)
	var r struct {
		LinkPrediction *struct {
			TestAUC *float64 `json:"test_auc"`
		} `json:"link_prediction"`
		Inputs []inputFile `json:"inputs"`
	}
	readJSON(t, rep, &r)
	if code != 0 || stdout != "" || r.LinkPrediction == nil || r.LinkPrediction.TestAUC == nil {
		t.Errorf("-quiet -report: exit %d, stdout %q, stderr %q, report %+v", code, stdout, stderr, r)
	}
	// The report's inputs: -emb first, its sum taken as it was read.
	b, err := os.ReadFile(emb)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); len(r.Inputs) < 2 || r.Inputs[0] != (inputFile{Path: emb, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(b))}) {
		t.Errorf("report inputs %+v: want %s first, with its sha256 and size", r.Inputs, emb)
	}
}

// TestEvalBareNPYRowIsID: a .npy without its ids file holds node id i in
// row i (as neighbors reads it), so on a graph whose integer ids are not
// 0..N−1 eval must score the same vectors as the same table written with
// its ids (TSV, matched by name), for reconstruction and for labels. The
// rows no node names hold other vectors, which a match by position would
// score instead.
func TestEvalBareNPYRowIsID(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n, half, stride = 12, 3, 5
	rng := rand.New(rand.NewPCG(8, 9))
	rows := stride*n + 1
	res := &pipeline.Result{N: rows, Half: half, L: make([]float32, rows*half), R: make([]float32, rows*half)}
	for _, side := range [][]float32{res.L, res.R} {
		for i := range side {
			side[i] = float32(rng.NormFloat64())
		}
	}
	var graph, labels strings.Builder
	for i := range n {
		id := stride * (i + 1)
		fmt.Fprintf(&graph, "%d %d\n%d %d\n", id, stride*((i+1)%n+1), id, stride*((i+3)%n+1))
		fmt.Fprintf(&labels, "%d %d\n", id, i%2)
	}
	gpath, lpath := filepath.Join(dir, "g.txt"), filepath.Join(dir, "labels.txt")
	for p, text := range map[string]string{gpath: graph.String(), lpath: labels.String()} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bare, named := filepath.Join(dir, "bare.npy"), filepath.Join(dir, "named.tsv")
	if err := graphio.WriteEmbeddings(context.Background(), bare, "", res, pipeline.IdentityIDs(rows)); err != nil {
		t.Fatal(err)
	}
	// Without its ids the marker is refused (TestSubcommandErrorsGolden):
	// a bare .npy has neither, and is read as [L | R] with -layout halves.
	if err := errors.Join(os.Remove(graphio.IDsPath(bare)), os.Remove(graphio.MarkerPath(bare))); err != nil {
		t.Fatal(err)
	}
	if err := graphio.WriteEmbeddings(context.Background(), named, "", res, pipeline.IdentityIDs(rows)); err != nil {
		t.Fatal(err)
	}
	scores := func(emb ...string) []string {
		code, stdout, stderr := runCLI(t, append([]string{"eval", "-emb"}, append(emb, "-graph", gpath, "-labels", lpath, "-ratios", "0.5", "-repeats", "2")...)...)
		if code != 0 {
			t.Fatal(stderr)
		}
		var keep []string
		for _, ln := range strings.Split(stdout, "\n") {
			if strings.Contains(ln, "MAP") || strings.Contains(ln, "precision@") || strings.HasPrefix(ln, "| 50%") {
				keep = append(keep, ln[strings.Index(ln, ":")+1:])
			}
		}
		return keep
	}
	got, want := scores(bare, "-layout", "halves"), scores(named)
	if len(want) < 3 || !slices.Equal(got, want) {
		t.Errorf("bare .npy scores\n%q\nthe same table with its ids\n%q", got, want)
	}
}

// TestEvalCluster: -cluster clusters the single-label nodes of -labels
// (a node with two labels is left out, and said so) into as many clusters
// as their labels; on vectors that are their node's label, one-hot and
// scaled, the clusters are the labels (NMI, ARI and accuracy 1).
func TestEvalCluster(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var emb, labels strings.Builder
	const n = 30
	fmt.Fprintf(&emb, "%d 3\n", n)
	for i := range n {
		c := i % 3
		v := []string{"0", "0", "0"}
		v[c] = strconv.Itoa(10 + i%4)
		fmt.Fprintf(&emb, "v%d %s\n", i, strings.Join(v, " "))
		fmt.Fprintf(&labels, "v%d %d\n", i, c)
	}
	labels.WriteString("v0 2\n") // v0: labels 0 and 2
	epath, lpath, rpath := filepath.Join(dir, "e.txt"), filepath.Join(dir, "l.txt"), filepath.Join(dir, "r.json")
	os.WriteFile(epath, []byte(emb.String()), 0o644)
	os.WriteFile(lpath, []byte(labels.String()), 0o644)
	code, stdout, stderr := runCLI(t, "eval", "-emb", epath, "-labels", lpath, "-ratios", "0.5", "-repeats", "1", "-cluster", "-report", rpath)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stdout, "note: 1 node of "+lpath+" has more than one label: left out of the clustering\n") {
		t.Errorf("no note of the two-label node:\n%s", stdout)
	}
	b, err := os.ReadFile(rpath)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct{ Clustering *eval.ClusterResult }
	if err := json.Unmarshal(b, &rep); err != nil || rep.Clustering == nil {
		t.Fatalf("report %s: %v", b, err)
	}
	if c := rep.Clustering; c.Nodes != n-1 || c.K != 3 || c.NMI != 1 || c.ARI != 1 || c.Accuracy != 1 {
		t.Errorf("clustering %+v\n%s", c, stdout)
	}
	if strings.Contains(stdout, "say nothing") || strings.Contains(stdout, "distinct feature rows") {
		t.Errorf("a note on a clustering with 3 labels and 12 distinct rows:\n%s", stdout)
	}
	// -ratios none: the same clustering, without the classification.
	code, stdout2, stderr := runCLI(t, "eval", "-emb", epath, "-labels", lpath, "-ratios", "none", "-cluster")
	if code != 0 || strings.Contains(stdout2, "classification") || !strings.Contains(stdout2, "NMI 1.0000, ARI 1.0000, accuracy 1.0000") {
		t.Errorf("-ratios none -cluster: exit %d\n%s%s", code, stdout2, stderr)
	}
	for _, args := range [][]string{{"-ratios", "none"}, {"-ratios", "none", "-cluster", "-repeats", "2"}} {
		code, _, stderr := runCLI(t, append([]string{"eval", "-emb", epath, "-labels", lpath}, args...)...)
		if code != 2 || !strings.Contains(stderr, "-ratios none") {
			t.Errorf("%q: exit %d, %s", args, code, stderr)
		}
	}
	// One label for every node: the scores are 1 whatever the clusters.
	one := regexp.MustCompile(` \d+\n`).ReplaceAllString(labels.String(), " 7\n")
	os.WriteFile(lpath, []byte(one), 0o644)
	code, stdout, stderr = runCLI(t, "eval", "-emb", epath, "-labels", lpath, "-ratios", "0.5", "-repeats", "1", "-cluster")
	if code != 0 || !strings.Contains(stdout, "into 1 cluster (") || !strings.Contains(stdout, "these measures say nothing here") {
		t.Errorf("one label: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestEvalHitsAboveNegatives: testdata/evalcheck's split has 60 test
// negatives, so Hits@100 is 1 by OGB's rule (expected.json, by the
// script) without measuring anything; eval prints it marked as such,
// and Hits@20 and Hits@50, which are measured, unmarked.
func TestEvalHitsAboveNegatives(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "evalcheck")
	code, stdout, stderr := runCLI(t, "eval", "-emb", filepath.Join(dir, "gensim.txt"), "-split", filepath.Join(dir, "split"))
	if code != 0 {
		t.Fatal(stderr)
	}
	line := ""
	for l := range strings.Lines(stdout) {
		if strings.HasPrefix(l, "Hits@") {
			line = l
		}
	}
	if !strings.Contains(line, "of the 60 test negatives") || strings.Count(line, "*") != 1 || !strings.HasSuffix(strings.TrimSpace(line), "1.0000*") {
		t.Errorf("Hits line %q: want Hits@100 alone marked, at 1.0000*", line)
	}
	if !strings.Contains(stdout, "  * Hits@100: k exceeds the 60 test negatives, so OGB's rule counts every test edge as a hit") {
		t.Errorf("no note on Hits@100:\n%s", stdout)
	}
}

// TestEvalHeaderSkippedSaid: eval -header names the line it skipped, for
// -graph and -labels, so that a file without column names does not lose
// its first line unseen.
func TestEvalHeaderSkippedSaid(t *testing.T) {
	write := tempWriter(t)
	emb := write("e.txt", "4 2\n1 1 0\n2 0 1\n3 1 1\n4 -1 0\n")
	graph := write("g.txt", "1 2\n2 3\n3 4\n4 1\n")
	labels := write("l.txt", "1 a\n2 b\n3 a\n4 b\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-graph", graph, "-k", "1"}, `skipped the header line "1 2" of ` + graph},
		{[]string{"-labels", labels, "-ratios", "none", "-cluster"}, `skipped the header line "1 a" of ` + labels},
	} {
		args := append([]string{"eval", "-emb", emb, "-header"}, c.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || !strings.Contains(stdout, c.want) {
			t.Errorf("%v: exit %d, want %q\n%s%s", args, code, c.want, stdout, stderr)
		}
	}
}

// tempWriter returns a function that writes text to a file of a
// temporary directory of t and returns its path.
func tempWriter(t *testing.T) func(name, text string) string {
	tmp := t.TempDir()
	return func(name, text string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// TestEvalRankHitsBeyondCandidates: against 5 candidates every rank is at
// most 6, so Hits@10 and Hits@50 are 1 by definition: eval marks them, as
// it marks OGB's Hits@k beyond the negatives; against all 58 it marks
// none.
func TestEvalRankHitsBeyondCandidates(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "evalcheck")
	for _, c := range []struct {
		k, want string
	}{
		{"5", "/ 1.0000* / 1.0000*, mean rank"},
		{"all", ""},
	} {
		code, stdout, stderr := runCLI(t, "eval", "-emb", filepath.Join(dir, "gensim.txt"), "-split", filepath.Join(dir, "split"), "-mrr", c.k)
		if code != 0 {
			t.Fatal(stderr)
		}
		note := "  * Hits@10, Hits@50: k exceeds the 5 candidates"
		_, ranking, _ := strings.Cut(stdout, "ranking (unfiltered")
		if c.want == "" {
			if strings.Contains(ranking, "*") {
				t.Errorf("-mrr all marks a Hits@k:\n%s", stdout)
			}
		} else if !strings.Contains(ranking, c.want) || !strings.Contains(ranking, note) {
			t.Errorf("-mrr %s: want %q and %q in\n%s", c.k, c.want, note, stdout)
		}
	}
}

// TestEvalEmbIDs: on a split whose index renumbers its nodes 0..N−1 (as
// ego-Facebook's sorts them as text), a file whose ids are all among
// 0..N−1 may name the index's ids or the split's rows; -emb-ids auto
// refuses it, and -emb-ids index and rows each score the file that names
// the nodes that way at scikit-learn's AUC (testdata/evalcheck's
// expected.json, for gensim.txt under its own ids).
func TestEvalEmbIDs(t *testing.T) {
	t.Parallel()
	src := filepath.Join("testdata", "evalcheck")
	split := filepath.Join(t.TempDir(), "split")
	if err := os.Mkdir(split, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"train.txt.npy", "test.txt.npy", "train.neg.txt.npy", "test.neg.txt.npy"} {
		b, err := os.ReadFile(filepath.Join(src, "split", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(split, f), b, 0o644)
	}
	// The index names row r by n−1−r; row r's old name gives its vector.
	index, err := os.ReadFile(filepath.Join(src, "split", "index.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	rowOf := map[string]int{}
	var newIndex strings.Builder
	newIndex.WriteString("# original_id\tnode\n")
	for _, ln := range strings.Split(strings.TrimSpace(string(index)), "\n")[1:] {
		name, r, _ := strings.Cut(ln, "\t")
		rowOf[name], _ = strconv.Atoi(r)
	}
	n := len(rowOf)
	for r := range n {
		fmt.Fprintf(&newIndex, "%d\t%d\n", n-1-r, r)
	}
	os.WriteFile(filepath.Join(split, "index.tsv"), []byte(newIndex.String()), 0o644)
	b, err := os.ReadFile(filepath.Join(src, "gensim.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	byIndex, byRow := []string{lines[0]}, []string{lines[0]}
	for _, ln := range lines[1:] {
		name, vec, _ := strings.Cut(ln, " ")
		r := rowOf[name]
		byIndex = append(byIndex, strconv.Itoa(n-1-r)+" "+vec)
		byRow = append(byRow, strconv.Itoa(r)+" "+vec)
	}
	dir := t.TempDir()
	idxFile, rowFile := filepath.Join(dir, "index.txt"), filepath.Join(dir, "rows.txt")
	os.WriteFile(idxFile, []byte(strings.Join(byIndex, "\n")+"\n"), 0o644)
	os.WriteFile(rowFile, []byte(strings.Join(byRow, "\n")+"\n"), 0o644)
	var want map[string]json.RawMessage
	readJSON(t, filepath.Join(src, "expected.json"), &want)
	var w linkResult
	if err := json.Unmarshal(want["dot"], &w); err != nil {
		t.Fatal(err)
	}
	// The same tables as bare .npy files, row i holding the vector of id i.
	idxNPY, rowNPY := filepath.Join(dir, "index.npy"), filepath.Join(dir, "rows.npy")
	bareNPY(t, idxNPY, byIndex[1:])
	bareNPY(t, rowNPY, byRow[1:])
	for _, c := range []struct{ file, ids string }{{idxFile, "index"}, {rowFile, "rows"}, {idxNPY, "index"}, {rowNPY, "rows"}} {
		if code, _, stderr := runCLI(t, "eval", "-emb", c.file, "-split", split, "-score", "dot"); code != 2 || !strings.Contains(stderr, "-emb-ids index") || !strings.Contains(stderr, "-emb-ids rows") {
			t.Errorf("%s with -emb-ids auto: exit %d, %s", c.ids, code, stderr)
		}
		rep := filepath.Join(dir, filepath.Base(c.file)+".json")
		if code, _, stderr := runCLI(t, "eval", "-emb", c.file, "-split", split, "-score", "dot", "-emb-ids", c.ids, "-report", rep); code != 0 {
			t.Fatalf("-emb-ids %s: %s", c.ids, stderr)
		}
		var got struct {
			LinkPrediction linkResult `json:"link_prediction"`
		}
		readJSON(t, rep, &got)
		if math.Abs(*got.LinkPrediction.TestAUC-*w.TestAUC) > 1e-6 {
			t.Errorf("%s, -emb-ids %s: test AUC %v, scikit-learn's %v", c.file, c.ids, *got.LinkPrediction.TestAUC, *w.TestAUC)
		}
	}
}

// bareNPY writes lines of "id x1 x2 …", ids 0..len(lines)−1 in any
// order, as a float64 .npy whose row i is id i's vector, without an ids
// file.
func bareNPY(t *testing.T, path string, lines []string) {
	t.Helper()
	var y *mat.Dense
	for _, ln := range lines {
		f := strings.Fields(ln)
		i, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatal(err)
		}
		if y == nil {
			y = mat.NewDense(len(lines), len(f)-1, nil)
		}
		for j, x := range f[1:] {
			v, err := strconv.ParseFloat(x, 64)
			if err != nil {
				t.Fatal(err)
			}
			y.Set(i, j, v)
		}
	}
	var buf bytes.Buffer
	if err := npyio.Write(&buf, y); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEvalUnlabelledWithoutVectors: nodes a -labels file marks -1 (no
// label) are in no split, so they need no vector: eval scores without
// them as -missing zero does, and says so. A labelled node without a
// vector on the last line is still refused, with no -header hint (that
// is for the first line).
func TestEvalUnlabelledWithoutVectors(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "evalcheck", "gensim.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, ln := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		id, _, _ := strings.Cut(ln, " ")
		ids = append(ids, id)
	}
	tmp := t.TempDir()
	var lab strings.Builder
	for i, id := range ids {
		fmt.Fprintf(&lab, "%s %d\n", id, i%3)
	}
	for i := range 5 {
		fmt.Fprintf(&lab, "ghost%d -1\n", i)
	}
	labels := filepath.Join(tmp, "labels.txt")
	os.WriteFile(labels, []byte(lab.String()), 0o644)
	emb := filepath.Join("testdata", "evalcheck", "gensim.txt")
	var micro [2][]float64
	for i, extra := range [][]string{nil, {"-missing", "zero"}} {
		rep := filepath.Join(tmp, fmt.Sprint(i, ".json"))
		args := append([]string{"eval", "-emb", emb, "-labels", labels, "-ratios", "0.5", "-repeats", "2", "-report", rep}, extra...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, %s", extra, code, stderr)
		}
		if i == 0 && !strings.Contains(stdout, "5 of the 5 nodes of "+labels+" without a vector have no label either: not scored") {
			t.Errorf("no note of the unlabelled nodes:\n%s", stdout)
		}
		var got struct {
			MultiLabel struct{ Ratios []struct{ Micro []float64 } } `json:"multilabel"`
		}
		readJSON(t, rep, &got)
		micro[i] = got.MultiLabel.Ratios[0].Micro
	}
	if len(micro[0]) != 2 || !slices.Equal(micro[0], micro[1]) {
		t.Errorf("Micro-F1 %v, with -missing zero %v", micro[0], micro[1])
	}
	lab.WriteString("ghost9 1\n")
	os.WriteFile(labels, []byte(lab.String()), 0o644)
	code, _, stderr := runCLI(t, "eval", "-emb", emb, "-labels", labels, "-ratios", "0.5")
	if code == 0 || !strings.Contains(stderr, `1 of the 66 nodes`) || strings.Contains(stderr, "-header") {
		t.Errorf("a labelled node without a vector on the last line: exit %d, %s", code, stderr)
	}
}

// TestParseRatiosTwice: a share listed twice would score the same splits
// twice and understate their spread; it is refused.
func TestParseRatiosTwice(t *testing.T) {
	if r, err := parseRatios("0.5,0.1,0.5"); err == nil || !strings.Contains(err.Error(), "0.5 is listed twice") {
		t.Errorf("0.5,0.1,0.5: %v, %v", r, err)
	}
	if r, err := parseRatios("0.1,0.5"); err != nil || !slices.Equal(r, []float64{0.1, 0.5}) {
		t.Errorf("0.1,0.5: %v, %v", r, err)
	}
}

// TestEvalFeaturesSingleTable: a single table's rows are its features:
// -features Y+norm scores unit rows (as -features L+norm scores the
// rows of a file holding them already normalised), and a variant that
// picks sides of [L | R] is refused rather than ignored.
func TestEvalFeaturesSingleTable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "evalcheck", "gensim.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	unit := []string{lines[0]}
	var lab strings.Builder
	for i, ln := range lines[1:] {
		f := strings.Fields(ln)
		var norm float64
		for _, x := range f[1:] {
			v, _ := strconv.ParseFloat(x, 64)
			norm += v * v
		}
		row := []string{f[0]}
		for _, x := range f[1:] {
			v, _ := strconv.ParseFloat(x, 64)
			row = append(row, strconv.FormatFloat(v/math.Sqrt(norm), 'g', -1, 32))
		}
		unit = append(unit, strings.Join(row, " "))
		fmt.Fprintf(&lab, "%s %d\n", f[0], i%3)
	}
	emb, unitEmb, labels := filepath.Join("testdata", "evalcheck", "gensim.txt"), filepath.Join(tmp, "unit.txt"), filepath.Join(tmp, "labels.txt")
	os.WriteFile(unitEmb, []byte(strings.Join(unit, "\n")+"\n"), 0o644)
	os.WriteFile(labels, []byte(lab.String()), 0o644)
	micro := func(file string, extra ...string) []float64 {
		rep := filepath.Join(tmp, "r.json")
		args := append([]string{"eval", "-emb", file, "-labels", labels, "-ratios", "0.5", "-repeats", "3", "-report", rep}, extra...)
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d, %s", args, code, stderr)
		}
		var got struct {
			MultiLabel struct{ Ratios []struct{ Micro []float64 } } `json:"multilabel"`
		}
		readJSON(t, rep, &got)
		return got.MultiLabel.Ratios[0].Micro
	}
	if a, b := micro(emb, "-features", "Y+norm"), micro(unitEmb); !slices.Equal(a, b) {
		t.Errorf("-features Y+norm: Micro-F1 %v, the unit rows' %v", a, b)
	}
	for _, v := range []string{"LR", "R+norm", "L+R"} {
		code, _, stderr := runCLI(t, "eval", "-emb", emb, "-labels", labels, "-features", v)
		if code != 2 || !strings.Contains(stderr, "-features "+v+" picks sides of [L | R] embeddings") {
			t.Errorf("-features %s on a single table: exit %d, %s", v, code, stderr)
		}
	}
}

// TestEvalShiftedIDs: a file whose ids are the graph's plus one (numbered
// from 1 for a graph numbered from 0), read by its ids, would score each
// node with another's vector: the error names the shift, and -missing
// zero (the same ids fit a file that lacks node 0) notes it; a file that
// lacks other nodes gets the -missing zero hint alone.
func TestEvalShiftedIDs(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	split := filepath.Join(tmp, "split")
	writeSplit(t, split, false)
	emb := filepath.Join(tmp, "emb.txt")
	if code, _, stderr := runCLI(t, "-split", split, "-epochs", "1", "-dim", "4", "-out", emb, "-progress", "none"); code != 0 {
		t.Fatal(stderr)
	}
	b, err := os.ReadFile(emb)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	shifted, fewer := []string{lines[0]}, []string{}
	for _, line := range lines[1:] {
		id, rest, _ := strings.Cut(line, " ")
		v, err := strconv.Atoi(id)
		if err != nil {
			t.Fatalf("id %q in %s is not an integer", id, emb)
		}
		shifted = append(shifted, strconv.Itoa(v+1)+" "+rest)
		if v >= 2 {
			fewer = append(fewer, line)
		}
	}
	head := strings.Fields(lines[0])
	fewer = append([]string{strconv.Itoa(len(fewer)) + " " + head[1]}, fewer...)
	write := func(name string, lines []string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	shiftedPath, fewerPath := write("shifted.txt", shifted), write("fewer.txt", fewer)
	const hint = "every node has a vector under its id + 1, as a file numbered from 1 for a graph numbered from 0 has: if " // … renumber its ids
	code, _, stderr := runCLI(t, "eval", "-emb", shiftedPath, "-split", split)
	if code != 1 || !strings.Contains(stderr, hint) || !strings.Contains(stderr, "renumber its ids (id − 1)") {
		t.Errorf("ids plus one: exit %d, %q; want them refused with the shift named", code, stderr)
	}
	// A file that lacks node 0 looks the same: -missing zero still
	// scores it, and says what the ids may be.
	code, stdout, stderr := runCLI(t, "eval", "-emb", shiftedPath, "-split", split, "-missing", "zero")
	if code != 0 || !strings.Contains(stdout, "note: "+hint) {
		t.Errorf("ids plus one, -missing zero: exit %d, %q, %q; want a note", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, "eval", "-emb", fewerPath, "-split", split)
	if code != 1 || !strings.Contains(stderr, "2 of the ") || !strings.Contains(stderr, "or give -missing zero") || strings.Contains(stderr, "under its id") {
		t.Errorf("two nodes without vectors: exit %d, %q; want the -missing zero hint", code, stderr)
	}
	// Ids that name no node ("n0" for 0): no -missing zero hint, and
	// -missing zero refuses to score every node as a zero vector.
	named := []string{lines[0]}
	for _, line := range lines[1:] {
		named = append(named, "n"+line)
	}
	namedPath := write("named.txt", named)
	code, _, stderr = runCLI(t, "eval", "-emb", namedPath, "-split", split)
	if code != 1 || !strings.Contains(stderr, `none of its ids (e.g. "n`) || strings.Contains(stderr, "-missing zero") {
		t.Errorf("no id names a node: exit %d, %q; want refused without the -missing zero hint", code, stderr)
	}
	code, _, stderr = runCLI(t, "eval", "-emb", namedPath, "-split", split, "-missing", "zero")
	if code != 1 || !strings.Contains(stderr, "-missing zero would score every node as a zero vector") {
		t.Errorf("no id names a node, -missing zero: exit %d, %q; want refused", code, stderr)
	}
}

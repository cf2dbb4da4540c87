package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wys-project/wys/internal/outcheck"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/eval"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/knn"
)

// Pair scores of wys-sparse eval.
const (
	scoreLR     = "lr"     // L_u·R_v, for [L | R] embeddings
	scoreDot    = "dot"    // Y_u·Y_v
	scoreCosine = "cosine" // Y_u·Y_v / (|Y_u| |Y_v|)
	scoreSym    = "sym"    // L_u·R_v + L_v·R_u, for [L | R] embeddings of undirected graphs
)

const evalUsage = `wys-sparse eval scores an existing embedding file, written by wys-sparse
or by another tool (gensim, node2vec, ProNE…), with the code training uses.

Usage:
  wys-sparse eval -emb emb.npy -split DIR        link prediction (AUC, AP, Hits)
  wys-sparse eval -emb emb.txt -planetoid PREFIX node classification
  wys-sparse eval -emb emb.txt -mat PPI.mat.gz   multi-label Micro/Macro-F1
  wys-sparse eval -emb emb.txt -labels FILE      the same on "node label" lines
  wys-sparse eval -emb emb.npy -graph edges.txt  graph reconstruction

Ids in the file are matched to the split's or graph's ids by name.

Flags:
`

// evalFlags is what one eval run does.
type evalFlags struct {
	emb embFlags
	// firstLabelNode is the node of -labels' first data line.
	firstLabelNode   string
	split, planetoid string
	directed, header bool
	// node2vec's edge classifier and the ranking measures on -split.
	edgeOps, mrr string
	// Graph reconstruction.
	graph, precisionK   string
	ids                 string
	rows                int
	score, missing, rep string
	embIDs              string
	quiet               bool
	started             time.Time
	embSHA256           string // of -emb's bytes as read, for the report
	// Multi-label classification.
	mat, labels      string
	features, ratios string
	repeats, workers int
	seed             uint64
	logregC          float64
	cluster          bool
	fs               *flag.FlagSet
}

var evalCommand = &subcommand{name: "eval", usage: evalUsage, flags: func(fs *flag.FlagSet) func(context.Context, io.Writer, io.Writer) error {
	c := &evalFlags{fs: fs}
	c.emb.bind(fs)
	fs.StringVar(&c.split, "split", "", "split `DIR` (as wys-sparse -split reads) for link prediction")
	fs.StringVar(&c.edgeOps, "edge-ops", "", "-split: also node2vec's protocol: a logistic regression on op(x_u, x_v) of the train pairs scores the test pairs, for each `OPS` (comma-separated: average, hadamard, l1, l2, or all); x: the rows of the file (-features for [L | R] files); at most 100,000 train edges and as many non-edges, drawn with -seed; AUC on stdout, average precision too in -report")
	fs.StringVar(&c.mrr, "mrr", "", "-split: also rank each test edge's tail against `K` random nodes and its head against K others, drawn with replacement from the nodes other than the edge's two (all: every such node, each once), unfiltered as PyTorch-BigGraph does: MRR, Hits@1/10/50 and mean rank")
	fs.BoolVar(&c.directed, "directed", false, "the split's pairs are arcs (as wys-sparse -split -directed); -graph: its edges are arcs (default: each edge both ways)")
	fs.StringVar(&c.graph, "graph", "", "graph reconstruction: rank every other node for each node of the edge list or .mat `FILE` (as wys-sparse -graph reads it) and score how its arcs come first: MAP and precision@k")
	fs.StringVar(&c.ids, "ids", "auto", "-graph: node ids of FILE: auto, int or token (as wys-sparse -graph reads them)")
	fs.BoolVar(&c.header, "header", false, "-graph and -labels: skip the first line of FILE that is not blank or a comment (column names)")
	fs.IntVar(&c.rows, "rows", 0, "-graph: nodes whose rankings are scored (0: every node up to 10,000 nodes, a sample of 2,048 above; the sample is drawn with -seed)")
	fs.StringVar(&c.precisionK, "k", "10,100,1000,10000", "-graph: the k of precision@k (the share of arcs among the k best-scored pairs of all ranked rows), comma-separated")
	fs.StringVar(&c.planetoid, "planetoid", "", "node classification on `PREFIX`.edges.tsv, PREFIX.labels.tsv and PREFIX.split.tsv (plain or .gz): the paper's smooth-kNN rule, and a one-vs-rest logistic regression on the features (-features) of the train nodes")
	fs.StringVar(&c.mat, "mat", "", "multi-label classification (DeepWalk/node2vec protocol) on the `FILE`.mat[.gz] with variables network and group (BlogCatalog, PPI, POS); rows are node ids 0..N-1")
	fs.StringVar(&c.labels, "labels", "", "multi-label classification (the protocol of -mat) on the node labels of `FILE`: lines \"node label [label …]\" (split at tabs, else commas, else spaces, so that names may hold spaces in TSV or CSV; a node on several lines has each of their labels; -1, -1.0 or NaN: no label), as BlogCatalog's group-edges.csv or a node<TAB>class file; single-label files score Micro-F1 = accuracy")
	fs.StringVar(&c.features, "features", eval.DefaultFeatures, "-mat, -labels, -planetoid and -edge-ops features of an [L | R] file: LR, L, R or L+R, each optionally +norm (unit rows); a single table uses its rows (Y, or Y+norm for unit rows), and a file whose halves are equal in every row (a ProNE or eigenmaps baseline) L unless this is given")
	fs.StringVar(&c.ratios, "ratios", "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9", "-mat and -labels: training shares of the labelled nodes, comma-separated, or none: no classification (with -cluster: clustering only)")
	fs.IntVar(&c.repeats, "repeats", 10, "-mat and -labels: random splits per training share")
	fs.BoolVar(&c.cluster, "cluster", false, "-mat and -labels: also cluster the nodes that have exactly one label by k-means on their features (-features; k: the number of their labels, the best of 10 k-means++ seedings from -seed) and score the clusters against the labels: NMI, ARI and accuracy")
	fs.Uint64Var(&c.seed, "seed", 1, "-mat and -labels: seed of the random splits (a share's splits depend on the seed and the share only: -ratios 0.5 scores the 50% splits of the whole protocol); -graph: seed of the sampled rows; -mrr: of the candidates; -edge-ops: of the train pairs kept above 100,000")
	fs.Float64Var(&c.logregC, "logreg-c", 1, "-mat, -labels, -planetoid and -edge-ops: inverse regularisation strength `C` of the logistic regression (scikit-learn's C; 1, its default, is what the DeepWalk, node2vec and NetMF scoring scripts use); the intercept is not penalised, as in scikit-learn's lbfgs solver (those scripts ran liblinear, which penalises it: up to 0.005 of Micro-F1 apart on PPI)")
	fs.IntVar(&c.workers, "workers", 0, "-mat, -labels, -planetoid, -graph and -mrr goroutines (0: all cores); the result does not depend on it")
	fs.StringVar(&c.score, "score", "", "`SCORE` of a pair for link prediction: lr (L_u·R_v, [L | R] files, the paper's), sym (L_u·R_v + L_v·R_u, [L | R] files of undirected graphs: both arcs of the pair), dot (Y_u·Y_v) or cosine (default: lr for [L | R], dot for a single table)")
	fs.StringVar(&c.embIDs, "emb-ids", "auto", "-split: what the ids of the embedding file name: index (the split's index.tsv ids, the graph's own, as wys-sparse and a tool run on the original edge list write them), rows (the rows of the split's .npy arrays, as a tool run on train.txt.npy writes them), or auto: index (rows for a bare .npy), and refused when the file's ids are 0..N-1 (a bare .npy: its rows cover the index's ids) and the index renumbers them, so that either reading fits")
	fs.StringVar(&c.missing, "missing", "error", "`MODE` for nodes without a vector: error, or zero (score them as zero vectors)")
	fs.StringVar(&c.rep, "report", "", "write the numbers as JSON to `FILE`")
	fs.BoolVar(&c.quiet, "quiet", false, "print only errors (the results go to -report FILE, which it needs)")
	return c.run
}}

// evalReport is the JSON report of wys-sparse eval.
type evalReport struct {
	Tool           string                     `json:"tool"`
	Started        string                     `json:"started"`
	Inputs         []inputFile                `json:"inputs"`
	Embeddings     embInfo                    `json:"embeddings"`
	LinkPrediction *linkResult                `json:"link_prediction,omitempty"`
	Classify       *eval.ClassifyResult       `json:"classification,omitempty"`
	ClassifyLogReg *eval.LogRegClassifyResult `json:"classification_logreg,omitempty"`
	MultiLabel     *eval.MultiLabelResult     `json:"multilabel,omitempty"`
	Cluster        *eval.ClusterResult        `json:"clustering,omitempty"`
	Reconstruction *reconResult               `json:"reconstruction,omitempty"`
	Seconds        float64                    `json:"seconds"`
	Args           []string                   `json:"args"` // the flags given, as -name=value in name order
	Version        string                     `json:"version"`
	Go             string                     `json:"go"`
}

type embInfo struct {
	Path   string `json:"path"`
	Rows   int    `json:"rows"`
	Dim    int    `json:"dim"`
	Layout string `json:"layout"`
}

type linkResult struct {
	Split           string   `json:"split"`
	Score           string   `json:"score"`
	Nodes           int      `json:"nodes"`
	MissingNodes    int      `json:"missing_nodes"`
	TrainAUC        *float64 `json:"train_auc"`
	TestAUC         *float64 `json:"test_auc"`
	TestDirectedAUC *float64 `json:"test_directed_auc,omitempty"`
	rankMetrics
	Ranking        *eval.RankResult             `json:"ranking,omitempty"`
	EdgeClassifier []*eval.EdgeClassifierResult `json:"edge_classifier,omitempty"`
}

// check refuses bad flags before any file is read.
func (c *evalFlags) check() error {
	if err := c.emb.check(); err != nil {
		return err
	}
	if c.split == "" && c.planetoid == "" && c.mat == "" && c.labels == "" && c.graph == "" {
		return usagef("nothing to evaluate: give -split DIR (link prediction), -planetoid PREFIX (node classification), -mat FILE or -labels FILE (multi-label classification) or -graph FILE (graph reconstruction)")
	}
	if c.mat != "" && c.labels != "" {
		return usagef("-mat and -labels each give the labels of one run of multi-label classification; give one of them")
	}
	if ignored := c.ignoredFlag(); ignored != "" {
		return usagef("%s", ignored)
	}
	if c.rows < 0 {
		return usagef("-rows %d: want 0 (the default) or more", c.rows)
	}
	if _, err := parseK(c.precisionK); err != nil {
		return err
	}
	if _, err := parseEdgeOps(c.edgeOps); err != nil {
		return err
	}
	if c.edgeOps != "" && c.split == "" {
		return usagef("-edge-ops scores the pairs of a split; give -split DIR")
	}
	if _, err := parseMRR(c.mrr); err != nil {
		return err
	}
	if c.mrr != "" && c.split == "" {
		return usagef("-mrr ranks the test edges of a split; give -split DIR")
	}
	if c.cluster && c.mat == "" && c.labels == "" {
		return usagef("-cluster scores clusters against node labels; give -labels FILE or -mat FILE")
	}
	if c.repeats < 1 {
		return usagef("-repeats %d: want at least 1", c.repeats)
	}
	if c.workers < 0 {
		return usagef("-workers %d: want 0 (all cores) or more", c.workers)
	}
	if !(c.logregC > 0) || math.IsInf(c.logregC, 1) {
		return usagef("-logreg-c %v: want a positive, finite C", c.logregC)
	}
	if ratios, err := parseRatios(c.ratios); err != nil {
		return err
	} else if ratios == nil && !c.cluster {
		return usagef("-ratios none leaves -mat and -labels nothing to score; add -cluster, or give training shares such as 0.1,0.5,0.9")
	}
	if c.directed && c.split == "" && c.graph == "" {
		return usagef("-directed says how to read -split or -graph; give -split DIR or -graph FILE")
	}
	if ok, want := oneOf(c.score, scoreLR, scoreSym, scoreDot, scoreCosine); !ok && c.score != "" {
		return usagef("-score %q: want %s", c.score, want)
	}
	if c.score == scoreSym && c.directed {
		return usagef("-score sym scores u→v and v→u alike, so it cannot tell an arc from its reverse; with -directed use -score lr")
	}
	if !validIDMode(c.ids) {
		return usagef("-ids %q: want auto, int or token", c.ids)
	}
	if ok, want := oneOf(c.embIDs, "auto", "index", "rows"); !ok {
		return usagef("-emb-ids %q: want %s", c.embIDs, want)
	}
	if ok, want := oneOf(c.missing, "error", "zero"); !ok {
		return usagef("-missing %q: want %s", c.missing, want)
	}
	if err := checkOutputPath(c.rep); err != nil {
		return err
	}
	if c.quiet && c.rep == "" {
		return usagef("-quiet prints only errors, so without -report FILE the results would go nowhere: add -report FILE, or drop -quiet")
	}
	return usage(outcheck.Collisions(c.inputs(), []outcheck.File{{Flag: "-report", Path: c.rep}}))
}

// inputs returns the files eval reads: the embeddings with their ids and
// marker, the split's files, -graph, -mat, -labels and -planetoid's three.
func (c *evalFlags) inputs() []outcheck.File {
	in := append(outcheck.EmbeddingInputs("-emb", c.emb.path), outcheck.SplitFiles("-split", c.split)...)
	in = append(in, outcheck.File{Flag: "-graph", Path: c.graph}, outcheck.File{Flag: "-mat", Path: c.mat}, outcheck.File{Flag: "-labels", Path: c.labels})
	if c.planetoid != "" {
		for _, p := range graphio.PlanetoidFiles(c.planetoid) {
			in = append(in, outcheck.File{Flag: "-planetoid", Path: p})
		}
	}
	return in
}

// ignoredFlag returns the usage error for the first flag given that no
// asked-for evaluation reads, or "".
func (c *evalFlags) ignoredFlag() string {
	multi := c.mat != "" || c.labels != ""
	var ignored string
	c.fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "features", "logreg-c":
			if !multi && c.edgeOps == "" && c.planetoid == "" && ignored == "" {
				ignored = fmt.Sprintf("-%s is a setting of the logistic regressions of -mat, -labels, -planetoid and -edge-ops; give -mat FILE, -labels FILE, -planetoid PREFIX or -edge-ops OPS", f.Name)
			}
			if f.Name == "logreg-c" && strings.TrimSpace(c.ratios) == "none" && c.edgeOps == "" && c.planetoid == "" && ignored == "" {
				ignored = "-logreg-c is a setting of the logistic regressions, and -ratios none turns off the only one this run has"
			}
		case "ratios", "repeats":
			if !multi && ignored == "" {
				ignored = fmt.Sprintf("-%s is a setting of multi-label classification; give -mat FILE or -labels FILE", f.Name)
			}
			if f.Name == "repeats" && strings.TrimSpace(c.ratios) == "none" && ignored == "" {
				ignored = "-repeats is a setting of multi-label classification, which -ratios none turns off"
			}
		case "score":
			if c.split == "" && c.graph == "" && c.planetoid == "" && ignored == "" {
				ignored = "-score is the pair score of link prediction, graph reconstruction and -planetoid's kNN rule; multi-label classification reads the features (-features)"
			}
		case "header":
			if c.graph == "" && c.labels == "" && ignored == "" {
				ignored = "-header is a setting of graph reconstruction and -labels; give -graph FILE or -labels FILE"
			}
		case "emb-ids":
			if c.split == "" && ignored == "" {
				ignored = "-emb-ids says how the embedding file's ids name the nodes of -split; give -split DIR"
			}
		case "rows", "k", "ids":
			if c.graph == "" && ignored == "" {
				ignored = fmt.Sprintf("-%s is a setting of graph reconstruction; give -graph FILE", f.Name)
			}
		case "seed":
			if !multi && c.graph == "" && c.edgeOps == "" && c.mrr == "" && ignored == "" {
				ignored = "-seed is a setting of multi-label classification, graph reconstruction, -edge-ops and -mrr; give -mat FILE, -labels FILE, -graph FILE, -edge-ops OPS or -mrr K"
			}
		case "workers":
			if !multi && c.graph == "" && c.planetoid == "" && c.mrr == "" && ignored == "" {
				ignored = "-workers is a setting of multi-label classification, -planetoid's logistic regression, graph reconstruction and -mrr; give -mat FILE, -labels FILE, -planetoid PREFIX, -graph FILE or -mrr K"
			}
		}
	})
	return ignored
}

func (c *evalFlags) run(ctx context.Context, stdout, stderr io.Writer) error {
	c.started = time.Now()
	if err := c.check(); err != nil {
		return err
	}
	if c.quiet {
		stdout = io.Discard
	}
	emb, err := c.emb.read(ctx, stdout)
	if err != nil {
		return err
	}
	c.embSHA256 = emb.SHA256
	switch {
	case c.score != "" && emb.Halves && c.planetoid != "" && c.split == "" && c.graph == "":
		return usagef("-score does not apply to -planetoid on [L | R] embeddings: the kNN rule picks its pair score (L_v·R_u, the symmetrised score or Y_v·Y_u) on the validation nodes; -score dot or cosine is for single tables")
	case c.score == "" && emb.Halves:
		c.score = scoreLR
	case c.score == "":
		c.score = scoreDot
	case (c.score == scoreLR || c.score == scoreSym) && !emb.Halves:
		return usagef("-score %s needs [L | R] embeddings, and %s holds a single table: use -score dot or cosine, or -layout halves for a wys file without its marker", c.score, c.emb.path)
	}
	layout := graphio.LayoutSingle
	if emb.Halves {
		layout = graphio.LayoutHalves
	}
	c.sameHalvesFeatures(stdout, emb)
	rep := &evalReport{Tool: "wys-sparse eval", Started: c.started.UTC().Format(time.RFC3339),
		Embeddings: embInfo{Path: c.emb.path, Rows: emb.N(), Dim: emb.Dim, Layout: layout}}
	if c.split != "" {
		if err := c.linkPrediction(ctx, stdout, emb, rep); err != nil {
			return err
		}
	}
	if c.planetoid != "" {
		if err := c.classification(ctx, stdout, emb, rep); err != nil {
			return err
		}
	}
	if c.mat != "" || c.labels != "" {
		if err := c.multiLabel(ctx, stdout, emb, rep); err != nil {
			return err
		}
	}
	if c.graph != "" {
		if err := c.reconstruction(ctx, stdout, emb, rep); err != nil {
			return err
		}
	}
	return c.writeReport(stdout, rep)
}

// align returns the embeddings in the rows of ids, refusing missing nodes
// unless -missing zero, and for -mat vectors of ids outside its network
// (another graph's). Nodes that unused reports (nil: none) are not
// scored, so they may miss their vector: their rows are zero.
func (c *evalFlags) align(stdout io.Writer, emb *graphio.Embeddings, ids *pipeline.NodeIDs, n int, what string, unused func(int) bool) ([]float32, int, error) {
	y, missing := emb.Align(ids, n)
	if extra := emb.N() - (n - len(missing)); extra > 0 && what == c.mat && (len(missing) == 0 || shiftedByOne(emb.IDs, ids, n) == 0) {
		// A .mat network's nodes are 0..n−1, all of them: a vector of
		// another id is one of another graph's (ids numbered from 1 get
		// the shift named below instead).
		return nil, 0, fmt.Errorf("%d of the %d vectors in %s name no node of %s (e.g. id %q; its network has %d nodes, 0..%d): these are embeddings of another graph; evaluate embeddings of the same graph", extra, emb.N(), c.emb.path, what, firstStranger(emb, ids, n), n, n-1)
	} else if extra > 0 {
		fmt.Fprintf(stdout, "%d of the %d vectors in %s name no node of %s: left out\n", extra, emb.N(), c.emb.path, what)
	}
	if unused != nil {
		all := len(missing)
		missing = slices.DeleteFunc(missing, unused)
		if skipped := all - len(missing); skipped > 0 {
			fmt.Fprintf(stdout, "%d of the %d nodes of %s without a vector have no label either: not scored\n", skipped, all, what)
		}
	}
	if len(missing) == 0 {
		return y, 0, nil
	}
	name := fmt.Sprint(missing[0])
	if ids != nil {
		name = ids.Name(missing[0])
	}
	// A file numbered from 1 for a graph numbered from 0 (or the reverse)
	// looks the same as one that lacks the lowest node: say both.
	shifted := ""
	if shift := shiftedByOne(emb.IDs, ids, n); shift != 0 {
		shifted = fmt.Sprintf("every node has a vector under its id %s 1, as a file numbered from %d for a graph numbered from %d has: if %s is, renumber its ids (id %s 1), or each node is scored with another's vector", map[bool]string{true: "+", false: "−"}[shift > 0], max(shift, 0), max(-shift, 0), c.emb.path, map[bool]string{true: "−", false: "+"}[shift > 0])
	}
	if c.missing != "zero" {
		fix := "evaluate embeddings of the same graph"
		if len(missing) == n && emb.IDs != nil && emb.N() > 0 {
			fix = fmt.Sprintf("none of its ids (e.g. %q) names a node of %s; evaluate embeddings of the same graph", emb.IDs.Name(0), what)
		}
		switch {
		case emb.ByRow:
			fix = fmt.Sprintf("%s has no %s, so its row i is node id i (rows 0..%d); write the ids beside it, one per row", c.emb.path, filepath.Base(graphio.IDsPath(c.emb.path)), emb.N()-1)
		case what == c.split && rowsNotIDs(rowNumbers(emb.IDs, n), n, len(missing)):
			return nil, 0, usagef("%d of the %d nodes of %s have no vector in %s (e.g. id %q): the ids of %s are all among 0..%d, the split's row numbers (its .npy edge arrays hold those), not the ids of its index.tsv: give -emb-ids rows", len(missing), n, what, c.emb.path, name, c.emb.path, n-1)
		case what == c.labels && !c.header && len(missing) == 1 && name == c.firstLabelNode:
			fix = fmt.Sprintf("if %q is a column name on line 1 of %s, skip that line (-header); else evaluate embeddings of the same graph", name, c.labels)
		case integralFloatIDs(emb.IDs):
			return nil, 0, fmt.Errorf("%d of the %d nodes of %s have no vector in %s (e.g. id %q): the ids of %s are whole numbers written with a fraction (e.g. %q, as pandas writes a float column): write them as integers (pandas: df.index = df.index.astype(int))", len(missing), n, what, c.emb.path, name, c.emb.path, emb.IDs.Name(0))
		case fractionIDs(emb.IDs):
			fix = fmt.Sprintf("the ids of %s are numbers with a fraction (e.g. %q), so its first column is likely a coordinate: write each row's node id first (pandas: to_csv with the ids as the index)", c.emb.path, emb.IDs.Name(0))
		}
		if shifted != "" {
			fix = shifted + "; else " + fix
		}
		orZero := ", or give -missing zero to score them as zero vectors"
		if len(missing) == n {
			orZero = "" // every node a zero vector: no score at all
		}
		return nil, 0, fmt.Errorf("%d of the %d nodes of %s have no vector in %s (e.g. id %q): %s%s", len(missing), n, what, c.emb.path, name, fix, orZero)
	}
	if len(missing) == n {
		return nil, 0, fmt.Errorf("none of the %d nodes of %s has a vector in %s (e.g. id %q): -missing zero would score every node as a zero vector, a meaningless score; evaluate embeddings of the same graph, whose ids name its nodes", n, what, c.emb.path, name)
	}
	fmt.Fprintf(stdout, "%d of the %d nodes of %s have no vector (e.g. id %q): scored as zero vectors (-missing zero)\n", len(missing), n, what, name)
	if shifted != "" {
		fmt.Fprintf(stdout, "note: %s\n", shifted)
	}
	return y, len(missing), nil
}

// firstStranger returns the first id of emb that names none of the n
// nodes of ids (nil: "0".."n−1"), or "" when each names one.
func firstStranger(emb *graphio.Embeddings, ids *pipeline.NodeIDs, n int) string {
	if ids == nil {
		ids = pipeline.IdentityIDs(n)
	}
	for r := range emb.N() {
		if _, ok := ids.Row(emb.IDs.Name(r)); !ok {
			return emb.IDs.Name(r)
		}
	}
	return ""
}

// shiftedByOne returns +1 when each of the n nodes named by ids (nil:
// "0".."n−1") is an integer v with a vector under id v+1 in the file
// whose ids are embIDs (a file numbered from 1 for a graph numbered from
// 0), −1 when under v−1, else 0. align asks when some node has no vector
// under its own id: read by their ids, such a file's vectors would score
// each node as its neighbour in the numbering, without a sign.
func shiftedByOne(embIDs, ids *pipeline.NodeIDs, n int) int {
	if embIDs == nil {
		return 0
	}
	name := func(i int) string {
		if ids == nil {
			return strconv.Itoa(i)
		}
		return ids.Name(i)
	}
	for _, shift := range []int{1, -1} {
		all := n > 0
		for i := 0; i < n && all; i++ {
			v, err := strconv.Atoi(name(i))
			if err == nil && strconv.Itoa(v) == name(i) {
				_, all = embIDs.Row(strconv.Itoa(v + shift))
			} else {
				all = false
			}
		}
		if all {
			return shift
		}
	}
	return 0
}

// splitIDs returns the ids to match the rows of emb to the nodes of the
// split s by (-emb-ids): its index's, or nil for its rows. With -emb-ids
// auto, a file not written by wys-sparse whose ids are all among 0..N−1
// is refused when the index renumbers the nodes 0..N−1 (ego-Facebook's
// sorts them as text): either reading then names every node, and the
// wrong one scores far lower without a sign. A bare .npy (row i is "i")
// is refused likewise when every id of the index is one of its rows and
// some id is not its own row; otherwise it is read by the split's rows.
func (c *evalFlags) splitIDs(emb *graphio.Embeddings, s *pipeline.Split) (*pipeline.NodeIDs, error) {
	switch {
	case c.embIDs == "rows" || s.IDs == nil:
		return nil, nil
	case c.embIDs == "index" || emb.Marked:
		return s.IDs, nil
	case emb.ByRow:
		if rowNumbers(s.IDs, emb.N()) == 0 {
			return nil, nil // some id of the index is not a row of the file
		}
	case rowNumbers(emb.IDs, s.N) == 0:
		return s.IDs, nil
	case rowNumbers(s.IDs, s.N) != s.N:
		return s.IDs, nil // the index names nodes other than by 0..N−1
	}
	moved := -1
	for i := range s.N {
		if s.IDs.Name(i) != strconv.Itoa(i) {
			moved = i
			break
		}
	}
	if moved < 0 {
		return s.IDs, nil // the index keeps the rows: both readings agree
	}
	ids := fmt.Sprintf("the ids of %s are all among 0..%d", c.emb.path, s.N-1)
	if emb.ByRow {
		ids = fmt.Sprintf("%s has no %s, so its rows 0..%d are read as ids", c.emb.path, filepath.Base(graphio.IDsPath(c.emb.path)), emb.N()-1)
	}
	return nil, usagef("%s, which are both the ids of %s's index.tsv and the split's row numbers, and the two differ (id %q is row %d): give -emb-ids index if they are the graph's own ids (a tool run on the original edge list), or -emb-ids rows if they are the rows of the split's .npy arrays (a tool run on train.txt.npy)",
		ids, c.split, s.IDs.Name(moved), moved)
}

// integralFloatIDs reports whether every id is a whole number written
// with a fraction ("1.0", "23.00"), as pandas writes integer ids that
// passed through a float column.
func integralFloatIDs(ids *pipeline.NodeIDs) bool {
	for i := range ids.Len() {
		whole, frac, ok := strings.Cut(ids.Name(i), ".")
		if _, err := strconv.Atoi(whole); err != nil || !ok || frac == "" || strings.Trim(frac, "0") != "" {
			return false
		}
	}
	return ids.Len() > 0
}

// fractionIDs reports whether every id is a number written with a
// fraction or an exponent ("0.0123", "-1e-05"): a file without an id
// column, whose first coordinate was read as the id.
func fractionIDs(ids *pipeline.NodeIDs) bool {
	for i := range ids.Len() {
		s := ids.Name(i)
		if _, err := strconv.ParseFloat(s, 64); err != nil || !strings.ContainsAny(s, ".eE") {
			return false
		}
	}
	return ids.Len() > 0
}

// rowsNotIDs reports whether a table whose ids, read as row numbers,
// name rows of the n rows, and as ids leave missing of them without a
// vector, is likely a table of the split's rows: as rows it covers all n,
// or as ids it names none. A table of another graph whose small ids
// happen to be row numbers (and match some ids) is neither.
func rowsNotIDs(rows, n, missing int) bool {
	return rows > 0 && (rows == n || missing == n)
}

// rowNumbers returns how many of the rows 0..n−1 the ids name when each
// is a row number written as such, or 0 when one id is not: n for a
// table of the split's rows in any order, which its index.tsv's ids do
// not name; fewer for a table of some other graph.
func rowNumbers(ids *pipeline.NodeIDs, n int) int {
	seen := make([]bool, n)
	rows := 0
	for i := range ids.Len() {
		r, err := strconv.Atoi(ids.Name(i))
		if err != nil || r < 0 || r >= n || strconv.Itoa(r) != ids.Name(i) {
			return 0
		}
		if !seen[r] {
			seen[r], rows = true, rows+1
		}
	}
	return rows
}

// pairTables returns the two tables and width that pipeline.PairAUC
// scores with the chosen score: L and R for lr; Y = [L | R] and [R | L]
// for sym, since Y_u·[R_v | L_v] = L_u·R_v + R_u·L_v; Y twice for dot;
// unit rows of Y twice for cosine.
func pairTables(y []float32, dim int, score string) (l, r []float32, width int) {
	switch score {
	case scoreLR:
		l, r = sides(y, dim)
		return l, r, dim / 2
	case scoreSym:
		return y, swapHalves(y, dim), dim
	case scoreCosine:
		u := knn.Normalized(y, dim)
		return u, u, dim
	}
	return y, y, dim
}

// swapHalves returns the rows [R | L] of Y = [L | R], so that
// Y_u·[R_v | L_v] = L_u·R_v + L_v·R_u, the symmetric score.
func swapHalves(y []float32, dim int) []float32 {
	half := dim / 2
	swapped := make([]float32, len(y))
	for i := 0; i < len(y); i += dim {
		copy(swapped[i:i+half], y[i+half:i+dim])
		copy(swapped[i+half:i+dim], y[i:i+half])
	}
	return swapped
}

// sides splits rows of Y = [L | R] into L and R.
func sides(y []float32, dim int) (l, r []float32) {
	e := &graphio.Embeddings{IDs: pipeline.IdentityIDs(len(y) / dim), Dim: dim, Y: y}
	return e.Sides()
}

// scoreNames describes each score in the summary.
var scoreNames = map[string]string{scoreLR: "L_u·R_v", scoreSym: "L_u·R_v + L_v·R_u", scoreDot: "Y_u·Y_v", scoreCosine: "cosine of Y_u and Y_v"}

// linkPrediction scores the split's pairs once (scoreSplit) for the AUCs,
// computed as pipeline.PairAUC and training do, and the ranking measures.
func (c *evalFlags) linkPrediction(ctx context.Context, stdout io.Writer, emb *graphio.Embeddings, rep *evalReport) error {
	s, err := graphio.LoadSplitDir(ctx, c.split, c.directed)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, splitLines(c.split, s))
	if c.score == scoreSym && len(s.TestDirectedNeg) > 0 {
		return usagef("-score sym scores u→v and v→u alike, and %s is a directed split (it has reversed-arc negatives): use -score lr", c.split)
	}
	ids, err := c.splitIDs(emb, s)
	if err != nil {
		return err
	}
	y, missing, err := c.align(stdout, emb, ids, s.N, c.split, nil)
	if err != nil {
		return err
	}
	l, r, w := pairTables(y, emb.Dim, c.score)
	sc := scoreSplit(l, r, w, s)
	if err := sc.check(c.emb.path); err != nil {
		return err
	}
	trainRank, testRank := sc.rank()
	train, test := trainRank.AUC(), testRank.AUC()
	// The test edges' scores are sc's: only the reversed arcs are scored.
	directed := pipeline.Rank(sc.testPos, pipeline.ScorePairs(l, r, w, s.TestDirectedNeg)).AUC()
	res := &linkResult{Split: c.split, Score: c.score, Nodes: s.N, MissingNodes: missing,
		TrainAUC: finite(train), TestAUC: finite(test), TestDirectedAUC: finite(directed),
		rankMetrics: newRankMetrics(trainRank, testRank)}
	rep.LinkPrediction = res
	fmt.Fprintf(stdout, "link prediction ROC-AUC (score %s = %s): test %.4f, train %.4f\n", c.score, scoreNames[c.score], test, train)
	if !math.IsNaN(directed) {
		fmt.Fprintf(stdout, "  against reversed arcs and random non-edges: %.4f\n", directed)
	} else if c.directed {
		fmt.Fprintf(stdout, "note: %s\n", noReversedArcs(c.split))
	}
	if note := fewTestPairs(test, len(s.Test), len(s.TestNeg), "score on a split with more test edges"); note != "" {
		fmt.Fprintln(stdout, note)
	}
	res.rankMetrics.print(stdout, len(s.TestNeg))
	if c.mrr != "" {
		if err := c.ranking(ctx, stdout, l, r, w, s, res); err != nil {
			return err
		}
	}
	if c.edgeOps != "" {
		return c.edgeClassifier(ctx, stdout, emb, y, s, res)
	}
	return nil
}

// parseMRR reads -mrr: "" (off, -1), all (0) or a count of candidates.
func parseMRR(s string) (int, error) {
	switch s {
	case "":
		return -1, nil
	case "all":
		return 0, nil
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 {
		return 0, usagef("-mrr %q: want a number of candidates per side of at least 1, such as 1000, or all", s)
	}
	return k, nil
}

// ranking ranks the split's test edges (eval.Rank) by the score's tables.
func (c *evalFlags) ranking(ctx context.Context, stdout io.Writer, l, r []float32, w int, s *pipeline.Split, res *linkResult) error {
	k, _ := parseMRR(c.mrr)
	if k >= s.N-2 {
		return usagef("-mrr %d: as many candidates as the split's %d nodes other than a pair's two, or more; give -mrr all to rank against each of them once, or fewer candidates", k, s.N-2)
	}
	t0 := time.Now()
	rk, err := eval.Rank(ctx, l, r, w, s.N, s.Test, eval.RankConfig{Negatives: k, Seed: c.seed, Workers: c.workers})
	if err != nil {
		return err
	}
	res.Ranking = rk
	against, candidates := fmt.Sprintf("%s (-seed %d)", count(k, "random node", "random nodes"), c.seed), k
	if k == 0 {
		against, candidates = fmt.Sprintf("all %d nodes other than its two", s.N-2), s.N-2
	}
	hits, unmeasured := markedHits([]int{1, 10, 50}, rk.Hits, candidates) // a rank is at most candidates + 1
	fmt.Fprintf(stdout, "ranking (unfiltered, as PyTorch-BigGraph): each of the %d test edges' tail and head against %s: MRR %.4f, Hits@1/10/50 %s, mean rank %.1f (%.1fs)\n",
		len(s.Test), against, rk.MRR, hits, rk.MeanRank, time.Since(t0).Seconds())
	if len(unmeasured) > 0 {
		fmt.Fprintf(stdout, "  * %s: k exceeds the %d candidates, so every rank is within it (1 by definition, not a measurement)\n", strings.Join(unmeasured, ", "), candidates)
	}
	return nil
}

// parseEdgeOps reads -edge-ops ("" is none, "all" every operator).
func parseEdgeOps(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	if s == "all" {
		return eval.EdgeOperators, nil
	}
	var out []string
	for _, op := range strings.Split(s, ",") {
		op = strings.TrimSpace(op)
		if ok, want := oneOf(op, eval.EdgeOperators...); !ok {
			return nil, usagef("-edge-ops %q: unknown operator %q; want %s, or all", s, op, want)
		}
		out = append(out, op)
	}
	return out, nil
}

// edgeClassifier runs node2vec's link prediction protocol on the split
// for each operator of -edge-ops, on the node features of -features (an
// [L | R] file) or the file's rows (a single table).
func (c *evalFlags) edgeClassifier(ctx context.Context, stdout io.Writer, emb *graphio.Embeddings, y []float32, s *pipeline.Split, res *linkResult) error {
	x, f, err := c.nodeFeatures(emb, y, s.N)
	if err != nil {
		return err
	}
	ops, _ := parseEdgeOps(c.edgeOps)
	var parts []string
	for _, op := range ops {
		r, err := eval.EdgeClassifier(ctx, x, f, s, op, eval.EdgeClassifierConfig{LogReg: eval.LogRegConfig{C: c.logregC}, Seed: c.seed})
		if err != nil {
			return err
		}
		res.EdgeClassifier = append(res.EdgeClassifier, r)
		note := ""
		if r.NotConverged {
			note = " (not converged)"
		}
		parts = append(parts, fmt.Sprintf("%s %.4f%s", op, r.TestAUC, note))
	}
	fmt.Fprintf(stdout, "node2vec's edge classifier (logistic regression C = %g on op(x_u, x_v), %d features, %d + %d train pairs): test ROC-AUC %s\n",
		c.logregC, f, res.EdgeClassifier[0].TrainPairs[0], res.EdgeClassifier[0].TrainPairs[1], strings.Join(parts, ", "))
	return nil
}

// rankMetrics are link prediction's ranking measures beside the ROC-AUC:
// the average precision of the train and test pairs
// (pipeline.AveragePrecision, scikit-learn's average_precision_score) and
// the test edges' Hits@k by OGB's rule (pipeline.HitsAtK), k in hitsK.
type rankMetrics struct {
	TrainAP  *float64           `json:"train_ap,omitempty"`
	TestAP   *float64           `json:"test_ap,omitempty"`
	TestHits map[string]float64 `json:"test_hits,omitempty"`
}

// splitScores are the scores of a split's four lists of pairs.
type splitScores struct{ trainPos, trainNeg, testPos, testNeg []float64 }

// scoreSplit scores the pairs of s by the rows of l and r (width w), as
// pipeline.ScorePairs does.
func scoreSplit(l, r []float32, w int, s *pipeline.Split) splitScores {
	score := func(p []pipeline.Pair) []float64 { return pipeline.ScorePairs(l, r, w, p) }
	return splitScores{score(s.Train), score(s.TrainNeg), score(s.Test), score(s.TestNeg)}
}

// check returns an error when a score is NaN or ±Inf: finite embeddings
// whose products overflow the float32 sums the scores are (as in
// training), which would make every measure NaN.
func (sc splitScores) check(file string) error {
	for _, list := range [][]float64{sc.trainPos, sc.trainNeg, sc.testPos, sc.testNeg} {
		for _, x := range list {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%s: a pair's score is %v: the embeddings' values are too large for the float32 sums the scores are computed in (3.4e38); divide them by a constant", file, x)
			}
		}
	}
	return nil
}

// rank sorts the train and the test scores once for every measure.
func (sc splitScores) rank() (train, test *pipeline.Ranking) {
	return pipeline.Rank(sc.trainPos, sc.trainNeg), pipeline.Rank(sc.testPos, sc.testNeg)
}

// newRankMetrics returns the ranking measures of a split's sorted scores.
func newRankMetrics(train, test *pipeline.Ranking) rankMetrics {
	m := rankMetrics{TrainAP: finite(train.AveragePrecision()), TestAP: finite(test.AveragePrecision())}
	if pos, _ := test.Len(); pos > 0 {
		m.TestHits = map[string]float64{}
		for _, k := range hitsK {
			m.TestHits[strconv.Itoa(k)] = test.HitsAtK(k)
		}
	}
	return m
}

// print writes the measures that were taken, one line each; negatives
// is the number of test negatives.
func (m rankMetrics) print(w io.Writer, negatives int) {
	if m.TestAP != nil && m.TrainAP != nil {
		fmt.Fprintf(w, "average precision: test %.4f, train %.4f\n", *m.TestAP, *m.TrainAP)
	}
	if m.TestHits == nil {
		return
	}
	ks := make([]string, len(hitsK))
	for i, k := range hitsK {
		ks[i] = strconv.Itoa(k)
	}
	// k above the negatives: 1 by OGB's rule, not measured.
	hits, unmeasured := markedHits(hitsK, m.TestHits, negatives)
	fmt.Fprintf(w, "Hits@%s (OGB's rule: test edges above the k-th best of the %d test negatives): test %s\n",
		strings.Join(ks, "/"), negatives, hits)
	if len(unmeasured) > 0 {
		fmt.Fprintf(w, "  * %s: k exceeds the %d test negatives, so OGB's rule counts every test edge as a hit (1 by definition, not a measurement)\n", strings.Join(unmeasured, ", "), negatives)
	}
}

// markedHits formats the Hits@k of hits (keyed by k in decimal) for each
// k of ks, joined by " / ", with an asterisk on each k above limit, which
// every item meets by definition, and returns those k as "Hits@k" too.
func markedHits(ks []int, hits map[string]float64, limit int) (string, []string) {
	cells := make([]string, len(ks))
	var unmeasured []string
	for i, k := range ks {
		cells[i] = fmt.Sprintf("%.4f", hits[strconv.Itoa(k)])
		if k > limit {
			cells[i] += "*"
			unmeasured = append(unmeasured, "Hits@"+strconv.Itoa(k))
		}
	}
	return strings.Join(cells, " / "), unmeasured
}

// hitsK are the k of the Hits@k that eval reports: those of OGB's
// link-prediction datasets (ddi, collab, ppa).
var hitsK = []int{20, 50, 100}

// classification runs the paper's node classification rule
// (eval.Classify) on a Planetoid dataset. A single table is given as
// L = R = Y, so that every score Classify tries is Y_u·Y_v (the cosine
// with -score cosine).
func (c *evalFlags) classification(ctx context.Context, stdout io.Writer, emb *graphio.Embeddings, rep *evalReport) error {
	g, lab, _, err := graphio.LoadPlanetoid(ctx, c.planetoid, graphio.LoadOptions{})
	if err != nil {
		return err
	}
	y, _, err := c.align(stdout, emb, g.IDs, g.N(), c.planetoid, nil)
	if err != nil {
		return err
	}
	x, f, err := c.nodeFeatures(emb, y, g.N())
	if err != nil {
		return err
	}
	res := &pipeline.Result{N: g.N()}
	single := ""
	if emb.Halves {
		res.Half = emb.Dim / 2
		res.L, res.R = sides(y, emb.Dim)
	} else {
		res.Half = emb.Dim
		single = "Y·Y"
		if c.score == scoreCosine {
			y, single = knn.Normalized(y, emb.Dim), "cos(Y, Y)"
		}
		res.L, res.R = y, y
	}
	cr, err := classify(ctx, stdout, res, lab, single)
	rep.Classify = cr
	if err != nil {
		return err
	}
	what := "the rows of the file"
	if emb.Halves {
		what = c.features
	} else if strings.HasSuffix(c.singleFeatures(), "+norm") {
		what = "the rows of the file, scaled to unit length"
	}
	rep.ClassifyLogReg, err = classifyLogReg(ctx, stdout, x, g.N(), f, lab, what, c.logregC, c.workers)
	return err
}

// writeReport writes -report.
func (c *evalFlags) writeReport(stdout io.Writer, rep *evalReport) error {
	if c.rep == "" {
		return nil
	}
	var inputs []string
	for _, p := range []string{c.split, c.mat, c.labels, c.graph} {
		if p != "" {
			inputs = append(inputs, p)
		}
	}
	if c.planetoid != "" {
		files := graphio.PlanetoidFiles(c.planetoid) // each of the three, plain then .gz
		for i := 0; i+1 < len(files); i += 2 {
			for _, p := range files[i : i+2] {
				if _, err := os.Stat(p); err == nil { // the one LoadPlanetoid read
					inputs = append(inputs, p)
					break
				}
			}
		}
	}
	files, err := hashFiles(inputs...)
	if err != nil {
		return err
	}
	// -emb's sum was taken as it was read: it is not read a third time.
	st, err := os.Stat(c.emb.path)
	if err != nil {
		return err
	}
	rep.Inputs = append([]inputFile{{Path: c.emb.path, SHA256: c.embSHA256, Bytes: st.Size()}}, files...)
	rep.Seconds = time.Since(c.started).Seconds()
	rep.Go, rep.Version, rep.Args = runtime.Version(), version(), []string{}
	c.fs.Visit(func(f *flag.Flag) { rep.Args = append(rep.Args, "-"+f.Name+"="+f.Value.String()) })
	if err := graphio.WriteJSON(c.rep, rep); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote report to %s\n", c.rep)
	return nil
}

// parseRatios reads -ratios: nil for none.
func parseRatios(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "none" {
		return nil, nil
	}
	r, err := parseList(s, func(f string) (float64, bool) {
		x, err := strconv.ParseFloat(f, 64)
		return x, err == nil && x > 0 && x < 1
	}, "-ratios %q: want comma-separated shares in (0, 1), e.g. 0.1,0.5,0.9")
	for i, x := range r {
		if slices.Contains(r[:i], x) {
			return nil, usagef("-ratios %q: %v is listed twice (each share's splits are drawn once; more splits: -repeats)", s, x)
		}
	}
	return r, err
}

// parseList reads the comma-separated values of a flag with parse, or
// returns the usage error bad (a format with the flag's value as %q) at
// the first value parse refuses.
func parseList[T any](s string, parse func(string) (T, bool), bad string) ([]T, error) {
	var out []T
	for _, f := range strings.Split(s, ",") {
		x, ok := parse(strings.TrimSpace(f))
		if !ok {
			return nil, usagef(bad, s)
		}
		out = append(out, x)
	}
	return out, nil
}

// multiLabelInput reads the nodes and labels of -mat (its network's rows
// and its group matrix) or -labels, and returns them with the file's
// name.
func (c *evalFlags) multiLabelInput(ctx context.Context, stdout io.Writer) (*pipeline.NodeIDs, *pipeline.MultiLabels, string, error) {
	if c.labels != "" {
		nl, err := graphio.LoadMultiLabels(ctx, c.labels, c.header)
		if err != nil {
			return nil, nil, "", err
		}
		if nl.Header != "" {
			fmt.Fprintf(stdout, "skipped the header line %q of %s\n", nl.Header, c.labels)
		}
		c.firstLabelNode = nl.First
		if nl.Duplicates > 0 {
			fmt.Fprintf(stdout, "note: %d (node, label) pairs of %s are listed more than once: counted once\n", nl.Duplicates, c.labels)
		}
		return nl.IDs, nl.Labels, c.labels, nil
	}
	g, lab, _, err := graphio.LoadMAT(ctx, c.mat, graphio.LoadOptions{})
	if err != nil {
		return nil, nil, "", err
	}
	if lab == nil {
		return nil, nil, "", fmt.Errorf("%s has no variable group: multi-label classification needs the labels (an N x L matrix named group)", c.mat)
	}
	return g.IDs, lab, c.mat, nil
}

// multiLabel runs the DeepWalk/node2vec multi-label protocol
// (eval.MultiLabel) on the labels of -mat or -labels.
func (c *evalFlags) multiLabel(ctx context.Context, stdout io.Writer, emb *graphio.Embeddings, rep *evalReport) error {
	ids, lab, what, err := c.multiLabelInput(ctx, stdout)
	if err != nil {
		return err
	}
	n := len(lab.Of)
	// A node without labels is in no split and no cluster.
	y, _, err := c.align(stdout, emb, ids, n, what, func(i int) bool { return len(lab.Of[i]) == 0 })
	if err != nil {
		return err
	}
	x, f, err := c.nodeFeatures(emb, y, n)
	if err != nil {
		return err
	}
	if ratios, _ := parseRatios(c.ratios); ratios != nil {
		if err := c.classify(ctx, stdout, x, n, f, lab, ratios, what, rep); err != nil {
			return err
		}
	}
	if c.cluster {
		return c.clusterNodes(ctx, stdout, x, n, f, lab, what, rep)
	}
	return nil
}

// classify runs the multi-label protocol on the training shares ratios.
func (c *evalFlags) classify(ctx context.Context, stdout io.Writer, x []float64, n, f int, lab *pipeline.MultiLabels, ratios []float64, what string, rep *evalReport) error {
	splits, err := eval.MultiLabelSplits(lab.Labelled(), ratios, c.repeats, c.seed)
	if err != nil {
		return err
	}
	t0 := time.Now()
	res, err := eval.MultiLabel(ctx, x, n, f, lab, splits, eval.MultiLabelConfig{Workers: c.workers, LogReg: eval.LogRegConfig{C: c.logregC}})
	if err != nil {
		return err
	}
	rep.MultiLabel = res
	fmt.Fprintf(stdout, "multi-label classification of %s: %s, %s, %s, %s per share, logistic regression C = %g (%.1fs):\n%s",
		what, count(res.Nodes, "labelled node", "labelled nodes"), count(res.Labels, "label", "labels"), count(f, "feature", "features"),
		count(c.repeats, "split", "splits"), res.C, time.Since(t0).Seconds(), res.Table())
	return nil
}

// clusterNodes clusters the nodes with exactly one label by k-means on
// their features and scores the clusters against the labels
// (eval.Cluster).
func (c *evalFlags) clusterNodes(ctx context.Context, stdout io.Writer, x []float64, n, f int, lab *pipeline.MultiLabels, what string, rep *evalReport) error {
	single := make([]int, n)
	multi := 0
	for i, ls := range lab.Of {
		single[i] = -1
		switch len(ls) {
		case 1:
			single[i] = int(ls[0])
		case 0:
		default:
			multi++
		}
	}
	if multi > 0 {
		fmt.Fprintf(stdout, "note: %s of %s %s more than one label: left out of the clustering\n", count(multi, "node", "nodes"), what, has(multi))
	}
	if !slices.ContainsFunc(single, func(l int) bool { return l >= 0 }) {
		return fmt.Errorf("-cluster: no node of %s has exactly one label: clustering scores single-label nodes", what)
	}
	t0 := time.Now()
	res, err := eval.Cluster(ctx, x, n, f, single, eval.ClusterConfig{Seed: c.seed, Workers: c.workers})
	if err != nil {
		return err
	}
	rep.Cluster = res
	fmt.Fprintf(stdout, "k-means clustering of %s of %s into %s (%s, best of %d seedings, %.1fs): NMI %.4f, ARI %.4f, accuracy %.4f\n",
		count(res.Nodes, "single-label node", "single-label nodes"), what, count(res.K, "cluster", "clusters"), count(f, "feature", "features"), res.Restarts, time.Since(t0).Seconds(), res.NMI, res.ARI, res.Accuracy)
	rows := map[string]bool{} // distinct feature rows, up to K of them
	for i, l := range single {
		if l >= 0 && len(rows) < res.K {
			rows[fmt.Sprint(x[i*f:i*f+f])] = true
		}
	}
	switch {
	case res.K == 1:
		fmt.Fprintln(stdout, "note: the nodes clustered carry one label between them, so any clustering scores 1: these measures say nothing here")
	case len(rows) < res.K:
		fmt.Fprintf(stdout, "note: the nodes clustered have %d distinct feature rows for %d clusters, so some clusters are empty\n", len(rows), res.K)
	}
	return nil
}

// reconResult is the graph reconstruction part of eval's report.
type reconResult struct {
	Graph string `json:"graph"`
	Score string `json:"score"`
	*eval.ReconstructionResult
}

// parseK reads -k.
func parseK(s string) ([]int, error) {
	ks, err := parseList(s, func(f string) (int, bool) {
		k, err := strconv.Atoi(f)
		return k, err == nil && k >= 1
	}, "-k %q: want comma-separated whole numbers of at least 1, e.g. 10,100,1000")
	for i, k := range ks {
		if slices.Contains(ks[:i], k) {
			return nil, usagef("-k %q: %d is listed twice", s, k)
		}
	}
	return ks, err
}

// reconstruction ranks, for each (sampled) node of -graph, every other
// node by the chosen score and reports how the node's arcs come first
// (eval.Reconstruction).
func (c *evalFlags) reconstruction(ctx context.Context, stdout io.Writer, emb *graphio.Embeddings, rep *evalReport) error {
	mode, _ := graphio.ParseIDMode(c.ids) // checked by validate
	g, lr, err := graphio.LoadGraph(ctx, c.graph, graphio.LoadOptions{Directed: c.directed, Header: c.header, IDs: mode})
	if err != nil {
		return err
	}
	if lr != nil && lr.Header != "" {
		fmt.Fprintf(stdout, "skipped the header line %q of %s\n", lr.Header, c.graph)
	}
	y, _, err := c.align(stdout, emb, g.IDs, g.N(), c.graph, nil)
	if err != nil {
		return err
	}
	l, r, w := pairTables(y, emb.Dim, c.score)
	ks, _ := parseK(c.precisionK)
	t0 := time.Now()
	res, err := eval.Reconstruction(ctx, g.Adj, l, r, w, eval.ReconstructionConfig{Rows: c.rows, K: ks, Seed: c.seed, Workers: c.workers})
	if err != nil {
		return err
	}
	rep.Reconstruction = &reconResult{Graph: c.graph, Score: c.score, ReconstructionResult: res}
	sample := "every node"
	if res.Rows < res.Nodes {
		sample = fmt.Sprintf("%d of %d nodes (sampled with -seed %d)", res.Rows, res.Nodes, c.seed)
	}
	fmt.Fprintf(stdout, "graph reconstruction of %s (score %s = %s, %s ranked, %d with arcs, %.1fs): MAP %.4f\n",
		c.graph, c.score, scoreNames[c.score], sample, res.RowsWithArcs, time.Since(t0).Seconds(), res.MAP)
	var kk, pk, over []string
	for _, k := range ks {
		if p, ok := res.PrecisionAtK[strconv.Itoa(k)]; ok {
			kk, pk = append(kk, strconv.Itoa(k)), append(pk, fmt.Sprintf("%.4f", p))
		} else {
			over = append(over, strconv.Itoa(k))
		}
	}
	if len(kk) > 0 {
		fmt.Fprintf(stdout, "precision@%s (share of arcs among the k best of %d ranked pairs): %s\n", strings.Join(kk, "/"), res.Pairs, strings.Join(pk, " / "))
	}
	if len(over) > 0 {
		fix := "rank more rows with -rows"
		if res.Rows >= res.Nodes {
			fix = "every node's row is ranked: the graph has no more pairs"
		}
		fmt.Fprintf(stdout, "note: no precision@%s: more than the %d pairs ranked (%s)\n", strings.Join(over, "/"), res.Pairs, fix)
	}
	return nil
}

// sameHalvesFeatures makes the rows of L the default features of an
// [L | R] file whose two halves are equal in every row (a baseline whose R
// is its L: ProNE, eigenmaps), where [L | R] would repeat every column
// and so halve the logistic regressions' penalty per direction. An
// explicit -features is kept.
func (c *evalFlags) sameHalvesFeatures(stdout io.Writer, emb *graphio.Embeddings) {
	if !emb.Halves || (c.mat == "" && c.labels == "" && c.planetoid == "" && c.edgeOps == "") {
		return
	}
	if c.given("features") {
		return
	}
	l, r := emb.Sides()
	if c.features = eval.DefaultFeaturesOf(&pipeline.Result{L: l, R: r}); c.features != eval.FeaturesL {
		return
	}
	fmt.Fprintf(stdout, "the two halves of every row of %s are equal (a baseline whose R is its L): its features are the rows of L (-features L)\n", c.emb.path)
}

// nodeFeatures returns the n × f float64 node features of the aligned
// rows y: those of -features for an [L | R] file (eval.Features), the
// rows themselves for a single table.
func (c *evalFlags) nodeFeatures(emb *graphio.Embeddings, y []float32, n int) ([]float64, int, error) {
	if emb.Halves {
		l, r := sides(y, emb.Dim)
		x, f, err := eval.Features(&pipeline.Result{N: n, Half: emb.Dim / 2, L: l, R: r}, c.features)
		if err != nil {
			return nil, 0, usagef("-features: %v", trimPackage(err.Error()))
		}
		return x, f, nil
	}
	variant := c.singleFeatures()
	if variant == "" {
		return nil, 0, usagef("-features %s picks sides of [L | R] embeddings, and %s holds a single table, whose rows are the features: leave -features out, or give -features Y+norm for unit rows", c.features, c.emb.path)
	}
	return eval.Features(&pipeline.Result{N: n, Half: emb.Dim, L: y, R: y}, variant)
}

// singleFeatures returns the eval.Features variant of a single table
// (given as L = R = Y) for -features: its rows, or with +norm their unit
// rows; Y and L (the same table) name them. "" for a variant that needs
// [L | R] (R, LR, L+R).
func (c *evalFlags) singleFeatures() string {
	variant := eval.FeaturesL
	if c.given("features") {
		variant = c.features
	}
	switch variant {
	case eval.FeaturesL, eval.FeaturesL + "+norm":
		return variant
	case "Y", "Y+norm":
		return eval.FeaturesL + strings.TrimPrefix(variant, "Y")
	}
	return ""
}

// given reports whether the flag name is on the command line.
func (c *evalFlags) given(name string) bool {
	set := false
	c.fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

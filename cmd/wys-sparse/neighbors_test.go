package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
)

// smallIntEmbeddings writes n x (2·half) [L | R] embeddings with entries
// in {−1, 0, 1} (exact integer scores, many ties) and ids "v<row*3>" to
// path, and returns them.
func smallIntEmbeddings(t *testing.T, path string, n, half int) *pipeline.Result {
	t.Helper()
	rng := rand.New(rand.NewPCG(4, 5))
	res := &pipeline.Result{N: n, Half: half, L: make([]float32, n*half), R: make([]float32, n*half)}
	for _, side := range [][]float32{res.L, res.R} {
		for i := range side {
			side[i] = float32(rng.IntN(3) - 1)
		}
	}
	names := make([]string, n)
	for i := range names {
		names[i] = "v" + strconv.Itoa(3*i)
	}
	ids, err := pipeline.NewIndexedIDs(names)
	if err != nil {
		t.Fatal(err)
	}
	if err := graphio.WriteEmbeddings(context.Background(), path, "", res, ids); err != nil {
		t.Fatal(err)
	}
	return res
}

// expectNeighbors is the brute-force answer: every other row scored in
// float64 (by out L_u·R_v, in L_v·R_u, or sym, their sum), sorted by score (descending) then row, cut to k, as
// "id<TAB>score" lines.
func expectNeighbors(res *pipeline.Result, u, k int, by string) string {
	h := res.Half
	type scored struct {
		row   int
		score float64
	}
	var all []scored
	for v := 0; v < res.N; v++ {
		if v == u {
			continue
		}
		dot := func(a, b []float32) float64 {
			var s float64
			for j := range a {
				s += float64(a[j]) * float64(b[j])
			}
			return s
		}
		out, in := dot(res.L[u*h:u*h+h], res.R[v*h:v*h+h]), dot(res.L[v*h:v*h+h], res.R[u*h:u*h+h])
		s := map[string]float64{"out": out, "in": in, "sym": out + in}[by]
		all = append(all, scored{v, s})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	var b strings.Builder
	for _, x := range all[:k] {
		b.WriteString("v" + strconv.Itoa(3*x.row) + "\t" + strconv.FormatFloat(x.score, 'g', -1, 32) + "\n")
	}
	return b.String()
}

// TestNeighborsAgainstBruteForce runs the command on a small file (three
// blocks of rows, ties everywhere) by out, in and sym, from -node and from
// standard input, and checks the text and JSON outputs.
func TestNeighborsAgainstBruteForce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "emb.tsv")
	res := smallIntEmbeddings(t, path, 2500, 4)
	for _, by := range []string{"out", "in", "sym"} {
		code, stdout, stderr := runCLI(t, "neighbors", "-emb", path, "-node", " v300", "-k", "25", "-by", by, "-quiet")
		if want := expectNeighbors(res, 100, 25, by); code != 0 || stdout != want {
			t.Errorf("-by %s: exit %d, stderr %q\ngot:\n%s\nwant:\n%s", by, code, stderr, stdout, want)
		}
	}
	// Standard input: one block per id, each under its header; an unknown
	// id is reported and fails the run at the end.
	stdin = strings.NewReader("# queries\nv0\n\nnope\n  v7497 \n")
	defer func() { stdin = os.Stdin }()
	code, stdout, stderr := runCLI(t, "neighbors", "-emb", path, "-k", "3", "-workers", "3", "-quiet")
	want := "# neighbors of v0\n" + expectNeighbors(res, 0, 3, "out") + "# neighbors of v7497\n" + expectNeighbors(res, 2499, 3, "out")
	if code != 1 || stdout != want || !strings.Contains(stderr, `node id "nope" has no vector`) {
		t.Errorf("stdin: exit %d, stderr %q\ngot:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
	// With -format json, one line per query: the unknown one has an error.
	stdin = strings.NewReader("v0\nnope\nv1\n")
	code, stdout, _ = runCLI(t, "neighbors", "-emb", path, "-k", "2", "-format", "json", "-quiet")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 1 || len(lines) != 3 || !strings.HasPrefix(lines[1], `{"node":"nope","error":"node id \"nope\" has no vector`) {
		t.Errorf("stdin json: exit %d\n%s", code, stdout)
	}
	// JSON, with the query node kept.
	code, stdout, _ = runCLI(t, "neighbors", "-emb", path, "-node", "v3", "-k", "2", "-format", "json", "-include-self", "-by", "cosine", "-quiet")
	var got struct {
		Node, By  string
		Neighbors []struct {
			ID    string
			Score float64
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil || got.Node != "v3" || got.By != "cosine" || len(got.Neighbors) != 2 || got.Neighbors[0].ID != "v3" {
		t.Errorf("json: exit %d, %v, %s", code, err, stdout)
	}
}

// TestSubcommandErrorsGolden checks the exit code and the one-line error
// of each bad use of eval and neighbors against testdata/errors.
func TestSubcommandErrorsGolden(t *testing.T) {
	tmp := t.TempDir()
	emb := filepath.Join(tmp, "emb.npy")
	smallIntEmbeddings(t, emb, 10, 2)
	gensim := filepath.Join("testdata", "evalcheck", "gensim.txt")
	split := filepath.Join("testdata", "evalcheck", "split")
	edges := filepath.Join("testdata", "evalcheck", "train.edges.txt")
	ragged := filepath.Join(tmp, "ragged.txt")
	os.WriteFile(ragged, []byte("2 3\na 1 2 3\nb 1 2\n"), 0o644)
	labels := filepath.Join(tmp, "group-edges.csv")
	os.WriteFile(labels, []byte("node,group\n1,2\n3,4\n"), 0o644)
	// Token ids: the column names cannot be told from a node by their form.
	tokEmb, tokLabels := filepath.Join(tmp, "tok.tsv"), filepath.Join(tmp, "toklab.csv")
	os.WriteFile(tokEmb, []byte("A\t0.1\t0.2\nB\t0.3\t0.1\nC\t0.5\t0.5\n"), 0o644)
	os.WriteFile(tokLabels, []byte("node,label\nA,x\nB,y\nC,x\n"), 0o644)
	// gensim.txt with the split's row numbers for ids, as a tool trained
	// on its train.txt.npy pairs writes them.
	b, err := os.ReadFile(gensim)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := 1; i < len(lines); i++ {
		_, vec, _ := strings.Cut(lines[i], " ")
		lines[i] = strconv.Itoa(i-1) + " " + vec
	}
	// A wys .npy whose ids file is gone (its marker is there).
	noIDs := filepath.Join(tmp, "noids.npy")
	smallIntEmbeddings(t, noIDs, 10, 2)
	os.Remove(graphio.IDsPath(noIDs))
	gz := filepath.Join(tmp, "emb.npy.gz")
	if raw, err := os.ReadFile(emb); err == nil {
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		zw.Write(raw)
		zw.Close()
		os.WriteFile(gz, zb.Bytes(), 0o644)
	}
	// A CSV written without its id column: the first coordinate is read
	// as the id.
	noIDCol := filepath.Join(tmp, "noid.csv")
	os.WriteFile(noIDCol, []byte("0.5,1.25,-3e-05\n-0.75,2.5,1\n"), 0o644)
	// Whole-number ids written as floats, as pandas writes a float column.
	floatIDs := filepath.Join(tmp, "float.csv")
	os.WriteFile(floatIDs, []byte("1.0,0.5,1.25\n2.0,-0.75,2.5\n"), 0o644)
	rowIDs := filepath.Join(tmp, "rows.txt")
	os.WriteFile(rowIDs, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	// The same without its last two rows, as gensim leaves out nodes that
	// no training pair names.
	someRows := filepath.Join(tmp, "somerows.txt")
	n, d, _ := strings.Cut(lines[0], " ")
	rows, _ := strconv.Atoi(n)
	os.WriteFile(someRows, []byte(strings.Join(append([]string{strconv.Itoa(rows-2) + " " + d}, lines[1:len(lines)-2]...), "\n")+"\n"), 0o644)
	// gensim.txt with every value 1e19 or -1e19: finite float32s whose
	// products overflow the float32 score sums.
	huge := regexp.MustCompile(` -?[0-9.e+-]+`).ReplaceAllStringFunc(string(b), func(x string) string {
		if strings.HasPrefix(x, " -") {
			return " -1e19"
		}
		return " 1e19"
	})
	lines = strings.SplitN(string(b), "\n", 2)
	hugeFile := filepath.Join(tmp, "huge.txt")
	os.WriteFile(hugeFile, []byte(lines[0]+"\n"+strings.SplitN(huge, "\n", 2)[1]), 0o644)
	cases := []struct {
		name string
		args []string
	}{
		{"eval-no-emb", []string{"eval", "-split", split}},
		{"eval-emb-stdin", []string{"eval", "-emb", "-", "-split", split}},
		{"eval-nothing", []string{"eval", "-emb", gensim}},
		{"eval-bad-score", []string{"eval", "-emb", gensim, "-split", split, "-score", "l2"}},
		{"eval-lr-single", []string{"eval", "-emb", gensim, "-split", split, "-score", "lr"}},
		{"eval-missing-nodes", []string{"eval", "-emb", emb, "-split", split}},
		{"eval-row-number-ids", []string{"eval", "-emb", rowIDs, "-split", split}},
		{"eval-some-row-number-ids", []string{"eval", "-emb", someRows, "-split", split}},
		{"eval-float-ids", []string{"eval", "-emb", floatIDs, "-split", split}},
		{"eval-bad-emb-ids", []string{"eval", "-emb", gensim, "-split", split, "-emb-ids", "names"}},
		{"eval-emb-ids-without-split", []string{"eval", "-emb", gensim, "-graph", edges, "-emb-ids", "rows"}},
		{"eval-cluster-without-labels", []string{"eval", "-emb", gensim, "-split", split, "-cluster"}},
		{"eval-ragged", []string{"eval", "-emb", ragged, "-split", split}},
		{"eval-scores-overflow", []string{"eval", "-emb", hugeFile, "-split", split}},
		{"eval-csv-without-ids", []string{"eval", "-emb", noIDCol, "-split", split}},
		{"eval-npy-gzip", []string{"eval", "-emb", gz, "-emb-format", "npy", "-split", split}},
		{"eval-logreg-c-without-classification", []string{"eval", "-emb", gensim, "-labels", labels, "-ratios", "none", "-cluster", "-logreg-c", "2"}},
		{"neighbors-npy-without-ids", []string{"neighbors", "-emb", noIDs, "-node", "1"}},
		{"eval-emb-format-name", []string{"eval", "-emb", filepath.Join(tmp, "emb.h5"), "-split", split}},
		{"eval-emb-binary-word2vec", []string{"eval", "-emb", filepath.Join(tmp, "emb.bin"), "-split", split}},
		{"eval-extra-argument", []string{"eval", gensim}},
		{"eval-extra-word", []string{"eval", "scores"}},
		{"eval-repeats-without-mat", []string{"eval", "-emb", gensim, "-split", split, "-repeats", "3"}},
		{"eval-bad-ratios", []string{"eval", "-emb", gensim, "-mat", "x.mat", "-ratios", "0.5,1"}},
		{"eval-logreg-c-zero", []string{"eval", "-emb", gensim, "-mat", "x.mat", "-logreg-c", "0"}},
		{"eval-logreg-c-without-mat", []string{"eval", "-emb", gensim, "-split", split, "-logreg-c", "10"}},
		{"eval-report-is-emb", []string{"eval", "-emb", gensim, "-split", split, "-report", gensim}},
		{"eval-report-is-split-file", []string{"eval", "-emb", gensim, "-split", split, "-report", filepath.Join(split, "test.txt.npy")}},
		{"eval-report-dir-missing", []string{"eval", "-emb", gensim, "-split", split, "-report", filepath.Join(tmp, "no", "r.json")}},
		{"eval-directed-alone", []string{"eval", "-emb", gensim, "-directed", "-planetoid", "x"}},
		{"eval-rows-without-graph", []string{"eval", "-emb", gensim, "-split", split, "-rows", "10"}},
		{"eval-seed-alone", []string{"eval", "-emb", gensim, "-split", split, "-seed", "2"}},
		{"eval-bad-k", []string{"eval", "-emb", gensim, "-graph", edges, "-k", "10,0"}},
		{"eval-graph-missing-nodes", []string{"eval", "-emb", emb, "-graph", edges}},
		{"eval-bad-edge-op", []string{"eval", "-emb", gensim, "-split", split, "-edge-ops", "hadamard,cosine"}},
		{"eval-labels-header", []string{"eval", "-emb", gensim, "-labels", labels}},
		{"eval-labels-header-tokens", []string{"eval", "-emb", tokEmb, "-labels", tokLabels}},
		{"eval-labels-missing-nodes", []string{"eval", "-emb", gensim, "-labels", labels, "-header"}},
		{"eval-header-without-graph", []string{"eval", "-emb", gensim, "-split", split, "-header"}},
		{"eval-mat-and-labels", []string{"eval", "-emb", gensim, "-mat", "x.mat", "-labels", labels}},
		{"eval-mrr-above-nodes", []string{"eval", "-emb", gensim, "-split", split, "-mrr", "59"}},
		{"eval-bad-ids", []string{"eval", "-emb", gensim, "-graph", edges, "-ids", "name"}},
		{"eval-ids-without-graph", []string{"eval", "-emb", gensim, "-split", split, "-ids", "token"}},
		{"eval-score-with-labels", []string{"eval", "-emb", gensim, "-labels", labels, "-score", "cosine"}},
		{"eval-score-planetoid-halves", []string{"eval", "-emb", emb, "-planetoid", "x", "-score", "sym"}},
		{"eval-negative-workers", []string{"eval", "-emb", gensim, "-graph", edges, "-workers", "-3"}},
		{"neighbors-negative-workers", []string{"neighbors", "-emb", emb, "-workers", "-1"}},
		{"eval-k-twice", []string{"eval", "-emb", gensim, "-graph", edges, "-k", "10,10"}},
		{"neighbors-positional-node", []string{"neighbors", "-emb", emb, "0"}},
		{"eval-bad-mrr", []string{"eval", "-emb", gensim, "-split", split, "-mrr", "0"}},
		{"eval-mrr-without-split", []string{"eval", "-emb", gensim, "-graph", edges, "-mrr", "all"}},
		{"eval-edge-ops-without-split", []string{"eval", "-emb", gensim, "-graph", edges, "-edge-ops", "all"}},
		{"neighbors-k-zero", []string{"neighbors", "-emb", emb, "-k", "0"}},
		{"neighbors-unknown-node", []string{"neighbors", "-emb", emb, "-node", "v1"}},
		{"neighbors-out-single", []string{"neighbors", "-emb", gensim, "-by", "out", "-node", "n1000"}},
		{"neighbors-bad-format", []string{"neighbors", "-emb", emb, "-format", "csv"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb strings.Builder
			args := append([]string{c.args[0], "-quiet"}, c.args[1:]...)
			if c.args[0] == "eval" && !slices.Contains(args, "-report") {
				args = append(args, "-report", filepath.Join(tmp, c.name+".json")) // what eval -quiet needs
			}
			code := run(context.Background(), args, &out, &errb)
			got := "exit " + strconv.Itoa(code) + "\n" + strings.ReplaceAll(errb.String(), tmp, "TMP")
			checkErrorGolden(t, c.name, got, code, errb.String(), true)
		})
	}
}

// TestCSVOutRoundTrip writes a run's embeddings as CSV and asks neighbors
// for a node of it: the same answer as from the word2vec text of the
// same run, read as [L | R] through the marker beside each file.
func TestCSVOutRoundTrip(t *testing.T) {
	dir := t.TempDir()
	graph := writeGoodGraph(t, dir)
	var answers []string
	for _, name := range []string{"emb.txt", "emb.csv.gz"} {
		out := filepath.Join(dir, name)
		if code, _, stderr := runCLI(t, "-graph", graph, "-epochs", "5", "-dim", "8", "-out", out, "-progress", "none"); code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		code, stdout, stderr := runCLI(t, "neighbors", "-emb", out, "-node", "1", "-k", "3")
		if code != 0 || !strings.Contains(stderr, "[L | R] (wys marker") || strings.Count(stdout, "\n") != 3 {
			t.Fatalf("%s: exit %d\n%s%s", name, code, stdout, stderr)
		}
		answers = append(answers, stdout)
	}
	if answers[0] != answers[1] {
		t.Errorf("neighbors differ:\nword2vec text:\n%s\nCSV:\n%s", answers[0], answers[1])
	}
}

// TestNeighborsZeroQuery: a query whose vector is zero scores every row
// 0, which the command says; a nonzero query gets no such note.
func TestNeighborsZeroQuery(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "z.txt")
	if err := os.WriteFile(path, []byte("3 4\na 0 0 0 0\nb 1 0 1 0\nc 0 1 0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for node, want := range map[string]bool{"a": true, "b": false} {
		code, stdout, stderr := runCLI(t, "neighbors", "-emb", path, "-node", node, "-k", "2", "-by", "cosine")
		if got := strings.Contains(stderr, `note: the query vector of "`+node+`" is zero`); code != 0 || got != want {
			t.Errorf("node %s: exit %d, note %v, want %v\n%s%s", node, code, got, want, stdout, stderr)
		}
	}
}

// TestNeighborsKAboveNodes: a -k above the nodes of the file is answered
// with every other node (every node with -include-self), counted here, and
// a note says so; a -k that fits gets no note.
func TestNeighborsKAboveNodes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "z.txt")
	if err := os.WriteFile(path, []byte("3 4\na 0 1 0 1\nb 1 0 1 0\nc 1 1 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		k, self string
		lines   int
		note    string
	}{
		{"5", "false", 2, "note: -k 5 exceeds the 2 other nodes of " + path + ": each list holds all 2"},
		{"5", "true", 3, "note: -k 5 exceeds the 3 nodes of " + path + ": each list holds all 3"},
		{"2", "false", 2, ""},
		{"3", "true", 3, ""},
	} {
		code, stdout, stderr := runCLI(t, "neighbors", "-emb", path, "-node", "a", "-k", c.k, "-include-self="+c.self)
		if code != 0 || strings.Count(stdout, "\n") != c.lines || strings.Contains(stderr, "note: -k") != (c.note != "") || !strings.Contains(stderr, c.note) {
			t.Errorf("-k %s -include-self=%s: exit %d, want %d lines and note %q\n%s%s", c.k, c.self, code, c.lines, c.note, stdout, stderr)
		}
	}
}

// TestWorkersLimitProcs: -workers N sets GOMAXPROCS to N for the run and
// restores it afterwards, in the main command and in a subcommand, so
// that the library's GOMAXPROCS-wide steps (final scoring, text output)
// keep to N cores too; -workers 0 leaves it alone. Not parallel: it swaps
// setProcs.
func TestWorkersLimitProcs(t *testing.T) {
	var calls []int
	setProcs = func(n int) int {
		calls = append(calls, n)
		return runtime.GOMAXPROCS(n)
	}
	defer func() { setProcs = runtime.GOMAXPROCS }()
	before := runtime.GOMAXPROCS(0)
	emb := filepath.Join(t.TempDir(), "emb.tsv")
	smallIntEmbeddings(t, emb, 20, 3)
	for _, c := range []struct {
		args []string
		want []int
	}{
		{[]string{"-epochs", "1", "-dim", "4", "-quiet", "-workers", "1"}, []int{1, before}},
		{[]string{"-epochs", "1", "-dim", "4", "-quiet"}, nil},
		{[]string{"neighbors", "-emb", emb, "-node", "v3", "-workers", "1"}, []int{1, before}},
	} {
		calls = nil
		if code, _, stderr := runCLI(t, c.args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		if !slices.Equal(calls, c.want) {
			t.Errorf("%v: GOMAXPROCS set to %v, want %v", c.args, calls, c.want)
		}
		if got := runtime.GOMAXPROCS(0); got != before {
			t.Errorf("%v: GOMAXPROCS is %d after the run, want %d", c.args, got, before)
		}
	}
}

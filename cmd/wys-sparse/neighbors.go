package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/knn"
)

// Neighbour rankings.
const (
	byOut = "out" // v ranked by L_u·R_v: the arcs u→v the model scores highest
	byIn  = "in"  // v ranked by L_v·R_u: the arcs v→u
)

const neighborsUsage = `wys-sparse neighbors prints the top-k nodes for node ids, by the model's
score, exactly (every row is scored).

Usage:
  wys-sparse neighbors -emb emb.npy -node 42 -k 10
  wys-sparse neighbors -emb emb.npy < ids.txt     one id per line

Output: "id<TAB>score" lines, best first (ties: file order); with more
than one query, each block starts with "# neighbors of ID". -format json
prints one JSON object per query instead. The query node itself is left
out unless -include-self.

Flags:
`

// nodeList collects repeated -node flags.
type nodeList []string

func (l *nodeList) String() string     { return strings.Join(*l, ",") }
func (l *nodeList) Set(s string) error { *l = append(*l, s); return nil }

// neighborsFlags is what one neighbors run does.
type neighborsFlags struct {
	emb          embFlags
	nodes        nodeList
	k, workers   int
	by, format   string
	self, quiet  bool
	queries, tab []float32
	width        int
	e            *graphio.Embeddings
	note         io.Writer // stderr, or io.Discard with -quiet
}

var neighborsCommand = &subcommand{name: "neighbors", usage: neighborsUsage, flags: func(fs *flag.FlagSet) func(context.Context, io.Writer, io.Writer) error {
	c := &neighborsFlags{}
	c.emb.bind(fs)
	fs.Var(&c.nodes, "node", "node `ID` to query (repeat for several; none: read ids from standard input, one per line, blank and '#' lines skipped)")
	fs.IntVar(&c.k, "k", 10, "`K`, the number of neighbours per query")
	fs.StringVar(&c.by, "by", "", "`RANKING`: out (L_u·R_v), in (L_v·R_u), sym (L_u·R_v + L_v·R_u: both arcs, for undirected graphs), dot (Y_u·Y_v) or cosine (of the whole rows) (default: out for [L | R], dot for a single table)")
	fs.StringVar(&c.format, "format", "text", "`FORMAT` of the output: text (id<TAB>score) or json (one object per query)")
	fs.BoolVar(&c.self, "include-self", false, "keep the query node in its own list")
	fs.IntVar(&c.workers, "workers", 0, "`N` goroutines (0: all cores); the output does not depend on it")
	fs.BoolVar(&c.quiet, "quiet", false, "no note of the file read on stderr")
	return c.run
}}

// check refuses bad flags before any file is read.
func (c *neighborsFlags) check() error {
	if err := c.emb.check(); err != nil {
		return err
	}
	if c.k < 1 {
		return usagef("-k %d: want at least 1", c.k)
	}
	if c.workers < 0 {
		return usagef("-workers %d: want 0 (all cores) or more", c.workers)
	}
	if ok, want := oneOf(c.by, byOut, byIn, scoreSym, scoreDot, scoreCosine); !ok && c.by != "" {
		return usagef("-by %q: want %s", c.by, want)
	}
	if ok, want := oneOf(c.format, "text", "json"); !ok {
		return usagef("-format %q: want %s", c.format, want)
	}
	return nil
}

func (c *neighborsFlags) run(ctx context.Context, stdout, stderr io.Writer) error {
	if err := c.check(); err != nil {
		return err
	}
	note := stderr
	if c.quiet {
		note = io.Discard
	}
	c.note = note
	t0 := time.Now()
	e, err := c.emb.read(ctx, note)
	if err != nil {
		return err
	}
	if err := c.prepare(e); err != nil {
		return err
	}
	from := ""
	if len(c.nodes) == 0 {
		from = "; reading node ids from standard input, one per line"
	}
	fmt.Fprintf(note, "ready in %.1fs: top %d by %s%s\n", time.Since(t0).Seconds(), c.k, c.by, from)
	if others := e.N() - 1; !c.self && c.k > others {
		fmt.Fprintf(note, "note: -k %d exceeds the %d other nodes of %s: each list holds all %d\n", c.k, others, c.emb.path, others)
	} else if c.self && c.k > e.N() {
		fmt.Fprintf(note, "note: -k %d exceeds the %d nodes of %s: each list holds all %d\n", c.k, e.N(), c.emb.path, e.N())
	}
	if len(c.nodes) > 0 {
		rows := make([]int, len(c.nodes))
		for i, id := range c.nodes {
			id = strings.TrimSpace(id) // as the ids read from standard input
			r, ok := e.IDs.Row(id)
			if !ok {
				return fmt.Errorf("node id %q has no vector in %s: give an id of the file (its first column, or a line of its .ids.txt)", id, c.emb.path)
			}
			rows[i] = r
		}
		return c.answer(ctx, stdout, rows, len(rows) > 1)
	}
	return c.fromStdin(ctx, stdout, stderr)
}

// prepare chooses the ranking and sets the query and table matrices.
func (c *neighborsFlags) prepare(e *graphio.Embeddings) error {
	c.e = e
	switch {
	case c.by == "" && e.Halves:
		c.by = byOut
	case c.by == "":
		c.by = scoreDot
	case (c.by == byOut || c.by == byIn || c.by == scoreSym) && !e.Halves:
		return usagef("-by %s needs [L | R] embeddings, and %s holds a single table: use -by dot or cosine, or -layout halves for a wys file without its marker", c.by, c.emb.path)
	}
	c.width = e.Dim
	switch c.by {
	case byOut, byIn:
		l, r := e.Sides()
		c.queries, c.tab, c.width = l, r, e.Dim/2
		if c.by == byIn {
			c.queries, c.tab = r, l
		}
	case scoreSym:
		c.queries, c.tab = e.Y, swapHalves(e.Y, e.Dim)
	case scoreCosine:
		u := knn.Normalized(e.Y, e.Dim)
		c.queries, c.tab = u, u
	default:
		c.queries, c.tab = e.Y, e.Y
	}
	return nil
}

// fromStdin answers one query per line of standard input as it arrives,
// so that the command serves interactive use; an unknown id is reported
// on stderr (and with -format json answered by a line with an "error",
// so that output lines stay one per query) and the run fails at the end.
func (c *neighborsFlags) fromStdin(ctx context.Context, stdout, stderr io.Writer) error {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	unknown := 0
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case line, ok := <-lines:
			if !ok {
				if unknown > 0 {
					return fmt.Errorf("%d of the ids read had no vector in %s", unknown, c.emb.path)
				}
				return nil
			}
			id := strings.TrimSpace(line)
			if id == "" || strings.HasPrefix(id, "#") { // a blank or comment line
				continue
			}
			r, found := c.e.IDs.Row(id)
			if !found {
				msg := fmt.Sprintf("node id %q has no vector in %s", id, c.emb.path)
				fmt.Fprintf(stderr, "wys-sparse neighbors: %s\n", msg)
				unknown++
				if c.format == "json" {
					line, _ := json.Marshal(struct {
						Node  string `json:"node"`
						Error string `json:"error"`
					}{id, msg})
					if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
						return err
					}
				}
				continue
			}
			if err := c.answer(ctx, stdout, []int{r}, true); err != nil {
				return err
			}
		}
	}
}

// neighborJSON is one neighbour in -format json.
type neighborJSON struct {
	ID    string      `json:"id"`
	Score json.Number `json:"score"`
}

// answer searches the given rows and prints their neighbours.
func (c *neighborsFlags) answer(ctx context.Context, stdout io.Writer, rows []int, headers bool) error {
	q := make([]float32, 0, len(rows)*c.width)
	var exclude []int
	for _, r := range rows {
		v := c.queries[r*c.width : (r+1)*c.width]
		if !slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
			fmt.Fprintf(c.note, "note: the query vector of %q is zero: every score is 0, and its neighbours are the file's first rows\n", c.e.IDs.Name(r))
		}
		q = append(q, v...)
	}
	if !c.self {
		exclude = rows
	}
	res, err := knn.Search(ctx, c.tab, c.width, q, exclude, c.k, c.workers)
	if err != nil {
		return err
	}
	var b strings.Builder
	for i, list := range res {
		id := c.e.IDs.Name(rows[i])
		if c.format == "json" {
			out := struct {
				Node      string         `json:"node"`
				By        string         `json:"by"`
				Neighbors []neighborJSON `json:"neighbors"`
			}{id, c.by, make([]neighborJSON, len(list))}
			for j, nb := range list {
				out.Neighbors[j] = neighborJSON{c.e.IDs.Name(nb.Row), json.Number(formatScore(nb.Score))}
			}
			line, _ := json.Marshal(out)
			b.Write(line)
			b.WriteByte('\n')
			continue
		}
		if headers {
			fmt.Fprintf(&b, "# neighbors of %s\n", id)
		}
		for _, nb := range list {
			fmt.Fprintf(&b, "%s\t%s\n", c.e.IDs.Name(nb.Row), formatScore(nb.Score))
		}
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}

// formatScore writes a float32 score in the fewest digits that read back
// to it.
func formatScore(s float32) string { return strconv.FormatFloat(float64(s), 'g', -1, 32) }

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wys-project/wys/internal/interrupt"
	"github.com/wys-project/wys/internal/outcheck"
	"github.com/wys-project/wys/pipeline/graphio"
)

// subcommand is one of the commands that work on an embedding file
// (wys-sparse eval, wys-sparse neighbors).
type subcommand struct {
	name  string
	usage string // the text -help prints before the flags
	// flags binds the command's flags and returns the function that does
	// the work once they are parsed.
	flags func(fs *flag.FlagSet) func(ctx context.Context, stdout, stderr io.Writer) error
}

// subcommands maps a first argument to its command.
var subcommands = map[string]*subcommand{
	"eval":      evalCommand,
	"neighbors": neighborsCommand,
}

// runSub is run for a subcommand: the same exit codes and error style as
// the main command (0 ok, 1 failure, 2 usage, 130 interrupted; -help on
// stdout).
func runSub(ctx context.Context, sc *subcommand, args []string, stdout, stderr io.Writer) int {
	prefix := "wys-sparse " + sc.name
	fs := flag.NewFlagSet(prefix, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // its error is printed below, on one line
	fs.Usage = func() {}
	work := sc.flags(fs)
	err := fs.Parse(args)
	if err == nil && fs.NArg() == 1 && fs.Arg(0) == "help" { // wys-sparse eval help
		err = flag.ErrHelp
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, sc.usage)
		printFlags(stdout, fs)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v; run '%s -help' for the flags\n", prefix, err, prefix)
		return exitUsage
	}
	if arg := fs.Arg(0); fs.NArg() > 0 && sc.name == "neighbors" && !exists(arg) {
		err = usagef("unexpected argument %q: give the node with -node %s (repeat -node for several)", arg, arg)
	} else if fs.NArg() > 0 {
		err = argumentError(arg, "-emb", "embeddings", false)
	} else {
		if f := fs.Lookup("workers"); f != nil {
			n, _ := strconv.Atoi(f.Value.String())
			defer limitProcs(n)()
		}
		err = work(ctx, stdout, stderr)
	}
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
		return exitUsage
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		fmt.Fprintf(stderr, "%s: %s; no output files were left half-written\n", prefix, interrupt.Word(ctx))
		return interrupt.Code(ctx)
	default:
		fmt.Fprintf(stderr, "%s: %v\n", prefix, trimPackage(err.Error()))
		return exitFailure
	}
}

// embFlags are the flags that name an embedding file and how to read it.
type embFlags struct {
	path, format, layout string
}

func (e *embFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&e.path, "emb", "", "embedding `FILE`: word2vec text (.txt, .emb, gensim, node2vec, ProNE), .tsv, .csv, or .npy with its .ids.txt (rows 0..N-1 without one); text plain or .gz")
	fs.StringVar(&e.format, "emb-format", "", "`FORMAT` of -emb: w2v, npy, tsv or csv (default: from the -emb extension)")
	fs.StringVar(&e.layout, "layout", "auto", "`LAYOUT`: auto ([L | R] when the FILE.wys.json marker that wys-sparse writes is present, else a single table), halves (a wys file without its marker) or single")
}

// check refuses a missing -emb or a bad -emb-format or -layout.
func (e *embFlags) check() error {
	if e.path == "" {
		return usagef("-emb FILE is required: the embeddings to use")
	}
	if e.path == "-" {
		return usagef("-emb -: embeddings are read from a file, not standard input (a .npy's ids and the [L | R] marker are files beside it); save them to a file and name it")
	}
	if err := outcheck.Format("-emb-format", e.format); err != nil {
		return usage(err)
	}
	if e.layout != "auto" && e.layout != graphio.LayoutHalves && e.layout != graphio.LayoutSingle {
		return usagef("-layout %q: want auto, halves or single", e.layout)
	}
	if _, err := graphio.ResolveFormat(e.format, e.path); err != nil {
		return usage(outcheck.NameError("wys-sparse", "-emb", e.path, "-emb-format", err))
	}
	return nil
}

// read reads the embeddings and prints what they are.
func (e *embFlags) read(ctx context.Context, stdout io.Writer) (*graphio.Embeddings, error) {
	layout := e.layout
	if layout == "auto" {
		layout = graphio.LayoutAuto
	}
	emb, err := graphio.ReadEmbeddings(ctx, e.path, graphio.ReadOptions{Format: e.format, Layout: layout})
	if err != nil {
		return nil, err
	}
	byRow := ""
	if emb.ByRow {
		byRow = "; no " + filepath.Base(graphio.IDsPath(e.path)) + ": row i is node i"
	}
	fmt.Fprintf(stdout, "read %d x %d embeddings from %s: %s%s\n", emb.N(), emb.Dim, e.path, layoutNote(emb, e.layout, e.path), byRow)
	if emb.Header != "" {
		fmt.Fprintf(stdout, "skipped line 1 of %s as column names: %.80q\n", e.path, emb.Header)
	}
	return emb, nil
}

// layoutNote says which layout the embeddings have and why.
func layoutNote(e *graphio.Embeddings, flag, path string) string {
	switch {
	case e.Halves && flag == "auto":
		return "[L | R] (wys marker " + filepath.Base(graphio.MarkerPath(path)) + ")"
	case e.Halves:
		return "[L | R] (-layout halves)"
	case flag == "auto":
		return "a single table (no wys marker beside it)"
	}
	return "a single table (-layout single)"
}

// oneOf reports whether s is one of the choices, and formats them.
func oneOf(s string, choices ...string) (bool, string) {
	for _, c := range choices {
		if s == c {
			return true, ""
		}
	}
	return false, strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

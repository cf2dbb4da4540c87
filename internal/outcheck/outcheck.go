// Package outcheck holds the checks of an embedding file's name and
// format flags that wys-sparse and wys-beam share, so that both commands
// refuse the same -out and -format before any work, in the same words,
// and the messages both print: the note on a model that did not fit its
// graph, a refused setting under its flag, the learned Q (FormatQ), the
// load notes on columns and on ids read as tokens.
// Its errors are one line that names the flag, the file and the fix, as
// a command prints them after its name; the commands turn them into
// usage errors (exit 2).
package outcheck

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/wys-project/wys/internal/atomicfile"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
)

// NoOut is the note a command prints when a run on a whole graph has no
// -out: its work would be lost, which is better said before it starts.
const NoOut = "no -out FILE: the embeddings will not be written (add -out emb.npy, .txt, .tsv or .csv)"

// Format refuses a format flag (formatFlag, e.g. -format) whose value is
// not one of the graphio formats; "" is the default (from the name).
func Format(formatFlag, format string) error {
	if format != "" && !graphio.KnownFormat(format) {
		return fmt.Errorf("%s %q: want %s", formatFlag, format, graphio.FormatList)
	}
	return nil
}

// Embeddings refuses an -out file name under which tool cannot write the
// embeddings in format ("" means the format the name gives,
// graphio.FormatFromPath): an unknown format, a name that promises a
// format wys does not handle (.bin, .parquet, …), also with an explicit
// format (gensim would read a .bin as binary), an explicit format that
// the name contradicts (the readers go by the name), and a
// gzip-compressed .npy, which numpy.load cannot read.
func Embeddings(tool, out, format string) error {
	if err := Format("-format", format); err != nil {
		return err
	}
	format, err := graphio.ResolveFormat(format, out)
	if err != nil {
		return NameError(tool, "-out", out, "-format", err)
	}
	named, err := graphio.FormatFromPath(out)
	var fe *graphio.FormatNameError
	switch {
	case errors.As(err, &fe): // an explicit format, else ResolveFormat refused the name
		return fmt.Errorf("-format %s -out %s: the name promises %s, as gensim and other tools would read it; name the file %s", format, out, fe.Promises, Rename(out, format))
	case err == nil && named != format:
		return fmt.Errorf("-format %s -out %s: eval, neighbors and other tools go by the name and would read it as %s; name the file %s", format, out, named, Rename(out, format))
	}
	if format == graphio.FormatNPY && isGz(out) {
		return fmt.Errorf("-out %s: numpy.load cannot read a gzip-compressed .npy; drop the .gz, or write word2vec text (.txt.gz), TSV (.tsv.gz) or CSV (.csv.gz)", out)
	}
	return nil
}

// IDs refuses node ids that the embeddings cannot be written with to out
// in format (graphio.CheckIDs: white space in word2vec text), once the
// input is read and before training; no -out ("") writes nothing.
func IDs(out, format string, ids *pipeline.NodeIDs) error {
	if out == "" {
		return nil
	}
	format, _ = graphio.ResolveFormat(format, out) // Embeddings checked it
	if err := graphio.CheckIDs(out, format, ids); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "graphio: "))
	}
	return nil
}

// Rename returns path with the extension of format in place of its own:
// e.npy as TSV is e.tsv, e.txt.gz as NPY is e.npy (NumPy files are not
// compressed) and as CSV e.csv.gz.
func Rename(path, format string) string {
	base, gz := path, isGz(path)
	if gz {
		base = base[:len(base)-len(".gz")]
	}
	base = strings.TrimSuffix(base, filepath.Ext(base))
	ext := map[string]string{graphio.FormatNPY: ".npy", graphio.FormatTSV: ".tsv", graphio.FormatCSV: ".csv"}[format]
	if ext == "" {
		ext = ".txt"
	}
	if gz && format != graphio.FormatNPY {
		ext += ".gz"
	}
	return base + ext
}

// NameError turns graphio.FormatFromPath's refusal of the file name given
// to flag (-out, or an embedding input such as eval's -emb, whose name
// formatFlag overrides) into tool's message; any other error is returned
// as it is. An output's format flag does not override a name that
// promises another format (Embeddings refuses the pair), so for -out the
// message names the files only.
func NameError(tool, flag, path, formatFlag string, err error) error {
	var fe *graphio.FormatNameError
	if !errors.As(err, &fe) {
		return err
	}
	if flag == "-out" {
		return fmt.Errorf("%s %s: the name promises %s, which %s does not write; %s", flag, path, fe.Promises, tool, strings.TrimSuffix(graphio.FormatNames, ", or give the format explicitly"))
	}
	if fe.Hint != "" {
		return fmt.Errorf("%s %s: the name promises %s, which %s does not read; %s", flag, path, fe.Promises, tool, fe.Hint)
	}
	return fmt.Errorf("%s %s: the name promises %s, which %s neither writes nor reads; %s (%s)", flag, path, fe.Promises, tool, graphio.FormatNames, formatFlag)
}

// isGz reports whether path ends in .gz, the compressed text that
// graphio.WriteEmbeddings writes.
func isGz(path string) bool { return strings.EqualFold(filepath.Ext(path), ".gz") }

// A File is a file that a flag names: Flag ("-out", "-out's marker")
// and Path ("" when the flag is not given).
type File struct{ Flag, Path string }

// EmbeddingFiles returns the files that writing the embeddings to out in
// format writes: out, its marker and, for .npy, its .ids.txt.
func EmbeddingFiles(out, format string) []File {
	if out == "" {
		return nil
	}
	files := []File{{"-out", out}, {"-out's marker", graphio.MarkerPath(out)}}
	if f, _ := graphio.ResolveFormat(format, out); f == graphio.FormatNPY {
		files = append(files, File{"-out's ids", graphio.IDsPath(out)})
	}
	return files
}

// Wrote is the line a command prints once it has written n x width
// embeddings [L | R] to out in format ("" is the name's format): a .npy
// names its ids file, and the line says how an arc is scored.
func Wrote(n, width int, out, format string) string {
	note := ""
	if f, _ := graphio.ResolveFormat(format, out); f == graphio.FormatNPY {
		note = " (ids in " + graphio.IDsPath(out) + ")"
	}
	return fmt.Sprintf("wrote %d x %d embeddings [L | R] to %s%s; score of arc u→v = L_u·R_v", n, width, out, note)
}

// SplitFiles returns the files of a split directory dir (those
// graphio.SplitFileNames names) under flag, or none for dir "": the
// inputs of -split, or the outputs of -save-split.
func SplitFiles(flag, dir string) []File {
	if dir == "" {
		return nil
	}
	var files []File
	for _, n := range graphio.SplitFileNames() {
		files = append(files, File{flag, filepath.Join(dir, n)})
	}
	return files
}

// EmbeddingInputs returns the files that reading the embeddings of path
// (given to flag, e.g. -emb) reads: path, its marker and its .ids.txt.
func EmbeddingInputs(flag, path string) []File {
	if path == "" || path == "-" {
		return nil
	}
	return []File{{flag, path}, {flag + "'s marker", graphio.MarkerPath(path)}, {flag + "'s ids", graphio.IDsPath(path)}}
}

// Collisions refuses an output that is not a regular file (a device such
// as /dev/stdout, a named pipe: atomicfile.Target) or that would replace
// one of the inputs or another output. Paths are compared as the files
// they name, through symbolic links; an input "-" (standard input) names
// no file.
func Collisions(inputs, outputs []File) error {
	in := map[string]string{} // absolute path → flag
	for _, f := range inputs {
		if f.Path != "" && f.Path != "-" {
			in[absTarget(f.Path)] = f.Flag
		}
	}
	written := map[string]string{}
	for _, o := range outputs {
		if o.Path == "" {
			continue
		}
		if _, err := atomicfile.Target(o.Path); err != nil {
			return fmt.Errorf("%s: %v", o.Flag, err)
		}
		abs := absTarget(o.Path)
		if flag, ok := in[abs]; ok {
			return fmt.Errorf("%s %s is the input %s: writing it would replace it; give the output another name", o.Flag, o.Path, flag)
		}
		if other, ok := written[abs]; ok {
			return fmt.Errorf("%s and %s would both write %s; give each output its own name", other, o.Flag, o.Path)
		}
		written[abs] = o.Flag
	}
	return nil
}

// absTarget returns the absolute path of the file that p names, through
// symbolic links (p itself when it does not exist).
func absTarget(p string) string {
	if t, err := atomicfile.Target(p); err == nil {
		p = t
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return abs
}

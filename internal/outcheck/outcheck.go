// Package outcheck holds the checks of an embedding file's name and
// format flags that wys-sparse and wys-beam share, so that both commands
// refuse the same -out and -format before any work, in the same words.
// Its errors are one line that names the flag, the file and the fix, as
// a command prints them after its name; the commands turn them into
// usage errors (exit 2).
package outcheck

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

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
// format wys does not handle (.bin, .parquet, …), an explicit format that
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
	if named, err := graphio.FormatFromPath(out); err == nil && named != format {
		return fmt.Errorf("-format %s -out %s: eval, neighbors and other tools go by the name and would read it as %s; name the file %s", format, out, named, Rename(out, format))
	}
	if format == graphio.FormatNPY && isGz(out) {
		return fmt.Errorf("-out %s: numpy.load cannot read a gzip-compressed .npy; drop the .gz, or write word2vec text (.txt.gz), TSV (.tsv.gz) or CSV (.csv.gz)", out)
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
// to flag (-out, or an embedding input such as eval's -emb; formatFlag
// would override the name) into tool's message; any other error is
// returned as it is.
func NameError(tool, flag, path, formatFlag string, err error) error {
	var fe *graphio.FormatNameError
	if !errors.As(err, &fe) {
		return err
	}
	if fe.Hint != "" && flag != "-out" {
		return fmt.Errorf("%s %s: the name promises %s, which %s does not read; %s", flag, path, fe.Promises, tool, fe.Hint)
	}
	return fmt.Errorf("%s %s: the name promises %s, which %s neither writes nor reads; %s (%s)", flag, path, fe.Promises, tool, graphio.FormatNames, formatFlag)
}

// isGz reports whether path ends in .gz, the compressed text that
// graphio.WriteEmbeddings writes.
func isGz(path string) bool { return strings.EqualFold(filepath.Ext(path), ".gz") }

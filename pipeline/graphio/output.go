package graphio

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unicode"

	"github.com/wys-project/wys/internal/atomicfile"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// Embedding formats.
const (
	FormatWord2Vec = "w2v" // text: header "N D", then "id x1 … xD"
	FormatNPY      = "npy" // N x D float32 .npy, ids in a sibling .ids.txt
	FormatTSV      = "tsv" // "id<TAB>x1<TAB>…<TAB>xD", no header
	FormatCSV      = "csv" // "id,x1,…,xD", no header
)

// FormatList names the embedding formats, for messages.
const FormatList = FormatWord2Vec + ", " + FormatNPY + ", " + FormatTSV + " or " + FormatCSV

// KnownFormat reports whether f is one of the Format constants.
func KnownFormat(f string) bool {
	return f == FormatWord2Vec || f == FormatNPY || f == FormatTSV || f == FormatCSV
}

// otherFormats are file name extensions that promise a format wys does
// neither write nor read: guessed as word2vec text, such a file would be
// text under a name that its readers take for something else.
var otherFormats = map[string]string{
	".bin": "binary word2vec", ".parquet": "Parquet", ".h5": "HDF5", ".hdf5": "HDF5",
	".pkl": "a Python pickle", ".pickle": "a Python pickle", ".npz": "a NumPy archive",
	".json": "JSON", ".feather": "Arrow", ".arrow": "Arrow", ".mat": "a MATLAB file",
	".xlsx": "an Excel workbook", ".kv": "gensim's native KeyedVectors", ".model": "a gensim model",
}

// otherFormatHints say how to turn a file of otherFormats into one wys
// reads.
var otherFormatHints = map[string]string{
	".bin":   "gensim re-saves binary word2vec as text: KeyedVectors.load_word2vec_format(path, binary=True).save_word2vec_format(out, binary=False)",
	".kv":    "gensim writes it as word2vec text: KeyedVectors.load(path).save_word2vec_format(out)",
	".model": "gensim writes its vectors as word2vec text: Word2Vec.load(path).wv.save_word2vec_format(out)",
	".npz":   "numpy writes one array of it as .npy: numpy.save(out, numpy.load(path)['arr_0']), with the array's name for arr_0",
}

// FormatFromPath guesses the embedding format from a file name: .npy is
// NumPy, .tsv TSV, .csv CSV, anything else word2vec text (.txt, .emb,
// .vec, …); a trailing .gz (which WriteEmbeddings compresses) is looked
// through. A name whose extension promises a format wys does not handle
// (.bin, .parquet, .h5, .pkl, .npz, .json, …) is an error that names it,
// rather than word2vec text under a misleading name; an explicit format
// still writes or reads such a file.
func FormatFromPath(path string) (string, error) {
	ext := strings.ToLower(filepath.Ext(trimGz(path)))
	switch ext {
	case ".npy":
		return FormatNPY, nil
	case ".tsv":
		return FormatTSV, nil
	case ".csv":
		return FormatCSV, nil
	}
	if what, ok := otherFormats[ext]; ok {
		return "", &FormatNameError{Path: path, Promises: what, Hint: otherFormatHints[ext]}
	}
	return FormatWord2Vec, nil
}

// ResolveFormat returns format, or when it is "" the format that
// FormatFromPath names for path (with its refusal of a misleading name).
func ResolveFormat(format, path string) (string, error) {
	if format != "" {
		return format, nil
	}
	return FormatFromPath(path)
}

// FormatNameError is FormatFromPath's error for a name whose extension
// promises a format that wys does not handle.
type FormatNameError struct {
	Path     string
	Promises string // the format the name promises, as a phrase
	Hint     string // how to turn such a file into one wys reads, or ""
}

func (e *FormatNameError) Error() string {
	hint := ""
	if e.Hint != "" {
		hint = " (" + e.Hint + ")"
	}
	return fmt.Sprintf("graphio: %s: the name promises %s%s, which wys neither writes nor reads; %s", e.Path, e.Promises, hint, FormatNames)
}

// FormatNames says which file names give which embedding format.
const FormatNames = "name the file .txt, .emb or .vec (word2vec text), .tsv or .csv (each plain or .gz), or .npy, or give the format explicitly"

// isGz reports whether path names a gzip file (".gz").
func isGz(path string) bool { return strings.EqualFold(filepath.Ext(path), ".gz") }

// trimGz removes a trailing ".gz".
func trimGz(path string) string {
	if isGz(path) {
		return path[:len(path)-3]
	}
	return path
}

// vector appends row i of Y = [L | R] to buf as text.
func appendVector(buf []byte, res *pipeline.Result, i int, sep byte) []byte {
	h := res.Half
	for _, side := range [][]float32{res.L, res.R} {
		for _, x := range side[i*h : i*h+h] {
			buf = append(buf, sep)
			buf = strconv.AppendFloat(buf, float64(x), 'g', -1, 32)
		}
	}
	return buf
}

// WriteEmbeddings writes Y = [L | R] of res with the original node ids (nil
// ids name the rows 0..N−1) in
// the given format (see the Format constants; "" means FormatFromPath(path),
// as in ReadEmbeddings), atomically. For FormatNPY
// the ids go to path with ".ids.txt" in place of ".npy", one per line in
// row order. The score of an arc u→v is L_u·R_v: the first d/2 columns
// of u's row times the last d/2 columns of v's row. A small JSON marker
// at MarkerPath(path) records this layout, and the file's SHA-256, for
// ReadEmbeddings; the
// embedding file itself is exactly what numpy and gensim read. It checks
// ctx every checkRows rows and, when cancelled, returns its error and
// leaves no file (1M rows of d = 128 take about 15 s as text, 3 s as .npy).
// A result it cannot write as a table ReadEmbeddings reads back (nil,
// empty, L or R of the wrong length, a NaN or infinite entry) is an
// error, before any file is touched.
func WriteEmbeddings(ctx context.Context, path, format string, res *pipeline.Result, ids *pipeline.NodeIDs) error {
	format, err := ResolveFormat(format, path)
	if err != nil {
		return err
	}
	if err := checkResult(path, res); err != nil {
		return err
	}
	if err := CheckIDs(path, format, ids); err != nil {
		return err
	}
	h := sha256.New()
	if err := writeEmbeddings(ctx, path, format, res, ids, h); err != nil {
		return err
	}
	return writeMarker(path, res.N, 2*res.Half, hex.EncodeToString(h.Sum(nil)))
}

// checkResult refuses a result that WriteEmbeddings cannot write as a
// table ReadEmbeddings reads back: nil, without rows or columns, with L
// or R not N x Half, or holding a NaN or infinite entry (a diverged run;
// the error wraps pipeline.ErrNotFinite).
func checkResult(path string, res *pipeline.Result) error {
	switch {
	case res == nil:
		return fmt.Errorf("graphio: %s: no result (nil) to write", path)
	case res.N <= 0 || res.Half <= 0:
		return fmt.Errorf("graphio: %s: a result of %d rows and %d columns per side: nothing to write", path, res.N, res.Half)
	case len(res.L) != res.N*res.Half || len(res.R) != res.N*res.Half:
		return fmt.Errorf("graphio: %s: L holds %d and R %d numbers, want N·Half = %d each", path, len(res.L), len(res.R), res.N*res.Half)
	}
	for side, y := range [][]float32{res.L, res.R} {
		for i, x := range y {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("graphio: %s: %s[%d][%d] is %v: embeddings %w (a diverged run) are not written", path, [2]string{"L", "R"}[side], i/res.Half, i%res.Half, x, pipeline.ErrNotFinite)
			}
		}
	}
	return nil
}

// CheckIDs returns an error when a node id cannot be written to path in
// format and read back as one id: word2vec text is split at white space
// (gensim splits at spaces), TSV at tabs, and the ids file beside a .npy
// file holds one id per line; CSV quotes what needs it. Commands call it
// before training, once the ids are known, and WriteEmbeddings again.
func CheckIDs(path, format string, ids *pipeline.NodeIDs) error {
	if ids == nil || ids.Numeric() || format == FormatCSV {
		return nil
	}
	bad, what, instead := isLineBreak, "a line break", ".csv"
	switch format {
	case FormatWord2Vec:
		bad, what, instead = unicode.IsSpace, "white space, which word2vec text cannot carry (its readers split lines at spaces)", ".tsv, .csv or .npy (ids in a .ids.txt file)"
	case FormatTSV:
		bad, what, instead = func(r rune) bool { return r == '\t' || isLineBreak(r) }, "a tab or a line break, which TSV cannot carry", ".csv"
	}
	for i := range ids.Len() {
		if name := ids.Name(i); strings.IndexFunc(name, bad) >= 0 {
			return fmt.Errorf("graphio: %s: node id %q holds %s; write %s instead", path, name, what, instead)
		}
	}
	return nil
}

func isLineBreak(r rune) bool { return r == '\n' || r == '\r' }

// checkRows is how many rows WriteEmbeddings writes between looks at its
// context: 4,096 rows of d = 128 are about 60 ms as text.
const checkRows = 4096

// cancelled returns ctx's error at every checkRows-th row i, else nil.
func cancelled(ctx context.Context, i int) error {
	if i%checkRows == 0 {
		return ctx.Err()
	}
	return nil
}

// writeEmbeddings writes the embedding file (and for .npy the ids),
// adding the embedding file's bytes to sum.
func writeEmbeddings(ctx context.Context, path, format string, res *pipeline.Result, ids *pipeline.NodeIDs, sum io.Writer) error {
	if ids == nil {
		ids = pipeline.IdentityIDs(res.N)
	}
	if ids.Len() != res.N {
		return fmt.Errorf("graphio: %d ids for %d embeddings", ids.Len(), res.N)
	}
	d := 2 * res.Half
	switch format {
	case FormatWord2Vec, FormatTSV, FormatCSV:
		return atomicfile.Write(path, func(w io.Writer) error {
			w = io.MultiWriter(w, sum)
			if isGz(path) {
				// gzip's header carries no time, so the bytes depend on
				// the embeddings only. BestSpeed: the default level took
				// 2.6 min for 1M rows of d = 128 (1.7 GB of text), 5x
				// BestSpeed's time for a file 10% smaller.
				zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
				if err != nil {
					return err
				}
				if err := writeText(ctx, zw, format, res, ids); err != nil {
					return err
				}
				return zw.Close()
			}
			return writeText(ctx, w, format, res, ids)
		})
	case FormatNPY:
		if isGz(path) {
			return fmt.Errorf("graphio: %s: numpy.load cannot read a gzip-compressed .npy; write %s, or word2vec text as .txt.gz", path, trimGz(path))
		}
		// The array and its ids are renamed into place together.
		return atomicfile.WriteAll([]string{path, IDsPath(path)}, func(file int, w io.Writer) error {
			if file == 1 {
				for i := 0; i < res.N; i++ {
					if err := cancelled(ctx, i); err != nil {
						return err
					}
					if _, err := fmt.Fprintln(w, ids.Name(i)); err != nil {
						return err
					}
				}
				return nil
			}
			w = io.MultiWriter(w, sum)
			if err := writeNPYHeader(w, "<f4", res.N, d); err != nil {
				return err
			}
			row := make([]byte, 4*d)
			h := res.Half
			for i := 0; i < res.N; i++ {
				if err := cancelled(ctx, i); err != nil {
					return err
				}
				for j := 0; j < h; j++ {
					binary.LittleEndian.PutUint32(row[4*j:], math.Float32bits(res.L[i*h+j]))
					binary.LittleEndian.PutUint32(row[4*(h+j):], math.Float32bits(res.R[i*h+j]))
				}
				if _, err := w.Write(row); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return fmt.Errorf("graphio: unknown embedding format %q (want %s)", format, FormatList)
}

// writeText writes word2vec text (a header "N D", then "id x1 … xD"),
// TSV ("id<TAB>x1…", no header) or CSV ("id,x1,…", no header) to w. The
// rows are formatted checkRows at a time on up to GOMAXPROCS goroutines
// and written in order (formatting the floats is most of the time: 14 s
// for 1M rows of d = 128 on one core).
func writeText(ctx context.Context, w io.Writer, format string, res *pipeline.Result, ids *pipeline.NodeIDs) error {
	d := 2 * res.Half
	sep := byte(' ')
	if format == FormatTSV {
		sep = '\t'
	} else if format == FormatCSV {
		sep = ','
	} else if _, err := fmt.Fprintf(w, "%d %d\n", res.N, d); err != nil {
		return err
	}
	chunks := (res.N + checkRows - 1) / checkRows
	bufs := make([][]byte, max(1, min(runtime.GOMAXPROCS(0), chunks)))
	for first := 0; first < chunks; first += len(bufs) {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(len(bufs), chunks-first)
		// ctx is checked above, once per window.
		_ = sparse.ParallelFor(context.Background(), n, n, func(k int) {
			lo := (first + k) * checkRows
			bufs[k] = appendRows(bufs[k][:0], format, sep, res, ids, lo, min(lo+checkRows, res.N))
		})
		for _, b := range bufs[:n] {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendRows appends the text lines of rows lo..hi−1 to buf.
func appendRows(buf []byte, format string, sep byte, res *pipeline.Result, ids *pipeline.NodeIDs, lo, hi int) []byte {
	for i := lo; i < hi; i++ {
		id := ids.Name(i)
		if format == FormatCSV {
			id = csvField(id)
		}
		buf = append(buf, id...)
		buf = appendVector(buf, res, i, sep)
		buf = append(buf, '\n')
	}
	return buf
}

// IDsPath returns the ids file written beside a .npy embedding file.
func IDsPath(npyPath string) string {
	return strings.TrimSuffix(npyPath, filepath.Ext(npyPath)) + ".ids.txt"
}

// writeNPYHeader writes a NumPy format 1.0 header for a C-ordered 2-D array.
func writeNPYHeader(w io.Writer, descr string, rows, cols int) error {
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }", descr, rows, cols)
	// Pad with spaces so that magic (6) + version (2) + length (2) + header
	// + newline is a multiple of 64 bytes.
	for (10+len(header)+1)%64 != 0 {
		header += " "
	}
	header += "\n"
	if len(header) > math.MaxUint16 {
		return fmt.Errorf("graphio: npy header too long")
	}
	out := []byte("\x93NUMPY\x01\x00")
	out = binary.LittleEndian.AppendUint16(out, uint16(len(header)))
	out = append(out, header...)
	_, err := w.Write(out)
	return err
}

// QReport is the learned context distribution as written to JSON.
type QReport struct {
	// Q[k-1] is the attention on the k-th power of the transition matrix,
	// followed by the extra context types (see Names).
	Q []float64 `json:"Q"`
	// Logits are q, with Q = softmax(q).
	Logits []float64 `json:"logits,omitempty"`
	// Names label the entries: "1".."C" for the powers, then "ppr" and
	// "adamic-adar" for the extra context types that were enabled.
	Names []string `json:"names,omitempty"`
}

// WriteJSON writes v as indented JSON, atomically.
func WriteJSON(path string, v any) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

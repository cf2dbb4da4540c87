package outcheck

import (
	"strings"
	"testing"

	"github.com/wys-project/wys/pipeline/graphio"
)

// TestRename: the suggested name has the format's extension, keeps a .gz
// for text and drops it for NumPy.
func TestRename(t *testing.T) {
	for _, c := range []struct{ path, format, want string }{
		{"e.npy", "tsv", "e.tsv"},
		{"e.txt", "csv", "e.csv"},
		{"e.txt.gz", "npy", "e.npy"},
		{"e.txt.GZ", "csv", "e.csv.gz"},
		{"d.v1/e.tsv", "w2v", "d.v1/e.txt"},
		{"emb", "npy", "emb.npy"},
	} {
		if got := Rename(c.path, c.format); got != c.want {
			t.Errorf("Rename(%q, %q) = %q, want %q", c.path, c.format, got, c.want)
		}
	}
}

// TestEmbeddings: every refusal names -out and its file; accepted names
// give nil.
func TestEmbeddings(t *testing.T) {
	for _, c := range []struct{ out, format, want string }{
		{"e.npy", "", ""},
		{"e.txt.gz", "", ""},
		{"e", "tsv", "-format tsv -out e: "},
		{"e.tsv", "npy", "name the file e.npy"},
		{"e.npy.gz", "", "-out e.npy.gz: numpy.load cannot read a gzip-compressed .npy"},
		{"e.txt.gz", "npy", "-format npy -out e.txt.gz: "},
		{"e.bin", "", "-out e.bin: the name promises binary word2vec, which tool does not write; name the file .txt, .emb or .vec (word2vec text), .tsv or .csv (each plain or .gz), or .npy"},
		{"e.txt", "hdf5", `-format "hdf5": want`},
		{"e.bin", "w2v", "-format w2v -out e.bin: the name promises binary word2vec, as gensim and other tools would read it; name the file e.txt"},
		{"e.npz", "npy", "name the file e.npy"},
	} {
		err := Embeddings("tool", c.out, c.format)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("-out %s -format %q: %v, want %q", c.out, c.format, err, c.want)
		}
	}
}

// TestNameErrorFix: for an output, the refusal of a name that promises
// another format does not offer the format flag (which does not override
// such a name, TestEmbeddings' e.bin with w2v); for an input it does,
// since the format flag reads any name.
func TestNameErrorFix(t *testing.T) {
	_, err := graphio.FormatFromPath("e.parquet")
	if out := NameError("tool", "-out", "e.parquet", "-format", err); out == nil || strings.Contains(out.Error(), "-format") || strings.Contains(out.Error(), "explicitly") {
		t.Errorf("-out: %v, want no format flag offered", out)
	}
	if in := NameError("tool", "-emb", "e.parquet", "-emb-format", err); in == nil || !strings.HasSuffix(in.Error(), "or give the format explicitly (-emb-format)") {
		t.Errorf("-emb: %v, want -emb-format offered", in)
	}
}

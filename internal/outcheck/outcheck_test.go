package outcheck

import (
	"strings"
	"testing"
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
		{"e.bin", "", "-out e.bin: the name promises binary word2vec, which tool neither writes nor reads"},
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

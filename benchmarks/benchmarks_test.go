package benchmarks

import (
	"os"
	"testing"

	"github.com/wys-project/wys/sparse"
)

// TestWriteEdgeListTemp writes a small undirected graph and compares the
// file with the edges listed by hand.
func TestWriteEdgeListTemp(t *testing.T) {
	src := []int32{0, 1, 1, 2, 0, 3}
	dst := []int32{1, 0, 2, 1, 3, 0}
	adj, err := sparse.NewFromCOO(4, 4, src, dst, nil, sparse.DupFirst)
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteEdgeListTemp(adj)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "0\t1\n0\t3\n1\t2\n"; string(b) != want {
		t.Errorf("edge list %q, want %q", b, want)
	}
}

func TestMeanStd(t *testing.T) {
	m, s := MeanStd([]float64{1, 2, 3, 4})
	// mean 2.5; sample variance (2.25+0.25+0.25+2.25)/3 = 5/3.
	if m != 2.5 || s < 1.2909944 || s > 1.2909945 {
		t.Errorf("MeanStd = %v, %v; want 2.5, 1.2909944…", m, s)
	}
}

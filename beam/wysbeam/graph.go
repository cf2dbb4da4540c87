package wysbeam

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// graphMagic starts the training graph's file: the magic, N, the number of
// arcs and whether the graph is directed, then Indptr (int64), Indices
// (int32) and Data (float64), little-endian: the CSR every worker reads.
const graphMagic = "WYSCSR1\n"

// WriteGraph writes the training graph g to path (any Beam filesystem)
// for the workers.
func WriteGraph(ctx context.Context, path string, g *pipeline.Graph) error {
	return writeFile(ctx, path, func(w io.Writer) error {
		head := make([]byte, 25)
		copy(head, graphMagic)
		binary.LittleEndian.PutUint64(head[8:], uint64(g.N()))
		binary.LittleEndian.PutUint64(head[16:], uint64(g.Adj.NNZ()))
		if g.Directed {
			head[24] = 1
		}
		ptr := make([]int64, len(g.Adj.Indptr))
		for i, x := range g.Adj.Indptr {
			ptr[i] = int64(x)
		}
		for _, v := range []any{head, ptr, g.Adj.Indices, g.Adj.Data} {
			if err := binary.Write(w, binary.LittleEndian, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReadGraph reads a graph written by WriteGraph; its node ids are 0..N−1.
func ReadGraph(ctx context.Context, path string) (*pipeline.Graph, error) {
	var g *pipeline.Graph
	err := readFile(ctx, path, func(r io.Reader) error {
		head := make([]byte, 25)
		if _, err := io.ReadFull(r, head); err != nil || string(head[:8]) != graphMagic {
			return fmt.Errorf("not a training graph (no %q header); it is written by wys-beam", graphMagic[:7])
		}
		n, nnz := binary.LittleEndian.Uint64(head[8:]), binary.LittleEndian.Uint64(head[16:])
		if n > 1<<31 || nnz > 1<<40 {
			return fmt.Errorf("implausible sizes: %d nodes, %d arcs", n, nnz)
		}
		ptr := make([]int64, n+1)
		idx := make([]int32, nnz)
		data := make([]float64, nnz)
		for _, v := range []any{ptr, idx, data} {
			if err := binary.Read(r, binary.LittleEndian, v); err != nil {
				return fmt.Errorf("truncated graph of %d nodes and %d arcs: %w", n, nnz, err)
			}
		}
		indptr := make([]int, len(ptr))
		for i, x := range ptr {
			indptr[i] = int(x)
		}
		adj, err := sparse.NewCSR(int(n), int(n), indptr, idx, data)
		if err != nil {
			return err
		}
		g = &pipeline.Graph{Adj: adj, IDs: pipeline.IdentityIDs(int(n)), Directed: head[24] == 1}
		return nil
	})
	return g, err
}

package wysbeam

import (
	"context"
	"encoding/gob"
	"fmt"
	"io"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/sparse"
)

// assembleFn runs once, after every shard is written: it assembles the
// shards into the graph, holds out the test edges with
// pipeline.SplitEdges when the job asks for a split, and writes the
// training graph (with the input's weights, when weighted) and the
// split's pairs. It is the one sequential stage:
// the spanning forest that keeps the training graph connected is a
// union-find over a seeded shuffle of all edges. Its worker holds the
// whole CSR and the edge list, which is no new limit: every training
// worker holds the whole CSR for the walks.
type assembleFn struct{ Prep Prep }

func (f *assembleFn) ProcessElement(ctx context.Context, _ []byte, info idsInfo, done func(*int) bool) error {
	if err := info.err(); err != nil {
		return err
	}
	_, shards := f.Prep.shardRows(info.N)
	var k, count int
	for done(&k) {
		count++
	}
	if count != shards {
		return fmt.Errorf("wysbeam: %d of %d CSR shards written", count, shards)
	}
	g, err := f.Prep.assemble(ctx, info.N, pipeline.IdentityIDs(info.N))
	if err != nil {
		return err
	}
	if f.Prep.TestFraction <= 0 {
		return WriteGraph(ctx, f.Prep.GraphPath(), g)
	}
	s, err := pipeline.SplitEdges(ctx, g, f.Prep.TestFraction, f.Prep.Seed)
	if err != nil {
		return err
	}
	tg, err := s.TrainGraph(ctx)
	if err != nil {
		return err
	}
	if g.Weighted {
		tg.WeightsFrom(g) // TrainGraph is unweighted
	}
	if err := WriteGraph(ctx, f.Prep.GraphPath(), tg); err != nil {
		return err
	}
	return writeFile(ctx, f.Prep.splitPath(), func(w io.Writer) error {
		return gob.NewEncoder(w).Encode(splitPairs{s.Train, s.Test, s.TrainNeg, s.TestNeg, s.TestDirectedNeg})
	})
}

// splitPairs is the split file's content (gob).
type splitPairs struct {
	Train, Test, TrainNeg, TestNeg, TestDirectedNeg []pipeline.Pair
}

// assemble reads the n nodes' shards into one graph with the given ids.
// A graph without arcs is the loader's error: every edge was a dropped
// self-loop; so are weights out of the loader's range.
func (p Prep) assemble(ctx context.Context, n int, ids *pipeline.NodeIDs) (*pipeline.Graph, error) {
	_, shards := p.shardRows(n)
	indptr := make([]int, 1, n+1)
	var indices []int32
	var data []float64
	for k := 0; k < shards; k++ {
		sh, err := readShard(ctx, p.shardPath(k))
		if err != nil {
			return nil, err
		}
		if sh.Lo != len(indptr)-1 {
			return nil, fmt.Errorf("wysbeam: %s starts at row %d, want %d", p.shardPath(k), sh.Lo, len(indptr)-1)
		}
		base := len(indices)
		for _, x := range sh.Indptr[1:] {
			indptr = append(indptr, base+int(x))
		}
		indices, data = append(indices, sh.Indices...), append(data, sh.Data...)
	}
	if len(indices) == 0 {
		return nil, &pipeline.ParseError{File: p.Input, Err: fmt.Errorf("%w: every edge is a self-loop, and self-loops are dropped (keep them with -keep-self-loops to load this graph)", pipeline.ErrEmptyGraph)}
	}
	if p.Load.Weighted {
		if err := graphio.CheckWeightRange(p.Input, data); err != nil {
			return nil, err
		}
	}
	adj, err := sparse.NewCSR(n, n, indptr, indices, data)
	if err != nil {
		return nil, fmt.Errorf("wysbeam: the CSR shards under %s: %w", p.Dir, err)
	}
	return &pipeline.Graph{Adj: adj, IDs: ids, Directed: p.Load.Directed, Weighted: p.Load.Weighted}, nil
}

// ReadShards reads the whole graph the preprocessing p wrote: its ids and
// its CSR shards.
func ReadShards(ctx context.Context, p Prep) (*pipeline.Graph, error) {
	ids, err := readIDs(ctx, p.idsPath())
	if err != nil {
		return nil, err
	}
	return p.assemble(ctx, ids.Len(), ids)
}

// ReadPrep reads what the driver needs after the preprocessing p: the
// split (its pairs when p.TestFraction > 0, else none) with the node ids.
// The training graph is at p.GraphPath().
func ReadPrep(ctx context.Context, p Prep) (*pipeline.Split, error) {
	ids, err := readIDs(ctx, p.idsPath())
	if err != nil {
		return nil, err
	}
	s := &pipeline.Split{N: ids.Len(), IDs: ids, Directed: p.Load.Directed}
	if p.TestFraction <= 0 {
		return s, nil
	}
	var sp splitPairs
	err = readFile(ctx, p.splitPath(), func(r io.Reader) error { return gob.NewDecoder(r).Decode(&sp) })
	if err != nil {
		return nil, err
	}
	s.Train, s.Test, s.TrainNeg, s.TestNeg, s.TestDirectedNeg = sp.Train, sp.Test, sp.TrainNeg, sp.TestNeg, sp.TestDirectedNeg
	return s, nil
}

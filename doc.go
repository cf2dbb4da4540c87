// Package wys is the root of the wys module, a Go implementation of
// "Watch Your Step: Learning Node Embeddings via Graph Attention"
// (Abu-El-Haija et al., NeurIPS 2018) that scales to graphs with millions of
// nodes.
//
// # Where to start
//
// To embed a graph from Go: read it with pipeline/graphio (LoadEdgeList,
// LoadMAT, LoadSplitDir), hold out test edges with pipeline.SplitEdges
// and Split.TrainGraph, train with pipeline/train's Run (the sparse
// trainer; the zero train.Config means every default), and read
// the test AUC and Q from the returned pipeline.Result; write it with
// graphio.WriteEmbeddings. The Run example of pipeline/train does this on
// a graph built in code.
//
// # Layout
//
// The module is layered; imports flow one way:
//
//	internal/* ── sparse ── lowrank ── pipeline ── pipeline/graphio ──
//	  {pipeline/reference, pipeline/baseline, pipeline/eval, pipeline/knn} ──
//	  pipeline/train ── cmd/wys-sparse ── benchmarks
//
// sparse holds the CSR matrix and its parallel kernels; lowrank the
// randomized factorizations that hold every power of the transition matrix
// in factored form; pipeline the core every method shares (graphs, node
// ids, splits, the objective, AUC, random streams, errors); graphio every
// reader and writer; reference the exact dense trainer, baseline the
// spectral baselines, eval the evaluations beyond the AUC, knn the exact
// top-k search; train the sparse minibatch trainer; cmd/wys-sparse the
// command-line tool; benchmarks the end-to-end runs. viz/qplot and
// viz/tsne import none of these. One internal package sits higher:
// internal/outcheck, the checks of -out and -format and the messages
// that wys-sparse and wys-beam share, imports pipeline and graphio. The beam
// directory is a module of its own. deps_test.go in this directory
// enforces the layering.
package wys

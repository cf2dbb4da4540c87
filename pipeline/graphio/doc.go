// Package graphio reads and writes everything a run touches on disk.
//
// ReadEdgeList (LoadEdgeList for a path) reads SNAP-style edge lists,
// plain or gzip (recognised by content), streaming: two ids per line,
// split at the line's tabs if it has one, else its commas, else spaces;
// optionally a weight; '#' and '%' comments; a header line skipped on
// request, LF or CRLF. A file whose line 1 is a Matrix Market banner (a
// .mtx name must have one) is read as a coordinate file, its entries the
// edges and its 1-based indices the ids. Node ids, which
// may be any non-negative 64-bit integers or arbitrary tokens, are
// renumbered to rows 0..N−1 by sorted order and kept in the graph's
// NodeIDs, so results can be reported in the user's ids. Self-loops are
// dropped unless LoadOptions.KeepSelfLoops, duplicates keep their first
// weight, and undirected graphs store both arcs; the LoadReport returned
// with the graph counts what each policy did.
//
// ReadMAT reads a MATLAB Level 5 .mat file (plain or gzip, compressed
// variables, both byte orders) and MATFile.Sparse returns a variable as a
// CSR matrix; LoadMAT (MATFile.Graph) reads the `network` adjacency
// matrix and `group` labels of the DeepWalk and node2vec benchmark files,
// with the edge-list policies, each stored entry counting as an edge line.
//
// LoadSplitDir reads a released link-prediction split (the .npy arrays of
// AsymProj, read through npyio, and an index.tsv of original ids) and
// WriteSplitDir writes one. LoadPlanetoid and ReadLabels read node classes
// and a train/val/test node split keyed to a graph's ids;
// ReadMultiLabels reads "node label [label …]" lines.
// WriteEmbeddings writes word2vec text, .npy (with an .ids.txt), TSV or
// CSV, the text formats gzip-compressed under a name ending in .gz; every
// file is written to a temporary name and renamed into place.
//
// ReadEmbeddings reads those formats back, bit for bit, and other tools'
// files: gensim's save_word2vec_format text, node2vec's and ProNE's .emb,
// a bare .npy whose row i is node i. Whether a table is wys's [L | R]
// (score L_u·R_v) or a single table cannot be told from the numbers, and
// neither numpy's nor gensim's formats have room for a note, so
// WriteEmbeddings writes a small JSON marker beside the file
// (MarkerPath: emb.npy.wys.json) and ReadEmbeddings reads a file without
// one as a single table unless ReadOptions.Layout says otherwise (files
// written before the marker existed need LayoutHalves).
//
// Bad input never panics: errors are *pipeline.ParseError values naming
// the file and line, and unwrap to pipeline.ErrFormat, ErrEmptyGraph or
// ErrUnknownNode (or to an I/O error, or the context's error when it is
// cancelled).
package graphio

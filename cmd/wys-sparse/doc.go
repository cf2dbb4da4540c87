// Command wys-sparse learns node embeddings with Watch Your Step
// (Abu-El-Haija et al., NeurIPS 2018): random-walk context weighted by a
// learned attention Q over the powers of the transition matrix, trained
// jointly with the embeddings Y = [L | R].
//
// # Usage
//
//	wys-sparse [flags]
//
// Without -graph or -split it trains on a built-in demo graph (600 nodes in
// six planted communities) in a few seconds and prints what a run reports.
//
//	wys-sparse -graph edges.txt.gz -out emb.txt -q-plot q.png -report run.json
//	wys-sparse -split ../shared/datasets/ca-HepTh/asymproj
//	wys-sparse -graph cora.edges.tsv.gz -test-fraction 0 -labels cora.labels.tsv.gz -label-split cora.split.tsv.gz
//
// # Input
//
// -graph reads a SNAP-style edge list, TSV or CSV (two ids per line,
// split at the line's tabs if it has one, else at its commas if it has
// one, else at spaces, so that ids may hold spaces in TSV and CSV;
// optional weight column with -weighted; '#' or '%' comments; a first
// line of column names skipped with -header; plain or gzip). Ids may be
// any non-negative integers or tokens; outputs use them. Self-loops are
// dropped (and counted) unless -keep-self-loops; an edge listed again is
// kept once (and counted).
// A -graph FILE ending in .mat or .mat.gz is read as a MATLAB .mat file
// (as DeepWalk's and node2vec's BlogCatalog, PPI and POS): its N x N
// variable `network` is the adjacency matrix, nonzero entries are edges
// (their values the weights with -weighted), ids are the 0-based row
// numbers, and an asymmetric matrix is symmetrised unless -directed.
// The whole graph is embedded by default; with -test-fraction f > 0 (the
// demo uses 0.5) a fraction f of the edges is held out for link
// prediction, keeping the training graph connected, and as many non-edges
// are sampled as negatives. -split instead reads a released
// split directory (train.txt.npy, test.txt.npy, train.neg.txt.npy,
// test.neg.txt.npy, optional test.directed.neg.txt.npy and index.tsv).
// The model is selected on the train AUC, as in the paper; -val-fraction v
// selects it instead on a share v of the held-out edges (and as many of
// their non-edges), and the test AUC is measured on the others.
//
// # Training
//
// -trainer sparse (default) samples positive pairs from E[D] by random
// walks and negatives uniformly from the non-edges; memory grows with |E|
// and N·d. -trainer dense is the exact reference of the paper, O(C·N²)
// memory, refused with a clear message when the graph is too large. The
// objective's formulation (-formulation code, the default, or paper), C,
// β, the optimiser and its rates, epochs, batch size and negatives are
// flags; -help (or "wys-sparse help") lists every flag with its default on
// stdout, -version the build. -rank r is another way to say -dim 2r: the
// rank of the score matrix g(Y) = L Rᵀ. -method svd or eigenmaps
// computes a spectral baseline of the paper's Table 1 instead,
// -method netmf NetMF's closed-form factorization of DeepWalk (window -C),
// -method prone ProNE (a sparse factorization refined by spectral
// propagation), a fast peer that scales like svd.
// -ppr α and -adamic-adar add the paper's extension context types next to
// the C powers, each with its own learned entry of Q: Personalized
// PageRank with restart probability α (sampled by walks that stop with
// probability α after each step) and Adamic–Adar (common neighbours
// weighted by 1/ln degree, sampled over paths of length two).
// -checkpoint DIR saves the sparse trainer's full state every
// -checkpoint-every, at the end, and when interrupted (the batch under way
// finishes first); -resume continues from it bit-for-bit.
//
// # Output
//
// The summary goes to stdout; progress (with rate and ETA, or JSON lines
// with -progress json: every stage, note and evaluation, progress with
// rate and eta_seconds at most once a second, and a last "error" or
// "done" event with the exit code) to stderr. -out writes
// Y = [L | R] in word2vec text (header "N D", then "id x1 … xD"), .npy
// (N x D float32, ids in a sibling .ids.txt), TSV or CSV. The score of an arc u→v is L_u·R_v: the first
// d/2 columns of u's row times the last d/2 columns of v's row. -q-out
// writes the learned Q as JSON, -q-plot draws it (PNG or SVG), -report
// writes a JSON report with input checksums, settings, curves, metrics,
// stage times and peak memory. Every file is written to a temporary name
// and renamed, so an interrupted run leaves no partial file.
//
// # Subcommands
//
//	wys-sparse eval -emb emb.npy -split DIR [-score lr|sym|dot|cosine] [-edge-ops all] [-report FILE]
//	wys-sparse eval -emb emb.txt -planetoid PREFIX
//	wys-sparse eval -emb emb.txt -mat PPI.mat.gz [-ratios 0.1,...] [-repeats 10]
//	wys-sparse eval -emb emb.txt -labels group-edges.csv [-header] [-ratios 0.1,...]
//	wys-sparse eval -emb emb.npy -graph edges.txt [-rows 2048] [-k 10,100,...]
//	wys-sparse neighbors -emb emb.npy -node ID [-node ID...] [-k 10] [-by out|in|sym|dot|cosine]
//
// eval scores an existing embedding file, ours or another tool's (word2vec
// text as gensim, node2vec and ProNE write it, TSV, .npy with its .ids.txt
// or bare), with the code training uses: link prediction ROC-AUC on a
// split directory (pipeline.PairAUC; a directed split also against the
// reversed arcs; with -edge-ops, node2vec's logistic regression on edge
// features, eval.EdgeClassifier; with -mrr, MRR and Hits@1/10/50 of each test
// edge ranked against random or all nodes, eval.Rank), the paper's smooth-kNN node classification on a
// Planetoid dataset, and the DeepWalk/node2vec multi-label protocol
// (one-vs-rest logistic regression, Micro- and Macro-F1 per training
// share) on a .mat file or a text file of "node label [label …]" lines
// (-labels: BlogCatalog's group-edges.csv, a node<TAB>class file), and graph reconstruction of an edge list or .mat
// file (eval.Reconstruction: for each node, every other node ranked by the
// score; MAP of the node's arcs and precision@k over all ranked pairs, as
// SDNE, HOPE and the GEM benchmark report them). Ids are matched by name (a bare .npy by row); a
// node without a vector is an error unless -missing zero. Files wys-sparse
// writes are [L | R]: a marker FILE.wys.json beside them says so, and
// their default score is lr = L_u·R_v (sym, L_u·R_v + L_v·R_u, scores
// both arcs of an undirected graph's pair); other files are single tables,
// scored by dot (Y_u·Y_v) or cosine. -layout halves reads a wys file
// whose marker is missing. On our own .npy, eval gives exactly the AUC
// training printed. -report writes the numbers as JSON.
//
// neighbors prints the exact top -k nodes for each -node (or for each id
// read from standard input, one per line, answered as it arrives) by
// -by out (L_u·R_v: v ranked as targets of u), in (L_v·R_u), sym (their
// sum), dot or cosine, as "id<TAB>score" lines or, with -format json, one JSON object
// per query. It scans the whole table in cache-sized blocks in parallel
// (package pipeline/knn); ties are broken by file order, so the answer
// does not depend on -workers. The query node is left out unless
// -include-self.
//
// Each subcommand has its own -help (also "wys-sparse help eval") and the
// exit codes below.
//
// # Exit status
//
// 0 on success, 1 when the run fails (bad input data, not enough memory),
// 2 for a usage error (bad flag value), 130 when interrupted by SIGINT
// and 143 by SIGTERM (either stops the run cleanly).
//
// # Determinism
//
// Every random choice comes from -seed. The same seed and input give the
// same embeddings for any -workers.
package main

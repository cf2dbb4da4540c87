// Package pipeline is the core every Watch Your Step method shares: the
// graph and its node ids, link-prediction splits, synthetic graphs, node
// labels, the objective and its context types, results with statistics and
// progress events, AUC, average precision and Hits@k, the named random
// streams, the sentinel errors and the memory pre-flight (CheckMemory).
//
// It holds no method and no file format. Those live in sub-packages, one
// concern each; the methods (train, reference, baseline) share the shape
// Run(ctx, g, eval, cfg, rec):
//
//   - graphio: every reader and writer (SNAP edge lists, Matrix Market and
//     MATLAB .mat graphs, released .npy splits, Planetoid and other label
//     files, embeddings, JSON);
//   - train: the sparse minibatch trainer and its checkpoints (start here);
//   - reference: the exact dense trainer of the paper, the test oracle;
//   - baseline: the spectral baselines of the paper's Table 1 (SVD,
//     Laplacian eigenmaps), NetMF and ProNE;
//   - eval: the evaluations beyond the AUC (node classification, the
//     multi-label protocol, clustering, graph reconstruction, link
//     prediction by ranking and by node2vec's edge classifier);
//   - knn: exact top-k search by inner product.
//
// A run reads a graph (graphio.LoadEdgeList), holds out test edges
// (SplitEdges, then Split.TrainGraph for the graph to train on), trains
// (train.Run; a zero train.Config means every default) and reads
// the selected embeddings, Q and test AUC from the Result. A nil Recorder
// is allowed wherever one is taken; RecordFunc turns a function into one.
//
// # Determinism
//
// Every random choice of every method comes from Stream(seed, purpose,
// shard): a PCG source named by the run's seed, what it is for and the
// data shard it serves, never by the goroutine that draws it. Together
// with reductions in a fixed order, the same seed gives the same bytes on
// any number of workers.
//
// # Errors
//
// Bad input is a *ParseError naming the file and line, unwrapping to
// ErrFormat, ErrEmptyGraph or ErrUnknownNode. A run that cannot fit in
// memory fails before it allocates with ErrMemory (see CheckMemory); a
// loss that is NaN or infinite stops it with ErrNotFinite; a graph that
// cannot be split keeping its connectivity gives ErrSplit. Cancellation
// returns the context's error unchanged.
package pipeline

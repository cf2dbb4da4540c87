// Package train is the sparse minibatch trainer of Watch Your Step: its
// memory is O(|E| + N·d), so it embeds graphs the dense formulation
// cannot hold.
//
// # Training
//
// Each batch draws random walks of length C from anchors (by degree in
// the code formulation, uniform in the paper's); the node reached at step
// k of a walk from v is a positive pair (v, u) weighted by Q_k, and
// Negatives uniform non-edges per positive pair stand for the second
// term of the objective. With the weights set in newTrainer, the batch
// loss and every gradient (of L, R and the attention logits q) are
// unbiased estimates of the exact objective that package reference
// computes: a test checks the mean of many estimates against it. L and R
// use Adam with lazy row updates below DefaultBlockNodes nodes and RMSProp
// (Adam without momentum) with negatives in blocks (Config.NegativeBlock)
// from there, or row-wise RMSProp, SGD or PercentDelta; q always uses
// Adam; learning rates decay linearly to a tenth. Every EvalEvery epochs
// the train and test AUC are measured and the last step whose train AUC
// ties with the best so far (within SelectionMargin of it) is kept, or,
// with validation pairs, the best validation AUC's
// (without train pairs, a seeded sample of the graph's arcs against
// uniform non-edges stands in). Config.Resolve holds every default,
// including the length of a run (DefaultEpochs: max(400 epochs, 150 walks
// per arc), capped at DefaultPairBudget positive pairs). Config.Converge ends a run early
// by a convergence rule, and Config.TimeBudget by the clock.
// Config.Average makes the final model the mean of L and R over the run's
// last share (tail averaging), which lowers the minibatch noise left in
// the last step.
//
// Schedule runs the same steps as a bucketed schedule over P node parts
// (NewPartition), in the style of PyTorch-BigGraph: with P = 1 it is the
// trainer bit for bit from the same start, and beam/wysbeam runs it as an
// Apache Beam pipeline.
//
// # Determinism
//
// A batch is cut into shards of a fixed number of walks, each drawing from
// its own pipeline.Stream; gradients are summed per row block in shard
// and pair order. The same seed gives the same bytes for any number of
// workers, and a run resumed from a checkpoint (State, WriteCheckpoint,
// Config.Resume) ends bit-for-bit where the uninterrupted run would.
//
// # Errors
//
// Config.Validate reports unusable settings before any work. Run fails
// with pipeline.ErrMemory before allocating when the estimate is above the
// limit, with pipeline.ErrNotFinite when the loss is NaN or infinite, with
// ErrCheckpoint for a checkpoint of another run, and returns ctx.Err()
// between batches after a cancel.
package train

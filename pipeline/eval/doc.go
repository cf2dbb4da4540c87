// Package eval scores embeddings on node classification with the smooth
// kNN rule of the Watch Your Step paper (Classify), choosing the pair
// score and α on the validation nodes and reporting test accuracy. Link
// prediction AUCs are computed by the core (pipeline.PairAUC).
package eval

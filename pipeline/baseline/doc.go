// Package baseline computes the spectral baselines of the paper's Table 1
// (truncated SVD of A and Laplacian eigenmaps) with the randomized
// factorizations of package lowrank, in the same shape as the trainers:
// Run(ctx, g, eval, cfg, rec) returns a pipeline.Result scored on the
// same pairs. The result depends on the seed only.
package baseline

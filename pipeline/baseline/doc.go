// Package baseline computes baselines in the same shape as the trainers:
// the paper's Table 1 truncated SVD of A and Laplacian eigenmaps, from
// lowrank's TopSVD and TopEigSym, and NetMF's small-window closed form of
// DeepWalk, a dense N x N matrix factored by a randomized SVD.
// Run(ctx, g, eval, cfg, rec) returns a pipeline.Result scored on the
// same pairs. The result depends on the seed only.
package baseline

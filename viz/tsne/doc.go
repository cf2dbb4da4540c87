// Package tsne embeds points in two dimensions with exact t-SNE
// (van der Maaten and Hinton, "Visualizing Data using t-SNE", JMLR 2008),
// for pictures of learned node embeddings such as the paper's Figure 3.
//
// # Algorithm
//
// For each point i a Gaussian bandwidth is calibrated by binary search so
// that the conditional distribution p_{j|i} ∝ exp(−β_i‖x_i − x_j‖²) has the
// requested perplexity exp(H(P_i)) (H in nats). The affinities are
// symmetrised, p_ij = (p_{j|i} + p_{i|j}) / 2N, and floored at 1e-12 as in
// the reference implementation. The 2-D points start from a seeded normal
// distribution of standard deviation 1e-4 and follow gradient descent on
// KL(P‖Q), with the Student-t similarities q_ij ∝ (1 + ‖y_i − y_j‖²)⁻¹,
// the gradient 4 Σ_j (α p_ij − q_ij)(1 + ‖y_i − y_j‖²)⁻¹ (y_i − y_j),
// early exaggeration α = 12 for the first 250 iterations (then 1),
// momentum 0.5 for the first 250 iterations (then 0.8), and the reference
// implementation's per-coordinate gains (+0.2 when the gradient changes
// sign against the last update, ×0.8 otherwise, at least 0.01). The points
// are re-centred after every step.
//
// The method is exact: each iteration costs O(N²) time, and the affinities
// take N² float64s, so Embed refuses more than MaxPoints points.
//
// # Errors
//
// Embed returns an error wrapping ErrInput for unusable data (fewer than
// two points, no columns, a NaN or infinite value, a perplexity outside
// [1, N−1]), the error of Config.Validate for a bad configuration, an
// error wrapping ErrNotFinite if the optimisation diverges, and ctx.Err()
// unchanged when the context is cancelled.
//
// # Concurrency and determinism
//
// Calibration and the gradient are computed over blocks of rows by up to
// Config.Workers goroutines. Each row is computed by one goroutine, summing
// over the other points in index order, and the global normaliser of Q is
// the sum of the per-row sums in row order, so the result is bitwise
// identical for any number of workers. All randomness (the initial points)
// comes from a PCG stream derived from Config.Seed.
package tsne

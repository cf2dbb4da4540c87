// Package reference is the exact dense Watch Your Step trainer: the oracle
// that the scalable trainer in package pipeline is measured against, and
// the proof that wys implements the paper.
//
// # The objective
//
// For the training graph's transition matrix T = D⁻¹A and the context
// distribution Q = softmax(q), the model computes every weighted power
// W_k = P0·T^k densely (k = 1..C) and the full-batch negative log graph
// likelihood
//
//	J = agg_vu[ −E[D]_vu·log σ(g_vu) − 1[A_vu = 0]·log(1 − σ(g_vu)) ] + reg,
//	E[D] = Σ_k Q_k W_k,  g = L Rᵀ,
//
// in one of two formulations (pipeline.Formulation):
//
//   - code (default), the authors' released numerics: P0 = diag(80·N·deg(v)),
//     agg = mean over all N² entries, logs with +1e-5, reg = β·mean(q²) +
//     1e-6·(mean(L²) + mean(R²)); the diagonal counts as a negative.
//   - paper: P0 = diag(80), agg = sum, exact logs, reg = β‖q‖².
//
// Evaluate returns J and its gradients in float64 for tests; Train
// optimises in float32 with PercentDelta (the authors' optimiser) or Adam.
//
// # Memory and time
//
// The model holds C+3 dense N x N matrices: about 3.9 GB in float32 for
// ca-HepTh (N = 8,638, C = 10). Train checks the estimate against the
// machine's available memory (or Config.MemoryLimit) and returns an error
// wrapping ErrTooLarge instead of allocating. Each step costs three N x N x
// d/2 GEMMs and O(C·N²) element work. Build with -tags openblas (Debian
// package libopenblas-dev) to run the GEMMs through OpenBLAS.
//
// # Determinism
//
// Initialisation comes from a PCG stream of Config.Seed. The element work
// is split into fixed blocks of rows whose partial sums are reduced in
// block order, so results do not depend on the number of workers (the
// GEMMs are those of the BLAS in use).
package reference

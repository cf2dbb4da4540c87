// Package reference is the exact dense Watch Your Step trainer: the oracle
// that the scalable trainer (package train) is measured against, and
// the proof that wys implements the paper.
//
// # The objective
//
// For the training graph's adjacency A (used as given: directed graphs are
// not symmetrised), its transition matrix T = D⁻¹A (rows of nodes without
// out-arcs stay zero) and the context distribution Q = softmax(q), the
// model holds every power T^k (k = 1..C) densely and computes the
// full-batch negative log graph likelihood
//
//	J = agg_vu[ −E[D]_vu·log σ(g_vu) − 1[A_vu = 0]·log(1 − σ(g_vu)) ] + reg,
//	E[D] = P0·Σ_k Q_k T^k,  g = L Rᵀ,
//
// over all N² entries (v, u), the diagonal included (it counts as a
// negative), in one of two formulations (pipeline.Formulation):
//
//   - code (default), the authors' released numerics:
//     P0 = diag(80·N·deg(v)/w̄), with w̄ the mean arc weight (1 when
//     unweighted; pipeline.MeanArcWeight), agg = mean over the N² entries,
//     logs of σ + 1e-5 and 1 − σ + 1e-5,
//     reg = β·mean(q²) + 1e-6·(mean(L²) + mean(R²)).
//   - paper: P0 = diag(80), agg = sum, exact logs, reg = β‖q‖².
//
// 80 is ObjectiveConfig.WalksPerNode and β its Beta (0.5 by default).
// Evaluate returns J, its three terms and its gradients with respect to L,
// R and q in float64 for tests; Run optimises in float32 with
// PercentDelta (the authors' optimiser, step rescaled per tensor) or Adam,
// evaluates train and test ROC-AUC every 4 steps, and returns the
// embeddings of the step with the best train AUC.
//
// # Memory and time
//
// The model holds C+1 dense N x N matrices, the C powers of T and the
// score matrix G = L Rᵀ (overwritten in place by dJ/dG): (C+1)·4·N² bytes
// in float32, 3.1 GiB for ca-HepTh (N = 8,638, C = 10); Evaluate holds
// them in float64. Run and Evaluate check that estimate against a limit
// (Config.MemoryLimit, by default 90% of MemAvailable) and return an
// error wrapping pipeline.ErrMemory, naming both numbers, instead of allocating.
// The powers cost C·nnz(A)·N multiply-adds (sparse x dense products,
// sparse.MulBlockTo); each step costs three N x N x d/2 GEMMs and O(C·N²)
// element work. Build with -tags openblas (Debian package libopenblas-dev)
// to run the GEMMs through OpenBLAS instead of gonum's pure-Go BLAS.
//
// # Refinement
//
// A Refiner takes exact full-batch Adam steps on L and R at a fixed Q, the
// finishing phase train.Refine (wys-sparse -refine) adds to either
// trainer. With Q fixed, E[D] is one N x N matrix, built once by
// Horner's rule, so it holds two dense matrices instead of C+1, and a
// step's element work is O(N²) instead of O(C·N²).
//
// # Determinism
//
// Initialisation comes from a PCG stream of Config.Seed. The element work
// is split into fixed blocks of rows whose partial sums are reduced in
// block order, and the GEMMs of both BLAS builds give every output element
// to one thread, so results do not depend on Config.Workers. The float32
// trainer computes log(σ + 1e-5) with a polynomial accurate to 1e-12
// rather than math.Log; the float64 Evaluate uses the standard library.
package reference

// Package lowrank holds randomized truncated factorizations of sparse
// operators and the factored form of the transition-matrix power series
// Σ_k c_k T^k that Watch Your Step's expected co-occurrence E[D] needs,
// without ever forming an N x N matrix.
//
// # Factorizations
//
// RandomizedSVD and RandomizedEigSym follow Halko, Martinsson and Tropp
// (2011): a Gaussian sketch of r + p columns (p oversampling, default 10)
// from a seeded PCG stream, q power iterations (default 2) with a
// re-orthonormalisation between products (CholeskyQR2, after shifted
// CholeskyQR passes on an ill-conditioned block, Householder QR as the
// last resort), and a small dense
// SVD or symmetric eigendecomposition through gonum. They touch the
// operator only through the Operator interface: block products by A and
// Aᵀ (CSROperator runs sparse.MulBlockTo; DenseOperator adapts a gonum
// matrix for tests). Memory: a few dense blocks of N x (r + p) float64.
//
// TopEigSym and TopSVD are their converged counterparts: Chebyshev-filtered
// subspace iteration until every wanted Ritz pair's residual is below
// TopOptions.Tol, for spectra whose top eigenvalues crowd together (as a
// normalised adjacency's do on a clustered graph), where a few plain power
// iterations stop short.
//
// # The power series
//
// Series represents every T^k, k = 1..C, of T = D⁻¹A. For an undirected
// graph it factors the symmetric S = D^{-1/2} A D^{-1/2} ≈ U Λ Uᵀ, keeping
// the eigenvalues of largest magnitude (both ends of the spectrum), so
// T^k ≈ D^{-1/2} U Λ^k Uᵀ D^{1/2} and Σ_k c_k T^k is a spectral filter
// h(λ) = Σ_k c_k λ^k. For a directed graph it factors T ≈ U Σ Vᵀ and uses
// T^k ≈ U (Σ Vᵀ U)^{k−1} Σ Vᵀ with an r x r core per power. The top of the
// spectrum represents T and T² poorly, so the smallest powers (Exact, 1 by
// default, at most 2) are computed exactly from the CSR for each pair.
// Per pair, PowersTo costs O(C·r) (undirected) or O(C·r²) (directed).
//
// # Errors
//
// A rank outside 1..min(rows, cols) returns ErrRank; a small dense
// factorization that fails returns ErrFactorization; the dense twins
// (DensePowerSeries) return ErrTooLarge above MaxDenseNodes. Shape
// mismatches are programmer errors and panic with mat.ErrShape.
//
// # Concurrency and determinism
//
// Block products run on the sparse package's deterministic kernel; the
// sketch depends on Options.Seed only; pair evaluations are independent.
// The dense QR and small factorizations run through gonum's LAPACK, whose
// results do not depend on the number of goroutines, so a factorization
// is the same for any worker count.
package lowrank

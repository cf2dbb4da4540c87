// Package sparse holds the compressed sparse row (CSR) matrix that wys uses
// for adjacency and transition matrices, and its parallel kernels.
//
// # Invariants
//
// A CSR has len(Indptr) == rows+1, Indptr[0] == 0, Indptr[rows] == NNZ, and
// within each row strictly increasing column indices (sorted, no
// duplicates). Constructors (NewCSR, NewFromCOO) establish them and
// (*CSR).Validate checks them. Column indices are int32, so a matrix has at
// most 2³¹−1 columns; row pointers are int, so NNZ is bounded by memory only.
//
// # Transition matrices
//
// RowNormalize returns T = D⁻¹A. A row with no entries (a dangling node of a
// directed graph) stays zero: walks that reach it stop, as in the reference
// implementation of Watch Your Step. SymNormalize returns the symmetric
// S = D^{-1/2} A D^{-1/2}, which for an undirected graph is similar to T.
//
// # Errors
//
// Shape mismatches are programmer errors and panic with gonum's mat.ErrShape.
// Bad data given to constructors (an index out of range, a NaN weight) is
// returned as an error wrapping ErrIndexRange or ErrValue. A dense copy
// larger than MaxDenseElements returns ErrTooLarge instead of allocating.
//
// # Concurrency and determinism
//
// MulBlockTo splits output rows into chunks of similar work and runs them on
// up to the requested number of goroutines with errgroup. Each output row is
// computed by exactly one goroutine, summing its entries in column order, so
// results are bitwise identical for any worker count. Small products run
// serially. Every call checks its context between chunks and leaves no
// goroutine running when it returns.
//
// # Interoperability
//
// *CSR implements gonum's mat.Matrix (At, Dims, T) so it can be passed to
// gonum routines and compared with mat.Dense in tests; gonum's generic
// routines fall back to At and are slow, so hot paths use MulBlockTo.
package sparse

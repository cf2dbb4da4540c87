//go:build !openblas || !cgo

package reference

// BLAS names the GEMM implementation in use.
const BLAS = "gonum"

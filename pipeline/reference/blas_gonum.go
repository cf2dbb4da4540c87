//go:build !openblas || !cgo

package reference

// BLAS names the GEMM implementation in use.
const BLAS = "gonum"

// setBLASThreads is a no-op for gonum's BLAS, whose parallel GEMM uses up
// to GOMAXPROCS goroutines.
func setBLASThreads(int) {}

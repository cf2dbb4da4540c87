//go:build openblas && cgo

package reference

// #cgo LDFLAGS: -lopenblas
// void openblas_set_num_threads(int);
import "C"

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

// BLAS names the GEMM implementation in use.
const BLAS = "openblas"

func init() {
	blas32.Use(netlib.Implementation{})
	blas64.Use(netlib.Implementation{})
}

// setBLASThreads sets the number of OpenBLAS threads (OpenBLAS keeps its
// own thread pool, outside GOMAXPROCS).
func setBLASThreads(n int) {
	if n > 0 {
		C.openblas_set_num_threads(C.int(n))
	}
}

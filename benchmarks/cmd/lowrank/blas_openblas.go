//go:build openblas && cgo

package main

// #cgo LDFLAGS: -lopenblas
import "C"

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

const blasName = "openblas"

// OpenBLAS serves gonum's LAPACK (QR) and the dense products.
func init() { blas64.Use(netlib.Implementation{}) }

// Package wys is the root of the wys module, a Go implementation of
// "Watch Your Step: Learning Node Embeddings via Graph Attention"
// (Abu-El-Haija et al., NeurIPS 2018) that scales to graphs with millions of
// nodes.
//
// The module is layered; imports flow one way:
//
//	sparse ── lowrank ── pipeline ── cmd/wys-sparse
//
// sparse holds the CSR matrix and its parallel kernels; lowrank the
// randomized factorizations that hold every power of the transition matrix
// in factored form; pipeline loading, splitting, the trainers, evaluation
// and output; cmd/wys-sparse the command-line tool. benchmarks may import
// all of them. deps_test.go in this directory enforces the layering.
package wys

// Package knn finds the exact top-k rows of an embedding table for query
// vectors by inner product: the nodes v with the largest L_u·R_v (the
// out-neighbours of u under wys's score), L_v·R_u (in-neighbours), or the
// cosine of unit-normalised rows.
//
// # Method
//
// The table is scanned in blocks of rows small enough to stay in cache;
// each block is multiplied by every query vector and the scores feed a
// bounded heap of k per query. Blocks are shared among workers; each
// worker keeps its own heaps, merged at the end.
//
// # Determinism
//
// Results are ordered by score (highest first) and, among equal scores,
// by row (lowest first). This is a total order, so the top k does not
// depend on the number of workers or on which worker scanned which block:
// the same table and queries give the same answer, ties included. A score
// that is NaN ranks below every number.
//
// # Cost
//
// One query costs N·dim multiply–adds and O(N) comparisons with the heap's
// minimum (O(log k) for the few rows that enter it); memory beyond the
// table is O(workers · queries · k).
package knn

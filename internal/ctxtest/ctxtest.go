// Package ctxtest holds a context for tests of cancellation: one that
// reports itself cancelled from a chosen check of its Err on.
package ctxtest

import "context"

// CancelAfter is a context whose Err turns to context.Canceled at its
// N-th call (at the first when N <= 1) and counts its calls in Calls, so
// that a test can cancel inside a loop at a known check and see that the
// work stopped there. It is not safe for concurrent use.
type CancelAfter struct {
	context.Context
	N, Calls int
}

// Err counts the call and returns context.Canceled from the N-th on.
func (c *CancelAfter) Err() error {
	c.Calls++
	if c.Calls >= c.N {
		return context.Canceled
	}
	return nil
}

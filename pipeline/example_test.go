package pipeline_test

import (
	"fmt"

	"github.com/wys-project/wys/pipeline"
)

// AUC is the share of (positive, negative) pairs in which the positive
// scores higher, ties counting one half. Here five of the six pairs are
// ordered (only 0.3 < 0.5 is not), so the AUC is 5/6.
func ExampleAUC() {
	pos := []float64{0.9, 0.8, 0.3}
	neg := []float64{0.5, 0.1}
	fmt.Printf("%.4f\n", pipeline.AUC(pos, neg))
	// Output:
	// 0.8333
}

package eval

import (
	"errors"
	"fmt"
	"slices"

	"github.com/wys-project/wys/pipeline"
)

// Feature variants of our embeddings Y = [L | R] for the multi-label
// classifier.
const (
	FeaturesLR   = "LR"  // [L | R], the whole embedding (d columns)
	FeaturesL    = "L"   // the source side L (d/2 columns)
	FeaturesR    = "R"   // the target side R (d/2 columns)
	FeaturesLpR  = "L+R" // L + R (d/2 columns)
	featuresNorm = "+norm"
)

// FeatureVariants lists the variants Features accepts; each may end in
// "+norm" to scale every row to unit L2 norm (a zero row stays zero).
var FeatureVariants = []string{FeaturesLR, FeaturesL, FeaturesR, FeaturesLpR}

// DefaultFeatures is [L | R] as trained, the variant that did well on
// both PPI and POS in benchmarks/results/multilabel.md. Row normalisation
// raised PPI's Macro-F1 at 50% (0.175 to 0.185) but cut POS's (0.102 to
// 0.068), whose rare labels need the norms; L, R or L + R alone scored
// 0.181 to 0.184 on PPI.
const DefaultFeatures = FeaturesLR

// DefaultFeaturesOf returns the default variant for res: DefaultFeatures,
// or FeaturesL when R equals L in every row (a baseline whose R is its L:
// ProNE, eigenmaps), whose [L | R] would repeat every column and so halve
// a logistic regression's penalty per direction.
func DefaultFeaturesOf(res *pipeline.Result) string {
	if slices.Equal(res.L, res.R) {
		return FeaturesL
	}
	return DefaultFeatures
}

// Features returns the n × f row-major feature matrix of the variant
// ("" means DefaultFeatures) built from res.L and res.R, and f.
func Features(res *pipeline.Result, variant string) ([]float64, int, error) {
	if res == nil {
		return nil, 0, errors.New("eval: no embeddings (nil) to take features from")
	}
	if variant == "" {
		variant = DefaultFeatures
	}
	base, norm := variant, false
	if len(base) > len(featuresNorm) && base[len(base)-len(featuresNorm):] == featuresNorm {
		base, norm = base[:len(base)-len(featuresNorm)], true
	}
	h := res.Half
	f := h
	if base == FeaturesLR {
		f = 2 * h
	}
	x := make([]float64, 0, res.N*f)
	for v := range res.N {
		l, r := res.L[v*h:(v+1)*h], res.R[v*h:(v+1)*h]
		switch base {
		case FeaturesLR:
			x = appendFloats(appendFloats(x, l), r)
		case FeaturesL:
			x = appendFloats(x, l)
		case FeaturesR:
			x = appendFloats(x, r)
		case FeaturesLpR:
			for j := range l {
				x = append(x, float64(l[j])+float64(r[j]))
			}
		default:
			return nil, 0, fmt.Errorf("eval: unknown feature variant %q; want one of %v, optionally with %q", variant, FeatureVariants, featuresNorm)
		}
	}
	if norm {
		pipeline.NormalizeRows(x, f)
	}
	return x, f, nil
}

func appendFloats(dst []float64, src []float32) []float64 {
	for _, v := range src {
		dst = append(dst, float64(v))
	}
	return dst
}

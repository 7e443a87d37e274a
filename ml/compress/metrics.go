package compress

import (
	"errors"
	"fmt"
	"math"

	"github.com/ccsim/ccsim/ml/nn"
)

// Cost is the arithmetic of one forward pass (docs/compress.md "FLOPs").
type Cost struct {
	// MACs counts the multiply-adds of every weight-matrix entry, once per
	// input step of its layer; NonzeroMACs only those of nonzero entries
	// (a pruned weight costs nothing in a sparse kernel).
	MACs, NonzeroMACs int
	// FLOPs = 2·MACs and NonzeroFLOPs = 2·NonzeroMACs (a multiply and an
	// add each); biases, activations and the LSTM's gate arithmetic are not
	// counted (the convention that gives decc.md §1.7's ≈ 40 k FLOPs for
	// the actor with 5 inputs).
	FLOPs, NonzeroFLOPs int
}

// ModelCost returns the cost of one forward pass of m over steps input
// steps.
func ModelCost(m *nn.Sequential, steps int) (Cost, error) {
	if m == nil {
		return Cost{}, errors.New("compress: cost: model is nil")
	}
	if steps < 1 {
		return Cost{}, fmt.Errorf("compress: cost: steps = %d, want ≥ 1", steps)
	}
	var c Cost
	for _, l := range m.Layers() {
		if p := matrixParam(l); p != nil {
			nz := 0
			for _, w := range p.W {
				if w != 0 {
					nz++
				}
			}
			c.MACs += steps * len(p.W)
			c.NonzeroMACs += steps * nz
		}
		steps = l.OutSteps(steps)
	}
	c.FLOPs, c.NonzeroFLOPs = 2*c.MACs, 2*c.NonzeroMACs
	return c, nil
}

// Float32Bytes is the size of m's parameters stored densely as float32:
// 4 bytes per weight and bias (the paper's FP32 model; no header).
func Float32Bytes(m *nn.Sequential) int { return 4 * m.NumParams() }

// Discrepancy returns the output discrepancy of the paper's Table 2
// (decc.md §1.8.2, interpretation: the relative L1 difference between the
// compressed and the original outputs over a set of inputs):
//
//	D = Σ_x ‖c(x) − r(x)‖₁ / Σ_x ‖r(x)‖₁
//
// with r the reference (original) model and c the compressed one, each x of
// steps steps. Pooling the sums (rather than averaging per-input ratios)
// keeps D finite when an output vector is near zero.
func Discrepancy(ref, cmp *nn.Sequential, xs [][]float64, steps int) (float64, error) {
	return DiscrepancyFunc(ref, func(ws any, x []float64) ([]float64, error) {
		return cmp.Forward(ws.(*nn.Workspace), x, steps)
	}, cmp.NewWorkspace(steps), xs, steps)
}

// DiscrepancyFunc is Discrepancy with the compressed model given as a
// function of a scratch value and an input (e.g. a PackedModel's Forward).
func DiscrepancyFunc(ref *nn.Sequential, f func(scratch any, x []float64) ([]float64, error), scratch any, xs [][]float64, steps int) (float64, error) {
	if ref == nil || f == nil {
		return 0, errors.New("compress: discrepancy: nil model")
	}
	if len(xs) == 0 {
		return 0, errors.New("compress: discrepancy: no inputs")
	}
	ws := ref.NewWorkspace(steps)
	num, den := 0.0, 0.0
	for i, x := range xs {
		r, err := ref.Forward(ws, x, steps)
		if err != nil {
			return 0, fmt.Errorf("compress: discrepancy: input %d: %w", i, err)
		}
		c, err := f(scratch, x)
		if err != nil {
			return 0, fmt.Errorf("compress: discrepancy: input %d: %w", i, err)
		}
		if len(c) != len(r) {
			return 0, fmt.Errorf("compress: discrepancy: input %d: outputs of %d and %d values", i, len(r), len(c))
		}
		for j, v := range r {
			num += math.Abs(c[j] - v)
			den += math.Abs(v)
		}
	}
	if den == 0 {
		return 0, errors.New("compress: discrepancy: the reference outputs are all zero")
	}
	return num / den, nil
}

package gbdt

import (
	"fmt"
	"math"
)

// Limits of the training parameters (docs/gbdt.md §2).
const (
	// MaxBorders is the largest BorderCount: with at most 254 borders a
	// feature has at most 255 bins, which fit a uint8.
	MaxBorders = 254
	// MaxDepth is the deepest tree Train grows (CatBoost's limit too).
	MaxDepth = 16
	// MaxIterations bounds the number of trees Train grows.
	MaxIterations = 1_000_000
	// MaxL2LeafReg bounds the L2 leaf regularisation.
	MaxL2LeafReg = 1e12
)

// Params are the training parameters. Start from DefaultParams: the zero
// value is invalid on purpose (a depth or rate of zero is a mistake, not a
// request for a default).
type Params struct {
	// Iterations is the number of trees to grow, in [1, MaxIterations]
	// (fewer when early stopping ends training).
	Iterations int
	// Depth is the depth of every tree, in [1, MaxDepth]. A tree ends up
	// shallower only when no unused (feature, border) pair is left.
	Depth int
	// LearningRate scales every tree's leaf values, in (0, 1].
	LearningRate float64
	// L2LeafReg is the L2 penalty on leaf values, in [0, MaxL2LeafReg]: a
	// leaf's value is -LearningRate·Σg / (count + L2LeafReg).
	L2LeafReg float64
	// BorderCount is the largest number of borders per feature, in
	// [1, MaxBorders].
	BorderCount int
	// EarlyStoppingRounds stops training when the validation RMSE has not
	// improved for this many trees, in [0, Iterations]; 0 never stops early.
	// With a validation set the model is cut to the best iteration either
	// way; without one it must be 0.
	EarlyStoppingRounds int
}

// DefaultParams returns CatBoost's defaults for regression where they are
// fixed numbers: 1,000 iterations, depth 6, rate 0.03, L2 3, 254 borders, no
// early stopping. (CatBoost picks its rate automatically when none is given;
// 0.03 is what it falls back to, docs/gbdt.md §2.)
func DefaultParams() Params {
	return Params{
		Iterations:   1000,
		Depth:        6,
		LearningRate: 0.03,
		L2LeafReg:    3,
		BorderCount:  MaxBorders,
	}
}

// Validate reports the first parameter out of its range, naming it and the
// range.
func (p Params) Validate() error {
	switch {
	case p.Iterations < 1 || p.Iterations > MaxIterations:
		return fmt.Errorf("gbdt: Iterations = %d out of range [1, %d]", p.Iterations, MaxIterations)
	case p.Depth < 1 || p.Depth > MaxDepth:
		return fmt.Errorf("gbdt: Depth = %d out of range [1, %d]", p.Depth, MaxDepth)
	case !(p.LearningRate > 0 && p.LearningRate <= 1):
		return fmt.Errorf("gbdt: LearningRate = %v out of range (0, 1]", p.LearningRate)
	case !(p.L2LeafReg >= 0 && p.L2LeafReg <= MaxL2LeafReg):
		return fmt.Errorf("gbdt: L2LeafReg = %v out of range [0, %g]", p.L2LeafReg, MaxL2LeafReg)
	case p.BorderCount < 1 || p.BorderCount > MaxBorders:
		return fmt.Errorf("gbdt: BorderCount = %d out of range [1, %d]", p.BorderCount, MaxBorders)
	case p.EarlyStoppingRounds < 0 || p.EarlyStoppingRounds > p.Iterations:
		return fmt.Errorf("gbdt: EarlyStoppingRounds = %d out of range [0, Iterations = %d]", p.EarlyStoppingRounds, p.Iterations)
	}
	return nil
}

// Data is a regression dataset: X[i] is row i's feature vector and Y[i] its
// target. Every row has the same length; every value is finite and every
// feature value within float32's range (features are compared as float32).
type Data struct {
	X [][]float64
	Y []float64
}

// check validates d, named name in errors, and returns its feature count.
// want is the required feature count, or -1 for any.
func (d Data) check(name string, want int) (int, error) {
	if len(d.X) == 0 {
		return 0, fmt.Errorf("gbdt: %s.X is empty: need at least 1 row", name)
	}
	if len(d.Y) != len(d.X) {
		return 0, fmt.Errorf("gbdt: %s.Y has %d values for %d rows of %s.X", name, len(d.Y), len(d.X), name)
	}
	nf := len(d.X[0])
	if want >= 0 && nf != want {
		return 0, fmt.Errorf("gbdt: %s.X[0] has %d features, want %d (as the training data)", name, nf, want)
	}
	if nf == 0 || nf > MaxFeatures {
		return 0, fmt.Errorf("gbdt: %s.X[0] has %d features, want [1, %d]", name, nf, MaxFeatures)
	}
	for i, row := range d.X {
		if len(row) != nf {
			return 0, fmt.Errorf("gbdt: %s.X[%d] has %d features, %s.X[0] has %d", name, i, len(row), name, nf)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.Abs(v) > math.MaxFloat32 {
				return 0, fmt.Errorf("gbdt: %s.X[%d][%d] = %v: features must be finite and within ±%g (float32)", name, i, j, v, math.MaxFloat32)
			}
		}
		if y := d.Y[i]; math.IsNaN(y) || math.IsInf(y, 0) {
			return 0, fmt.Errorf("gbdt: %s.Y[%d] = %v: targets must be finite", name, i, y)
		}
	}
	return nf, nil
}

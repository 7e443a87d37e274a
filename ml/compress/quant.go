package compress

import (
	"fmt"
	"math"
)

// MinBits and MaxBits bound the quantiser's bit width B.
const (
	MinBits = 2
	MaxBits = 8
)

// MaxLevel returns L = 2^{B−1} − 1, the largest code magnitude of the
// symmetric B-bit quantiser: the codes are the integers −L..L, 2^B − 1
// levels with an exact zero (15 levels for B = 4), so that a pruned weight
// and the paper's sgn(x)·Δ·round(|x|/Δ) (decc.md eq. 22 with
// round-to-nearest) are both representable.
func MaxLevel(bits int) int { return 1<<(bits-1) - 1 }

func checkBits(bits int) error {
	if bits < MinBits || bits > MaxBits {
		return fmt.Errorf("compress: bits = %d, want %d..%d", bits, MinBits, MaxBits)
	}
	return nil
}

// Code returns the quantiser's integer level of w for step Δ and largest
// level L: round-to-nearest (halves away from zero, i.e. sgn(w)·round(|w|/Δ)
// as decc.md eq. 22), clamped to [−L, L].
func Code(w, step float64, maxLevel int) int {
	q := math.Round(w / step)
	l := float64(maxLevel)
	return int(min(l, max(-l, q)))
}

// Quantize returns Δ·Code(w, Δ, L), the dequantised value of w.
func Quantize(w, step float64, maxLevel int) float64 {
	return step * float64(Code(w, step, maxLevel))
}

// StepBisect returns the layer's shared quantiser step: the smallest step Δ
// for which round-to-nearest maps every kept weight into the levels −L..L
// without clipping, i.e. round(a/Δ) ≤ L where a = max|w| over the kept
// weights (docs/compress.md "step"). The predicate is monotone in Δ, false
// at a/(L+1) and true at a/L; bisection narrows the bracket to adjacent
// float64 values and returns its upper end, then rounds it up to a float32
// value (the packed format stores Δ as float32) — the predicate still holds
// after rounding up. The infimum is a/(L+½), which is never attained because
// a half rounds away from zero. With no kept weight (a = 0) the step is 1:
// every code is 0.
func StepBisect(maxAbs float64, maxLevel int) (step float64, iters int, err error) {
	if !(maxAbs >= 0) || math.IsInf(maxAbs, 0) {
		return 0, 0, fmt.Errorf("compress: step: max |w| = %v, want ≥ 0 and finite", maxAbs)
	}
	if maxLevel < 1 {
		return 0, 0, fmt.Errorf("compress: step: max level = %d, want ≥ 1", maxLevel)
	}
	if maxAbs == 0 {
		return 1, 0, nil
	}
	l := float64(maxLevel)
	ok := func(d float64) bool { return math.Round(maxAbs/d) <= l }
	lo, hi := maxAbs/(l+1), maxAbs/l
	for ok(lo) { // cannot happen in exact arithmetic; guards rounding
		lo /= 2
	}
	for !ok(hi) {
		hi *= 2
	}
	for iters = 0; iters < 2000; iters++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	s := float32(hi)
	if float64(s) < hi {
		s = math.Nextafter32(s, float32(math.Inf(1)))
	}
	return float64(s), iters, nil
}

// StepObjective selects what the layer's shared step minimises.
type StepObjective uint8

const (
	// StepError minimises the layer's expected squared quantisation error
	// over its kept weights: Δ²/12 per weight inside the range (the
	// rounding-noise model of decc.md eqs. 23–24) plus the exact clipping
	// error (|w| − LΔ)² of each weight beyond it (StepErrorBisect).
	StepError StepObjective = 1
	// StepCover is the smallest step that represents every kept weight
	// without clipping (StepBisect).
	StepCover StepObjective = 2
)

func (s StepObjective) String() string {
	switch s {
	case StepError:
		return "error"
	case StepCover:
		return "cover"
	}
	return fmt.Sprintf("step(%d)", uint8(s))
}

// errorSlope returns g(Δ) = ½·dE/dΔ of the modelled error
//
//	E(Δ) = n_in(Δ)·Δ²/12 + Σ_{clipped} (|w| − LΔ)²
//
// where a weight is clipped when round(|w|/Δ) > L and n_in counts the
// others: g = n_in·Δ/12 − L·Σ_{clipped}(|w| − LΔ). (The jumps of n_in only
// add to E as Δ grows, so g is the slope between them.) Both terms rise
// with Δ, so g is increasing and E has a single minimum.
func errorSlope(abs []float64, step float64, maxLevel int) float64 {
	l := float64(maxLevel)
	nIn, clip := 0, 0.0
	for _, a := range abs {
		if math.Round(a/step) <= l {
			nIn++
		} else {
			clip += a - l*step
		}
	}
	return float64(nIn)*step/12 - l*clip
}

// StepErrorBisect returns the step of the StepError objective for the
// magnitudes abs of a layer's kept weights: the root of the increasing
// slope g (errorSlope) by bisection between a step small enough that g < 0
// (at most a/(L+½), halved until g < 0) and a/L, where nothing is clipped
// and g > 0; the bracket is narrowed to adjacent float64 values and the
// result rounded to the nearest float32. With no nonzero magnitude the step
// is 1.
func StepErrorBisect(abs []float64, maxLevel int) (step float64, iters int, err error) {
	if maxLevel < 1 {
		return 0, 0, fmt.Errorf("compress: step: max level = %d, want ≥ 1", maxLevel)
	}
	a := 0.0
	for i, v := range abs {
		if !(v >= 0) || math.IsInf(v, 0) {
			return 0, 0, fmt.Errorf("compress: step: magnitude %d = %v, want ≥ 0 and finite", i, v)
		}
		a = max(a, v)
	}
	if a == 0 {
		return 1, 0, nil
	}
	l := float64(maxLevel)
	lo, hi := a/(l+0.5), a/l
	for errorSlope(abs, lo, maxLevel) >= 0 {
		if lo < a*1e-300 {
			break
		}
		lo /= 2
	}
	for iters = 0; iters < 2000; iters++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if errorSlope(abs, mid, maxLevel) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return float64(float32(hi)), iters, nil
}

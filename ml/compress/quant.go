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

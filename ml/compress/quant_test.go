package compress

import (
	"math"
	"testing"
)

func TestMaxLevel(t *testing.T) {
	for bits, want := range map[int]int{2: 1, 3: 3, 4: 7, 8: 127} {
		if got := MaxLevel(bits); got != want {
			t.Errorf("MaxLevel(%d) = %d, want %d", bits, got, want)
		}
	}
}

// TestCodeRounding checks round-to-nearest with halves away from zero
// (sgn(x)·round(|x|/Δ)) and the clamp to ±L on hand-made weights.
func TestCodeRounding(t *testing.T) {
	const step = 0.25
	for _, c := range []struct {
		w    float64
		want int
	}{
		{0, 0}, {0.1, 0}, {0.125, 1}, {-0.125, -1}, {0.124, 0}, {0.3, 1}, {-0.3, -1},
		{0.375, 2}, {-0.375, -2}, {1.75, 7}, {1.8, 7}, {1.875, 7}, {100, 7}, {-100, -7},
	} {
		if got := Code(c.w, step, 7); got != c.want {
			t.Errorf("Code(%v, 0.25, 7) = %d, want %d", c.w, got, c.want)
		}
		if got := Quantize(c.w, step, 7); got != step*float64(c.want) {
			t.Errorf("Quantize(%v) = %v, want %v", c.w, got, step*float64(c.want))
		}
	}
}

// TestStepBisectHandCase: kept weights {0.3, −1.5, 0.75}, 4 bits (L = 7).
// The smallest step with round(1.5/Δ) ≤ 7 is the infimum 1.5/7.5 = 0.2
// approached from above; rounded up to float32 it is float32(0.2) =
// 0.20000000298023224 (> 0.2). The codes are then round(1.4999999776) = 1,
// round(−7.4999998882) = −7 and round(3.7499999441) = 4: the levels
// {1, −7, 4}, 3 of the 15.
func TestStepBisectHandCase(t *testing.T) {
	step, iters, err := StepBisect(1.5, 7)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(float32(0.2)); step != want {
		t.Fatalf("step = %.17g, want %.17g", step, want)
	}
	if iters < 10 {
		t.Errorf("bisection took %d iterations, expected it to narrow the bracket", iters)
	}
	for i, w := range []float64{0.3, -1.5, 0.75} {
		if got, want := Code(w, step, 7), []int{1, -7, 4}[i]; got != want {
			t.Errorf("Code(%v) = %d, want %d", w, got, want)
		}
	}
	// the step below float32(0.2) would map 1.5 to level 8
	below := float64(math.Nextafter32(float32(0.2), 0))
	if math.Round(1.5/below) <= 7 {
		t.Errorf("the next float32 below the step, %v, also satisfies the predicate", below)
	}
}

// TestStepBisectAllBits: for every width, the step covers max|w| with ≤ L
// levels, is a float32 value within a float32 ulp of a/(L+½) above it, and
// no float32 below it covers.
func TestStepBisectAllBits(t *testing.T) {
	for bits := MinBits; bits <= MaxBits; bits++ {
		L := MaxLevel(bits)
		for _, a := range []float64{1e-3, 0.37, 1, 12.5} {
			step, _, err := StepBisect(a, L)
			if err != nil {
				t.Fatal(err)
			}
			inf := a / (float64(L) + 0.5)
			if float64(float32(step)) != step || step < inf || step > inf*(1+2e-7) {
				t.Errorf("bits %d a %v: step %v, want the float32 just above %v", bits, a, step, inf)
			}
			if Code(a, step, L) > L || math.Round(a/step) > float64(L) {
				t.Errorf("bits %d a %v: step %v does not cover", bits, a, step)
			}
			if below := float64(math.Nextafter32(float32(step), 0)); math.Round(a/below) <= float64(L) {
				t.Errorf("bits %d a %v: a smaller float32 step %v also covers", bits, a, below)
			}
		}
	}
	if s, _, err := StepBisect(0, 7); err != nil || s != 1 {
		t.Errorf("StepBisect(0) = %v, %v; want 1, nil", s, err)
	}
	_, _, err := StepBisect(math.NaN(), 7)
	wantErr(t, err, "max |w|", "finite")
}

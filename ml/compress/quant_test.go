package compress

import (
	"math"
	"slices"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
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

// TestStepErrorBisectHandCase: 2 bits (L = 1, levels −Δ, 0, Δ), kept
// magnitudes eight 1s and one 2. For Δ in (2/3, 4/3] the 1s round to level
// 1 and the 2 is clipped, so ½·dE/dΔ = 8·Δ/12 − (2 − Δ) = (5/3)·Δ − 2,
// zero at Δ = 1.2, inside the interval: the step is float32(1.2), and every
// weight quantises to 1.2.
func TestStepErrorBisectHandCase(t *testing.T) {
	abs := []float64{1, 1, 1, 1, 1, 1, 1, 1, 2}
	step, iters, err := StepErrorBisect(abs, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(float32(1.2)); step != want {
		t.Fatalf("step = %.17g (%d iterations), want %.17g", step, iters, want)
	}
	for _, w := range abs {
		if q := Quantize(w, step, 1); q != step {
			t.Errorf("Quantize(%v) = %v, want %v", w, q, step)
		}
	}
	if g := errorSlope(abs, 1.19, 1); g >= 0 {
		t.Errorf("slope at 1.19 = %v, want < 0", g)
	}
	if g := errorSlope(abs, 1.21, 1); g <= 0 {
		t.Errorf("slope at 1.21 = %v, want > 0", g)
	}
	if s, _, err := StepErrorBisect([]float64{0, 0}, 7); err != nil || s != 1 {
		t.Errorf("all-zero layer: step %v, %v; want 1, nil", s, err)
	}
	_, _, err = StepErrorBisect([]float64{1, -2}, 7)
	wantErr(t, err, "magnitude 1 = -2", "≥ 0")
}

// TestStepErrorBeatsCover: on the kept weights of a Laplace layer pruned
// at 65 %, the error-model step's actual squared error at 4 bits is within
// 2 % of the best step of a 1000-point scan over [a/(4L), a/L] and at least
// 15 % below the covering step's (it clips the few largest weights to
// spend the 15 levels on the bulk); the slope changes sign at it.
func TestStepErrorBeatsCover(t *testing.T) {
	w := laplaceDraws(nn.NewRand(4), 8192, 0, 0.1)
	beta := 0.1 * math.Log(1/(1-0.65))
	var abs []float64
	for _, v := range w {
		if math.Abs(v) > beta {
			abs = append(abs, math.Abs(v))
		}
	}
	sse := func(step float64) float64 {
		s := 0.0
		for _, a := range abs {
			d := a - Quantize(a, step, 7)
			s += d * d
		}
		return s
	}
	a := slices.Max(abs)
	best := math.Inf(1)
	for i := range 1000 {
		best = min(best, sse(a/28+float64(i)*(a/7-a/28)/999))
	}
	se, _, _ := StepErrorBisect(abs, 7)
	sc, _, _ := StepBisect(a, 7)
	t.Logf("error step %.5g: SSE %.4g; cover step %.5g: SSE %.4g; best of scan %.4g", se, sse(se), sc, sse(sc), best)
	if sse(se) > 1.02*best {
		t.Errorf("error step SSE %v, more than 2 %% above the scan's best %v", sse(se), best)
	}
	if !(sse(se) < 0.85*sse(sc)) {
		t.Errorf("error step SSE %v, cover step SSE %v: want at least 15 %% lower", sse(se), sse(sc))
	}
	if errorSlope(abs, se*0.999, 7) >= 0 || errorSlope(abs, se*1.001, 7) <= 0 {
		t.Errorf("the slope does not change sign at %v", se)
	}
}

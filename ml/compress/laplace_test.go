package compress

import (
	"math"
	"slices"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

// TestFitLaplaceRecoversScale: Levenberg–Marquardt on the empirical CDF of
// 20,000 Laplace draws recovers the scale within 2 % (and the location
// within 2 % of the scale), for a zero-mean and a shifted distribution.
func TestFitLaplaceRecoversScale(t *testing.T) {
	r := nn.NewRand(7)
	for _, c := range []struct{ mu, b float64 }{{0, 0.05}, {0, 1}, {0.3, 0.2}, {-0.01, 0.004}} {
		w := laplaceDraws(r, 20000, c.mu, c.b)
		f, err := FitLaplace(w)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("true μ %v b %v: fitted μ %.6g b %.6g (b error %.3f %%)", c.mu, c.b, f.Mu, f.B, 100*(f.B/c.b-1))
		if math.Abs(f.B/c.b-1) > 0.02 {
			t.Errorf("b = %v, want %v ± 2 %%", f.B, c.b)
		}
		if math.Abs(f.Mu-c.mu) > 0.02*c.b {
			t.Errorf("μ = %v, want %v ± 0.02·b", f.Mu, c.mu)
		}
	}
}

// TestFitLaplaceIsLeastSquares: the fit is a stationary point of the CDF
// residuals — perturbing either parameter by 0.1 % raises the sum of
// squares — and it moves from the maximum-likelihood start.
func TestFitLaplaceIsLeastSquares(t *testing.T) {
	w := laplaceDraws(nn.NewRand(3), 5000, 0, 1)
	f, err := FitLaplace(w)
	if err != nil {
		t.Fatal(err)
	}
	s := slices.Sorted(slices.Values(w))
	m := min(len(s), lmPoints)
	xs, ys := make([]float64, m), make([]float64, m)
	for j := range m {
		k := int((float64(j) + 0.5) * float64(len(s)) / float64(m))
		xs[j], ys[j] = s[k], (float64(k)+0.5)/float64(len(s))
	}
	best := cdfResiduals(xs, ys, f, nil, nil)
	for _, d := range []Laplace{{1e-3 * f.B, 0}, {-1e-3 * f.B, 0}, {0, 1e-3 * f.B}, {0, -1e-3 * f.B}} {
		if ss := cdfResiduals(xs, ys, Laplace{f.Mu + d.Mu, f.B + d.B}, nil, nil); ss <= best {
			t.Errorf("residual %v at %+v is not above the fit's %v", ss, d, best)
		}
	}
}

func TestFitLaplaceErrors(t *testing.T) {
	_, err := FitLaplace([]float64{1})
	wantErr(t, err, "1 values", "≥ 2")
	_, err = FitLaplace([]float64{2, 2, 2})
	wantErr(t, err, "equal")
	_, err = FitLaplace([]float64{0, math.NaN()})
	wantErr(t, err, "value 1", "NaN")
}

// TestSolveThresholdClosedForm: for one zero-mean Laplace group of scale b,
// F(β) − F(−β) = 1 − e^{−β/b} = s gives β = b·ln(1/(1−s)); Newton–Raphson
// matches it to 1e-12 relative.
func TestSolveThresholdClosedForm(t *testing.T) {
	for _, b := range []float64{0.01, 0.3, 2} {
		for _, s := range []float64{0.01, 0.3, 0.5, 0.65, 0.9, 0.99} {
			beta, iters, err := SolveThreshold([]ThresholdGroup{{Laplace{0, b}, 100}}, s)
			if err != nil {
				t.Fatal(err)
			}
			want := b * math.Log(1/(1-s))
			if math.Abs(beta/want-1) > 1e-12 {
				t.Errorf("b %v s %v: β = %.17g, want %.17g (%d iterations)", b, s, beta, want, iters)
			}
		}
	}
	if beta, _, _ := SolveThreshold([]ThresholdGroup{{Laplace{0, 1}, 1}}, 0); beta != 0 {
		t.Errorf("β at sparsity 0 = %v, want 0", beta)
	}
}

// TestSolveThresholdGlobal: with several groups (eq. 18) the root makes the
// weighted fitted mass equal p, and shifted locations are handled.
func TestSolveThresholdGlobal(t *testing.T) {
	gs := []ThresholdGroup{{Laplace{0, 0.1}, 640}, {Laplace{0.01, 0.02}, 8192}, {Laplace{-0.05, 0.5}, 176}}
	for _, p := range []float64{0.1, 0.65, 0.95} {
		beta, iters, err := SolveThreshold(gs, p)
		if err != nil {
			t.Fatal(err)
		}
		mass, n := 0.0, 0.0
		for _, g := range gs {
			mass += float64(g.N) * g.Fit.Mass(beta)
			n += float64(g.N)
		}
		if math.Abs(mass/n-p) > 1e-13 {
			t.Errorf("p %v: fitted mass at β = %v is %v (%d iterations)", p, beta, mass/n, iters)
		}
		if iters > 30 {
			t.Errorf("p %v: %d iterations, Newton should converge fast", p, iters)
		}
	}
}

func TestSolveThresholdErrors(t *testing.T) {
	g := []ThresholdGroup{{Laplace{0, 1}, 10}}
	for _, p := range []float64{-0.1, 1, math.NaN()} {
		_, _, err := SolveThreshold(g, p)
		wantErr(t, err, "sparsity", "[0, 1)")
	}
	_, _, err := SolveThreshold([]ThresholdGroup{{Laplace{0, 0}, 10}}, 0.5)
	wantErr(t, err, "group 0", "b > 0")
}

// TestLaplaceThresholdVsQuantile: on Laplace-distributed weights the fitted
// threshold is within 3 % of the empirical |w| quantile and prunes the
// target fraction within 0.5 percentage points, for layers of 20,000 and
// 50,000 weights. (The empirical CDF's own sampling error, √(p(1−p)/n), is
// 0.34 points at n = 20,000 and p = 0.65 but 1.1 points at n = 2,048: for
// small layers the 0.5-point check is a property of the sample, not of the
// fit, which is why Compress falls back to the quantile.)
func TestLaplaceThresholdVsQuantile(t *testing.T) {
	r := nn.NewRand(11)
	for _, n := range []int{20000, 50000} {
		w := laplaceDraws(r, n, 0, 0.05)
		f, err := FitLaplace(w)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []float64{0.3, 0.5, 0.65, 0.8} {
			beta, _, err := SolveThreshold([]ThresholdGroup{{f, n}}, p)
			if err != nil {
				t.Fatal(err)
			}
			abs := make([]float64, n)
			for i, v := range w {
				abs[i] = math.Abs(v)
			}
			slices.Sort(abs)
			q := abs[int(math.Round(p*float64(n)))-1]
			got := thresholdMask(w, beta, make([]bool, n))
			t.Logf("n %d p %v: β %.5g, quantile %.5g (%.2f %%), sparsity %.4f", n, p, beta, q, 100*(beta/q-1), got)
			if math.Abs(beta/q-1) > 0.03 {
				t.Errorf("n %d p %v: β = %v, quantile %v: more than 3 %% apart", n, p, beta, q)
			}
			if math.Abs(got-p) > 0.005 {
				t.Errorf("n %d p %v: sparsity %v, want within 0.005", n, p, got)
			}
		}
	}
}

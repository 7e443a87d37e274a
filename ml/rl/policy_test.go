package rl

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

// Gradient checks: analytic gradients against central differences
// (f(x+h) − f(x−h))/2h in float64, relative error
// |a − n|/max(|a|, |n|, gcFloor) below gcTol (as ml/nn's checks).
const (
	gcStep  = 1e-5
	gcFloor = 1e-4
	gcTol   = 1e-6
)

func relErr(a, n float64) float64 { return math.Abs(a-n) / max(math.Abs(a), math.Abs(n), gcFloor) }

// gradCheck compares grad (the analytic gradient of f at x) with central
// differences over every component of x.
func gradCheck(t *testing.T, name string, f func() float64, x, grad []float64) {
	t.Helper()
	worst := 0.0
	for i := range x {
		v := x[i]
		x[i] = v + gcStep
		fp := f()
		x[i] = v - gcStep
		fm := f()
		x[i] = v
		n := (fp - fm) / (2 * gcStep)
		e := relErr(grad[i], n)
		worst = max(worst, e)
		if e > gcTol {
			t.Errorf("%s: component %d: analytic %.12g, numeric %.12g, relative error %.3g", name, i, grad[i], n, e)
		}
	}
	t.Logf("%s: worst relative error %.3g over %d components", name, worst, len(x))
}

func randVec(r *rand.Rand, n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = (2*r.Float64() - 1) * scale
	}
	return v
}

func TestDetLog(t *testing.T) {
	r := nn.NewRand(1)
	for range 10000 {
		x := math.Exp((2*r.Float64() - 1) * 700)
		got, want := detLog(x), math.Log(x)
		if math.Abs(got-want) > 2e-16*max(1, math.Abs(want)) {
			t.Fatalf("detLog(%v) = %v, math.Log %v", x, got, want)
		}
	}
	if detLog(1) != 0 || !math.IsInf(detLog(0), -1) || !math.IsNaN(detLog(-1)) {
		t.Fatal("detLog special cases")
	}
}

func TestCategoricalValues(t *testing.T) {
	// uniform logits: log p = −log K, H = log K, whatever the offset
	for _, off := range []float64{0, 1000, -1000} {
		z := []float64{off, off, off, off}
		if lp := CategoricalLogProb(z, 2); math.Abs(lp+math.Log(4)) > 1e-15 {
			t.Fatalf("offset %v: log p = %v, want −log 4", off, lp)
		}
		if h := CategoricalEntropy(z); math.Abs(h-math.Log(4)) > 1e-12 {
			t.Fatalf("offset %v: H = %v, want log 4", off, h)
		}
	}
	// huge logits: stable, p = (1, 0): log p_0 = 0, log p_1 = −2000
	z := []float64{1000, -1000}
	if lp := CategoricalLogProb(z, 1); lp != -2000 {
		t.Fatalf("log p_1 = %v, want −2000", lp)
	}
	if lp := CategoricalLogProb(z, 0); lp != 0 {
		t.Fatalf("log p_0 = %v, want 0", lp)
	}
	p := make([]float64, 3)
	Softmax([]float64{0, math.Log(2), math.Log(5)}, p)
	for j, want := range []float64{0.125, 0.25, 0.625} {
		if math.Abs(p[j]-want) > 1e-15 {
			t.Fatalf("softmax %v, want 1/8, 2/8, 5/8", p)
		}
	}
	if m := CategoricalMean([]float64{0, math.Log(2), math.Log(5)}, []float64{-1, 0, 1}); math.Abs(m-0.5) > 1e-15 {
		t.Fatalf("mean %v, want 0.5", m)
	}
}

func TestCategoricalSampleFrequencies(t *testing.T) {
	z := []float64{0, math.Log(2), math.Log(5), math.Inf(-1)} // p = 1/8, 2/8, 5/8, 0
	r := nn.NewRand(11)
	var count [4]int
	const n = 80000
	for range n {
		count[CategoricalSample(r, z)]++
	}
	for j, p := range []float64{0.125, 0.25, 0.625, 0} {
		sd := math.Sqrt(n * p * (1 - p))
		if math.Abs(float64(count[j])-n*p) > 5*sd {
			t.Fatalf("counts %v for p = (1/8, 2/8, 5/8, 0)", count)
		}
	}
	if count[3] != 0 {
		t.Fatal("a class of probability 0 was drawn")
	}
	if a := testing.AllocsPerRun(100, func() { CategoricalSample(r, z) }); a != 0 {
		t.Fatalf("CategoricalSample allocates %v", a)
	}
}

func TestCategoricalGradCheck(t *testing.T) {
	r := nn.NewRand(2)
	for trial := range 5 {
		z := randVec(r, 11, 3)
		k := r.IntN(11)
		cLogp, cEnt := 0.7, -0.3
		f := func() float64 { return cLogp*CategoricalLogProb(z, k) + cEnt*CategoricalEntropy(z) }
		g := make([]float64, len(z))
		CategoricalGrad(z, k, cLogp, cEnt, g)
		gradCheck(t, "categorical log-prob + entropy", f, z, g)
		_ = trial
	}
}

func TestSquash(t *testing.T) {
	s := Squash{Lo: -0.5, Hi: 0.5}
	if s.Action(0) != 0 || s.Action(50) != 0.5 || s.Action(-50) != -0.5 {
		t.Fatalf("squash: %v %v %v", s.Action(0), s.Action(50), s.Action(-50))
	}
	s2 := Squash{Lo: 1, Hi: 3}
	if a := s2.Action(math.Atanh(0.5)); math.Abs(a-2.5) > 1e-15 {
		t.Fatalf("squash [1,3] at tanh = 0.5: %v, want 2.5", a)
	}
	u := []float64{0.3}
	g := []float64{s2.Deriv(u[0])}
	gradCheck(t, "squash", func() float64 { return s2.Action(u[0]) }, u, g)
	for _, bad := range []Squash{{1, 1}, {2, 1}, {math.NaN(), 1}, {0, math.Inf(1)}} {
		if bad.Validate() == nil {
			t.Errorf("range %v accepted", bad)
		}
	}
}

func TestTanhGaussian(t *testing.T) {
	g := TanhGaussian{Squash: Squash{Lo: -2, Hi: 4}, Eps: 1e-6}
	r := nn.NewRand(3)
	const d = 3
	mu, ls, n := randVec(r, d, 1), randVec(r, d, 1), randVec(r, d, 1.5)
	a := make([]float64, d)
	lp := TanhGaussian{Squash: g.Squash}.Sample(mu, ls, n, a) // Eps = 0
	// the density by change of variables, computed independently
	want := 0.0
	for i := range d {
		s := math.Exp(ls[i])
		u := mu[i] + s*n[i]
		if math.Abs(a[i]-(1+3*math.Tanh(u))) > 1e-14 {
			t.Fatalf("a[%d] = %v, want %v", i, a[i], 1+3*math.Tanh(u))
		}
		want += -0.5*n[i]*n[i] - math.Log(s) - 0.5*math.Log(2*math.Pi) - math.Log(3*(1-math.Tanh(u)*math.Tanh(u)))
	}
	if math.Abs(lp-want) > 1e-13 {
		t.Fatalf("log π = %v, want %v", lp, want)
	}
	// gradient of Σ c_i a_i + c·log π with respect to μ and ℓ
	c := randVec(r, d, 1)
	cl := 0.8
	f := func() float64 {
		lp := g.Sample(mu, ls, n, a)
		s := cl * lp
		for i := range a {
			s += c[i] * a[i]
		}
		return s
	}
	dMu, dLs := make([]float64, d), make([]float64, d)
	g.Backward(mu, ls, n, c, cl, dMu, dLs)
	gradCheck(t, "tanh-gaussian wrt mean", f, mu, dMu)
	gradCheck(t, "tanh-gaussian wrt log std", f, ls, dLs)
}

func TestGaussian(t *testing.T) {
	r := nn.NewRand(4)
	const d = 4
	mu, ls, x := randVec(r, d, 1), randVec(r, d, 1), randVec(r, d, 2)
	want := 0.0
	for i := range d {
		s := math.Exp(ls[i])
		want += -0.5*math.Pow((x[i]-mu[i])/s, 2) - math.Log(s*math.Sqrt(2*math.Pi))
	}
	if lp := GaussianLogProb(mu, ls, x); math.Abs(lp-want) > 1e-13 {
		t.Fatalf("log N = %v, want %v", lp, want)
	}
	if h, hw := GaussianEntropy(ls), func() float64 {
		s := 0.0
		for _, l := range ls {
			s += l + 0.5*math.Log(2*math.Pi*math.E)
		}
		return s
	}(); math.Abs(h-hw) > 1e-13 {
		t.Fatalf("entropy %v, want %v", h, hw)
	}
	dMu, dLs := make([]float64, d), make([]float64, d)
	GaussianLogProbGrad(mu, ls, x, 1.3, dMu, dLs)
	f := func() float64 { return 1.3 * GaussianLogProb(mu, ls, x) }
	gradCheck(t, "gaussian log-prob wrt mean", f, mu, dMu)
	gradCheck(t, "gaussian log-prob wrt log std", f, ls, dLs)
}

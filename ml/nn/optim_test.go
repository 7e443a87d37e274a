package nn

import (
	"math"
	"strings"
	"testing"
)

func param(w ...float64) *Param {
	return &Param{Name: "p", W: w, G: make([]float64, len(w))}
}

// near compares within tol relative (tol ≥ a few ulps: the hand values are
// exact reals, the code rounds at every operation).
func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*max(1, math.Abs(want)) {
		t.Errorf("%s = %.17g, want %.17g", what, got, want)
	}
}

// TestAdamHand checks two Adam steps against values worked out by hand
// (exact fractions; the square root to 30 digits) for w0 = 1, α = 0.1,
// β1 = 0.9, β2 = 0.999, ε = 1e-8, gradients 0.5 then −0.25:
//
//	t=1: m = 0.05, v = 0.00025, m̂ = 0.5, v̂ = 0.25,
//	     w = 1 − 0.1·0.5/(0.5+1e-8) = 0.90000000199999996000…
//	t=2: m = 0.045 − 0.025 = 0.02, v = 0.00024975 + 0.0000625 = 0.00031225,
//	     m̂ = 0.02/0.19 = 2/19, v̂ = 0.00031225/0.001999 = 1249/7996,
//	     w = w1 − 0.1·(2/19)/(√(1249/7996)+1e-8) = 0.87336629870784616…
//
// A second component with gradient 0 must not move (m = v = 0).
func TestAdamHand(t *testing.T) {
	p := param(1, 3)
	a, err := NewAdam([]*Param{p}, AdamConfig{LR: 0.1, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	p.G[0] = 0.5
	a.Step()
	near(t, "w after step 1", p.W[0], 0.90000000199999996, 4e-16)
	near(t, "m after step 1", a.m[0][0], 0.05, 4e-16)
	near(t, "v after step 1", a.v[0][0], 0.00025, 4e-16)
	p.G[0] = -0.25
	a.Step()
	near(t, "w after step 2", p.W[0], 0.87336629870784616, 4e-16)
	near(t, "m after step 2", a.m[0][0], 0.02, 4e-16)
	near(t, "v after step 2", a.v[0][0], 0.00031225, 4e-16)
	if p.W[1] != 3 {
		t.Errorf("a zero-gradient component moved to %v", p.W[1])
	}
	if a.Steps() != 2 {
		t.Errorf("Steps = %d", a.Steps())
	}
}

// TestSGDHand: w0 = 1, lr = 0.1, gradients 0.5 then −0.25.
// Plain: 1 − 0.05 = 0.95, then 0.95 + 0.025 = 0.975.
// Momentum 0.9: b = 0.5, w = 0.95; b = 0.9·0.5 − 0.25 = 0.2, w = 0.93.
func TestSGDHand(t *testing.T) {
	for _, c := range []struct {
		mu     float64
		w1, w2 float64
	}{{0, 0.95, 0.975}, {0.9, 0.95, 0.93}} {
		p := param(1)
		s, err := NewSGD([]*Param{p}, SGDConfig{LR: 0.1, Momentum: c.mu})
		if err != nil {
			t.Fatal(err)
		}
		p.G[0] = 0.5
		s.Step()
		near(t, "w1", p.W[0], c.w1, 4e-16)
		p.G[0] = -0.25
		s.Step()
		near(t, "w2", p.W[0], c.w2, 4e-16)
	}
}

func TestClipping(t *testing.T) {
	p := param(0, 0, 0)
	copy(p.G, []float64{0.5, -0.1, -2})
	ClipGradValue([]*Param{p}, 0.3)
	if want := []float64{0.3, -0.1, -0.3}; !equal(p.G, want) {
		t.Errorf("ClipGradValue: %v, want %v", p.G, want)
	}
	// norm: (3, 4) has norm 5; max 1 scales by 1/(5+1e-6)
	a, b := param(0), param(0)
	a.G[0], b.G[0] = 3, 4
	if n := ClipGradNorm([]*Param{a, b}, 1); n != 5 {
		t.Errorf("ClipGradNorm returned %v, want 5", n)
	}
	near(t, "clipped g0", a.G[0], 3/5.000001, 4e-16)
	near(t, "clipped g1", b.G[0], 4/5.000001, 4e-16)
	// below the bound nothing changes
	a.G[0], b.G[0] = 0.3, 0.4
	ClipGradNorm([]*Param{a, b}, 1)
	if a.G[0] != 0.3 || b.G[0] != 0.4 {
		t.Errorf("a gradient of norm 0.5 was clipped to (%v, %v)", a.G[0], b.G[0])
	}
	// inside an optimiser: value first (2 → 1, −4 → −1: norm √2), then norm 1
	p = param(0, 0)
	s, err := NewSGD([]*Param{p}, SGDConfig{LR: 1, Clip: Clip{Value: 1, Norm: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p.G[0], p.G[1] = 2, -4
	s.Step()
	f := 1 / (math.Sqrt2 + 1e-6)
	near(t, "w0", p.W[0], -f, 1e-15)
	near(t, "w1", p.W[1], f, 1e-15)
	// Adam with value clipping: the first step is ±α whatever the gradient
	p = param(0)
	ad, _ := NewAdam([]*Param{p}, AdamConfig{LR: 0.01, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Clip: Clip{Value: 0.1}})
	p.G[0] = 50
	ad.Step()
	near(t, "adam clipped step", p.W[0], -0.01*0.1/(0.1+1e-8), 1e-15)
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestOptimizerConfigErrors(t *testing.T) {
	ps := []*Param{param(1)}
	for _, c := range []struct {
		cfg  AdamConfig
		want string
	}{
		{AdamConfig{LR: 0, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}, "lr = 0"},
		{AdamConfig{LR: math.NaN(), Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}, "lr = NaN"},
		{AdamConfig{LR: 1e-3, Beta1: 1, Beta2: 0.999, Eps: 1e-8}, "beta1 = 1, want [0, 1)"},
		{AdamConfig{LR: 1e-3, Beta1: 0.9, Beta2: -0.1, Eps: 1e-8}, "beta2 = -0.1"},
		{AdamConfig{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 0}, "eps = 0"},
		{AdamConfig{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Clip: Clip{Norm: -1}}, "clip norm = -1"},
		{AdamConfig{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Clip: Clip{Value: math.Inf(1)}}, "clip value = +Inf"},
	} {
		_, err := NewAdam(ps, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewAdam(%+v) error %v, want it to mention %q", c.cfg, err, c.want)
		}
	}
	if _, err := NewSGD(ps, SGDConfig{LR: 0.1, Momentum: 1}); err == nil || !strings.Contains(err.Error(), "momentum = 1") {
		t.Errorf("SGD momentum 1: %v", err)
	}
	if _, err := NewSGD(nil, SGDConfig{LR: 0.1}); err == nil {
		t.Error("SGD without parameters accepted")
	}
	a, _ := NewAdam(ps, DefaultAdam())
	if err := a.SetLR(-1); err == nil {
		t.Error("SetLR(−1) accepted")
	}
}

package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Gradient checks: every analytic gradient against central differences
// (f(w+h) − f(w−h))/2h in float64, relative error |a − n|/max(|a|, |n|, floor)
// below 1e-6. The scalar checked is L = Σ_k r_k·y_k with fixed random r, so
// that dL/dy = r exercises every output.

const (
	gcStep  = 1e-5 // h
	gcFloor = 1e-4 // denominators below this are treated as absolute errors ×1e4
	gcTol   = 1e-6
)

func relErr(a, n float64) float64 {
	return math.Abs(a-n) / max(math.Abs(a), math.Abs(n), gcFloor)
}

type gradChecker struct {
	t      *testing.T
	m      *Sequential
	ws     *Workspace
	x      []float64
	steps  int
	r      []float64
	worst  float64
	checks int
}

func newGradChecker(t *testing.T, m *Sequential, steps int, seed uint64) *gradChecker {
	rng := rand.New(rand.NewPCG(seed, 99))
	// weights in U(−0.6, 0.6): larger than the default initialisation so
	// that the gates are far from their linear regime
	for _, p := range m.Params() {
		for i := range p.W {
			p.W[i] = (2*rng.Float64() - 1) * 0.6
		}
	}
	g := &gradChecker{t: t, m: m, ws: m.NewWorkspace(steps), steps: steps}
	g.x = make([]float64, steps*m.InSize())
	for i := range g.x {
		g.x[i] = 2*rng.Float64() - 1
	}
	g.r = make([]float64, m.OutSteps(steps)*m.OutSize())
	for i := range g.r {
		g.r[i] = 2*rng.Float64() - 1
	}
	return g
}

func (g *gradChecker) loss() float64 {
	y, err := g.m.Forward(g.ws, g.x, g.steps)
	if err != nil {
		g.t.Fatal(err)
	}
	s := 0.0
	for i, v := range y {
		s += g.r[i] * v
	}
	return s
}

// analytic runs Forward and Backward and returns dL/dx (a copy).
func (g *gradChecker) analytic() []float64 {
	g.m.ZeroGrad()
	g.loss()
	dx, err := g.m.Backward(g.ws, g.r)
	if err != nil {
		g.t.Fatal(err)
	}
	return append([]float64(nil), dx...)
}

// numeric returns the central difference of L with respect to *v.
func (g *gradChecker) numeric(v *float64) float64 {
	old := *v
	*v = old + gcStep
	lp := g.loss()
	*v = old - gcStep
	lm := g.loss()
	*v = old
	return (lp - lm) / (2 * gcStep)
}

func (g *gradChecker) compare(what string, a, n float64) {
	g.t.Helper()
	e := relErr(a, n)
	g.checks++
	g.worst = max(g.worst, e)
	if e > gcTol || math.IsNaN(e) {
		g.t.Errorf("%s: analytic %.12g, numeric %.12g, relative error %.3g > %g", what, a, n, e, gcTol)
	}
}

// all checks every parameter and every input; it returns the worst error.
func (g *gradChecker) all() float64 {
	g.t.Helper()
	dx := g.analytic()
	grads := make([][]float64, len(g.m.Params()))
	for k, p := range g.m.Params() {
		grads[k] = append([]float64(nil), p.G...)
	}
	for li, l := range g.m.Layers() {
		for _, p := range l.Params() {
			k := indexOf(g.m.Params(), p)
			for i := range p.W {
				g.compare(fmt.Sprintf("layer %d (%v) %s[%d]", li, l, p.Name, i), grads[k][i], g.numeric(&p.W[i]))
			}
		}
	}
	for i := range g.x {
		g.compare(fmt.Sprintf("input x[%d]", i), dx[i], g.numeric(&g.x[i]))
	}
	return g.worst
}

func indexOf(ps []*Param, p *Param) int {
	for i, q := range ps {
		if q == p {
			return i
		}
	}
	panic("param not in model")
}

func mustSeq(t testing.TB, layers ...Layer) *Sequential {
	t.Helper()
	m, err := NewSequential(layers...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestGradDense(t *testing.T) {
	for _, steps := range []int{1, 3} {
		m := mustSeq(t, must(NewDense(4, 3, XavierUniform)), must(NewDense(3, 2, TorchDefault)))
		g := newGradChecker(t, m, steps, 1)
		w := g.all()
		t.Logf("dense 4→3→2, %d steps: %d components, worst relative error %.2g", steps, g.checks, w)
		if g.checks != 4*3+3+3*2+2+steps*4 {
			t.Fatalf("checked %d components", g.checks)
		}
	}
}

func TestGradActivations(t *testing.T) {
	for _, fn := range []Act{Identity, Sigmoid, Tanh, ReLU} {
		// dense 3→5, then the activation, then dense 5→2: the activation's
		// input and output gradients are both exercised
		m := mustSeq(t, must(NewDense(3, 5, XavierUniform)), must(NewActivation(fn, 5)), must(NewDense(5, 2, XavierUniform)))
		g := newGradChecker(t, m, 2, uint64(fn))
		if fn == ReLU {
			// keep every pre-activation at least 0.05 away from the kink
			for !reluAway(g, 0.05) {
				for i := range g.x {
					g.x[i] += 0.013
				}
			}
		}
		w := g.all()
		t.Logf("%v: %d components, worst relative error %.2g", fn, g.checks, w)
	}
}

func reluAway(g *gradChecker, d float64) bool {
	g.loss()
	y := g.ws.states[0].(*denseState).y[:g.steps*5]
	for _, v := range y {
		if math.Abs(v) < d {
			return false
		}
	}
	return true
}

func TestActivationValues(t *testing.T) {
	for _, c := range []struct {
		a    Act
		x, y float64
	}{
		{Identity, -1.5, -1.5}, {ReLU, -1.5, 0}, {ReLU, 2.5, 2.5}, {ReLU, 0, 0},
		{Sigmoid, 0, 0.5}, {Sigmoid, math.Log(3), 0.75}, {Sigmoid, -math.Log(3), 0.25},
		{Sigmoid, -800, 0}, {Sigmoid, 800, 1},
		{Tanh, 0, 0}, {Tanh, math.Log(2), 0.6}, // (4−1)/(4+1)
	} {
		if got := c.a.Apply(c.x); math.Abs(got-c.y) > 1e-15 {
			t.Errorf("%v(%v) = %v, want %v", c.a, c.x, got, c.y)
		}
	}
	// the derivative through the output, against central differences
	for _, a := range []Act{Identity, Sigmoid, Tanh, ReLU} {
		for _, x := range []float64{-2, -0.3, 0.4, 1.7} {
			n := (a.Apply(x+gcStep) - a.Apply(x-gcStep)) / (2 * gcStep)
			if e := relErr(a.DerivFromOutput(a.Apply(x)), n); e > gcTol {
				t.Errorf("%v'(%v): relative error %.3g", a, x, e)
			}
		}
	}
}

func TestGradLSTM(t *testing.T) {
	for _, c := range []struct {
		in, hidden, steps int
		seq               bool
	}{
		{1, 4, 3, false}, // paper 001's shape, smaller hidden size
		{2, 3, 4, false},
		{3, 4, 5, true},
		{1, 16, 3, false}, // paper 001's shape
	} {
		lstm := must(NewLSTM(c.in, c.hidden, c.seq))
		m := mustSeq(t, lstm, must(NewDense(c.hidden, 2, TorchDefault)))
		g := newGradChecker(t, m, c.steps, uint64(c.steps*10+c.hidden))
		// a non-zero initial state, checked below
		st := must(g.ws.LSTMState(0))
		rng := rand.New(rand.NewPCG(5, 6))
		for j := range st.H0 {
			st.H0[j] = 2*rng.Float64() - 1
			st.C0[j] = 2*rng.Float64() - 1
		}
		w := g.all()
		g.analytic()
		dh0 := append([]float64(nil), st.DH0...)
		dc0 := append([]float64(nil), st.DC0...)
		for j := range st.H0 {
			g.compare(fmt.Sprintf("h0[%d]", j), dh0[j], g.numeric(&st.H0[j]))
			g.compare(fmt.Sprintf("c0[%d]", j), dc0[j], g.numeric(&st.C0[j]))
		}
		want := 4*c.hidden*(c.hidden+c.in) + 4*c.hidden + c.hidden*2 + 2 + c.steps*c.in + 2*c.hidden
		if g.checks != want {
			t.Fatalf("checked %d components, want %d", g.checks, want)
		}
		t.Logf("lstm in %d hidden %d steps %d sequences %v: %d components, worst relative error %.2g",
			c.in, c.hidden, c.steps, c.seq, g.checks, max(w, g.worst))
	}
}

// TestGradDeepStack checks a paper-000-shaped stack (dense layers around a
// many-to-many LSTM) with every activation kind.
func TestGradDeepStack(t *testing.T) {
	m := mustSeq(t,
		must(NewDense(5, 8, KaimingUniform)), must(NewActivation(Tanh, 8)),
		must(NewDense(8, 6, XavierUniform)), must(NewActivation(Sigmoid, 6)),
		must(NewLSTM(6, 5, true)),
		must(NewDense(5, 4, XavierUniform)), must(NewActivation(Tanh, 4)),
		must(NewDense(4, 3, XavierUniform)))
	g := newGradChecker(t, m, 5, 42)
	t.Logf("deep stack, 5 steps: %d components, worst relative error %.2g", g.checks, g.all())
}

func TestGradLosses(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	p := make([]float64, 7)
	y := make([]float64, 7)
	for i := range p {
		p[i] = 2*rng.Float64() - 1
		y[i] = p[i] + (0.1+rng.Float64())*float64(1-2*(i%2)) // |p−y| ≥ 0.1: away from MAE's kink
	}
	for _, l := range []Loss{MAE, MSE} {
		grad := make([]float64, len(p))
		v, err := l.Grad(p, y, grad, 1)
		if err != nil {
			t.Fatal(err)
		}
		v2, _ := l.Value(p, y)
		if v != v2 {
			t.Fatalf("%v: Grad returns %v, Value %v", l, v, v2)
		}
		worst := 0.0
		for i := range p {
			old := p[i]
			p[i] = old + gcStep
			lp, _ := l.Value(p, y)
			p[i] = old - gcStep
			lm, _ := l.Value(p, y)
			p[i] = old
			e := relErr(grad[i], (lp-lm)/(2*gcStep))
			worst = max(worst, e)
			if e > gcTol {
				t.Errorf("%v: dL/dp[%d] relative error %.3g", l, i, e)
			}
		}
		t.Logf("%v: worst relative error %.2g", l, worst)
	}
}

func TestLossValues(t *testing.T) {
	p := []float64{1, -2, 0.5, 3}
	y := []float64{0, 0, 0.5, 1}
	if v, _ := MAE.Value(p, y); v != (1+2+0+2)/4.0 {
		t.Errorf("MAE = %v, want 1.25", v)
	}
	if v, _ := MSE.Value(p, y); v != (1+4+0+4)/4.0 {
		t.Errorf("MSE = %v, want 2.25", v)
	}
	g := make([]float64, 4)
	MAE.Grad(p, y, g, 0.5)
	if want := []float64{0.125, -0.125, 0, 0.125}; fmt.Sprint(g) != fmt.Sprint(want) {
		t.Errorf("MAE grad ×0.5 = %v, want %v (0 at p = y)", g, want)
	}
	MSE.Grad(p, y, g, 1)
	if want := []float64{0.5, -1, 0, 1}; fmt.Sprint(g) != fmt.Sprint(want) {
		t.Errorf("MSE grad = %v, want %v", g, want)
	}
	if _, err := MAE.Value(p, y[:3]); err == nil {
		t.Error("length mismatch accepted")
	}
	if _, err := Loss(9).Value(p, y); err == nil {
		t.Error("unknown loss accepted")
	}
}

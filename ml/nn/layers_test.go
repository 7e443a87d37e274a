package nn

import (
	"math"
	"strings"
	"testing"
)

// TestLSTMForwardHand checks the forward pass of a 1-unit LSTM over two steps
// against paper 001's eqs. (4)–(10) written out for scalars. Each gate has
// distinct weights, so a swapped gate order would fail.
func TestLSTMForwardHand(t *testing.T) {
	l := must(NewLSTM(1, 1, true))
	// rows f, i, C̃, o; columns [h, x]
	copy(l.W.W, []float64{0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8})
	copy(l.B.W, []float64{0.05, -0.05, 0.1, -0.1})
	m := mustSeq(t, l)
	ws := m.NewWorkspace(2)
	st := must(ws.LSTMState(0))
	st.H0[0], st.C0[0] = 0.3, -0.2
	x := []float64{1.5, -0.5}
	y := must(m.Forward(ws, x, 2))

	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	h, c := 0.3, -0.2
	var want []float64
	for _, xt := range x {
		f := sig(0.1*h + 0.2*xt + 0.05)
		i := sig(-0.3*h + 0.4*xt - 0.05)
		cc := math.Tanh(0.5*h - 0.6*xt + 0.1)
		o := sig(0.7*h + 0.8*xt - 0.1)
		c = f*c + i*cc
		h = o * math.Tanh(c)
		want = append(want, h)
	}
	for k := range want {
		if math.Abs(y[k]-want[k]) > 1e-15 {
			t.Errorf("h_%d = %.17g, want %.17g", k+1, y[k], want[k])
		}
	}
	hT, cT := st.Final()
	if hT[0] != y[1] || math.Abs(cT[0]-c) > 1e-15 {
		t.Errorf("Final = (%v, %v), want (%v, %v)", hT[0], cT[0], y[1], c)
	}
	// many-to-one returns h_T only
	l.Sequences = false
	y1 := must(m.Forward(ws, x, 2))
	if len(y1) != 1 || y1[0] != y[1] {
		t.Errorf("many-to-one output %v, want [%v]", y1, y[1])
	}
}

// TestLSTMFromTorch loads PyTorch-layout tensors and compares with a direct
// implementation of PyTorch's documented LSTM (gates i, f, g, o; two biases).
func TestLSTMFromTorch(t *testing.T) {
	const In, H = 2, 3
	r := NewRand(4)
	rnd := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = 2*r.Float64() - 1
		}
		return v
	}
	wih, whh, bih, bhh := rnd(4*H*In), rnd(4*H*H), rnd(4*H), rnd(4*H)
	l := must(NewLSTM(In, H, true))
	if err := l.SetFromTorch(wih, whh, bih, bhh); err != nil {
		t.Fatal(err)
	}
	if err := l.SetFromTorch(wih, whh, bih, bhh[:3]); err == nil {
		t.Error("short bias_hh accepted")
	}
	m := mustSeq(t, l)
	x := rnd(3 * In)
	y := must(m.Forward(m.NewWorkspace(3), x, 3))

	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	h, c := make([]float64, H), make([]float64, H)
	for s := range 3 {
		pre := make([]float64, 4*H)
		for q := range 4 * H {
			pre[q] = bih[q] + bhh[q]
			for k := range In {
				pre[q] += wih[q*In+k] * x[s*In+k]
			}
			for j := range H {
				pre[q] += whh[q*H+j] * h[j]
			}
		}
		nh := make([]float64, H)
		for j := range H {
			i, f, g, o := sig(pre[j]), sig(pre[H+j]), math.Tanh(pre[2*H+j]), sig(pre[3*H+j])
			c[j] = f*c[j] + i*g
			nh[j] = o * math.Tanh(c[j])
		}
		h = nh
		for j := range H {
			if d := math.Abs(y[s*H+j] - h[j]); d > 1e-14 {
				t.Errorf("step %d unit %d: %v, PyTorch form %v", s, j, y[s*H+j], h[j])
			}
		}
	}
}

func TestDenseForwardHand(t *testing.T) {
	d := must(NewDense(3, 2, XavierUniform))
	copy(d.W.W, []float64{1, 2, 3, -1, 0.5, 0})
	copy(d.B.W, []float64{0.25, -1})
	m := mustSeq(t, d, must(NewActivation(ReLU, 2)))
	y := must(m.Forward(m.NewWorkspace(2), []float64{1, 1, 1, -2, 1, 0}, 2))
	// step 1: (1+2+3+0.25, −1+0.5+0−1) = (6.25, −1.5) → relu (6.25, 0);
	// step 2: (−2+2+0+0.25, 2+0.5+0−1) = (0.25, 1.5)
	if want := []float64{6.25, 0, 0.25, 1.5}; !equal(y, want) {
		t.Errorf("y = %v, want %v", y, want)
	}
}

// TestInit checks the initialisation bounds and that Init is a pure
// function of the random source.
func TestInit(t *testing.T) {
	l := must(NewLSTM(1, 16, false))
	dx := must(NewDense(16, 4, XavierUniform))
	dk := must(NewDense(16, 4, KaimingUniform))
	dt := must(NewDense(16, 4, TorchDefault))
	for _, c := range []struct {
		name  string
		p     *Param
		bound float64
		zero  bool
	}{
		{"lstm W", &l.W, 0.25, false}, {"lstm b", &l.B, 0.25, false},
		{"xavier W", &dx.W, math.Sqrt(6.0 / 20), false}, {"xavier b", &dx.B, 0, true},
		{"kaiming W", &dk.W, math.Sqrt(6.0 / 16), false}, {"kaiming b", &dk.B, 0, true},
		{"torch W", &dt.W, 0.25, false}, {"torch b", &dt.B, 0.25, false},
	} {
		r := NewRand(3)
		l.initParams(r)
		dx.initParams(r)
		dk.initParams(r)
		dt.initParams(r)
		maxAbs := 0.0
		for _, v := range c.p.W {
			maxAbs = max(maxAbs, math.Abs(v))
		}
		switch {
		case c.zero && maxAbs != 0:
			t.Errorf("%s: not zero (max |w| %v)", c.name, maxAbs)
		case !c.zero && (maxAbs > c.bound || maxAbs < 0.5*c.bound):
			t.Errorf("%s: max |w| %v, want within (%v/2, %v]", c.name, maxAbs, c.bound, c.bound)
		}
	}
	a, b := paper001Model(t), paper001Model(t)
	a.Init(NewRand(8))
	b.Init(NewRand(8))
	if !equalBits(weightBits(a), weightBits(b)) {
		t.Error("same seed, different initial weights")
	}
}

func TestConstructorErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(NewDense(0, 3, XavierUniform)), "dense: in = 0, want 1..65536"},
		{second(NewDense(3, 70000, XavierUniform)), "dense: out = 70000, want 1..65536"},
		{second(NewDense(3, 3, 0)), "dense: init = 0"},
		{second(NewLSTM(1, 0, false)), "lstm: hidden = 0"},
		{second(NewLSTM(-1, 4, false)), "lstm: in = -1"},
		{second(NewActivation(9, 4)), "activation: fn = 9"},
		{second(NewActivation(ReLU, 0)), "activation: size = 0"},
		{second(NewSequential()), "no layers"},
		{second(NewSequential(must(NewDense(3, 4, XavierUniform)), must(NewActivation(Tanh, 5)))),
			"layer 0 (dense(3→4)) outputs 4 values per step but layer 1 (tanh(5)) takes 5"},
		{second(ParseAct("gelu")), `unknown activation "gelu"`},
		{func() error { d := must(NewDense(3, 3, XavierUniform)); return second(NewSequential(d, d)) }(), "layer 1 is layer 0 again"},
		{second(ParseLoss("huber")), `unknown loss "huber"`},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want it to contain %q", c.err, c.want)
		}
	}
	m := paper001Model(t)
	if err := m.CopyFrom(mustSeq(t, must(NewLSTM(1, 8, false)), must(NewDense(8, 1, XavierUniform)))); err == nil {
		t.Error("CopyFrom of another architecture accepted")
	}
	if _, err := m.NewWorkspace(1).LSTMState(1); err == nil {
		t.Error("LSTMState of a dense layer accepted")
	}
}

func second[T any](_ T, err error) error { return err }

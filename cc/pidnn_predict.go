package cc

import (
	"fmt"

	"github.com/ccsim/ccsim/ml/nn"
)

// lstmPredictor is the inference of paper 001's RTT predictor (LSTM over 3
// steps of one input, H hidden units, linear head H → 1;
// docs/algorithms/pidnn.md §4) written for this one shape. It returns
// exactly the bits of nn.Sequential.Forward on the same model (a test checks
// it on many inputs) with less work: no interface calls or copies, and the
// first step starts from h_0 = C_0 = 0, so its gate pre-activations reduce to
// W_x·x + b and its forget gate, which multiplies C_0 = 0, is not evaluated
// (docs/algorithms/pidnn.md I14). It allocates nothing; one predictor serves
// all the QPs of a run (a run is single-threaded).
type lstmPredictor struct {
	h  int
	w  []float64 // 4H rows of H+1 weights: gates f, i, C̃, o; columns h then x
	b  []float64 // 4H
	hw []float64 // head weights (H)
	hb float64   // head bias
	g  []float64 // 4H pre-activations of one step
	hp []float64 // H+1: [h_{t−1}, x_t]
	c  []float64 // H: C_t
}

// newLSTMPredictor copies the weights of m, which must be
// LSTM(in 1, hidden H, last step) → Dense(H → 1).
func newLSTMPredictor(m *nn.Sequential) (*lstmPredictor, error) {
	ls := m.Layers()
	if len(ls) != 2 {
		return nil, fmt.Errorf("pidnn: predictor has %d layers (%v), want LSTM(in 1) → dense(H → 1)", len(ls), m)
	}
	l, ok1 := ls[0].(*nn.LSTM)
	d, ok2 := ls[1].(*nn.Dense)
	if !ok1 || !ok2 || l.In != 1 || l.Sequences || d.In != l.Hidden || d.Out != 1 {
		return nil, fmt.Errorf("pidnn: predictor is %v, want LSTM(in 1, last step) → dense(H → 1)", m)
	}
	h := l.Hidden
	return &lstmPredictor{
		h:  h,
		w:  append([]float64(nil), l.W.W...),
		b:  append([]float64(nil), l.B.W...),
		hw: append([]float64(nil), d.W.W...),
		hb: d.B.W[0],
		g:  make([]float64, 4*h),
		hp: make([]float64, h+1),
		c:  make([]float64, h),
	}, nil
}

// lstmSigmoid is ml/nn's sigmoid (docs/ml.md §2.4), repeated here so
// that the results are the same bits; lstmDot is ml/nn's dot product.
func lstmSigmoid(x float64) float64 { return 1 / (1 + nn.DetExp(-x)) }

func lstmDot(a, b []float64) float64 { return nn.Dot(a, b) }

// predict returns the head's output out_t for the inputs [K_{t−2},
// K_{t−1}, K_t] (paper 001 §3.4: the predicted L_t).
func (p *lstmPredictor) predict(k0, k1, k2 float64) float64 {
	H := p.h
	K := H + 1
	w, b, g, hp, c := p.w, p.b, p.g, p.hp, p.c
	// step 1 from h_0 = C_0 = 0: ml/nn's dot over [0, …, 0, x] sums +0
	// products in its four partial sums and adds the one x product to the
	// first, so the pre-activation is b + (w_x·x + 0) exactly.
	for r := range g {
		g[r] = b[r] + (float64(w[r*K+H]*k0) + 0)
	}
	for j := range H {
		i := lstmSigmoid(g[H+j])
		cc := nn.DetTanh(g[2*H+j])
		o := lstmSigmoid(g[3*H+j])
		cj := 0 + float64(i*cc) // f·C_0 = +0 plus i·C̃
		c[j] = cj
		hp[j] = o * nn.DetTanh(cj)
	}
	// steps 2 and 3: the full cell
	for _, x := range [2]float64{k1, k2} {
		hp[H] = x
		if H == 16 {
			// the paper's shape: the dot products unrolled over fixed-size
			// arrays (no calls, no bounds checks), same summation order
			p.gates16()
		} else {
			for r := range g {
				g[r] = b[r] + lstmDot(w[r*K:(r+1)*K], hp)
			}
		}
		for j := range H {
			f := lstmSigmoid(g[j])
			i := lstmSigmoid(g[H+j])
			cc := nn.DetTanh(g[2*H+j])
			o := lstmSigmoid(g[3*H+j])
			cj := float64(f*c[j]) + float64(i*cc)
			c[j] = cj
			hp[j] = o * nn.DetTanh(cj)
		}
	}
	return p.hb + lstmDot(p.hw, hp[:H])
}

// gates16 is, for H = 16, g[r] = b[r] + lstmDot(row r of w, hp) for the 64
// rows, with lstmDot's exact order of operations: four partial sums over
// the columns ≡ 0, 1, 2, 3 (mod 4) from +0, the 17th product added to the
// first, then (s0 + s1) + (s2 + s3). Every product is rounded before its
// addition (float64(·)), as in lstmDot, so no compiler fuses them.
func (p *lstmPredictor) gates16() {
	const K = 17
	h := (*[K]float64)(p.hp[:K])
	g := (*[64]float64)(p.g[:64])
	b := (*[64]float64)(p.b[:64])
	w := p.w[:64*K]
	for r := 0; r < 64; r++ {
		a := (*[K]float64)(w[r*K : r*K+K])
		var s0, s1, s2, s3 float64
		s0 += float64(a[0] * h[0])
		s1 += float64(a[1] * h[1])
		s2 += float64(a[2] * h[2])
		s3 += float64(a[3] * h[3])
		s0 += float64(a[4] * h[4])
		s1 += float64(a[5] * h[5])
		s2 += float64(a[6] * h[6])
		s3 += float64(a[7] * h[7])
		s0 += float64(a[8] * h[8])
		s1 += float64(a[9] * h[9])
		s2 += float64(a[10] * h[10])
		s3 += float64(a[11] * h[11])
		s0 += float64(a[12] * h[12])
		s1 += float64(a[13] * h[13])
		s2 += float64(a[14] * h[14])
		s3 += float64(a[15] * h[15])
		s0 += float64(a[16] * h[16])
		g[r] = b[r] + ((s0 + s1) + (s2 + s3))
	}
}

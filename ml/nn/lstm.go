package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// LSTM is one long short-term memory layer unrolled over the steps of its
// input, with the standard cell of paper 001 §3.4.1, eqs. (4)–(10). With
// z = [h_{t−1}, x_t] (the previous hidden state, then the input):
//
//	f_t = σ(W_f·z + b_f)            forget gate
//	i_t = σ(W_i·z + b_i)            input gate
//	C̃_t = tanh(W_c·z + b_c)         candidate cell state
//	C_t = f_t ⊙ C_{t−1} + i_t ⊙ C̃_t  cell state
//	o_t = σ(W_o·z + b_o)            output gate
//	h_t = o_t ⊙ tanh(C_t)           hidden state (the output)
//
// W stacks the four gate matrices in that order (rows [0,H) f, [H,2H) i,
// [2H,3H) C̃, [3H,4H) o), each H×(H+In) with the H columns of h_{t−1} first
// and the In columns of x_t after them; B stacks b_f, b_i, b_c, b_o. The
// weights are shared by all steps. The initial state (h_0, C_0) is zero
// unless set through Workspace.LSTMState.
//
// PyTorch's nn.LSTM orders the gates i, f, g(=C̃), o, splits W into
// weight_ih (x columns) and weight_hh (h columns), and has two bias vectors
// whose sum is our B (docs/ml.md §2.2).
type LSTM struct {
	In, Hidden int
	// Sequences selects the output: true, h_t of every step (many-to-many);
	// false, h_T of the last step only (many-to-one, one output step).
	Sequences bool
	W, B      Param
	params    []*Param
}

// NewLSTM returns an LSTM layer with in inputs and hidden units and zero
// weights; Sequential.Init (or InitParams) draws them.
func NewLSTM(in, hidden int, sequences bool) (*LSTM, error) {
	if err := checkSize("lstm: in", in); err != nil {
		return nil, err
	}
	if err := checkSize("lstm: hidden", hidden); err != nil {
		return nil, err
	}
	l := &LSTM{In: in, Hidden: hidden, Sequences: sequences,
		W: newParam("W", 4*hidden*(hidden+in)), B: newParam("b", 4*hidden)}
	l.params = []*Param{&l.W, &l.B}
	return l, nil
}

func (l *LSTM) Kind() Kind       { return KindLSTM }
func (l *LSTM) InSize() int      { return l.In }
func (l *LSTM) OutSize() int     { return l.Hidden }
func (l *LSTM) Params() []*Param { return l.params }

func (l *LSTM) OutSteps(steps int) int {
	if l.Sequences {
		return steps
	}
	return 1
}

func (l *LSTM) String() string {
	if l.Sequences {
		return fmt.Sprintf("lstm(%d→%d, sequences)", l.In, l.Hidden)
	}
	return fmt.Sprintf("lstm(%d→%d, last)", l.In, l.Hidden)
}

func (l *LSTM) spec() layerSpec {
	s := layerSpec{kind: KindLSTM, a: l.In, b: l.Hidden}
	if l.Sequences {
		s.opt = 1
	}
	return s
}

func (l *LSTM) clone() Layer {
	c := &LSTM{In: l.In, Hidden: l.Hidden, Sequences: l.Sequences,
		W: Param{Name: l.W.Name, W: append([]float64(nil), l.W.W...), G: append([]float64(nil), l.W.G...)},
		B: Param{Name: l.B.Name, W: append([]float64(nil), l.B.W...), G: append([]float64(nil), l.B.G...)}}
	c.params = []*Param{&c.W, &c.B}
	return c
}

// InitParams draws W then B (row-major) from U(−1/√Hidden, 1/√Hidden), the
// PyTorch nn.LSTM default.
func (l *LSTM) InitParams(r *rand.Rand) { l.initParams(r) }

func (l *LSTM) initParams(r *rand.Rand) {
	a := 1 / math.Sqrt(float64(l.Hidden))
	uniform(r, l.W.W, a)
	uniform(r, l.B.W, a)
}

// LSTMState is the per-workspace state of an LSTM layer.
type LSTMState struct {
	// H0 and C0 are the initial hidden and cell states (length Hidden) used
	// by every Forward; zero unless the caller writes into them (write the
	// values, do not replace the slices).
	H0, C0 []float64
	// DH0 and DC0 are dLoss/dH0 and dLoss/dC0 after Backward.
	DH0, DC0 []float64

	steps int
	x     []float64 // input of the last forward (not a copy)
	gates []float64 // steps×4H activated gates f, i, C̃, o
	h, c  []float64 // (steps+1)×H: row 0 = h_0/C_0, row t = h_t/C_t
	tc    []float64 // steps×H: tanh(C_t)
	dx    []float64 // steps×In
	dz    []float64 // 4H: dLoss/d(pre-activation gates) of one step
	dhz   []float64 // H+In: Wᵀ·dz, split into dh_{t−1} and dx_t
	hx    []float64 // H+In: [h_{t−1}, x_t] of the step being computed
	dh    []float64 // H: dLoss/dh_t flowing back
	dc    []float64 // H: dLoss/dC_t flowing back
}

// Final returns h_T and C_T of the last Forward (owned by the state).
func (s *LSTMState) Final() (h, c []float64) {
	H := len(s.H0)
	return s.h[s.steps*H : (s.steps+1)*H], s.c[s.steps*H : (s.steps+1)*H]
}

func (l *LSTM) newState(maxSteps int) any {
	H, n := l.Hidden, maxSteps
	return &LSTMState{
		H0: make([]float64, H), C0: make([]float64, H),
		DH0: make([]float64, H), DC0: make([]float64, H),
		gates: make([]float64, n*4*H),
		h:     make([]float64, (n+1)*H), c: make([]float64, (n+1)*H),
		tc: make([]float64, n*H), dx: make([]float64, n*l.In),
		dz: make([]float64, 4*H), dhz: make([]float64, H+l.In), hx: make([]float64, H+l.In),
		dh: make([]float64, H), dc: make([]float64, H),
	}
}

func (l *LSTM) forward(s any, x []float64, steps int) []float64 {
	st := s.(*LSTMState)
	H, In := l.Hidden, l.In
	K := H + In // row length of W
	st.steps, st.x = steps, x
	st.gates = grow(st.gates, steps*4*H)
	st.h = grow(st.h, (steps+1)*H)
	st.c = grow(st.c, (steps+1)*H)
	st.tc = grow(st.tc, steps*H)
	copy(st.h[:H], st.H0)
	copy(st.c[:H], st.C0)
	w, b := l.W.W, l.B.W
	for t := range steps {
		hp := st.h[t*H : (t+1)*H] // h_{t−1}
		xt := x[t*In : (t+1)*In]  // x_t
		g := st.gates[t*4*H : (t+1)*4*H]
		// pre-activations W·[h_{t−1}, x_t] + b of the four gates
		hx := st.hx // [h_{t−1}, x_t], contiguous like the rows of W
		copy(hx, hp)
		copy(hx[H:], xt)
		for r := range g {
			g[r] = b[r] + dot(w[r*K:(r+1)*K], hx)
		}
		cp := st.c[t*H : (t+1)*H]
		ct := st.c[(t+1)*H : (t+2)*H]
		ht := st.h[(t+1)*H : (t+2)*H]
		tc := st.tc[t*H : (t+1)*H]
		for j := range H {
			f := sigmoid(g[j])                    // f_t, eq. (4)
			i := sigmoid(g[H+j])                  // i_t, eq. (5)
			cc := DetTanh(g[2*H+j])               // C̃_t, eq. (6)
			o := sigmoid(g[3*H+j])                // o_t, eq. (8)
			c := float64(f*cp[j]) + float64(i*cc) // C_t, eq. (7)
			tcj := DetTanh(c)                     // tanh(C_t)
			g[j], g[H+j], g[2*H+j], g[3*H+j] = f, i, cc, o
			ct[j], tc[j], ht[j] = c, tcj, o*tcj // h_t, eq. (9)
		}
	}
	if l.Sequences {
		return st.h[H : (steps+1)*H]
	}
	return st.h[steps*H : (steps+1)*H]
}

// backward is backpropagation through time. Walking t = T…1 with dh = dLoss/dh_t
// (the output's gradient at t plus what flows back from step t+1) and
// dc = dLoss/dC_t flowing back from step t+1:
//
//	dC   = dc + dh ⊙ o ⊙ (1 − tanh²C_t)
//	dz_o = dh ⊙ tanh C_t ⊙ o(1−o)       dz_f = dC ⊙ C_{t−1} ⊙ f(1−f)
//	dz_i = dC ⊙ C̃ ⊙ i(1−i)              dz_c = dC ⊙ i ⊙ (1 − C̃²)
//	dW  += dz ⊗ [h_{t−1}, x_t];  dB += dz;  [dh_{t−1}, dx_t] = Wᵀ·dz;  dc_{t−1} = dC ⊙ f
func (l *LSTM) backward(s any, dy []float64) []float64 {
	st := s.(*LSTMState)
	H, In := l.Hidden, l.In
	K := H + In
	steps := st.steps
	st.dx = grow(st.dx, steps*In)
	w, gw, gb := l.W.W, l.W.G, l.B.G
	dh, dc, dz, dhz := st.dh, st.dc, st.dz, st.dhz
	clear(dh)
	clear(dc)
	for t := steps - 1; t >= 0; t-- {
		if l.Sequences {
			for j, v := range dy[t*H : (t+1)*H] {
				dh[j] += v
			}
		} else if t == steps-1 {
			for j, v := range dy[:H] {
				dh[j] += v
			}
		}
		g := st.gates[t*4*H : (t+1)*4*H]
		cp := st.c[t*H : (t+1)*H]
		tc := st.tc[t*H : (t+1)*H]
		for j := range H {
			f, i, cc, o := g[j], g[H+j], g[2*H+j], g[3*H+j]
			dC := dc[j] + float64(dh[j]*o*(1-float64(tc[j]*tc[j])))
			dz[j] = dC * cp[j] * f * (1 - f)
			dz[H+j] = dC * cc * i * (1 - i)
			dz[2*H+j] = dC * i * (1 - float64(cc*cc))
			dz[3*H+j] = dh[j] * tc[j] * o * (1 - o)
			dc[j] = dC * f
		}
		hp := st.h[t*H : (t+1)*H]
		xt := st.x[t*In : (t+1)*In]
		clear(dhz)
		for r, d := range dz {
			gb[r] += d
			row := w[r*K : (r+1)*K]
			gr := gw[r*K : (r+1)*K]
			for j, v := range hp {
				gr[j] += float64(d * v)
			}
			for k, v := range xt {
				gr[H+k] += float64(d * v)
			}
			for q, v := range row {
				dhz[q] += float64(d * v)
			}
		}
		copy(dh, dhz[:H])
		copy(st.dx[t*In:(t+1)*In], dhz[H:])
	}
	copy(st.DH0, dh)
	copy(st.DC0, dc)
	return st.dx[:steps*In]
}

// dot returns Σ a[i]·b[i] (len(b) ≥ len(a)) with four partial sums, which
// shortens the chain of dependent additions. The summation order is fixed,
// so results are deterministic.
//
// Here and in every kernel of the package, a product that feeds an addition
// is written float64(a*b): the explicit conversion forbids the compiler to
// fuse it into a multiply-add (which it may do on arm64, ppc64, s390x,
// riscv64 and amd64 v3), so results are bit-identical on every machine.
func dot(a, b []float64) float64 { return Dot(a, b) }

// Dot is the package's dot product (above), exported so that specialised
// inference elsewhere (cc's PIDNN predictor) computes the same bits.
func Dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += float64(a[i] * b[i])
		s1 += float64(a[i+1] * b[i+1])
		s2 += float64(a[i+2] * b[i+2])
		s3 += float64(a[i+3] * b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += float64(a[i] * b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// SetFromTorch sets the weights from PyTorch nn.LSTM tensors of one layer
// (weight_ih_l0: 4H×In, weight_hh_l0: 4H×H, bias_ih_l0 and bias_hh_l0: 4H,
// all flat row-major, gate blocks in PyTorch's order i, f, g, o). The gates
// are reordered to f, i, C̃, o, the h and x columns joined as [h, x], and the
// two biases summed (docs/ml.md §2.2).
func (l *LSTM) SetFromTorch(weightIH, weightHH, biasIH, biasHH []float64) error {
	H, In := l.Hidden, l.In
	for _, c := range []struct {
		name string
		got  int
		want int
	}{{"weight_ih", len(weightIH), 4 * H * In}, {"weight_hh", len(weightHH), 4 * H * H},
		{"bias_ih", len(biasIH), 4 * H}, {"bias_hh", len(biasHH), 4 * H}} {
		if c.got != c.want {
			return fmt.Errorf("nn: lstm: SetFromTorch: len(%s) = %d, want %d for in %d, hidden %d", c.name, c.got, c.want, In, H)
		}
	}
	K := H + In
	// torch block (i, f, g, o) → our block (f, i, C̃, o)
	ours := [4]int{1, 0, 2, 3}
	for tb, ob := range ours {
		for j := range H {
			tr, or := tb*H+j, ob*H+j
			copy(l.W.W[or*K:or*K+H], weightHH[tr*H:(tr+1)*H])
			copy(l.W.W[or*K+H:(or+1)*K], weightIH[tr*In:(tr+1)*In])
			l.B.W[or] = biasIH[tr] + biasHH[tr]
		}
	}
	return nil
}

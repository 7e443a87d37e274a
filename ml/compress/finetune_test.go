package compress

import (
	"math"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

// teacherTask returns a dataset of n inputs of in values in [−1, 1) with
// out smooth targets y_j = sin(a_j·x + c_j) (fixed random c_j and a_j with
// N(0, 4/in) entries).
func teacherTask(seed uint64, n, in, out int) nn.Dataset {
	return teacherTaskFreq(seed, n, in, out, 2)
}

// teacherTaskFreq is teacherTask with a_j entries N(0, freq²/in).
func teacherTaskFreq(seed uint64, n, in, out int, freq float64) nn.Dataset {
	r := nn.NewRand(seed)
	a := make([]float64, out*in)
	for i := range a {
		a[i] = freq * r.NormFloat64() / math.Sqrt(float64(in))
	}
	c := make([]float64, out)
	for i := range c {
		c[i] = r.Float64() * math.Pi
	}
	d := nn.Dataset{X: inputs(r, n, 1, in), Y: make([][]float64, n), Steps: 1}
	for k, x := range d.X {
		y := make([]float64, out)
		for j := range y {
			y[j] = math.Sin(nn.Dot(a[j*in:(j+1)*in], x) + c[j])
		}
		d.Y[k] = y
	}
	return d
}

// trainTeacher trains m on d for epochs epochs with Adam (lr 0.003,
// batch 32) and returns its final training loss.
func trainTeacher(t testing.TB, m *nn.Sequential, d nn.Dataset, epochs int) float64 {
	t.Helper()
	opt := must[*nn.Adam](t)(nn.NewAdam(m.Params(), nn.AdamConfig{LR: 0.003, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}))
	tr := must[*nn.Trainer](t)(nn.NewTrainer(m, opt, nn.MSE, 32, nn.NewRand(2)))
	var last float64
	if err := tr.Fit(d, epochs, func(_ int, l float64) error { last = l; return nil }); err != nil {
		t.Fatal(err)
	}
	return last
}

// TestFineTuneLowersDiscrepancy: a small trained MLP (4→32→32→3, tanh)
// compressed to 65 % sparsity and 4 bits, then fine-tuned by distillation
// with the straight-through estimator: the output discrepancy on held-out
// inputs falls, masks hold (pruned weights stay exactly 0), Quant stays the
// quantisation of Shadow, and the packed model still equals Quant.
func TestFineTuneLowersDiscrepancy(t *testing.T) {
	m := seq(t, dense(t, 4, 32), act(t, nn.Tanh, 32), dense(t, 32, 32), act(t, nn.Tanh, 32), dense(t, 32, 3))
	m.Init(nn.NewRand(1))
	train := teacherTask(1, 512, 4, 3)
	trainTeacher(t, m, train, 30)
	test := inputs(nn.NewRand(99), 256, 1, 4)
	c, rep, err := Compress(m, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	before := must[float64](t)(Discrepancy(m, c.Quant, test, 1))
	cfg := DefaultFineTune()
	cfg.Batch = 32
	losses, err := FineTune(c, m, train.X, 1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	after := must[float64](t)(Discrepancy(m, c.Quant, test, 1))
	t.Logf("sparsity %.4f (%s); discrepancy %.2f %% → %.2f %% after %d epochs (loss %.3g → %.3g)",
		rep.Sparsity, rep.Method, 100*before, 100*after, len(losses), losses[0], losses[len(losses)-1])
	if !(after < 0.8*before) {
		t.Errorf("discrepancy %v after fine-tuning, want below 0.8 × %v", after, before)
	}
	checkCompressed(t, c, rep, true)
	q := c.Quant.Clone()
	c.Requantize()
	for i, p := range c.Quant.Params() {
		for j, w := range p.W {
			if w != q.Params()[i].W[j] {
				t.Fatalf("Quant is not the quantisation of Shadow at param %d[%d]", i, j)
			}
		}
	}
	pm := must[*PackedModel](t)(Pack(c))
	ws := pm.NewWorkspace(1)
	pd := must[float64](t)(DiscrepancyFunc(m, func(_ any, x []float64) ([]float64, error) { return pm.Forward(ws, x, 1) }, nil, test, 1))
	if pd != after {
		t.Errorf("packed discrepancy %v, Quant's %v", pd, after)
	}
}

// TestSTEGradient: the gradient Step hands to the shadow weights is the
// quantised model's gradient on kept weights and 0 on pruned ones, and
// biases get theirs unchanged.
func TestSTEGradient(t *testing.T) {
	m := seq(t, dense(t, 3, 4), act(t, nn.Tanh, 4), dense(t, 4, 2))
	m.Init(nn.NewRand(5))
	c, _, err := Compress(m, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	opt, err := newSTE(c, nn.AdamConfig{LR: 1e-9, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	ws := c.Quant.NewWorkspace(1)
	c.Quant.ZeroGrad()
	if _, err := c.Quant.Forward(ws, []float64{0.3, -0.2, 0.9}, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Quant.Backward(ws, []float64{1, -0.5}); err != nil {
		t.Fatal(err)
	}
	opt.Step()
	for k, qp := range c.Quant.Params() {
		for i, g := range qp.G {
			want := g
			if mask := opt.mask[k]; mask != nil && !mask[i] {
				want = 0
			}
			if got := c.Shadow.Params()[k].G[i]; got != want {
				t.Errorf("param %d[%d]: shadow gradient %v, want %v", k, i, got, want)
			}
		}
	}
}

func TestFineTuneErrors(t *testing.T) {
	m := seq(t, dense(t, 2, 2))
	m.Init(nn.NewRand(1))
	c, _, _ := Compress(m, DefaultConfig())
	xs := [][]float64{{1, 2}}
	for _, e := range []struct {
		edit  func(*FineTuneConfig)
		parts []string
	}{
		{func(f *FineTuneConfig) { f.Epochs = 0 }, []string{"epochs = 0", "≥ 1"}},
		{func(f *FineTuneConfig) { f.Batch = -1 }, []string{"batch = -1", "≥ 1"}},
		{func(f *FineTuneConfig) { f.Loss = 0 }, []string{"loss = 0", "mae (1) or mse (2)"}},
		{func(f *FineTuneConfig) { f.Adam.LR = 0 }, []string{"lr = 0"}},
	} {
		cfg := DefaultFineTune()
		e.edit(&cfg)
		_, err := FineTune(c, m, xs, 1, cfg)
		wantErr(t, err, e.parts...)
	}
	_, err := FineTune(c, m, nil, 1, DefaultFineTune())
	wantErr(t, err, "no inputs")
	_, err = FineTune(c, m, [][]float64{{1}}, 1, DefaultFineTune())
	wantErr(t, err, "input 0")
}

package cc

import (
	"math"
	"testing"

	"github.com/ccsim/ccsim/cc/pidnnmodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/sim"
)

// The specialised inference gives exactly the bits of nn.Sequential.Forward
// on the shipped predictor, for inputs over the features' range.
func TestLSTMPredictorMatchesForward(t *testing.T) {
	m, _, err := pidnnmodel.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	k, err := newLSTMPredictor(m)
	if err != nil {
		t.Fatal(err)
	}
	ws := m.NewWorkspace(pidnnmodel.Steps)
	r := nn.NewRand(7)
	for i := range 2000 {
		x := []float64{r.NormFloat64() * 0.3, r.NormFloat64() * 0.3, r.NormFloat64() * 0.3}
		if i%10 == 0 {
			x[i%3] = 0
		}
		out, err := m.Forward(ws, x, pidnnmodel.Steps)
		if err != nil {
			t.Fatal(err)
		}
		if got := k.predict(x[0], x[1], x[2]); math.Float64bits(got) != math.Float64bits(out[0]) {
			t.Fatalf("input %v: predict %v, Forward %v", x, got, out[0])
		}
	}
	// the generic path (hidden size other than the paper's 16) gives
	// Forward's bits too
	l, _ := nn.NewLSTM(1, 8, false)
	d, _ := nn.NewDense(8, 1, nn.TorchDefault)
	m8, err := nn.NewSequential(l, d)
	if err != nil {
		t.Fatal(err)
	}
	m8.Init(nn.NewRand(3))
	k8, err := newLSTMPredictor(m8)
	if err != nil {
		t.Fatal(err)
	}
	ws8 := m8.NewWorkspace(pidnnmodel.Steps)
	for range 200 {
		x := []float64{r.NormFloat64() * 0.3, r.NormFloat64() * 0.3, r.NormFloat64() * 0.3}
		out, err := m8.Forward(ws8, x, pidnnmodel.Steps)
		if err != nil {
			t.Fatal(err)
		}
		if got := k8.predict(x[0], x[1], x[2]); math.Float64bits(got) != math.Float64bits(out[0]) {
			t.Fatalf("hidden 8, input %v: predict %v, Forward %v", x, got, out[0])
		}
	}
	if _, err := newLSTMPredictor(pidnnmodel.NewGainsModel(pidnnmodel.Gains{})); err == nil {
		t.Fatal("a gains model accepted as predictor")
	}
}

// One control decision of pidnn (sample → EWMA, features, LSTM, PID, rate)
// allocates nothing.
func TestPIDNNDecisionAllocs(t *testing.T) {
	c, q := benchSender(t)
	r := 5.0
	if a := testing.AllocsPerRun(1000, func() { r = 9 - r; c.Step(q, r) }); a != 0 {
		t.Fatalf("%v allocations per decision", a)
	}
}

func benchSender(tb testing.TB) (*PIDNN, *fabric.QP) {
	p := PIDNNDefaults()
	p.RTTch = true
	if err := p.Validate(); err != nil {
		tb.Fatal(err)
	}
	run, err := NewPIDNNRun(p, p.model, p.gains)
	if err != nil {
		tb.Fatal(err)
	}
	q := &fabric.QP{LineRateBps: 100e9, PathBaseRTT: 4 * sim.Microsecond}
	c := run.New(q).(*PIDNN)
	c.Start(q, 0)
	return c, q
}

// ns per control decision of pidnn (with RTTch), one per RTT sample.
func BenchmarkPIDNNDecision(b *testing.B) {
	c, q := benchSender(b)
	rtts := [...]float64{5, 6.2, 4.4, 7.9, 5.1, 4.2, 12, 5.5}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c.Step(q, rtts[i&7])
	}
}

package cc_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/pidnnmodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
)

// pidnnQP is a QP outside a network: 100 Gb/s NIC, base RTT 4.16 µs,
// window machinery with a BDP of 150 KB over 12 µs.
func pidnnQP() *fabric.QP {
	return &fabric.QP{LineRateBps: 100e9, PathBaseRTT: 4160 * sim.Nanosecond, BaseRTT: 12 * sim.Microsecond, BDPBytes: 150_000}
}

// pidnnSender returns a started sender with parameters p (validated),
// predictor m (nil: predictor none) and gains g.
func pidnnSender(t *testing.T, p *cc.PIDNNParams, m *nn.Sequential, g pidnnmodel.Gains) (*cc.PIDNNRun, *cc.PIDNN, *fabric.QP) {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	run, err := cc.NewPIDNNRun(p, m, g)
	if err != nil {
		t.Fatal(err)
	}
	q := pidnnQP()
	c := run.New(q).(*cc.PIDNN)
	c.Start(q, 0)
	return run, c, q
}

func pidParamsNone() *cc.PIDNNParams {
	p := cc.PIDNNDefaults()
	p.Predictor, p.Gains = "none", cc.PIDNNGainsPaper
	return p
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// One sample per RTT (paper 001 Fig. 6): the first packet is timed, the
// packets sent while it is outstanding are not, the ACK covering it gives
// the sample, and the next packet sent after that ACK is timed next. A NACK
// abandons the outstanding sample.
func TestPIDNNSamplerOnePerRTT(t *testing.T) {
	q := pidnnQP()
	var s cc.RTTSampler
	s.Start(q)
	if !q.WantSendHook {
		t.Fatal("sampler does not ask for the send hook")
	}
	us := sim.Microsecond
	send := func(seq int64, at sim.Time) { q.SndNxt = seq; s.OnSend(q, at) }
	ack := func(seq int64, at sim.Time) (sim.Time, bool) {
		return s.OnAck(q, &fabric.AckInfo{Seq: seq}, at)
	}
	send(0, 0) // D1 timed at T0 = 0
	if q.WantSendHook {
		t.Fatal("send hook still on while a sample is outstanding")
	}
	send(1000, 1*us) // D2..D4: not timed
	send(2000, 2*us)
	send(3000, 3*us)
	if _, ok := ack(0, 4*us); ok { // covers nothing
		t.Fatal("sample from an ACK that does not cover D1")
	}
	if r, ok := ack(1000, 5*us); !ok || r != 5*us {
		t.Fatalf("ACK1: sample %v %v, want 5 µs", r, ok)
	}
	for i, a := range []int64{2000, 3000, 4000} { // ACK2..ACK4: no sample
		if _, ok := ack(a, sim.Time(6+i)*us); ok {
			t.Fatalf("second sample from ACK of %d in the same RTT", a)
		}
	}
	if !q.WantSendHook {
		t.Fatal("send hook not re-armed after the sample")
	}
	send(4000, 9*us) // D5: timed
	send(5000, 10*us)
	if r, ok := ack(5000, 13*us); !ok || r != 4*us {
		t.Fatalf("ACK5: sample %v %v, want 4 µs", r, ok)
	}
	// NACK: the outstanding sample is abandoned, the next packet is timed
	send(6000, 14*us)
	if _, ok := s.OnAck(q, &fabric.AckInfo{Seq: 6000, Nack: true}, 15*us); ok {
		t.Fatal("sample from a NACK")
	}
	send(6000, 16*us) // the retransmission is timed afresh
	if r, ok := ack(7000, 20*us); !ok || r != 4*us {
		t.Fatalf("after NACK: sample %v %v, want 4 µs (from the retransmission)", r, ok)
	}
}

// EWMA (eq. 2) and features (eq. 3) for a worked sequence, and the label
// L_t of the training pairs.
func TestPIDNNEWMAFeatures(t *testing.T) {
	_, c, _ := pidnnSender(t, pidParamsNone(), nil, pidnnmodel.PaperLearnedGains)
	R := []float64{5, 10, 5, 7}
	// S = 5, 6, 5.8, 6.04; K = 0, 4/6, −0.8/5.8, 0.96/6.04
	for _, r := range R {
		c.Step(nil, r)
	}
	wantK := [3]float64{4.0 / 6, -0.8 / 5.8, 0.96 / 6.04}
	if !closeTo(c.S, 6.04) || !closeTo(c.K[0], wantK[0]) || !closeTo(c.K[1], wantK[1]) || !closeTo(c.K[2], wantK[2]) || c.N != 4 {
		t.Fatalf("S %v K %v N %d, want S 6.04 K %v N 4", c.S, c.K, c.N, wantK)
	}
}

// The PID step by hand (eqs. 14–20) with predictor none: the error, the
// running mean, the difference, the ∂ clamps [−0.6, 0.5] and the rate
// bounds [1, 100] Gb/s.
func TestPIDNNStepByHand(t *testing.T) {
	_, c, q := pidnnSender(t, pidParamsNone(), nil, pidnnmodel.PaperLearnedGains)
	if q.RateBps != 10e9 || c.Rate != 10e9 {
		t.Fatalf("initial rate %d, want 10 Gb/s", q.RateBps)
	}
	kp, ki, kd := -0.358, -0.060, 0.040
	c.Step(q, 6) // e 0.2, I 0.2, D 0
	d0 := kp*0.2 + ki*0.2
	if !closeTo(c.Delta, d0) || !closeTo(c.Rate, 10e9*(1+d0)) || q.RateBps != int64(c.Rate) {
		t.Fatalf("step 0: ∂ %v rate %v (qp %d), want %v, %v", c.Delta, c.Rate, q.RateBps, d0, 10e9*(1+d0))
	}
	r1 := c.Rate
	c.Step(q, 10) // e 1, I 0.6, D 0.8
	d1 := kp*1 + ki*0.6 + kd*0.8
	if !closeTo(c.E, 1) || !closeTo(c.I, 0.6) || !closeTo(c.D, 0.8) || !closeTo(c.Delta, d1) || !closeTo(c.Rate, r1*(1+d1)) {
		t.Fatalf("step 1: e %v I %v D %v ∂ %v, want 1, 0.6, 0.8, %v", c.E, c.I, c.D, c.Delta, d1)
	}
	r2 := c.Rate
	c.Step(q, 50) // e 9: ∂ clamped at −0.6
	if c.Delta != -0.6 || !closeTo(c.Rate, r2*0.4) {
		t.Fatalf("step 2: ∂ %v rate %v, want −0.6, %v", c.Delta, c.Rate, r2*0.4)
	}
	for range 5 {
		c.Step(q, 50)
	}
	if c.Rate != 1e9 || q.RateBps != 1e9 {
		t.Fatalf("rate %v (qp %d), want the 1 Gb/s floor", c.Rate, q.RateBps)
	}
	// ∂'s upper clamp and the ceiling: K_p = −1 and RTT far below target
	p := pidParamsNone()
	p.Gains, p.Kp, p.Ki, p.Kd = cc.PIDNNGainsExplicit, -1, 0, 0
	_, c, q = pidnnSender(t, p, nil, pidnnmodel.Gains{Kp: -1})
	c.Step(q, 1) // e −0.8 → ∂ 0.8 → 0.5
	if c.Delta != 0.5 || c.Rate != 15e9 {
		t.Fatalf("∂ %v rate %v, want 0.5, 15 Gb/s", c.Delta, c.Rate)
	}
	for range 10 {
		c.Step(q, 1)
	}
	if c.Rate != 100e9 || q.RateBps != 100e9 {
		t.Fatalf("rate %v, want the 100 Gb/s ceiling", c.Rate)
	}
}

// eq. (12) with a known LSTM output: zero weights and head bias 0.1 give
// out = 0.1 exactly, so RTT_pred = 1.1·S_t from the third sample on (the
// first two control on R_t).
func TestPIDNNPredictionEq12(t *testing.T) {
	m := pidnnmodel.NewPredictor()
	m.Layers()[1].(*nn.Dense).B.W[0] = 0.1
	p := cc.PIDNNDefaults()
	p.Gains = cc.PIDNNGainsPaper
	_, c, _ := pidnnSender(t, p, m, pidnnmodel.PaperLearnedGains)
	c.Step(nil, 5)
	c.Step(nil, 10)
	if c.Pred != 10 {
		t.Fatalf("t = 1: RTT_pred %v, want R_t = 10", c.Pred)
	}
	c.Step(nil, 5) // S = 5.8
	if !closeTo(c.Pred, 1.1*5.8) {
		t.Fatalf("t = 2: RTT_pred %v, want 1.1·5.8", c.Pred)
	}
	if e := (1.1*5.8 - 5) / 5; !closeTo(c.E, e) {
		t.Fatalf("e %v, want %v", c.E, e)
	}
}

// Online gain training (eqs. 21–26): the first update is clipped (±0.1) at
// μ = 0.01; the second is not clipped, at μ = 0.01/√2.
func TestPIDNNGainUpdate(t *testing.T) {
	p := pidParamsNone()
	p.Gains = cc.PIDNNGainsInitial
	g0 := pidnnmodel.PaperInitialGains
	run, c, q := pidnnSender(t, p, nil, g0)
	run.Train(cc.DefaultPIDNNTraining())
	c.Step(q, 6) // e 0.2, I 0.2, D 0; rate(t−1) = 10 Gb/s
	rate0 := c.Rate
	if c.Gains() != g0 || c.Updates() != 0 || run.Updates() != 0 {
		t.Fatal("gains changed on the first sample")
	}
	c.Step(q, 7) // (7 − 5)·1·10·[0.2, 0.2, 0] = [4, 4, 0] → clipped [0.1, 0.1, 0]
	g1 := pidnnmodel.Gains{Kp: g0.Kp - 0.01*0.1, Ki: g0.Ki - 0.01*0.1, Kd: g0.Kd}
	if g := c.Gains(); !closeTo(g.Kp, g1.Kp) || !closeTo(g.Ki, g1.Ki) || g.Kd != g1.Kd || c.Updates() != 1 || run.Updates() != 1 || run.Gains() != g0 {
		t.Fatalf("after update 1: %+v, want %+v", g, g1)
	}
	// step 1 ran with g1: e 0.4, I 0.3, D 0.2, rate before it rate0
	c.Step(q, 5.01)
	s := 0.01 * rate0 / 1e9
	mu := 0.01 / math.Sqrt(2)
	g2 := pidnnmodel.Gains{Kp: g1.Kp - mu*s*0.4, Ki: g1.Ki - mu*s*0.3, Kd: g1.Kd - mu*s*0.2}
	if g := c.Gains(); math.Abs(g.Kp-g2.Kp) > 1e-15 || math.Abs(g.Ki-g2.Ki) > 1e-15 || math.Abs(g.Kd-g2.Kd) > 1e-15 || c.Updates() != 2 {
		t.Fatalf("after update 2: %+v, want %+v", g, g2)
	}
	if j := (0.5*4 + 0.5*0.01*0.01) / 2; !closeTo(run.MeanJ(), j) {
		t.Fatalf("mean J %v, want %v", run.MeanJ(), j)
	}
	// both updates had (R − target)·e > 0: K_p's gradient positive
	if c.KpGradPositive() != 2 || run.KpGradPositive() != 2 {
		t.Fatalf("positive K_p gradients %d (run %d), want 2", c.KpGradPositive(), run.KpGradPositive())
	}
}

// Each flow runs its own controller (paper 001 §3.3: "t is not real time
// but the order in the time series", one flow's samples; §3.5.2: W(t) and
// μ(t) of that series): its own gains and its own update counter. Flow a's
// first update (μ = 0.01, gradient [4, 4, 0] clipped to [0.1, 0.1, 0])
// leaves flow b's gains at the initial [−0.2, −0.05, 0.1], so b's first
// step is ∂ = −0.2·0.2 − 0.05·0.2 = −0.05; b's own first update is again
// at μ = 0.01, then e 0.4, I 0.3, D 0.2 give ∂ = −0.201·0.4 − 0.051·0.3 +
// 0.1·0.2 = −0.0757. (With one gain vector and one counter for the run,
// as before issue 16, b's steps give −0.0504 and −0.0757495.)
func TestPIDNNGainsPerFlow(t *testing.T) {
	p := pidParamsNone()
	p.Gains = cc.PIDNNGainsInitial
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	run, err := cc.NewPIDNNRun(p, nil, pidnnmodel.PaperInitialGains)
	if err != nil {
		t.Fatal(err)
	}
	run.Train(cc.DefaultPIDNNTraining())
	qa, qb := pidnnQP(), pidnnQP()
	qb.ID = 1
	a, b := run.New(qa).(*cc.PIDNN), run.New(qb).(*cc.PIDNN)
	a.Start(qa, 0)
	b.Start(qb, 0)
	a.Step(qa, 6)
	a.Step(qa, 7)
	b.Step(qb, 6)
	if math.Abs(b.Delta-(-0.05)) > 1e-12 {
		t.Fatalf("flow b's first step: ∂ %v, want −0.05 (b's own initial gains)", b.Delta)
	}
	b.Step(qb, 7)
	if want := -0.201*0.4 - 0.051*0.3 + 0.1*0.2; math.Abs(b.Delta-want) > 1e-12 {
		t.Fatalf("flow b's second step: ∂ %v, want %v (b's own first update, μ = 0.01)", b.Delta, want)
	}
	want := pidnnmodel.Gains{Kp: -0.201, Ki: -0.051, Kd: 0.1}
	for _, c := range []*cc.PIDNN{a, b} {
		if g := c.Gains(); !closeTo(g.Kp, want.Kp) || !closeTo(g.Ki, want.Ki) || g.Kd != want.Kd || c.Updates() != 1 {
			t.Errorf("flow %d: gains %+v after %d updates, want %+v after 1", c.Flow, g, c.Updates(), want)
		}
	}
	if run.Updates() != 2 || run.Gains() != pidnnmodel.PaperInitialGains || len(run.Senders()) != 2 {
		t.Errorf("run: %d updates, gains %+v, %d senders; want 2, the initial gains, 2", run.Updates(), run.Gains(), len(run.Senders()))
	}
	// a second run continues each flow's own state (Start)
	run2, err := cc.NewPIDNNRun(p, nil, pidnnmodel.PaperInitialGains)
	if err != nil {
		t.Fatal(err)
	}
	tr := cc.DefaultPIDNNTraining()
	tr.Start = map[int32]cc.PIDNNFlowState{1: {Gains: b.Gains(), Updates: b.Updates()}}
	run2.Train(tr)
	b2 := run2.New(qb).(*cc.PIDNN)
	a2 := run2.New(qa).(*cc.PIDNN)
	if b2.Gains() != b.Gains() || b2.Updates() != 1 || a2.Gains() != pidnnmodel.PaperInitialGains || a2.Updates() != 0 {
		t.Errorf("second run: b %+v/%d, a %+v/%d", b2.Gains(), b2.Updates(), a2.Gains(), a2.Updates())
	}
}

// RTTch with the signed counter: the 7th consecutive sample on one side
// (count > RTTch_num = 6) moves the target by the mean deviation; below
// the target it works the same and is floored at the base RTT. The
// literal Table-2 counter never triggers below the target.
func TestPIDNNRTTch(t *testing.T) {
	p := pidParamsNone()
	p.RTTch = true
	_, c, _ := pidnnSender(t, p, nil, pidnnmodel.PaperLearnedGains)
	for i := range 6 {
		c.Step(nil, 6)
		if c.Adjusts != 0 || c.Target != 5 {
			t.Fatalf("moved after %d samples", i+1)
		}
	}
	c.Step(nil, 8)
	if want := 5 + 9.0/7; c.Adjusts != 1 || !closeTo(c.Target, want) || c.I != 0 {
		t.Fatalf("target %v adjusts %d I %v, want %v, 1, 0", c.Target, c.Adjusts, c.I, want)
	}
	// a side change restarts the run
	base := c.Target
	for range 6 {
		c.Step(nil, base+1)
	}
	c.Step(nil, base-1)
	for range 5 {
		c.Step(nil, base+1)
	}
	if c.Adjusts != 1 {
		t.Fatal("moved although the run was broken")
	}
	// below target: 7 samples at 3 µs from a 5 µs target → 3 µs, floored at 4.16
	_, c, _ = pidnnSender(t, p, nil, pidnnmodel.PaperLearnedGains)
	for range 7 {
		c.Step(nil, 3)
	}
	if c.Adjusts != 1 || c.Target != 4.16 {
		t.Fatalf("below: target %v adjusts %d, want the base RTT 4.16", c.Target, c.Adjusts)
	}
	p.RTTchCounter = "literal"
	_, c, _ = pidnnSender(t, p, nil, pidnnmodel.PaperLearnedGains)
	for range 100 {
		c.Step(nil, 3)
	}
	if c.Adjusts != 0 {
		t.Fatal("literal counter triggered below the target")
	}
	for range 7 {
		c.Step(nil, 6)
	}
	if c.Adjusts != 1 {
		t.Fatal("literal counter did not trigger above the target")
	}
}

// The registered names: pid has no predictor, pidnn+rttch has RTTch, and
// pidnn+rttch+win adds the variable window W = BDP × rate / line rate.
func TestPIDNNRegistry(t *testing.T) {
	for name, want := range map[string][2]any{"pidnn": {"lstm", false}, "pid": {"none", false}, "pidnn+rttch": {"lstm", true}, "pidnn+rttch+win": {"lstm", true}} {
		s, err := cc.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		p := s.Defaults().(*cc.PIDNNParams)
		if p.Predictor != want[0] || p.RTTch != want[1] || p.RTTTargetUs != 5 || p.RateInitGbps != 10 {
			t.Fatalf("%s: %+v", name, p)
		}
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		ctor, _ := s.New(p)
		q := pidnnQP()
		ctor(q).Start(q, 0)
		win := name == "pidnn+rttch+win"
		if (q.WindowBytes != 0) != win || q.VarWindow != win {
			t.Fatalf("%s: window %d var %v", name, q.WindowBytes, q.VarWindow)
		}
		if win && q.Window() != 15_000 {
			t.Fatalf("window at 10 Gb/s: %d, want 150 KB × 10/100 = 15 KB", q.Window())
		}
	}
}

// Bad parameters name the field; bad model files give clear errors.
func TestPIDNNValidate(t *testing.T) {
	dir := t.TempDir()
	pb := pidnnmodel.ShippedPredictorBytes()
	gb := pidnnmodel.ShippedGainsBytes()
	write := func(name string, b []byte) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	corrupt := append([]byte(nil), pb...)
	corrupt[len(corrupt)/2] ^= 1
	cases := []struct {
		set  func(p *cc.PIDNNParams)
		want string
	}{
		{func(p *cc.PIDNNParams) { p.Sigma = 0 }, "sigma"},
		{func(p *cc.PIDNNParams) { p.DMin = -1 }, "dmin"},
		{func(p *cc.PIDNNParams) { p.DMax = -0.1 }, "dmax"},
		{func(p *cc.PIDNNParams) { p.RTTTargetUs = 0 }, "rtt_target_us"},
		{func(p *cc.PIDNNParams) { p.RateInitGbps = 200 }, "rate_init_gbps"},
		{func(p *cc.PIDNNParams) { p.RateMinGbps = 0 }, "rate_min_gbps"},
		{func(p *cc.PIDNNParams) { p.RTTchNum = 0 }, "rttch_num"},
		{func(p *cc.PIDNNParams) { p.Predictor = "gru" }, "predictor"},
		{func(p *cc.PIDNNParams) { p.Gains = "best" }, "gains"},
		{func(p *cc.PIDNNParams) { p.Kp = 1 }, "gains: explicit"},
		{func(p *cc.PIDNNParams) { p.Gains, p.Kp = cc.PIDNNGainsExplicit, math.NaN() }, "kp"},
		{func(p *cc.PIDNNParams) { p.ModelFile = filepath.Join(dir, "missing.bin") }, "model_file"},
		{func(p *cc.PIDNNParams) { p.ModelFile = write("trunc.bin", pb[:len(pb)-9]) }, "model_file"},
		{func(p *cc.PIDNNParams) { p.ModelFile = write("corrupt.bin", corrupt) }, "model_file"},
		{func(p *cc.PIDNNParams) { p.ModelFile = write("gains-as-model.bin", gb) }, "model_file"},
		{func(p *cc.PIDNNParams) { p.GainsFile = write("model-as-gains.bin", pb) }, "gains_file"},
	}
	for i, tc := range cases {
		p := cc.PIDNNDefaults()
		tc.set(p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("case %d: error %v, want one naming %q", i, err, tc.want)
		}
	}
	// the shipped files, and copies of them named by the parameters
	p := cc.PIDNNDefaults()
	p.ModelFile, p.GainsFile = write("p.bin", pb), write("g.bin", gb)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	m, g, err := pidnnmodel.Shipped()
	if err != nil || m == nil || g.Check() != nil {
		t.Fatalf("shipped model: %v", err)
	}
}

// The 20:1 incast of paper 001 (the default scenario) with each variant:
// no drops (PFC), and the same seed gives the same result; pid and pidnn
// finish every flow. The RTTch variants (which the paper does not run on
// the incast, §3.5.4) finish the 17 small flows but hold the three large
// ones near the 1 Gb/s floor: once the target has moved to the mean RTT of
// an uncongested link (≈ the base RTT) no sample falls below it, so the
// error is never negative and the rate cannot rise
// (docs/algorithms/pidnn.md §11.3).
func TestPIDNNIncastScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	s, err := scenario.Parse(scenario.DefaultYAML())
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string) *result.Result {
		b, err := assemble.Build(s, name, assemble.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return b.Run()
	}
	for _, name := range []string{"pid", "pidnn", "pidnn+rttch", "pidnn+rttch+win"} {
		r := run(name)
		want := 20
		if strings.Contains(name, "rttch") {
			want = 17
		}
		if r.Summary.Finished < want || r.Drops != 0 {
			t.Fatalf("%s: finished %d unfinished %d drops %d", name, r.Summary.Finished, r.Summary.Unfinished, r.Drops)
		}
		t.Logf("%s: mean FCT %.1f µs, finish %.1f µs, RTT mean %.2f µs", name, r.Summary.All.FCTUs.Mean, r.Summary.FinishTimeUs, r.RTT.MeanUs)
		if name == "pidnn" {
			r2 := run(name)
			if r2.Events != r.Events || r2.Summary.FinishTimeUs != r.Summary.FinishTimeUs || !bytes.Equal(fctBytes(r), fctBytes(r2)) {
				t.Fatal("pidnn: two runs with the same seed differ")
			}
		}
	}
}

func fctBytes(r *result.Result) []byte {
	var b bytes.Buffer
	for _, f := range r.Flows {
		fmt.Fprintf(&b, "%d %d %d;", f.ID, f.Start, f.Finish)
	}
	return b.Bytes()
}

// ns per simulated data packet on the 20 × 10 MB incast (go test ./cc -run
// X -bench 'Incast20x10MB(PIDNN|TIMELY|DCQCN)'); DCQCN's is in
// wrcc_bench_test.go.
func BenchmarkIncast20x10MBPIDNN(b *testing.B)  { benchIncastCC(b, 10_000_000, "pidnn") }
func BenchmarkIncast20x10MBPID(b *testing.B)    { benchIncastCC(b, 10_000_000, "pid") }
func BenchmarkIncast20x10MBTIMELY(b *testing.B) { benchIncastCC(b, 10_000_000, "timely") }

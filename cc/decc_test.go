package cc_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/auroramodel"
	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/ml/rl"
	"github.com/ccsim/ccsim/sim"
)

// deccForced returns a teacher actor whose logits are constant, the largest
// at index k: every weight 0, the output layer's bias 1 at k (and 0.5 at
// k+1, so a tie-break bug would show).
func deccForced(k int) *nn.Sequential {
	m := deccmodel.NewActor()
	out := m.Layers()[len(m.Layers())-1].(*nn.Dense)
	out.B.W[k] = 1
	if k+1 < deccmodel.Actions {
		out.B.W[k+1] = 0.5
	}
	return m
}

// deccModelFile writes m to a model file in a test directory.
func deccModelFile(t testing.TB, m *nn.Sequential) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "actor.bin")
	if err := nn.SaveFile(path, m, "decc test actor"); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDECCLocalStateHand: the five features on hand-built counters (a 10
// µs MTP of a 100 Gb/s flow with a 4 µs base RTT, BDP 50 000 B): thr 50 000
// B ACKed → 0.4; lat mean(5, 6, 6, 7) µs / 4 µs = 1.5; loss 6000 / 60 000
// = 0.1; in flight 25 000 B → 0.5; rate 25 Gb/s → 0.25. Without an ACK
// lat carries the previous value; loss divides by one packet when less
// than a packet was sent.
func TestDECCLocalStateHand(t *testing.T) {
	us := sim.Microsecond
	c := &cc.AgentCounters{Start: 10 * us, Acks: 4, AckedBytes: 50000, RTTN: 4, RTTSum: 24 * us, RTTMin: 5 * us, RTTMax: 7 * us,
		TxBytes0: 1000, RetxBytes0: 500}
	f := cc.DECCFlow{TxBytes: 61000, RetxBytes: 6500, InFlight: 25000, RateBps: 25e9, LineBps: 100e9, BaseRTT: 4 * us, Payload: 1000}
	out := make([]float64, cc.DECCFeatures+1)
	out[cc.DECCFeatures] = 42
	cc.DECCLocalState(out, c, f, 20*us, 9)
	want := []float64{0.4, 1.5, 0.1, 0.5, 0.25, 42}
	for i, w := range want {
		if !auroraNear(out[i], w) {
			t.Errorf("feature %d = %v, want %v", i, out[i], w)
		}
	}
	// no ACK, 500 B sent of which 500 retransmitted: lat = previous, loss = 500/1000
	c2 := &cc.AgentCounters{Start: 0, TxBytes0: 1000, RetxBytes0: 0}
	f.TxBytes, f.RetxBytes = 1500, 500
	cc.DECCLocalState(out, c2, f, 10*us, 1.25)
	if out[cc.DECCThr] != 0 || out[cc.DECCLat] != 1.25 || out[cc.DECCLoss] != 0.5 {
		t.Errorf("no-ACK MTP: thr %v lat %v loss %v, want 0, 1.25, 0.5", out[0], out[1], out[2])
	}
}

// TestDECCHistory: the history pads with the first state and shifts one
// state per push, oldest first, exactly as rl.History (the trainer's
// acting side) does.
func TestDECCHistory(t *testing.T) {
	h := cc.NewDECCHistory(5)
	ref, err := rl.NewHistory(5, cc.DECCFeatures)
	if err != nil {
		t.Fatal(err)
	}
	s := make([]float64, cc.DECCFeatures)
	for k := range 8 {
		for i := range s {
			s[i] = float64(10*k + i)
		}
		h.Push(s)
		if err := ref.Push(s); err != nil {
			t.Fatal(err)
		}
		for i, v := range ref.Window() {
			if h.Window()[i] != v {
				t.Fatalf("push %d: window[%d] = %v, rl.History %v", k, i, h.Window()[i], v)
			}
		}
	}
	if h.Len() != 8 || h.Window()[0] != 30 || h.Window()[24] != 74 {
		t.Errorf("after 8 pushes: len %d, oldest %v, newest %v; want 8, 30, 74", h.Len(), h.Window()[0], h.Window()[24])
	}
}

// TestDECCParamsErrors: every bad field is named with its range; an empty
// model is refused with a message naming the field (no model is shipped);
// a model file of another shape is refused naming the field and the file.
func TestDECCParamsErrors(t *testing.T) {
	good := deccModelFile(t, deccForced(5))
	wrong := filepath.Join(t.TempDir(), "aurora.bin")
	if err := nn.SaveFile(wrong, auroramodel.NewPolicy(), ""); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		set  func(*cc.DECCParams)
		want string
	}{
		{func(p *cc.DECCParams) { p.AlphaAct = 0 }, "alpha_act = 0 out of range"},
		{func(p *cc.DECCParams) { p.AlphaAct = 2 }, "alpha_act"},
		{func(p *cc.DECCParams) { p.History = 0 }, "history = 0 out of range [1, 64]"},
		{func(p *cc.DECCParams) { p.MTP = 0 }, "mtp = 0"},
		{func(p *cc.DECCParams) { p.MinPackets = -1 }, "min_packets"},
		{func(p *cc.DECCParams) { p.CwndMin = 0.5 }, "cwnd_min = 0.5 out of range [1, 1e6]"},
		{func(p *cc.DECCParams) { p.CwndMax = 0 }, "cwnd_max"},
		{func(p *cc.DECCParams) { p.InitCwnd = 5 }, "init_cwnd = 5 out of range [0 (exclusive), cwnd_max]"},
		{func(p *cc.DECCParams) { p.DecisionNs = -1 }, "decision_ns"},
		{func(p *cc.DECCParams) { p.DecisionQueue = "fifo" }, `decision_queue = "fifo": allowed values delay, wait, skip`},
		{func(p *cc.DECCParams) { p.TreeOutput = "round" }, `tree_output = "round": allowed values levels, value`},
		{func(p *cc.DECCParams) { p.DecisionCores = -1 }, "decision_cores = -1 out of range [0, 1024]"},
		{func(p *cc.DECCParams) { p.Model = wrong }, "model: " + wrong},
		{func(p *cc.DECCParams) { p.Model = good + ".missing" }, "model: "},
	}
	for _, c := range cases {
		p := cc.DECCDefaults()
		p.Model = good
		c.set(p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
	p := cc.DECCDefaults()
	p.Model = good
	if err := p.Validate(); err != nil || p.Policy() == nil {
		t.Errorf("defaults with a model: %v", err)
	}
	// a network held in memory (a trainer's) needs no file
	p = cc.DECCDefaults()
	net := deccForced(2)
	p.SetPolicy(net, "in-memory")
	if err := p.Validate(); err != nil || p.Policy() != net {
		t.Errorf("SetPolicy: %v", err)
	}
	// an empty model is the shipped teacher; decc-nn is an ablation
	// variant: a full algorithm left out of the default comparison
	p = cc.DECCDefaults()
	shipped, _, serr := deccmodel.Shipped()
	if err := p.Validate(); err != nil || serr != nil || p.Policy() != shipped || shipped == nil {
		t.Errorf("empty model: %v, %v; policy %p, want the shipped teacher %p", err, serr, p.Policy(), shipped)
	}
	if s, err := cc.Lookup("decc-nn"); err != nil || s.Harness || !s.Variant || slices.Contains(cc.Compared(), "decc-nn") {
		t.Errorf("decc-nn: %v, harness %v, compared %v", err, s != nil && s.Harness, cc.Compared())
	}
}

// TestDECCArithmetic: the greedy action (first maximum, NaN never wins),
// eq. 2 with α = 0.85 and the clamp, the pacing rate and its cap.
func TestDECCArithmetic(t *testing.T) {
	for _, c := range []struct {
		z    []float64
		want int
	}{
		{[]float64{0, 1, 3, 3, 2, 0, 0, 0, 0, 0, 0}, 2},
		{[]float64{nan(), -1, -2, -1, -5, -9, -1, -1, -1, -1, -0.5}, 10},
		{[]float64{nan(), nan()}, 5},
	} {
		if g := cc.DECCGreedy(c.z); g != c.want {
			t.Errorf("DECCGreedy(%v) = %d, want %d", c.z, g, c.want)
		}
	}
	if g := cc.DECCCwnd(10000, 0.5, 0.85, 1000, 1e6); g != 10000*1.425 {
		t.Errorf("×(1 + 0.85·0.5): %v", g)
	}
	if g := cc.DECCCwnd(10000, -0.2, 0.85, 1000, 1e6); g != 10000/1.17 {
		t.Errorf("÷(1 + 0.85·0.2): %v", g)
	}
	if g := cc.DECCCwnd(1100, -0.5, 0.85, 1000, 1e6); g != 1000 {
		t.Errorf("clamped below: %v", g)
	}
	if g := cc.DECCCwnd(9e5, 0.5, 0.85, 1000, 1e6); g != 1e6 {
		t.Errorf("clamped above: %v", g)
	}
	// 10 000 B over 4 µs = 20 Gb/s; 1 MB over 4 µs = 2 Tb/s, capped at 100 Gb/s
	if g := cc.DECCPacing(10000, 4e6, 100e9); g != 20e9 {
		t.Errorf("pacing %v, want 2e10", g)
	}
	if g := cc.DECCPacing(1e6, 4e6, 100e9); g != 100e9 {
		t.Errorf("pacing %v, want the line rate", g)
	}
}

func nan() float64 { var z float64; return z / z }

// TestDECCNoAllocPerDecision: closing an MTP (state, history, the actor
// over 5 steps, argmax) and applying the action allocate nothing.
func TestDECCNoAllocPerDecision(t *testing.T) {
	r := deccRun(t, deccScenario(2, 1, 1_000_000, 20, ""), deccRandom(1))
	q := &r.net.QPs[0]
	d := r.probes[0].DECC
	now := r.end
	if n := testing.AllocsPerRun(1000, func() {
		d.C.AckedBytes, d.C.RTTN, d.C.RTTSum = 10000, 2, 8*sim.Microsecond
		d.Apply(q, d.Decide(q, now))
	}); n != 0 {
		t.Errorf("%v allocations per decision, want 0", n)
	}
}

// deccRandom is a teacher actor with seeded random weights (not trained).
func deccRandom(seed uint64) *nn.Sequential {
	m := deccmodel.NewActor()
	m.Init(nn.NewRand(seed))
	return m
}

// BenchmarkDECCDecision is the teacher's cost per decision on this
// machine: the local state, the actor over 5 steps and the argmax, and the
// window and rate update (docs/algorithms/decc.md §5).
func BenchmarkDECCDecision(b *testing.B) {
	r := deccRun(b, deccScenario(2, 1, 1_000_000, 20, ""), deccRandom(1))
	q := &r.net.QPs[0]
	d := r.probes[0].DECC
	b.ReportAllocs()
	for b.Loop() {
		d.C.AckedBytes, d.C.RTTN, d.C.RTTSum = 10000, 2, 8*sim.Microsecond
		d.Apply(q, d.Decide(q, r.end))
	}
}

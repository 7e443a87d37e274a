package cc_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/spinemodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// map_vanilla_action and vanilla_set_params (γ doubled by the kernel).
func TestSpineMapAction(t *testing.T) {
	for _, tc := range []struct {
		a    []float64
		want cc.SpineExec
	}{
		{[]float64{0, 0, 0, 0}, cc.SpineExec{Alpha: 128, Beta: 128, Gamma: 1024, Delta: 912}},
		{[]float64{-1, -1, -1, -1}, cc.SpineExec{Alpha: 1, Beta: 1, Gamma: 2, Delta: 800}},
		{[]float64{1, 1, 1, 1}, cc.SpineExec{Alpha: 256, Beta: 256, Gamma: 2046, Delta: 1023}},
		// 1.5·128 = 192; 0.7·128 = 89.6 → 89; 1.25·512 = 640 → 1280; 800 + int(0.1·112 = 11.2) = 811
		{[]float64{0.5, -0.3, 0.25, -0.9}, cc.SpineExec{Alpha: 192, Beta: 89, Gamma: 1280, Delta: 811}},
	} {
		if got := cc.SpineMapAction(tc.a); got != tc.want {
			t.Errorf("%v: %+v, want %+v", tc.a, got, tc.want)
		}
	}
	for _, tc := range []struct {
		x, p float64
	}{{0, 0.5}, {-1, 0.05}, {-0.95, 0.05}, {-0.5, 0.25}, {0.5, 0.75}, {0.9, 0.95}, {1, 0.95}} {
		if p := cc.SpineTriggerProb(tc.x); math.Abs(p-tc.p) > 1e-15 {
			t.Errorf("trigger probability(%v) = %v, want %v", tc.x, p, tc.p)
		}
		if !cc.SpineTrigger(tc.x, tc.p-1e-9) || cc.SpineTrigger(tc.x, tc.p) {
			t.Errorf("trigger(%v, u): fires for u < %v only", tc.x, tc.p)
		}
	}
}

// transform_state's ten features and their guards, with the datacenter
// scaling of I5.
func TestSpineObservation(t *testing.T) {
	us := sim.Microsecond
	m := cc.SpineMeasure{Thr: 100e9, MaxThr: 200e9, AvgRTT: 8 * us, MinRTT: 4 * us, SRTT: 5 * us,
		Loss: 2e9, Cwnd: 200, InFlight: 150, Pacing: 300e9, Retrans: 4, LineBps: 400e9, PayloadB: 1000}
	cur := []float64{0.1, -0.2, 0.3, -0.4}
	out := make([]float64, cc.SpineObsDim)
	cc.SpineObservation(&m, cur, out)
	want := []float64{0.5, 0.5, 0.8,
		200 * 1000 * 8 / (4e-6 * 200e9) / 10, // 0.2
		0.5, 0.04, 0.01, 0.75, 1.5, 0.02, 0.1, -0.2, 0.3, -0.4}
	for i := range want {
		if math.Abs(out[i]-want[i]) > 1e-12 {
			t.Errorf("feature %d = %v, want %v", i, out[i], want[i])
		}
	}
	// no throughput, no RTT samples yet
	m = cc.SpineMeasure{Cwnd: 10, LineBps: 400e9, PayloadB: 1000}
	cc.SpineObservation(&m, cur, out)
	for i, w := range []float64{-0.1, 2, 2, 0, 0, 0, 0, 0, 0, 0} {
		if out[i] != w {
			t.Errorf("empty measure: feature %d = %v, want %v", i, out[i], w)
		}
	}
	if spinemodel.ObsDim != cc.SpineObsDim || spinemodel.ActDim != cc.SpineActDim {
		t.Errorf("spinemodel's sizes %d, %d differ from cc's %d, %d", spinemodel.ObsDim, spinemodel.ActDim, cc.SpineObsDim, cc.SpineActDim)
	}
}

func TestSpineParamsErrors(t *testing.T) {
	for _, tc := range []struct {
		set   func(p *cc.SpineParams)
		field string
	}{
		{func(p *cc.SpineParams) { p.Alpha = 0 }, "alpha"},
		{func(p *cc.SpineParams) { p.Beta = 1025 }, "beta"},
		{func(p *cc.SpineParams) { p.Gamma = 3000 }, "gamma"},
		{func(p *cc.SpineParams) { p.Delta = -1 }, "delta"},
		{func(p *cc.SpineParams) { p.IntervalRTTs = 0 }, "interval_rtts"},
		{func(p *cc.SpineParams) { p.K = 0 }, "k"},
		{func(p *cc.SpineParams) { p.InitWindowBDPs = 0 }, "init_window_bdps"},
		{func(p *cc.SpineParams) { p.MaxWindowBDPs = 0.5 }, "max_window_bdps"},
		{func(p *cc.SpineParams) { p.MinCwnd = 0 }, "min_cwnd"},
		{func(p *cc.SpineParams) { p.DecisionNs = -1 }, "decision_ns"},
		{func(p *cc.SpineParams) { p.Model = "/nonexistent/actor.bin" }, "model"},
	} {
		p := cc.SpineDefaults()
		tc.set(p)
		err := p.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tc.field) {
			t.Errorf("%s: error %v, want one naming the field", tc.field, err)
		}
	}
	if err := cc.SpineDefaults().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// recAgent answers a fixed action and records its decision times.
type recAgent struct {
	a  []float64
	at []sim.Time
}

func (r *recAgent) SpineDecide(_ *cc.Spine, _ *fabric.QP, now sim.Time, act []float64) error {
	r.at = append(r.at, now)
	copy(act, r.a)
	return nil
}
func (*recAgent) SpineFinish(*cc.Spine, *fabric.QP, sim.Time) {}

// The agent decides every k intervals of one base RTT; the gate keeps the
// parameters unless the fifth output is positive (or the gate is off);
// decision_ns delays the new parameters by exactly that much.
func TestSpineDecisionsGateLatency(t *testing.T) {
	defaults := cc.SpineExec{Alpha: 50, Beta: 200, Gamma: 200, Delta: 717}
	act := []float64{0.5, -0.3, 0.25, -0.9}
	mapped := cc.SpineMapAction(act)
	for _, tc := range []struct {
		params  string
		trigger float64
		gate    bool
	}{
		{"{k: 2}", -1, true},
		{"{k: 2}", 0.3, true},
		{"{k: 2}", 1, true},
		{"{k: 3, trigger: false}", -1, false},
	} {
		var rec *recAgent
		pr := runSpineIncastWith(t, 1, 50, 0, tc.params, func(p *cc.SpineParams) cc.SpineAgent {
			rec = &recAgent{a: append(append([]float64(nil), act...), tc.trigger)}
			return rec
		}, nil)
		s := pr[0].Spine
		k := int64(2)
		if strings.Contains(tc.params, "k: 3") {
			k = 3
		}
		iv := rec.at[0] / sim.Time(k) // the first decision closes interval k
		for i, at := range rec.at {
			if at != sim.Time(int64(i+1)*k)*iv {
				t.Fatalf("%s: decision %d at %v, want %v (every %d intervals of %v)", tc.params, i, at, sim.Time(int64(i+1)*k)*iv, k, iv)
			}
		}
		if n := int64(len(rec.at)); n != s.Decisions || n != int64(50*sim.Microsecond/(sim.Time(k)*iv)) {
			t.Errorf("%s: %d decisions (counter %d), want ⌊50 µs / (%d × %v)⌋", tc.params, n, s.Decisions, k, iv)
		}
		// the gate's draws: flow 0's PCG stream, one per decision
		fired := int64(len(rec.at))
		if tc.gate {
			fired = 0
			r := rand.New(rand.NewPCG(cc.SpineGateSeed, 0))
			for range rec.at {
				if r.Float64() < cc.SpineTriggerProb(tc.trigger) {
					fired++
				}
			}
		}
		want := defaults
		if fired > 0 {
			want = mapped
		}
		if s.Exec != want || s.Fired != fired {
			t.Errorf("%s, trigger %v: parameters %+v fired %d, want %+v fired %d", tc.params, tc.trigger, s.Exec, s.Fired, want, fired)
		}
		if iv < 3*sim.Microsecond || iv > 5*sim.Microsecond {
			t.Errorf("interval %v, want the path base RTT (≈ 4 µs)", iv)
		}
	}
	// decision latency 5 µs: ACKs before t₁ + 5 µs see the defaults, after it the new ones
	var rec *recAgent
	var before, after int
	runSpineIncastWith(t, 1, 40, 0, "{trigger: false, decision_ns: 5000}", func(p *cc.SpineParams) cc.SpineAgent {
		rec = &recAgent{a: append(append([]float64(nil), act...), 1)}
		return rec
	}, func(p *spineProbe, now sim.Time) {
		if len(rec.at) == 0 {
			return
		}
		due := rec.at[0] + 5*sim.Microsecond
		switch {
		case now < due && p.Exec == defaults:
			before++
		case now > due && p.Exec == mapped:
			after++
		case now != due:
			t.Fatalf("at %v (first decision %v, due %v): parameters %+v", now, rec.at[0], due, p.Exec)
		}
	})
	if before == 0 || after == 0 {
		t.Errorf("decision latency: %d ACKs before and %d after the due time, want both > 0", before, after)
	}
}

// The per-ACK executor and the agent's decision (the deployed network)
// allocate nothing in steady state.
func TestSpineNoAllocs(t *testing.T) {
	pr := runSpineIncast(t, 1, 30, 0, "{k: 1}")[0]
	q, now := pr.q, sim.Time(30*sim.Microsecond)
	k := fabric.AckInfo{NewlyAcked: 1000, RTT: 5 * sim.Microsecond}
	if n := testing.AllocsPerRun(1000, func() {
		now += 10
		pr.Spine.OnAck(q, &k, now)
	}); n != 0 {
		t.Errorf("OnAck: %v allocations per ACK, want 0", n)
	}
	d := pr.Decisions
	if n := testing.AllocsPerRun(100, func() {
		now += sim.Microsecond
		pr.Spine.OnTimer(q, 0, now)
	}); n != 0 {
		t.Errorf("decision: %v allocations per decision, want 0", n)
	}
	if pr.Decisions != d+101 {
		t.Errorf("%d decisions in the allocation check, want 101", pr.Decisions-d)
	}
}

// BenchmarkSpineOnAck is the executor's cost per ACK.
func BenchmarkSpineOnAck(b *testing.B) {
	pr := runSpineIncast(b, 1, 30, 0, "")[0]
	q, now := pr.q, sim.Time(30*sim.Microsecond)
	k := fabric.AckInfo{NewlyAcked: 1000, RTT: 5 * sim.Microsecond}
	b.ReportAllocs()
	for b.Loop() {
		now += 10
		pr.Spine.OnAck(q, &k, now)
	}
}

// BenchmarkSpineDecision is the agent's cost per decision (measurement,
// observation, the shipped actor, gate), k = 1.
func BenchmarkSpineDecision(b *testing.B) {
	pr := runSpineIncast(b, 1, 30, 0, "{k: 1}")[0]
	q, now := pr.q, sim.Time(30*sim.Microsecond)
	b.ReportAllocs()
	for b.Loop() {
		now += sim.Microsecond
		pr.Spine.OnTimer(q, 0, now)
	}
}

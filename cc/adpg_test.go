package cc_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// The action's rate multiplier, agents/adpg.py _parse_action with the
// authors' 0.2 both ways, and with other multipliers.
func TestADPGMultiplier(t *testing.T) {
	p := cc.ADPGDefaults()
	for _, c := range []struct{ a, want float64 }{
		{1, 1.2}, {0.5, 1.1}, {0, 1}, {-0.5, 1 / 1.1}, {-1, 1 / 1.2},
	} {
		if got := cc.ADPGMultiplier(p, c.a); got != c.want {
			t.Errorf("multiplier(%v) = %v, want %v", c.a, got, c.want)
		}
	}
	p.ActionMultiplierInc, p.ActionMultiplierDec = 0.5, 0.25
	if got := cc.ADPGMultiplier(p, 1); got != 1.5 {
		t.Errorf("inc 0.5: multiplier(1) = %v, want 1.5", got)
	}
	if got := cc.ADPGMultiplier(p, -1); got != 1/1.25 {
		t.Errorf("dec 0.25: multiplier(−1) = %v, want 0.8", got)
	}
}

// The reward, feature_history.py calc_adpg_reward: (max(0, inflation −
// 1.5)·√rate − 0.064)·12.5, by hand.
func TestADPGReward(t *testing.T) {
	p := cc.ADPGDefaults()
	for _, c := range []struct{ infl, rate, want float64 }{
		{1, 1, -0.8},             // no queue: below the slack
		{1.5, 0.3, -0.8},         // exactly at the slack
		{2, 0.25, 2.325},         // 0.5·0.5 = 0.25 → 0.186·12.5
		{3.5, 0.64, 19.2},        // 2·0.8 = 1.6 → 1.536·12.5
		{1.564, 1, 0},            // the attractor of one flow at line rate
		{1.5 + 0.064*2, 0.25, 0}, // of one of four equal flows
	} {
		if got := cc.ADPGReward(p, c.infl, c.rate); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("reward(inflation %v, rate %v) = %.15g, want %v", c.infl, c.rate, got, c.want)
		}
	}
}

// The observation: (multiplier of the last action, reward) of the last two
// intervals, oldest first; the first interval fills the history; an
// interval without ACK keeps the previous inflation; the rate is the one at
// the boundary.
func TestADPGObservation(t *testing.T) {
	p := cc.ADPGDefaults()
	s := cc.NewADPGState(p, 2)
	q := &fabric.QP{PathBaseRTT: 4 * sim.Microsecond, RateBps: 100e9, LineRateBps: 400e9}
	check := func(step string, obs []float64, r float64, want []float64) {
		t.Helper()
		if len(obs) != len(want) {
			t.Fatalf("%s: observation %v, want %v", step, obs, want)
		}
		for i := range want {
			if math.Abs(obs[i]-want[i]) > 1e-12 {
				t.Fatalf("%s: observation %v, want %v", step, obs, want)
			}
		}
		if r != obs[len(obs)-1] {
			t.Fatalf("%s: reward %v is not the last feature %v", step, r, obs[len(obs)-1])
		}
	}
	// mean RTT 8 µs (two samples 6 and 10): inflation 2, rate 0.25
	obs, r := s.Observe(&cc.AgentCounters{RTTN: 2, RTTSum: 16 * sim.Microsecond}, q)
	check("first", obs, r, []float64{1, 2.325, 1, 2.325})
	if s.RTT() != 8*sim.Microsecond {
		t.Fatalf("RTT %v, want 8 µs", s.RTT())
	}
	s.Acted(0.5)
	q.RateBps = 200e9 // no ACK: inflation stays 2; rate 0.5
	r2 := (0.5*math.Sqrt(0.5) - 0.064) * 12.5
	obs, r = s.Observe(&cc.AgentCounters{}, q)
	check("second", obs, r, []float64{1, 2.325, 1.1, r2})
	s.Acted(-1)
	obs, r = s.Observe(&cc.AgentCounters{RTTN: 1, RTTSum: 4 * sim.Microsecond}, q)
	check("third", obs, r, []float64{1.1, r2, 1 / 1.2, -0.8})
	if s.Intervals() != 3 {
		t.Fatalf("intervals %d, want 3", s.Intervals())
	}
}

// Every bad parameter is refused with its name and range; a missing model
// file is named.
func TestADPGParamsErrors(t *testing.T) {
	for _, c := range []struct {
		field string
		set   func(p *cc.ADPGParams)
	}{
		{"action_multiplier_inc", func(p *cc.ADPGParams) { p.ActionMultiplierInc = 0 }},
		{"action_multiplier_dec", func(p *cc.ADPGParams) { p.ActionMultiplierDec = 11 }},
		{"target", func(p *cc.ADPGParams) { p.Target = -1 }},
		{"beta", func(p *cc.ADPGParams) { p.Beta = math.NaN() }},
		{"scale", func(p *cc.ADPGParams) { p.Scale = 0 }},
		{"min_rate", func(p *cc.ADPGParams) { p.MinRate = 0 }},
		{"init_rate", func(p *cc.ADPGParams) { p.InitRate = 2 }},
		{"interval_rtts", func(p *cc.ADPGParams) { p.IntervalRTTs = 0 }},
		{"min_packets", func(p *cc.ADPGParams) { p.MinPackets = -1 }},
		{"decision_ns", func(p *cc.ADPGParams) { p.DecisionNs = -5 }},
		{"model", func(p *cc.ADPGParams) { p.Model = "/nonexistent/adpg.bin" }},
	} {
		p := cc.ADPGDefaults()
		c.set(p)
		err := p.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), c.field+" ") && !strings.HasPrefix(err.Error(), c.field+":") {
			t.Errorf("%s: error %v, want one naming the field", c.field, err)
		} else if c.field != "model" && !strings.Contains(err.Error(), "out of range") {
			t.Errorf("%s: error %v, want the allowed range", c.field, err)
		}
	}
	p := cc.ADPGDefaults()
	if err := p.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if p.History() != 2 {
		t.Fatalf("the shipped model observes %d intervals, want the authors' 2", p.History())
	}
}

// constPolicy acts a constant and records what it saw.
type constPolicy struct {
	a     float64
	calls int
	first int
}

func (c *constPolicy) Act(flow int, obs []float64, reward float64, first bool, now sim.Time) float64 {
	c.calls++
	if first {
		c.first++
	}
	return c.a
}
func (c *constPolicy) History() int { return 2 }

// One decision allocates nothing: observation, network, action.
func TestADPGDecisionNoAlloc(t *testing.T) {
	p := cc.ADPGDefaults()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	q := &fabric.QP{PathBaseRTT: 4 * sim.Microsecond, RateBps: 100e9, LineRateBps: 400e9}
	c, _ := cc.NewADPG(p, q, nil)
	cnt := &cc.AgentCounters{RTTN: 3, RTTSum: 15 * sim.Microsecond}
	c.Decide(cnt, q, 0)
	if n := testing.AllocsPerRun(1000, func() { c.Decide(cnt, q, 0) }); n != 0 {
		t.Fatalf("%v allocations per decision, want 0", n)
	}
}

// BenchmarkADPGDecision is one decision of the deployed controller.
func BenchmarkADPGDecision(b *testing.B) {
	p := cc.ADPGDefaults()
	if err := p.Validate(); err != nil {
		b.Fatal(err)
	}
	q := &fabric.QP{PathBaseRTT: 4 * sim.Microsecond, RateBps: 100e9, LineRateBps: 400e9}
	c, _ := cc.NewADPG(p, q, nil)
	cnt := &cc.AgentCounters{RTTN: 3, RTTSum: 15 * sim.Microsecond}
	b.ReportAllocs()
	for b.Loop() {
		c.Decide(cnt, q, 0)
	}
}

// The rate follows the multipliers: with a constant policy a = 0.5 a flow
// starting at 0.01 of line rate multiplies its rate by exactly 1.1 per
// interval (truncated to whole b/s), and with a decision latency the
// change comes that much later.
func TestADPGRateArithmetic(t *testing.T) {
	src := `
name: adpg-rate
stop_ms: 0.05
cc: [adpg]
params:
  adpg: {init_rate: 0.01}
topology: {kind: star, hosts: 2, link_gbps: 400, link_delay_ns: 1000}
workload:
  flows:
    - {src: 0, dst: 1, size_bytes: 1000000000, start_ns: 0}
`
	for _, delay := range []float64{0, 700} {
		s, err := scenario.Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		p := s.ParamsOf("adpg").(*cc.ADPGParams)
		p.DecisionNs = delay
		b, err := assemble.Build(s, "adpg", assemble.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pol := &constPolicy{a: 0.5}
		var ctl *cc.ADPG
		b.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm {
			c, a := cc.NewADPG(p, q, pol)
			ctl = c
			return a
		})
		var rates []int64
		var times []sim.Time
		b.Net.Monitor(100*sim.Nanosecond, func(n *fabric.Network, now sim.Time) {
			if r := n.QPs[0].RateBps; len(rates) == 0 || r != rates[len(rates)-1] {
				rates, times = append(rates, r), append(times, now)
			}
		})
		b.Net.Run()
		if pol.first != 1 || pol.calls < 3 {
			t.Fatalf("delay %v: %d decisions, %d first, want ≥ 3 and 1", delay, pol.calls, pol.first)
		}
		want := int64(400e9 * 0.01)
		for i, r := range rates {
			if r != want {
				t.Fatalf("delay %v: rate %d at step %d is %d b/s, want %d (×1.1 truncated)", delay, i, i, r, want)
			}
			want = int64(float64(want) * 1.1)
		}
		if len(rates) < 3 {
			t.Fatalf("delay %v: rates %v, want at least 3 changes", delay, rates)
		}
		_ = ctl
		t.Logf("delay %v ns: rate changes at %v", delay, times[:3])
	}
}

// With rtt_clocked the interval lasts at least the last mean RTT: four
// flows that keep line rate (a = 0) into one receiver build a queue, and
// their decisions in 200 µs are fewer than a third of the base-RTT ones.
func TestADPGRTTClocked(t *testing.T) {
	src := `
name: adpg-clocked
stop_ms: 0.2
cc: [adpg]
topology: {kind: star, hosts: 5, link_gbps: 400, link_delay_ns: 1000}
workload:
  flows:
    - {src: 1, dst: 0, size_bytes: 1000000000, start_ns: 0}
    - {src: 2, dst: 0, size_bytes: 1000000000, start_ns: 0}
    - {src: 3, dst: 0, size_bytes: 1000000000, start_ns: 0}
    - {src: 4, dst: 0, size_bytes: 1000000000, start_ns: 0}
`
	var calls [2]int
	for i, clocked := range []bool{false, true} {
		s, err := scenario.Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		p := s.ParamsOf("adpg").(*cc.ADPGParams)
		p.RTTClocked = clocked
		b, err := assemble.Build(s, "adpg", assemble.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pol := &constPolicy{}
		b.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm { _, a := cc.NewADPG(p, q, pol); return a })
		b.Net.Run()
		calls[i] = pol.calls
	}
	t.Logf("decisions in 200 µs: base-RTT interval %d, RTT-clocked %d", calls[0], calls[1])
	if calls[0] < 4*40 || 3*calls[1] >= calls[0] {
		t.Fatalf("decisions %v: want ≥ 160 with the base-RTT interval and fewer than a third of them RTT-clocked", calls)
	}
}

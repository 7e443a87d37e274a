package cc_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/auroramodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

func auroraUs(v ...float64) []sim.Time {
	r := make([]sim.Time, len(v))
	for i, x := range v {
		r[i] = sim.Time(x * float64(sim.Microsecond))
	}
	return r
}

func auroraNear(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// TestAuroraMIFeatures checks each of sender_obs.py's metrics on a hand
// example: a 10 µs interval, RTTs 4, 6, 5, 9 µs, 30 000 B sent, 20 000 B
// acknowledged, 5 000 B lost, 1000-byte packets.
func TestAuroraMIFeatures(t *testing.T) {
	m := &cc.AuroraMI{Dur: 10 * sim.Microsecond, SentBytes: 30000, AckedBytes: 20000, LostBytes: 5000,
		PacketBytes: 1000, RTTs: auroraUs(4, 6, 5, 9)}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"mean RTT (ps)", m.MeanRTT(), 6e6},
		{"recv rate: 8·(20000 − 1000)/10 µs", m.RecvRate(), 15.2e9},
		{"send rate: 8·30000/10 µs", m.SendRate(), 24e9},
		{"send ratio 24/15.2", m.SendRatio(), 24.0 / 15.2},
		{"loss ratio 5000/25000", m.LossRatio(), 0.2},
		{"latency inflation (mean(5, 9) − mean(4, 6)) / 10 µs", m.LatencyInflation(), 0.2},
	} {
		if !auroraNear(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// odd count: the middle sample belongs to the second half (half = n/2)
	odd := &cc.AuroraMI{Dur: 2 * sim.Microsecond, RTTs: auroraUs(1, 2, 3)}
	if g := odd.LatencyInflation(); !auroraNear(g, 0.75) { // (2.5 − 1) / 2
		t.Errorf("odd inflation %v, want 0.75", g)
	}
	// the authors' edge cases
	edge := []struct {
		name      string
		m         cc.AuroraMI
		got, want func(*cc.AuroraMI) float64
		v         float64
	}{
		{name: "one sample: no inflation", m: cc.AuroraMI{Dur: 1, RTTs: auroraUs(3)}, got: (*cc.AuroraMI).LatencyInflation, v: 0},
		{name: "nothing acked: send ratio 1", m: cc.AuroraMI{Dur: 1000, SentBytes: 5000, AckedBytes: 1000, PacketBytes: 1000}, got: (*cc.AuroraMI).SendRatio, v: 1},
		{name: "send ≥ 1000 × recv: send ratio 1", m: cc.AuroraMI{Dur: 1000, SentBytes: 2_000_000, AckedBytes: 1002, PacketBytes: 1000}, got: (*cc.AuroraMI).SendRatio, v: 1},
		{name: "just below 1000×", m: cc.AuroraMI{Dur: 1000, SentBytes: 1_999_999, AckedBytes: 3000, PacketBytes: 1000}, got: (*cc.AuroraMI).SendRatio, v: 1_999_999.0 / 2000},
		{name: "nothing acked: negative recv rate", m: cc.AuroraMI{Dur: sim.Microsecond, PacketBytes: 1000}, got: (*cc.AuroraMI).RecvRate, v: -8e9},
		{name: "no bytes: loss 0", m: cc.AuroraMI{Dur: 1}, got: (*cc.AuroraMI).LossRatio, v: 0},
		{name: "no sample: mean 0", m: cc.AuroraMI{Dur: 1}, got: (*cc.AuroraMI).MeanRTT, v: 0},
	}
	for _, c := range edge {
		if g := c.got(&c.m); !auroraNear(g, c.v) {
			t.Errorf("%s: %v, want %v", c.name, g, c.v)
		}
	}
}

// TestAuroraObsHistory: the empty history is the authors' empty intervals
// (0, 1, 1); each Push shifts the history by one interval (oldest first);
// the latency ratio divides by the smallest interval mean so far, is 1
// before any sample and 0 for an interval without a sample after one.
func TestAuroraObsHistory(t *testing.T) {
	var o cc.AuroraObs
	o.Reset()
	v := o.Vector()
	if len(v) != 30 {
		t.Fatalf("observation of %d values, want 30", len(v))
	}
	for i := 0; i < 30; i += 3 {
		if v[i] != 0 || v[i+1] != 1 || v[i+2] != 1 {
			t.Fatalf("empty history %v, want (0, 1, 1) × 10", v)
		}
	}
	mis := []cc.AuroraMI{
		{Dur: 10 * sim.Microsecond, RTTs: nil, SentBytes: 1000, AckedBytes: 0, PacketBytes: 1000}, // no sample yet: ratio 1
		{Dur: 10 * sim.Microsecond, RTTs: auroraUs(6, 6), SentBytes: 4000, AckedBytes: 3000, PacketBytes: 1000},
		{Dur: 10 * sim.Microsecond, RTTs: auroraUs(3, 3), SentBytes: 4000, AckedBytes: 5000, PacketBytes: 1000},
		{Dur: 10 * sim.Microsecond, RTTs: auroraUs(3, 6), SentBytes: 4000, AckedBytes: 5000, PacketBytes: 1000},
		{Dur: 10 * sim.Microsecond, RTTs: nil, SentBytes: 4000, AckedBytes: 0, PacketBytes: 1000},
	}
	want := [][3]float64{{0, 1, 1}, {0, 1, 2}, {0, 1, 1}, {0.3, 1.5, 1}, {0, 0, 1}}
	for k := range mis {
		o.Push(&mis[k])
		v = o.Vector()
		for j := 0; j <= k; j++ { // interval j sits at slot 9 − (k − j)
			s := 3 * (9 - (k - j))
			if !auroraNear(v[s], want[j][0]) || !auroraNear(v[s+1], want[j][1]) || !auroraNear(v[s+2], want[j][2]) {
				t.Fatalf("after %d pushes slot %d = %v, want %v", k+1, 9-(k-j), v[s:s+3], want[j])
			}
		}
		if v[0] != 0 || v[1] != 1 || v[2] != 1 {
			t.Fatalf("oldest slot %v, want still empty", v[:3])
		}
	}
}

// TestAuroraRewardScaling: at the reference link (RefPktRate packets/s of
// 1500 B, base RTT RefRTT s) the renormalised reward equals the authors'
// 0.001·(10·thr[pkt/s] − 1000·lat[s] − 2000·loss) exactly; at 400 Gb/s with
// a 4 µs base RTT the same utilisation and RTT inflation give the same
// reward (scale-free), and a hand value.
func TestAuroraRewardScaling(t *testing.T) {
	s := cc.DefaultAuroraRewardScale()
	if s.RefPktRate != 300 || s.RefRTT != 0.55 {
		t.Fatalf("default scale %+v, want 300 packets/s and 0.55 s", s)
	}
	// the authors' link: 300 packets/s of 1500 B, RTT 0.55 s. An interval
	// of 1 s: 201 packets acked (recv rate 200 packets/s), 9 lost, mean RTT 0.66 s.
	const pkt = 1500
	m := &cc.AuroraMI{Dur: sim.Second, AckedBytes: 201 * pkt, LostBytes: 9 * pkt, PacketBytes: pkt,
		RTTs: []sim.Time{sim.Time(0.5 * float64(sim.Second)), sim.Time(0.82 * float64(sim.Second))}}
	authors := 0.001 * (10*200.0 - 1000*0.66 - 2000*9.0/210)
	got := cc.AuroraReward(m, 300*8*pkt, sim.Time(0.55*float64(sim.Second)), s)
	if !auroraNear(got, authors) {
		t.Errorf("reward at the reference link %v, want the authors' %v", got, authors)
	}
	// 400 Gb/s, base RTT 4 µs, 1000-byte packets, an interval of 2 µs at
	// the same utilisation 2/3, latency 1.2 base RTTs and loss ratio 9/210.
	d := 2 * sim.Microsecond
	acked := int64(66667) + 1000 // + one packet: the recv rate subtracts it
	lost := int64(math.Round(float64(acked) * 9 / 201))
	m2 := &cc.AuroraMI{Dur: d, AckedBytes: acked, LostBytes: lost, PacketBytes: 1000, RTTs: auroraUs(4.8)}
	got2 := cc.AuroraReward(m2, 400e9, 4*sim.Microsecond, s)
	want2 := 0.001 * (3000*(float64(acked-1000)*8/2e-6/400e9) - 550*1.2 - 2000*float64(lost)/float64(lost+acked))
	if !auroraNear(got2, want2) {
		t.Errorf("reward at 400 Gb/s %v, want %v", got2, want2)
	}
	if math.Abs(got2-authors) > 0.01 {
		t.Errorf("400 Gb/s reward %v differs from the reference link's %v for the same utilisation, inflation and loss", got2, authors)
	}
}

// TestAuroraRateArithmetic: rate ×(1 + 0.025a) for a ≥ 0, ÷(1 − 0.025a) for
// a < 0, the action unclipped, the rate clamped to [floor, line] and
// rounded to whole b/s.
func TestAuroraRateArithmetic(t *testing.T) {
	const line, floor = 400e9, 4e8
	for _, c := range []struct {
		bps  int64
		a    float64
		want int64
	}{
		{100e9, 1, 102_500_000_000},
		{100e9, -1, 97_560_975_610}, // 100e9 / 1.025 = 97 560 975 609.756…
		{100e9, 0, 100e9},
		{100e9, 4, 110e9},
		{100e9, -40, 50e9},         // unclipped: ÷ 2
		{300e9, 40, line},          // ×2, clamped to line rate
		{1e9, -1000, floor},        // ÷26, clamped to the floor
		{100e9, math.NaN(), 100e9}, // kept
		{100e9, math.Inf(1), 100e9},
	} {
		if g := cc.AuroraRate(c.bps, c.a, 0.025, floor, line); g != c.want {
			t.Errorf("rate %d, a = %v: %d, want %d", c.bps, c.a, g, c.want)
		}
	}
}

// TestAuroraParamsErrors: every bad field is named with its range; a bad
// model file is refused naming the field.
func TestAuroraParamsErrors(t *testing.T) {
	for _, c := range []struct {
		set  func(*cc.AuroraParams)
		want string
	}{
		{func(p *cc.AuroraParams) { p.DeltaScale = 0 }, "delta_scale = 0 out of range [0 (exclusive), 1]"},
		{func(p *cc.AuroraParams) { p.MinRate = 2 }, "min_rate = 2 out of range [0 (exclusive), 1]"},
		{func(p *cc.AuroraParams) { p.InitRate = 0.0001 }, "init_rate = 0.0001 out of range [min_rate, 1]"},
		{func(p *cc.AuroraParams) { p.MIRTTs = -1 }, "mi_rtts = -1 out of range [0 (exclusive), 1e4]"},
		{func(p *cc.AuroraParams) { p.FirstMIRTTs = 0 }, "first_mi_rtts = 0 out of range [0 (exclusive), 1e4]"},
		{func(p *cc.AuroraParams) { p.MinPackets = -1 }, "min_packets = -1 out of range [0, 1e6]"},
		{func(p *cc.AuroraParams) { p.DecisionNs = math.NaN() }, "decision_ns = NaN out of range [0, 1e9]"},
		{func(p *cc.AuroraParams) { p.Model = "/nonexistent/policy.bin" }, "model: open /nonexistent/policy.bin"},
	} {
		p := cc.AuroraDefaults()
		c.set(p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	p := cc.AuroraDefaults()
	if err := p.Validate(); err != nil || p.Policy() == nil {
		t.Fatalf("defaults: %v (policy %v)", err, p.Policy())
	}
	if p.Policy().InSize() != auroramodel.ObsDim || p.Policy().OutSize() != 1 {
		t.Errorf("shipped policy maps %d → %d, want 30 → 1", p.Policy().InSize(), p.Policy().OutSize())
	}
}

// TestAuroraDecisionNoAllocation: a decision in steady state (observation
// update and the policy's forward pass) allocates nothing.
func TestAuroraDecisionNoAllocation(t *testing.T) {
	p := cc.AuroraDefaults()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	d := cc.NewAuroraPolicyDecider(p.Policy())
	var o cc.AuroraObs
	o.Reset()
	m := &cc.AuroraMI{Dur: 2 * sim.Microsecond, SentBytes: 100000, AckedBytes: 99000, PacketBytes: 1000, RTTs: auroraUs(4, 4.1, 4.2, 4.3)}
	if n := testing.AllocsPerRun(1000, func() {
		o.Push(m)
		d.AuroraDecide(nil, m, o.Vector(), 0)
	}); n != 0 {
		t.Errorf("%v allocations per decision, want 0", n)
	}
}

// constDecider returns a constant action and records, at each boundary, the
// time and the rate in effect.
type constDecider struct {
	a     float64
	at    []sim.Time
	rates []int64
}

func (c *constDecider) AuroraDecide(q *fabric.QP, _ *cc.AuroraMI, _ []float64, now sim.Time) float64 {
	c.at = append(c.at, now)
	c.rates = append(c.rates, q.RateBps)
	return c.a
}

// TestAuroraDecisionLatency: with decision_ns = D every action takes effect
// D after its boundary, in order: at boundary k the rate is the initial
// rate scaled once per earlier boundary j with t_j + D ≤ t_k. With D = 0 it
// is scaled once per earlier boundary.
func TestAuroraDecisionLatency(t *testing.T) {
	for _, dns := range []float64{0, 3000, 10000} {
		y := "name: t\nstop_ms: 0.05\ncc: [aurora]\ntopology: {kind: star, hosts: 2, link_gbps: 100, link_delay_ns: 1000}\n" +
			"workload:\n  flows:\n    - {src: 0, dst: 1, size_bytes: 1000000000, start_ns: 0}\n"
		s, err := scenario.Parse([]byte(y))
		if err != nil {
			t.Fatal(err)
		}
		b, err := assemble.Build(s, "aurora", assemble.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p := cc.AuroraDefaults()
		p.InitRate, p.DecisionNs = 0.1, dns
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		dec := &constDecider{a: 1}
		b.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm { return cc.NewAurora(p, dec) })
		b.Net.Run()
		if len(dec.at) < 10 {
			t.Fatalf("D = %v ns: %d boundaries", dns, len(dec.at))
		}
		D := sim.Time(dns * float64(sim.Nanosecond))
		for k, tk := range dec.at {
			want := int64(10e9)
			for j := range k {
				if dec.at[j]+D <= tk {
					want = cc.AuroraRate(want, 1, 0.025, 1e8, 100e9)
				}
			}
			if dec.rates[k] != want {
				t.Fatalf("D = %v ns, boundary %d at %v: rate %d, want %d", dns, k, tk, dec.rates[k], want)
			}
		}
	}
}

// BenchmarkAuroraDecision: one decision of the deployed controller (the
// MI's features, the history shift and the policy's forward pass), on an MI
// of 100 RTT samples.
func BenchmarkAuroraDecision(b *testing.B) {
	p := cc.AuroraDefaults()
	if err := p.Validate(); err != nil {
		b.Fatal(err)
	}
	d := cc.NewAuroraPolicyDecider(p.Policy())
	var o cc.AuroraObs
	o.Reset()
	rtts := make([]float64, 100)
	for i := range rtts {
		rtts[i] = 4 + 0.01*float64(i)
	}
	m := &cc.AuroraMI{Dur: 2 * sim.Microsecond, SentBytes: 100000, AckedBytes: 99000, PacketBytes: 1000, RTTs: auroraUs(rtts...)}
	b.ReportAllocs()
	for b.Loop() {
		o.Push(m)
		d.AuroraDecide(nil, m, o.Vector(), 0)
	}
}

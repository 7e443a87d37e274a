package cc_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

const wrG = 1e9 // b/s per Gb/s

// AutoParm (paper Algorithm 1 lines 16–24) by hand, B_Tar = 100 Gb/s:
//
//	R_input 10 G: Interval 90 G ≥ 100/2 = 50 G            → level 2,  α = 1/2
//	R_input 60 G: Interval 40 G < 50 G; 40 G ≥ 100/4 = 25 G → level 4,  α = 1/4
//	R_input 80 G: 20 G < 25 G; 20 G ≥ 12.5 G               → level 8,  α = 1/8
//	R_input 96 G: 4 G < 50, 25, 12.5, 6.25 G; ≥ 3.125 G      → level 32, α = 1/32
//	R_input 97 G: 3 G < 3.125 G                            → level 64, α = 1/64
//	R_input 105 G: Interval −5 G                           → level 64, α = 1/64
//	R_Fair ≥ B_Tar: no search                              → level 2,  α = 1/2
func TestWRCCAutoParm(t *testing.T) {
	for _, c := range []struct {
		rFair, rIn, alpha float64
	}{
		{50, 10, 1.0 / 2}, {50, 60, 1.0 / 4}, {50, 80, 1.0 / 8}, {50, 96, 1.0 / 32},
		{50, 97, 1.0 / 64}, {50, 105, 1.0 / 64}, {50, 0, 1.0 / 2},
		{100, 99, 1.0 / 2}, {120, 105, 1.0 / 2},
	} {
		a, b := cc.WRCCAutoParm(c.rFair*wrG, c.rIn*wrG, 100*wrG)
		if a != c.alpha || b != c.alpha/2 {
			t.Errorf("AutoParm(R_Fair %v G, R_input %v G): α %v β %v, want %v %v", c.rFair, c.rIn, a, b, c.alpha, c.alpha/2)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// Algorithm 1's branches with exact values (B_Tar 100 Gb/s, WRCCT 24 µs).
func TestWRCCFairRateBranches(t *testing.T) {
	p := cc.WRCCDefaults()
	lit := cc.WRCCDefaults()
	lit.QExtraLiteral = true
	apx := cc.WRCCDefaults()
	apx.ApproxDivision = true
	const us = 1e-6
	for _, c := range []struct {
		name string
		p    *cc.WRCCParams
		in   cc.WRCCPortInput
		want float64 // Gb/s
	}{
		// multiplicative decrease: SlowDown = R_input / B_Tar ≥ RateRatio_max
		{"md 1.5", p, cc.WRCCPortInput{RFair: 60 * wrG, RInput: 150 * wrG, AvgRTT: 12 * us}, 40},
		{"md at RateRatio_max", p, cc.WRCCPortInput{RFair: 100 * wrG, RInput: 110 * wrG, AvgRTT: 12 * us}, 100 / 1.1},
		{"md 8:1 incast", p, cc.WRCCPortInput{RFair: 100 * wrG, RInput: 800 * wrG}, 12.5},
		// PFC from a feeding ingress: at least halve
		{"pfc halves", p, cc.WRCCPortInput{RFair: 40 * wrG, RInput: 50 * wrG, SumPFC: 1}, 20},
		{"pfc keeps larger cut", p, cc.WRCCPortInput{RFair: 90 * wrG, RInput: 300 * wrG, SumPFC: 3}, 30},
		// clamps
		{"clamp F_min", p, cc.WRCCPortInput{RFair: 0.15 * wrG, RInput: 300 * wrG}, 0.1},
		{"clamp F_max", p, cc.WRCCPortInput{RFair: 100 * wrG, RInput: 0}, 100},
		// eq. 2: RTT_avg = max(12 µs, 24 µs) = WRCCT, α = 1/4 (R_input 60 G):
		// 20 G · (1 + (0.25 · 40 G) / 100 G) = 22 G
		{"eq2 additive", p, cc.WRCCPortInput{RFair: 20 * wrG, RInput: 60 * wrG, AvgRTT: 12 * us}, 22},
		// mixed RTTs: AvgRTT 96 µs → WRCCT/RTT_avg = 1/4: 20 · (1 + 0.25·0.1) = 20.5 G
		{"eq2 long rtt", p, cc.WRCCPortInput{RFair: 20 * wrG, RInput: 60 * wrG, AvgRTT: 96 * us}, 20.5},
		// queue term: Q_max 1 MB, Q_p 800 KB ≥ 0.5 Q_max → Q_Extra = 300 KB;
		// β Q_Extra·8 / RTT_avg = 1/8 · 2.4e6 b / 24 µs = 12.5 G;
		// 20 · (1 + (10 − 12.5) / 100) = 19.5 G
		{"eq2 queue", p, cc.WRCCPortInput{RFair: 20 * wrG, RInput: 60 * wrG, QMax: 1_000_000, Qp: 800_000, AvgRTT: 12 * us}, 19.5},
		// below QRatio_max·Q_max the queue does not act
		{"eq2 queue below", p, cc.WRCCPortInput{RFair: 20 * wrG, RInput: 60 * wrG, QMax: 1_000_000, Qp: 499_999, AvgRTT: 12 * us}, 22},
		// literal line 7: Q_Extra = Q_max − Q_p = 200 KB → 8.333 G;
		// 20 · (1 + (10 − 8.3333) / 100) = 20.3333 G
		{"eq2 queue literal", lit, cc.WRCCPortInput{RFair: 20 * wrG, RInput: 60 * wrG, QMax: 1_000_000, Qp: 800_000, AvgRTT: 12 * us}, 20 * (1 + (10-0.125*8*200e3/24e-6/wrG)/100)},
		// approx_division: RTT_avg 24000 ns → 16384 ns: 20 · (1 + 24/16.384 · 0.1)
		{"approx rtt", apx, cc.WRCCPortInput{RFair: 20 * wrG, RInput: 60 * wrG, AvgRTT: 12 * us}, 20 * (1 + 24000.0/16384*0.1)},
		// SlowDown 1.3 → divisor 1 (no cut); 1.6 → 2
		{"approx slowdown 1.3", apx, cc.WRCCPortInput{RFair: 40 * wrG, RInput: 130 * wrG}, 40},
		{"approx slowdown 1.6", apx, cc.WRCCPortInput{RFair: 40 * wrG, RInput: 160 * wrG}, 20},
	} {
		got := cc.WRCCFairRate(c.p, 100*wrG, c.in) / wrG
		if !near(got, c.want) {
			t.Errorf("%s: PFR %.9g G, want %.9g G", c.name, got, c.want)
		}
	}
}

// wrccQP builds a network with one flow from host 0 to host 2 of a
// two-domain line (hosts in domains 1 and 2, 100 Gb/s, 1 µs links) and
// returns its QP ready for the algorithm's callbacks (nothing runs).
func wrccQP(t *testing.T, p *cc.WRCCParams) (*fabric.QP, *cc.WRCC) {
	t.Helper()
	g := &topo.Graph{
		Kinds:   []topo.NodeKind{topo.Host, topo.Switch, topo.Host},
		Links:   []topo.Link{{A: 0, B: 1, Bps: 100e9, Delay: sim.Microsecond}, {A: 1, B: 2, Bps: 100e9, Delay: sim.Microsecond}},
		Domains: []uint16{1, 1, 2},
	}
	n, _ := wrccNet(t, g, fabric.DefaultConfig(), []workload.Flow{{Src: 0, Dst: 2, Prio: 3, SizeBytes: 1e9}}, p)
	q := &n.QPs[0]
	w := cc.NewWRCC(p)(q).(*cc.WRCC)
	w.Start(q, 0)
	return q, w
}

// Algorithm 2 step by step (T_1 = WRCCT = 24 µs).
func TestWRCCSender(t *testing.T) {
	q, w := wrccQP(t, cc.WRCCDefaults())
	// path base RTT: 2 × 2 µs + 2 × 80 ns (1000 B at 100 Gb/s per link) = 4.16 µs → 5 µs
	if w.Rc != 100e9 || q.RateBps != 100e9 || w.FBDP != 1 || w.PSNLast != 0 || w.SDI != 1 ||
		cc.UnpackWRCCExt(q.Ext) != (cc.WRCCExt{Domain: 1, FBDP: 1, FairRate: 100_000, RTTEst: 5}) {
		t.Fatalf("start: Rc %d rate %d FBDP %d PSN_last %d SDI %d ext %+v", w.Rc, q.RateBps, w.FBDP, w.PSNLast, w.SDI, q.Ext)
	}
	if at, ok := q.TimerArmed(0); !ok || at != 24*sim.Microsecond {
		t.Fatalf("STimer at %v %v, want 24us", at, ok)
	}
	ack := func(seq int64, fair uint32, dom uint16) {
		w.OnAck(q, &fabric.AckInfo{Seq: seq, Ext: cc.WRCCExt{Domain: dom, FairRate: fair}.Pack()}, 0)
	}
	// an intra-DC ACK: FBDP 0, R_c = the echoed rate
	ack(1000, 25_000, 1)
	if w.Rc != 25e9 || q.RateBps != 25e9 || w.FBDP != 0 || w.PSNLast != 1000 || cc.UnpackWRCCExt(q.Ext).FairRate != 25_000 || cc.UnpackWRCCExt(q.Ext).FBDP != 0 {
		t.Fatalf("ack: Rc %d FBDP %d PSN_last %d ext %+v", w.Rc, w.FBDP, w.PSNLast, q.Ext)
	}
	// from the other datacenter: FBDP back to 1; the rate may rise
	ack(2000, 40_000, 2)
	if w.Rc != 40e9 || w.FBDP != 1 || cc.UnpackWRCCExt(q.Ext).FBDP != 1 {
		t.Fatalf("cross-DC ack: Rc %d FBDP %d", w.Rc, w.FBDP)
	}
	// an FCNP lowers R_c, sets PSN_last and restarts STimer
	now := 10 * sim.Microsecond
	fcnp := func(psn, fair int64) {
		w.OnNotice(q, &fabric.Notice{Kind: fabric.KindNotice, Args: fabric.NoticeArgs{1, psn, fair, 0}}, now)
	}
	fcnp(5000, 10_000)
	if w.Rc != 10e9 || q.RateBps != 10e9 || w.PSNLast != 5000 || w.FCNPCuts != 1 {
		t.Fatalf("fcnp: Rc %d PSN_last %d cuts %d", w.Rc, w.PSNLast, w.FCNPCuts)
	}
	if at, _ := q.TimerArmed(0); at != now+24*sim.Microsecond {
		t.Fatalf("STimer after FCNP at %v, want %v", at, now+24*sim.Microsecond)
	}
	// an FCNP never raises the rate (nor moves PSN_last)
	fcnp(9000, 20_000)
	if w.Rc != 10e9 || w.PSNLast != 5000 || w.FCNPs != 2 || w.FCNPCuts != 1 {
		t.Fatalf("higher fcnp: Rc %d PSN_last %d", w.Rc, w.PSNLast)
	}
	// ACKs up to the FCNP's PSN are ignored (rate), later ones act
	ack(4000, 50_000, 2)
	ack(5000, 50_000, 2)
	if w.Rc != 10e9 || w.PSNLast != 5000 {
		t.Fatalf("old ack acted: Rc %d", w.Rc)
	}
	// … but an older ACK with a lower rate lowers R_c (I21), keeping PSN_last
	ack(5000, 8_000, 2)
	if w.Rc != 8e9 || w.PSNLast != 5000 || w.StaleCuts != 1 {
		t.Fatalf("older, lower ack: Rc %d PSN_last %d", w.Rc, w.PSNLast)
	}
	ack(6000, 50_000, 2)
	if w.Rc != 50e9 || w.PSNLast != 6000 {
		t.Fatalf("new ack: Rc %d", w.Rc)
	}
	// STimer: R_c = min(2 R_c, B_send)
	w.OnTimer(q, 0, now)
	if w.Rc != 100e9 || cc.UnpackWRCCExt(q.Ext).FairRate != 100_000 {
		t.Fatalf("timer from 50 G: Rc %d", w.Rc)
	}
	ack(7000, 30_000, 2)
	w.OnTimer(q, 0, now)
	if w.Rc != 60e9 {
		t.Fatalf("timer from 30 G: Rc %d", w.Rc)
	}
	// the rate never goes below F_min (100 Mb/s)
	ack(8000, 7, 2)
	if w.Rc != 100e6 || q.RateBps != 100e6 {
		t.Fatalf("floor: Rc %d", w.Rc)
	}
	// CNPs are ignored
	w.OnNotice(q, &fabric.Notice{Kind: fabric.KindCNP}, now)
	if w.Rc != 100e6 || w.FCNPs != 2 {
		t.Fatalf("cnp acted: Rc %d", w.Rc)
	}
	// stale_ack_literal: an older ACK never acts
	sl := cc.WRCCDefaults()
	sl.StaleACKLiteral = true
	q3, w3 := wrccQP(t, sl)
	w3.OnNotice(q3, &fabric.Notice{Kind: fabric.KindNotice, Args: fabric.NoticeArgs{1, 5000, 20_000, 0}}, 0)
	w3.OnAck(q3, &fabric.AckInfo{Seq: 4000, Ext: cc.WRCCExt{Domain: 2, FairRate: 8_000}.Pack()}, 0)
	if w3.Rc != 20e9 {
		t.Fatalf("literal stale ack: Rc %d, want 20 G", w3.Rc)
	}
	// the literal timer (max) jumps to line rate
	lit := cc.WRCCDefaults()
	lit.STimerLiteralMax = true
	q2, w2 := wrccQP(t, lit)
	w2.OnAck(q2, &fabric.AckInfo{Seq: 1000, Ext: cc.WRCCExt{Domain: 1, FairRate: 1000}.Pack()}, 0)
	w2.OnTimer(q2, 0, 0)
	if w2.Rc != 100e9 {
		t.Fatalf("literal timer from 1 G: Rc %d, want line rate", w2.Rc)
	}
}

func TestWRCCValidate(t *testing.T) {
	if err := cc.WRCCDefaults().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		field string
		set   func(p *cc.WRCCParams)
	}{
		{"f_min_mbps", func(p *cc.WRCCParams) { p.FMinMbps = 0.5 }},
		{"f_max_mbps", func(p *cc.WRCCParams) { p.FMaxMbps = 50 }},
		{"f_max_mbps", func(p *cc.WRCCParams) { p.FMaxMbps = math.NaN() }},
		{"rate_ratio_max", func(p *cc.WRCCParams) { p.RateRatioMax = 0.9 }},
		{"rate_ratio_max", func(p *cc.WRCCParams) { p.RateRatioMax = 2.5 }},
		{"qratio_max", func(p *cc.WRCCParams) { p.QRatioMax = 0 }},
		{"wrcct_us", func(p *cc.WRCCParams) { p.WRCCTUs = 0 }},
		{"t_fcnp_us", func(p *cc.WRCCParams) { p.TFCNPUs = -1 }},
		{"b_tar_gbps", func(p *cc.WRCCParams) { p.BTarGbps = -1 }},
		{"lambda", func(p *cc.WRCCParams) { p.Lambda = 0 }},
		{"t1_us", func(p *cc.WRCCParams) { p.T1Us = 0.001 }},
		{"fcnp_bytes", func(p *cc.WRCCParams) { p.FCNPBytes = 0 }},
	} {
		p := cc.WRCCDefaults()
		c.set(p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: err = %v", c.field, err)
		}
	}
}

// wrccDecay integrates the linearised system eq. (4) of paper §3.6 in
// normalised time τ = t/d0, u = N·d0·δR, v = δq:
//
//	v'(τ) = u(τ − 1),   u'(τ) = −α u(τ − 1) − β v(τ)
//
// (it depends only on α and β) from v(0) = 1, u ≡ 0 on [−1, 0], with RK4
// (delayed values interpolated linearly) at step 1/200, and returns the
// largest |(u, v)| over the window [tEnd − win, tEnd].
func wrccDecay(alpha, beta, tEnd, win float64) float64 {
	const m = 200 // steps per delay
	h := 1.0 / m
	steps := int(tEnd * m)
	from := steps - int(win*m)
	u := make([]float64, steps+m+1) // u[k] = u(τ), τ = (k − m)·h
	v, peak := 1.0, 0.0
	for k := m; k < steps+m; k++ {
		d0, d1 := u[k-m], u[k-m+1] // u(τ − 1), u(τ + h − 1)
		dh := (d0 + d1) / 2
		k1u, k1v := -alpha*d0-beta*v, d0
		k2u, k2v := -alpha*dh-beta*(v+h/2*k1v), dh
		k3u, k3v := -alpha*dh-beta*(v+h/2*k2v), dh
		k4u, k4v := -alpha*d1-beta*(v+h*k3v), d1
		u[k+1] = u[k] + h/6*(k1u+2*k2u+2*k3u+k4u)
		v += h / 6 * (k1v + 2*k2v + 2*k3v + k4v)
		if k-m >= from {
			peak = max(peak, math.Hypot(u[k+1], v))
		}
	}
	return peak
}

// Stability (paper §3.6, eq. 4–5): for every gain AutoParm produces, α ∈
// {1/2, …, 1/64} with β = α/2, a perturbation of the linearised delay
// system decays; α = 2 (outside the region: the delayed feedback
// −α u(τ−1) alone is unstable for α > π/2) grows.
func TestWRCCStability(t *testing.T) {
	for _, level := range []float64{2, 4, 8, 16, 32, 64} {
		a, b := 1/level, 1/level/2
		// a window of one oscillation period (≈ 2π/√β) plus the delay
		win := 2*math.Pi/math.Sqrt(b) + 1
		end := 100 / a
		early, late := wrccDecay(a, b, end/2, win), wrccDecay(a, b, end, win)
		t.Logf("α = 1/%v, β = α/2: max |x| %.3g around τ = %v, %.3g around τ = %v", level, early, end/2, late, end)
		if !(late < 1e-3 && late < early) {
			t.Errorf("α = 1/%v: |x| = %.3g around τ = %v, %.3g around τ = %v: want decay below 1e-3", level, early, end/2, late, end)
		}
	}
	// outside the region: α = 2 (the delayed feedback −α u(τ−1) alone is
	// unstable for α > π/2)
	if r := wrccDecay(2, 1, 60, 5); !(r > 1e3) {
		t.Errorf("α = 2, β = 1: |x| = %.3g around τ = 60, want growth > 1e3", r)
	}
}

// The typed view of the extension round-trips through the fabric's values
// (one field per value, the 16-bit fields in the low bits).
func TestWRCCExtPack(t *testing.T) {
	x := cc.WRCCExt{Domain: 65535, FBDP: 1, FairRate: 4_000_000_000, RTTEst: 25}
	if e := x.Pack(); e != (fabric.Ext{65535, 1, 4_000_000_000, 25}) || cc.UnpackWRCCExt(e) != x {
		t.Fatalf("pack %v, unpack %+v", e, cc.UnpackWRCCExt(e))
	}
	spec, err := cc.Lookup("wrcc")
	if err != nil {
		t.Fatal(err)
	}
	_, req := spec.New(cc.WRCCDefaults())
	want := fabric.ExtSpec{Words: 4, DataBytes: cc.WRCCExtBytes, AckBytes: cc.WRCCExtBytes, Echo: 0b1111, RecvDomain: 0b0001, SwitchWrites: 0b0100}
	if req.Ext != want || cc.WRCCExtBytes != 12 {
		t.Fatalf("wrcc declares %+v, want %+v", req.Ext, want)
	}
}

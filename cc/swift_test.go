package cc_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// Expected values follow Swift's Algorithm 1 and §3.5, written out here:
//   target = base + hops·h + max(0, min(α/√cwnd + β, fs_range)),
//            α = fs_range/(1/√fs_min − 1/√fs_max), β = −α/√fs_max
//   delay < target: cwnd += ai/cwnd · acked (cwnd ≥ 1), ai · acked (< 1)
//   else, once per RTT: cwnd ×= max(1 − β_md·(delay − target)/delay, 1 − max_mdf)
//   cwnd < 1: one packet in flight, paced every rtt/cwnd
//   retransmission timeout: retransmit_cnt += 1; at RETX_RESET_THRESHOLD (3)
//            cwnd = min_cwnd, before that, once per RTT: cwnd ×= 1 − max_mdf;
//            an ACK or a NACK sets retransmit_cnt = 0

const (
	swUs   = sim.Microsecond
	swLine = int64(100e9)
	swMTU  = 1000
	swWire = swMTU + fabric.DataHeaderBytes
)

func swNew(t *testing.T, p *cc.SwiftParams, hops int) (*fabric.QP, *cc.Swift) {
	t.Helper()
	p.MTUBytes = swMTU
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	q := &fabric.QP{LineRateBps: swLine, RateBps: swLine, BaseRTT: 4 * swUs, PathBaseRTT: 4 * swUs, BDPBytes: 50_000, Hops: hops, SizeBytes: 1 << 40}
	s := cc.NewSwift(p)(q).(*cc.Swift)
	s.Start(q, 0)
	return q, s
}

func swAck(q *fabric.QP, s *cc.Swift, at, rtt sim.Time, acked int64) {
	s.OnAck(q, &fabric.AckInfo{RTT: rtt, SentAt: at - rtt, NewlyAcked: acked}, at)
}

func swTarget(p *cc.SwiftParams, cwnd float64, hops int) sim.Time {
	a := p.FsRange / (1/math.Sqrt(p.FsMinCwnd) - 1/math.Sqrt(p.FsMaxCwnd))
	b := -a / math.Sqrt(p.FsMaxCwnd)
	fs := math.Max(0, math.Min(a/math.Sqrt(cwnd)+b, p.FsRange))
	us := p.BaseTarget + float64(hops)*p.HopScale + fs
	return sim.Time(us*1e6 + 0.5) // µs → ps
}

func TestSwiftStart(t *testing.T) {
	q, s := swNew(t, cc.SwiftDefaults(), 1)
	if s.Cwnd != 50 || q.WindowBytes != 50_000 || q.RateBps != swLine {
		t.Errorf("Start: cwnd %v window %d rate %d; want 50 packets (one BDP), 50000 B, line rate", s.Cwnd, q.WindowBytes, q.RateBps)
	}
	p := cc.SwiftDefaults()
	p.InitCwnd = 1000 // above max_cwnd
	_, s = swNew(t, p, 1)
	if s.Cwnd != 256 {
		t.Errorf("init_cwnd 1000: cwnd %v, want max_cwnd 256", s.Cwnd)
	}
}

// The target delay of §3.5: per-hop scaling and flow scaling with its
// two ends (fs_range at fs_min_cwnd, 0 at and above fs_max_cwnd).
func TestSwiftTargetDelay(t *testing.T) {
	p := cc.SwiftDefaults()
	for _, tc := range []struct {
		cwnd float64
		hops int
	}{{0.1, 1}, {0.05, 1}, {1, 1}, {10, 3}, {100, 1}, {256, 2}, {1000, 1}} {
		q, s := swNew(t, cc.SwiftDefaults(), tc.hops)
		s.Cwnd = tc.cwnd
		want := swTarget(p, tc.cwnd, tc.hops)
		if got := s.TargetDelay(q.Hops); got != want {
			t.Errorf("cwnd %v hops %d: target %v, want %v", tc.cwnd, tc.hops, got, want)
		}
	}
	// the ends: 25 + 1 + 100 µs at fs_min_cwnd and below, 25 + 1 at fs_max_cwnd and above
	_, s := swNew(t, cc.SwiftDefaults(), 1)
	s.Cwnd = 0.01
	if got := s.TargetDelay(1); got != 126*swUs {
		t.Errorf("cwnd 0.01: target %v, want 126µs", got)
	}
	s.Cwnd = 300
	if got := s.TargetDelay(1); got != 26*swUs {
		t.Errorf("cwnd 300: target %v, want 26µs", got)
	}
	p.FsRange = 0
	_, s = swNew(t, p, 1)
	s.Cwnd = 0.5
	if got := s.TargetDelay(4); got != 29*swUs {
		t.Errorf("no flow scaling, 4 hops: target %v, want 29µs", got)
	}
}

// Additive increase below the target: ai/cwnd per acked packet at cwnd ≥ 1,
// ai per acked packet below 1.
func TestSwiftAdditiveIncrease(t *testing.T) {
	p := cc.SwiftDefaults()
	p.InitCwnd = 10
	q, s := swNew(t, p, 1)
	swAck(q, s, 10*swUs, 5*swUs, 1000)
	want := 10 + 1.0/10
	if s.Cwnd != want || q.WindowBytes != int64(want*swMTU+0.5) {
		t.Errorf("AI: cwnd %v window %d; want %v, %d", s.Cwnd, q.WindowBytes, want, int64(want*swMTU+0.5))
	}
	swAck(q, s, 11*swUs, 5*swUs, 2500) // 2.5 packets
	want += 1 / want * 2.5
	if s.Cwnd != want {
		t.Errorf("AI 2.5 packets: cwnd %v, want %v", s.Cwnd, want)
	}
	swAck(q, s, 12*swUs, 5*swUs, 0) // duplicate: nothing
	if s.Cwnd != want {
		t.Errorf("duplicate ACK changed cwnd to %v", s.Cwnd)
	}
	p.InitCwnd = 0.25
	q, s = swNew(t, p, 1)
	swAck(q, s, 10*swUs, 5*swUs, 500)
	if want := 0.25 + 0.5; s.Cwnd != want {
		t.Errorf("AI below 1: cwnd %v, want %v", s.Cwnd, want)
	}
	p.InitCwnd = 255.9
	q, s = swNew(t, p, 1)
	swAck(q, s, 10*swUs, 5*swUs, 100_000)
	if s.Cwnd != 256 {
		t.Errorf("AI clamps at max_cwnd: cwnd %v", s.Cwnd)
	}
}

// Multiplicative decrease above the target, scaled by the excess delay and
// bounded by max_mdf, at most once per RTT.
func TestSwiftMultiplicativeDecrease(t *testing.T) {
	p := cc.SwiftDefaults()
	p.InitCwnd = 100
	q, s := swNew(t, p, 1)
	target := swTarget(p, 100, 1)
	delay := target + target/4 // excess = 20 % of the delay
	t0 := 100 * swUs
	swAck(q, s, t0, delay, 1000)
	want := 100 * (1 - 0.8*float64(delay-target)/float64(delay))
	if s.Cwnd != want || s.LastDecAt != t0 {
		t.Fatalf("MD: cwnd %v last decrease %v; want %v, %v", s.Cwnd, s.LastDecAt, want, t0)
	}
	// within one RTT (the delay sample) of the decrease: no further cut
	swAck(q, s, t0+delay-1, 3*delay, 1000)
	if s.Cwnd != want {
		t.Errorf("second MD within an RTT: cwnd %v, want %v", s.Cwnd, want)
	}
	// an RTT later: a large excess is bounded by max_mdf
	at := t0 + 3*delay
	swAck(q, s, at, 3*delay, 1000)
	want *= 0.5 // 1 − 0.8·(2/3)·… < 0.5
	if s.Cwnd != want || s.LastDecAt != at {
		t.Errorf("MD bounded by max_mdf: cwnd %v, want %v", s.Cwnd, want)
	}
	// delay exactly at the target decreases (Alg. 1: "delay < target" increases)
	p.FsRange = 0
	q, s = swNew(t, p, 1)
	swAck(q, s, t0, 26*swUs, 1000)
	if s.Cwnd != 100 || s.LastDecAt != -sim.Never/2 {
		t.Errorf("delay = target: cwnd %v (factor 1), last decrease %v unchanged", s.Cwnd, s.LastDecAt)
	}
}

// Below one packet the window is one packet and the pacing rate sends one
// packet every rtt/cwnd; min_cwnd bounds the decrease.
func TestSwiftPacingBelowOnePacket(t *testing.T) {
	p := cc.SwiftDefaults()
	p.InitCwnd = 1.5
	q, s := swNew(t, p, 1)
	rtt := 200 * swUs // far above every target: cut by max_mdf
	swAck(q, s, 1000*swUs, rtt, 1000)
	if s.Cwnd != 0.75 {
		t.Fatalf("cwnd %v, want 0.75", s.Cwnd)
	}
	wantRate := int64(0.75 * swWire * 8 * 1e12 / float64(rtt))
	if q.WindowBytes != swMTU || q.RateBps != wantRate {
		t.Errorf("cwnd 0.75: window %d rate %d; want %d (one packet), %d (one packet per rtt/cwnd)", q.WindowBytes, q.RateBps, swMTU, wantRate)
	}
	for k := 2; k < 40; k++ {
		swAck(q, s, sim.Time(k)*1000*swUs, rtt, 1000)
	}
	if s.Cwnd != p.MinCwnd {
		t.Errorf("cwnd %v, want min_cwnd %v", s.Cwnd, p.MinCwnd)
	}
	// back above one packet: unpaced
	p.InitCwnd = 0.9
	q, s = swNew(t, p, 1)
	swAck(q, s, 10*swUs, 5*swUs, 1000)
	if s.Cwnd != 1.9 || q.RateBps != swLine || q.WindowBytes != 1900 {
		t.Errorf("cwnd 0.9 + 1: cwnd %v rate %d window %d", s.Cwnd, q.RateBps, q.WindowBytes)
	}
}

// A NACK (go-back-N) is the fast-recovery event: cut by max_mdf, once per RTT.
func TestSwiftNack(t *testing.T) {
	p := cc.SwiftDefaults()
	p.InitCwnd = 40
	q, s := swNew(t, p, 1)
	swAck(q, s, 10*swUs, 8*swUs, 1000) // RTT sample 8 µs, AI
	c := s.Cwnd
	s.OnAck(q, &fabric.AckInfo{Nack: true}, 20*swUs)
	if s.Cwnd != c/2 {
		t.Errorf("NACK: cwnd %v, want %v", s.Cwnd, c/2)
	}
	s.OnAck(q, &fabric.AckInfo{Nack: true}, 25*swUs)
	if s.Cwnd != c/2 {
		t.Errorf("second NACK within an RTT: cwnd %v, want %v", s.Cwnd, c/2)
	}
	s.OnAck(q, &fabric.AckInfo{Nack: true}, 28*swUs)
	if s.Cwnd != c/4 {
		t.Errorf("NACK an RTT later: cwnd %v, want %v", s.Cwnd, c/4)
	}
}

// Swift reacts to the fabric's retransmission timeout.
var _ fabric.TimeoutAlgorithm = (*cc.Swift)(nil)

// Alg. 1's timeout branch, step by step.
func TestSwiftTimeout(t *testing.T) {
	p := cc.SwiftDefaults()
	p.InitCwnd = 40
	q, s := swNew(t, p, 1)
	rtt := 8 * swUs
	swAck(q, s, 10*swUs, rtt, 0) // RTT sample 8 µs, nothing acked
	step := func(name string, cwnd float64, cnt int, lastDec sim.Time) {
		t.Helper()
		if s.Cwnd != cwnd || s.RetransmitCnt != cnt || s.LastDecAt != lastDec {
			t.Fatalf("%s: cwnd %v retransmit_cnt %d last decrease %v; want %v, %d, %v",
				name, s.Cwnd, s.RetransmitCnt, s.LastDecAt, cwnd, cnt, lastDec)
		}
	}
	never := -sim.Never / 2
	step("after the first ACK", 40, 0, never)

	// first timeout: cut by max_mdf
	s.OnTimeout(q, 100*swUs)
	step("timeout 1", 20, 1, 100*swUs)
	if q.WindowBytes != 20_000 || q.RateBps != swLine {
		t.Errorf("timeout 1: window %d rate %d; want 20000 B at line rate", q.WindowBytes, q.RateBps)
	}
	// second, 5 µs later (< one 8-µs RTT): no decrease, the count goes on
	s.OnTimeout(q, 105*swUs)
	step("timeout 2 within an RTT", 20, 2, 100*swUs)
	// third: RETX_RESET_THRESHOLD reached, min_cwnd regardless of the RTT
	s.OnTimeout(q, 106*swUs)
	step("timeout 3", p.MinCwnd, 3, 106*swUs)
	if want := int64(p.MinCwnd * swWire * 8 * 1e12 / float64(rtt)); q.WindowBytes != swMTU || q.RateBps != want {
		t.Errorf("timeout 3: window %d rate %d; want one packet paced at %d b/s (every rtt/min_cwnd)", q.WindowBytes, q.RateBps, want)
	}
	// a fourth stays at min_cwnd (no decrease: the last one stays at 106 µs)
	s.OnTimeout(q, 200*swUs)
	step("timeout 4", p.MinCwnd, 4, 106*swUs)

	// an ACK ends the run: retransmit_cnt = 0, AI below one packet
	swAck(q, s, 300*swUs, rtt, 1000)
	want := p.MinCwnd + 1
	step("ACK", want, 0, 106*swUs)
	// so the next timeout cuts by max_mdf again
	s.OnTimeout(q, 400*swUs)
	want *= 0.5
	step("timeout after the ACK", want, 1, 400*swUs)
	// a NACK also ends the run (and may not decrease within the RTT)
	s.OnAck(q, &fabric.AckInfo{Nack: true}, 401*swUs)
	step("NACK", want, 0, 400*swUs)
	s.OnTimeout(q, 500*swUs)
	want *= 0.5
	step("timeout after the NACK", want, 1, 500*swUs)

	// retx_reset_threshold 1: the first timeout resets
	p = cc.SwiftDefaults()
	p.InitCwnd = 40
	p.RetxReset = 1
	q, s = swNew(t, p, 1)
	s.OnTimeout(q, 100*swUs)
	step("threshold 1", p.MinCwnd, 1, 100*swUs)
}

func TestSwiftValidate(t *testing.T) {
	if err := cc.SwiftDefaults().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		field string
		set   func(p *cc.SwiftParams)
	}{
		{"base_target_us", func(p *cc.SwiftParams) { p.BaseTarget = 0 }},
		{"hop_scale_us", func(p *cc.SwiftParams) { p.HopScale = math.NaN() }},
		{"fs_range_us", func(p *cc.SwiftParams) { p.FsRange = -1 }},
		{"fs_min_cwnd", func(p *cc.SwiftParams) { p.FsMinCwnd = 0 }},
		{"fs_max_cwnd", func(p *cc.SwiftParams) { p.FsMaxCwnd = 0.1 }},
		{"ai", func(p *cc.SwiftParams) { p.AI = 0 }},
		{"beta", func(p *cc.SwiftParams) { p.Beta = 1.5 }},
		{"max_mdf", func(p *cc.SwiftParams) { p.MaxMDF = 1 }},
		{"min_cwnd", func(p *cc.SwiftParams) { p.MinCwnd = 0 }},
		{"max_cwnd", func(p *cc.SwiftParams) { p.MaxCwnd = 0.0001 }},
		{"retx_reset_threshold", func(p *cc.SwiftParams) { p.RetxReset = 0 }},
		{"retx_reset_threshold", func(p *cc.SwiftParams) { p.RetxReset = 1001 }},
		{"init_cwnd", func(p *cc.SwiftParams) { p.InitCwnd = -1 }},
		{"mtu_bytes", func(p *cc.SwiftParams) { p.MTUBytes = 10000 }},
	} {
		p := cc.SwiftDefaults()
		tc.set(p)
		err := p.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tc.field+" ") {
			t.Errorf("%s: Validate() = %v, want an error naming the field", tc.field, err)
		}
	}
}

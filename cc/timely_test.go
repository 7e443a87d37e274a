package cc_test

import (
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// TIMELY unit tests against docs/reference-simulator.md §6.1 (UpdateRateTimely)
// and §0.2–0.3. Only ACKs with seq > lastUpdateSeq act; the first only
// records the RTT. Then, in ns:
//
//	diff = fma(1−α, diff, α·(rtt − lastRtt)); gradient = diff/minRTT
//	rtt < T_low: increase; rtt > T_high: c = fma(−β, 1 − T_high/rtt, 1)
//	gradient ≤ 0: increase; else c = max(0, fma(−β, gradient, 1))
//	increase: R = min(line, R + (stage < 5 ? AI : HAI)); stage++
//	decrease: R = max(min, trunc(R·c)); stage = 0
//
// with the reference preset: T_low 50 µs, T_high 500 µs, minRTT 20 µs,
// α 0.875, β 0.8, AI 100 Mb/s, HAI 500 Mb/s, min 1 Gb/s. Expected numbers
// were computed outside the code under test.

const tmLine = int64(100e9)

func tmNew(t *testing.T, mod func(p *cc.TIMELYParams)) (*fabric.QP, *cc.TIMELY) {
	t.Helper()
	p := cc.TIMELYDefaults()
	if mod != nil {
		mod(p)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	spec, err := cc.Lookup("timely")
	if err != nil {
		t.Fatal(err)
	}
	ctor, req := spec.New(p)
	if !req.Timestamp || req.AckPrio != 1 || req.INT || req.ECN != nil {
		t.Errorf("requirements %+v: want the send timestamp and high-priority ACKs", req)
	}
	q := &fabric.QP{LineRateBps: tmLine, RateBps: tmLine, BDPBytes: 52000}
	a := ctor(q).(*cc.TIMELY)
	a.Start(q, 0)
	return q, a
}

// tmAck delivers an ACK of seq with RTT rttNs (ns) while snd_nxt = sndNxt.
func tmAck(q *fabric.QP, a *cc.TIMELY, seq, sndNxt int64, rttNs float64) {
	q.SndNxt = sndNxt
	a.OnAck(q, &fabric.AckInfo{Seq: seq, RTT: sim.Time(rttNs * float64(sim.Nanosecond))}, 0)
}

func tmExpect(t *testing.T, label string, q *fabric.QP, a *cc.TIMELY, rate int64, stage int, diff float64) {
	t.Helper()
	if q.RateBps != rate || a.CurRate != rate || a.IncStage != stage {
		t.Errorf("%s: RateBps, CurRate, IncStage = %d, %d, %d; want %d, %d, %d", label, q.RateBps, a.CurRate, a.IncStage, rate, rate, stage)
	}
	if a.RTTDiff != diff {
		t.Errorf("%s: rttDiff = %v, want %v", label, a.RTTDiff, diff)
	}
}

func TestTIMELYStart(t *testing.T) {
	for _, tc := range []struct {
		window string
		bytes  int64
		varWin bool
	}{{"none", 0, false}, {"variable", 52000, true}, {"fixed", 52000, false}} {
		q, a := tmNew(t, func(p *cc.TIMELYParams) { p.Window = tc.window })
		tmExpect(t, tc.window, q, a, tmLine, 0, 0)
		if q.WindowBytes != tc.bytes || q.VarWindow != tc.varWin {
			t.Errorf("%s: window %d var %v, want %d %v", tc.window, q.WindowBytes, q.VarWindow, tc.bytes, tc.varWin)
		}
	}
	p := cc.TIMELYDefaults()
	if p.TLow != 50 || p.THigh != 500 || p.MinRTT != 20 || p.Alpha != 0.875 || p.Beta != 0.8 || p.RateAI != 100 || p.RateHAI != 500 || p.MinRate != 1000 || p.HAIN != 5 || p.Window != "none" {
		t.Errorf("defaults %+v are not the reference timely preset", p)
	}
}

// The first ACK only records; an increase at the line rate stays there.
func TestTIMELYFirstAck(t *testing.T) {
	q, a := tmNew(t, nil)
	tmAck(q, a, 1000, 10_000, 700_000) // far above T_high: still no change
	tmExpect(t, "first ACK", q, a, tmLine, 0, 0)
	// rtt 30 µs < T_low: increase, clamped; diff = 0.875·(30000 − 700000)
	tmAck(q, a, 10_001, 20_000, 30_000)
	tmExpect(t, "increase at line rate", q, a, tmLine, 1, -586_250)
}

func TestTIMELYSequence(t *testing.T) {
	q, a := tmNew(t, nil)
	tmAck(q, a, 1000, 10_000, 30_000)
	tmExpect(t, "first ACK", q, a, tmLine, 0, 0)

	// rtt 600 µs > T_high: c = fma(−0.8, 1 − 500000/600000, 1) =
	// 0.8666666666666667 → trunc(1e11·c); diff = 0.875·570000 = 498750
	tmAck(q, a, 10_001, 20_000, 600_000)
	r := int64(86_666_666_666)
	tmExpect(t, "above T_high", q, a, r, 0, 498_750)

	// seq 15000 and 20000 ≤ 20000: ignored, whatever their RTT (lastRtt
	// stays 600 µs)
	tmAck(q, a, 15_000, 20_000, 1_000)
	tmExpect(t, "ACK before the update sequence", q, a, r, 0, 498_750)
	tmAck(q, a, 20_000, 30_000, 1_000)
	tmExpect(t, "ACK at the update sequence", q, a, r, 0, 498_750)

	// rtt 200 µs: diff = fma(0.125, 498750, 0.875·(−400000)) = −287656.25
	// < 0 → AI
	tmAck(q, a, 20_001, 30_000, 200_000)
	r += 100e6
	tmExpect(t, "negative gradient", q, a, r, 1, -287_656.25)
	// rtt 205 µs: diff = 0.125·(−287656.25) + 0.875·5000 = −31582.03125
	// (rising RTT, but the EWMA is still negative) → AI
	tmAck(q, a, 30_001, 40_000, 205_000)
	r += 100e6
	tmExpect(t, "EWMA still negative", q, a, r, 2, -31_582.03125)

	// rtt 215 µs: diff = 4802.24609375, gradient 0.2401123046875 > 0:
	// c = fma(−0.8, gradient, 1) = 0.80791015625 → trunc(R·c) = 70180462239
	tmAck(q, a, 40_001, 50_000, 215_000)
	r = 70_180_462_239
	tmExpect(t, "positive gradient", q, a, r, 0, 4802.24609375)

	// rtt 260 µs: diff = 39975.28076171875, gradient 1.9988 → 1 − β·g < 0:
	// c = 0 → the 1 Gb/s floor
	tmAck(q, a, 50_001, 60_000, 260_000)
	r = 1e9
	tmExpect(t, "c clamped at 0: min rate", q, a, r, 0, 39_975.28076171875)

	// rtt 10 µs < T_low: AI
	tmAck(q, a, 60_001, 70_000, 10_000)
	r += 100e6
	tmExpect(t, "below T_low", q, a, r, 1, -213_753.08990478516)
	// rtt 45 µs: gradient +0.195 but rtt < T_low: still AI
	tmAck(q, a, 70_001, 80_000, 45_000)
	r += 100e6
	tmExpect(t, "below T_low with a positive gradient", q, a, r, 2, 3905.8637619018555)
	// three more AI steps (stages 3..5), then HAI once 5 increases were made
	diffs := []float64{-30136.767029762268, -3767.0958787202835, -470.88698484003544}
	for i, d := range diffs {
		tmAck(q, a, int64(80_001+10_000*i), int64(90_000+10_000*i), 10_000)
		r += 100e6
		tmExpect(t, "AI stage", q, a, r, 3+i, d)
	}
	tmAck(q, a, 110_001, 120_000, 10_000)
	r += 500e6
	tmExpect(t, "HAI", q, a, r, 6, -58.86087310500443)
	if r != 2e9 {
		t.Fatalf("test arithmetic: %d", r)
	}
}

// A zero gradient inside [T_low, T_high] counts as "gradient ≤ 0": increase.
func TestTIMELYZeroGradient(t *testing.T) {
	q, a := tmNew(t, nil)
	tmAck(q, a, 1000, 10_000, 100_000)
	tmAck(q, a, 10_001, 20_000, 100_000) // diff = fma(0.125, 0, 0) = 0
	tmExpect(t, "zero gradient", q, a, tmLine, 1, 0)
}

// hai_n sets the number of AI steps before HAI.
func TestTIMELYHAIN(t *testing.T) {
	q, a := tmNew(t, func(p *cc.TIMELYParams) { p.HAIN = 1; p.MinRate = 50_000 })
	tmAck(q, a, 1000, 10_000, 30_000)
	tmAck(q, a, 10_001, 20_000, 600_000) // cut (the 50 Gb/s floor is below 86.7 Gb/s)
	r := int64(86_666_666_666)
	tmAck(q, a, 20_001, 30_000, 10_000)
	r += 100e6
	tmExpect(t, "AI", q, a, r, 1, -453_906.25) // fma(0.125, 498750, 0.875·(−590000))
	tmAck(q, a, 30_001, 40_000, 10_000)
	r += 500e6
	tmExpect(t, "HAI after 1", q, a, r, 2, -56_738.28125)
	// a gradient cut far below the floor stops at min_rate (50 Gb/s)
	tmAck(q, a, 40_001, 50_000, 499_000)
	tmExpect(t, "floor", q, a, 50e9, 0, 420_782.71484375)
}

func TestTIMELYValidate(t *testing.T) {
	if err := cc.TIMELYDefaults().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		mod  func(p *cc.TIMELYParams)
		want string
	}{
		{func(p *cc.TIMELYParams) { p.TLow = -1 }, "t_low_us = -1 out of range [0, 1e6]"},
		{func(p *cc.TIMELYParams) { p.THigh = 40 }, "t_high_us = 40 out of range [t_low_us (exclusive), 1e6]"},
		{func(p *cc.TIMELYParams) { p.MinRTT = 0 }, "min_rtt_us = 0 out of range [0 (exclusive), 1e6]"},
		{func(p *cc.TIMELYParams) { p.Alpha = 1.5 }, "alpha = 1.5 out of range [0, 1]"},
		{func(p *cc.TIMELYParams) { p.Beta = -0.1 }, "beta = -0.1 out of range [0, 1]"},
		{func(p *cc.TIMELYParams) { p.RateHAI = 2e6 }, "rate_hai_mbps = 2e+06 out of range [0, 1e6]"},
		{func(p *cc.TIMELYParams) { p.MinRate = 0 }, "min_rate_mbps = 0 out of range [0 (exclusive), 1e7]"},
		{func(p *cc.TIMELYParams) { p.HAIN = -1 }, "hai_n = -1 out of range [0, 1000]"},
		{func(p *cc.TIMELYParams) { p.Window = "win" }, `window = "win": allowed values variable, fixed, none`},
	} {
		p := cc.TIMELYDefaults()
		tc.mod(p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate() = %v, want an error containing %q", err, tc.want)
		}
	}
}

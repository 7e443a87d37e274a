package cc_test

import (
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
)

// DCTCP unit tests against docs/reference-simulator.md §6.2 (HandleAckDctcp)
// and the rounding rules of §0.2–0.3. Per ACK:
//
//	ecnCnt += cnp
//	seq > lastUpdateSeq: new batch. First: batch = snd_nxt/MTU + 1. Else
//	    frac = min(1, ecnCnt/batch); α = fma(1−g, α, g·frac);
//	    batch = (snd_nxt − seq)/MTU + 1; ecnCnt = 0.  lastUpdateSeq = snd_nxt
//	inCWR and seq > highSeq: leave CWR
//	cnp and not inCWR: rate = max(min, trunc(rate·(1 − α/2))); CWR until snd_nxt
//	not inCWR and new batch: rate = min(line, rate + AI)
//
// Expected numbers were computed outside the code under test (exact
// rational arithmetic for the fused multiply-add, truncation for rates).

const dctLine = int64(100e9)

func dctNew(t *testing.T, mod func(p *cc.DCTCPParams)) (*fabric.QP, *cc.DCTCP) {
	t.Helper()
	p := cc.DCTCPDefaults()
	p.MTUBytes = 1000 // a bare QP has no network to ask for the payload size
	if mod != nil {
		mod(p)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	spec, err := cc.Lookup("dctcp")
	if err != nil {
		t.Fatal(err)
	}
	ctor, _ := spec.New(p)
	q := &fabric.QP{LineRateBps: dctLine, RateBps: dctLine, BDPBytes: 52000}
	d := ctor(q).(*cc.DCTCP)
	d.Start(q, 0)
	return q, d
}

func dctAck(q *fabric.QP, d *cc.DCTCP, seq, sndNxt int64, cnp bool) {
	q.SndNxt = sndNxt
	d.OnAck(q, &fabric.AckInfo{Seq: seq, CNP: cnp}, 0)
}

func dctExpect(t *testing.T, label string, q *fabric.QP, d *cc.DCTCP, rate int64, alpha float64) {
	t.Helper()
	if q.RateBps != rate {
		t.Errorf("%s: rate %d, want %d", label, q.RateBps, rate)
	}
	if d.Alpha != alpha {
		t.Errorf("%s: α = %v, want %v", label, d.Alpha, alpha)
	}
}

func TestDCTCPStartAndPreset(t *testing.T) {
	q, d := dctNew(t, nil)
	dctExpect(t, "start", q, d, dctLine, 1)
	if q.WindowBytes != 52000 || !q.VarWindow {
		t.Errorf("window %d var %v, want the BDP, variable", q.WindowBytes, q.VarWindow)
	}
	// first ACK without a mark: a new batch outside CWR adds AI, clamped to
	// the line rate
	dctAck(q, d, 1000, 10_000, false)
	dctExpect(t, "first ACK", q, d, dctLine, 1)

	p := cc.DCTCPDefaults()
	if p.G != 1.0/16 || p.RateAI != 615 || p.MinRate != 1000 || p.K != 300 || p.Window != "variable" {
		t.Errorf("defaults %+v are not the reference dctcp preset", p)
	}
	// step marking K_min = K_max = 300 KB at 100 Gb/s (1200 KB at 400 Gb/s),
	// P_max 1; scaled with k_kb; ACKs in the flow's class (AckPrio −1)
	for _, tc := range []struct {
		k        float64
		k100, k4 int64
	}{{300, 300_000, 1_200_000}, {150, 150_000, 600_000}} {
		p.K = tc.k
		spec, _ := cc.Lookup("dctcp")
		_, req := spec.New(p)
		want := []fabric.ECNRule{
			{Bps: 100e9, KminBytes: tc.k100, KmaxBytes: tc.k100, Pmax: 1},
			{Bps: 400e9, KminBytes: tc.k4, KmaxBytes: tc.k4, Pmax: 1},
		}
		if len(req.ECN) != 2 || req.ECN[0] != want[0] || req.ECN[1] != want[1] {
			t.Errorf("k_kb %v: ECN rules %+v, want %+v", tc.k, req.ECN, want)
		}
		if req.AckPrio != -1 || req.INT || req.Timestamp {
			t.Errorf("requirements %+v", req)
		}
	}
}

// A sequence of windows: α per window from the marked fraction, one cut
// per window (CWR), AI once per window outside CWR, the frac clamp at 1.
func TestDCTCPWindows(t *testing.T) {
	q, d := dctNew(t, nil)
	// first ACK, marked: batch = 10000/1000 + 1 = 11; cut with α = 1
	dctAck(q, d, 1000, 10_000, true)
	dctExpect(t, "first cut", q, d, 50_000_000_000, 1)
	dctAck(q, d, 2000, 10_000, true) // in CWR (until seq > 10000): no cut
	dctExpect(t, "second mark in CWR", q, d, 50_000_000_000, 1)
	dctAck(q, d, 10_000, 10_000, false)
	dctExpect(t, "end of the first window", q, d, 50_000_000_000, 1)

	// new window: frac = 2/11, α1 = fma(15/16, 1, 1/16·2/11); CWR ends
	// (11000 > 10000); AI: 50e9 + 615e6; batch = (20000−11000)/1000 + 1 = 10
	const a1 = 0.9488636363636364
	dctAck(q, d, 11_000, 20_000, false)
	dctExpect(t, "window 2", q, d, 50_615_000_000, a1)
	// marked: cut trunc(50.615e9·(1 − α1/2)) = 26601633522; CWR to 20000
	dctAck(q, d, 12_000, 20_000, true)
	dctExpect(t, "cut in window 2", q, d, 26_601_633_522, a1)
	dctAck(q, d, 13_000, 20_000, true)
	dctExpect(t, "one cut per window", q, d, 26_601_633_522, a1)
	dctAck(q, d, 20_000, 20_000, false)
	dctExpect(t, "ACK at highSeq stays in CWR, no AI", q, d, 26_601_633_522, a1)

	// new window with a mark: frac = 3/10, α2 = fma(15/16, α1, 1/16·0.3);
	// CWR ends (21000 > 20000) and the mark cuts again with α2 (no AI)
	const a2 = 0.9083096590909091
	dctAck(q, d, 21_000, 30_000, true)
	dctExpect(t, "cut with the new α", q, d, 14_520_373_184, a2)

	// new window, no marks: α3 = fma(15/16, α2, 0); CWR ends; AI once
	const a3 = 0.8515403053977273
	dctAck(q, d, 31_000, 40_000, false)
	dctExpect(t, "window 4", q, d, 15_135_373_184, a3)
	dctAck(q, d, 32_000, 40_000, false)
	dctExpect(t, "AI only once per window", q, d, 15_135_373_184, a3)

	// new window with snd_nxt = seq: batch = 0/1000 + 1 = 1
	const a4 = 0.7983190363103694
	dctAck(q, d, 41_000, 41_000, false)
	dctExpect(t, "window 5", q, d, 15_750_373_184, a4)
	// three marks in a batch of 1: the first cuts (CWR to 41000)
	for i := 0; i < 3; i++ {
		dctAck(q, d, 41_000, 41_000, true)
	}
	dctExpect(t, "cut in window 5", q, d, 9_463_461_813, a4)
	// frac = min(1, 3/1) = 1: α5 = fma(15/16, α4, 1/16); CWR ends; AI
	dctAck(q, d, 42_000, 50_000, false)
	dctExpect(t, "frac clamped to 1", q, d, 10_078_461_813, 0.8109240965409713)
}

// The cut never goes below min_rate.
func TestDCTCPMinRate(t *testing.T) {
	q, d := dctNew(t, func(p *cc.DCTCPParams) { p.MinRate = 40_000 })
	dctAck(q, d, 1000, 10_000, true)
	dctExpect(t, "first cut", q, d, 50_000_000_000, 1)
	// 2 marks of 11: α = 0.9488636363636364, 50e9·(1 − α/2) = 26.3e9 < 40e9
	dctAck(q, d, 11_000, 20_000, true)
	if q.RateBps != 40_000_000_000 {
		t.Errorf("rate %d, want the 40 Gb/s floor", q.RateBps)
	}
}

// mtu_bytes sets the packet count of a batch: with 500 B packets the first
// batch of 10000 B counts 21 packets, so 2 marks give frac 2/21.
func TestDCTCPBatchMTU(t *testing.T) {
	q, d := dctNew(t, func(p *cc.DCTCPParams) { p.MTUBytes = 500 })
	dctAck(q, d, 500, 10_000, true)
	dctAck(q, d, 1000, 10_000, true)
	dctAck(q, d, 10_500, 20_000, false)
	// fma(15/16, 1, 1/16 · 2/21) = 0.9434523809523809
	if d.Alpha != 0.9434523809523809 {
		t.Errorf("α = %v, want 0.9434523809523809", d.Alpha)
	}
}

func TestDCTCPValidate(t *testing.T) {
	if err := cc.DCTCPDefaults().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		mod  func(p *cc.DCTCPParams)
		want string
	}{
		{func(p *cc.DCTCPParams) { p.G = 0 }, "g = 0 out of range [0 (exclusive), 1]"},
		{func(p *cc.DCTCPParams) { p.G = 1.5 }, "g = 1.5 out of range"},
		{func(p *cc.DCTCPParams) { p.RateAI = -1 }, "rate_ai_mbps = -1 out of range [0, 1e6]"},
		{func(p *cc.DCTCPParams) { p.MinRate = 0 }, "min_rate_mbps = 0 out of range [0 (exclusive), 1e7]"},
		{func(p *cc.DCTCPParams) { p.K = 0 }, "k_kb = 0 out of range [0 (exclusive), 1e7]"},
		{func(p *cc.DCTCPParams) { p.MTUBytes = 10_000 }, "mtu_bytes = 10000 out of range [0, 9000]"},
		{func(p *cc.DCTCPParams) { p.Window = "vwin" }, `window = "vwin": allowed values variable, fixed, none`},
	} {
		p := cc.DCTCPDefaults()
		tc.mod(p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate() = %v, want an error containing %q", err, tc.want)
		}
	}
}

// α uses one fused multiply-add (§0.3): after marked fractions 1/3 and
// 2/3 the fused result 0.9401041666666667 differs from the twice-rounded
// (1−g)·α + g·frac = 0.9401041666666666.
func TestDCTCPAlphaFused(t *testing.T) {
	q, d := dctNew(t, nil)
	dctAck(q, d, 1000, 2000, true) // batch = 2000/1000 + 1 = 3
	dctAck(q, d, 3000, 5000, false)
	if d.Alpha != 0.9583333333333334 { // fma(15/16, 1, 1/16·1/3)
		t.Fatalf("α = %v after frac 1/3", d.Alpha)
	}
	dctAck(q, d, 4000, 5000, true) // batch = (5000−3000)/1000 + 1 = 3
	dctAck(q, d, 5000, 5000, true)
	dctAck(q, d, 6000, 8000, false)
	if d.Alpha != 0.9401041666666667 {
		t.Errorf("α = %v after frac 2/3, want the fused 0.9401041666666667", d.Alpha)
	}
}

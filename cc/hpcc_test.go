package cc_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// HPCC unit tests against the equations of docs/reference-simulator.md §5.2 and
// the rounding rules of §0.2–0.3. Expected numbers were computed outside
// the code under test (exact rational arithmetic for the fused
// multiply-add, IEEE double elsewhere, truncation toward zero for rates):
//
//	per hop   u = txRate/B + ((min(q, q')·maxRate)/B)/W,  txRate = (Δbytes·8)/(τ·1e-9)
//	EWMA      U = fma(U, T − dt, dt·u_max) / T,            dt = min(τ of the max-u hop, T)
//	rate      c = U/η;  c ≥ 1 or stage ≥ MI_THRESH: R = trunc(R_c/c) + AI, else R = R_c + AI
//	clamp     [min rate, line rate]
//
// The QP has a 100 Gb/s line, T = 4160 ns (base RTT) and W = 52000 B (BDP).

const (
	hpLine = int64(100e9)
	hpT    = 4160 * sim.Nanosecond
	hpW    = int64(52000)
	hpAI   = int64(50e6)
	hpMin  = int64(1e9)
)

func hpNew(t *testing.T, mod func(p *cc.HPCCParams)) (*fabric.QP, *cc.HPCC) {
	t.Helper()
	p := cc.HPCCDefaults()
	p.IntMulti = 0 // exact telemetry unless a test quantises
	if mod != nil {
		mod(p)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	// a bare QP that never sent a packet: SetRateRepace does not touch the
	// network (lastPktSize == 0)
	q := &fabric.QP{LineRateBps: hpLine, RateBps: hpLine, BaseRTT: hpT, BDPBytes: hpW}
	h := cc.NewHPCC(p)(q).(*cc.HPCC)
	h.Start(q, 0)
	return q, h
}

// hpHop produces a hop's successive INT records from increments.
type hpHop struct {
	bps  int64
	ts   sim.Time
	tx   int64
	qlen int64
}

// next advances the hop by tau and dBytes and sets its queue.
func (h *hpHop) next(tau sim.Time, dBytes, qlen int64) fabric.IntHop {
	h.ts += tau
	h.tx += dBytes
	h.qlen = qlen
	return h.rec()
}

func (h *hpHop) rec() fabric.IntHop {
	return fabric.IntHop{Bps: h.bps, TS: h.ts, TxBytes: h.tx, QLen: h.qlen}
}

// hpAck delivers an ACK for seq with the sender's snd_nxt set to sndNxt.
func hpAck(q *fabric.QP, h *cc.HPCC, seq, sndNxt int64, hops ...fabric.IntHop) {
	hpAckN(q, h, seq, sndNxt, len(hops), hops...)
}

func hpAckN(q *fabric.QP, h *cc.HPCC, seq, sndNxt int64, nhop int, hops ...fabric.IntHop) {
	q.SndNxt = sndNxt
	h.OnAck(q, &fabric.AckInfo{Seq: seq, Hops: hops, NHop: nhop}, 0)
}

func hpExpect(t *testing.T, label string, q *fabric.QP, h *cc.HPCC, rate, cur int64, stage int, u float64) {
	t.Helper()
	if q.RateBps != rate || h.CurRate != cur || h.IncStage != stage {
		t.Errorf("%s: RateBps, CurRate, IncStage = %d, %d, %d; want %d, %d, %d", label, q.RateBps, h.CurRate, h.IncStage, rate, cur, stage)
	}
	if h.U != u {
		t.Errorf("%s: U = %v, want %v", label, h.U, u)
	}
}

// Start: line rate, U = 1, window BDP (variable / fixed / none).
func TestHPCCStart(t *testing.T) {
	for _, tc := range []struct {
		window string
		bytes  int64
		varWin bool
	}{{"variable", hpW, true}, {"fixed", hpW, false}, {"none", 0, false}} {
		q, h := hpNew(t, func(p *cc.HPCCParams) { p.Window = tc.window })
		hpExpect(t, tc.window, q, h, hpLine, hpLine, 0, 1)
		if q.WindowBytes != tc.bytes || q.VarWindow != tc.varWin {
			t.Errorf("%s: window %d var %v, want %d %v", tc.window, q.WindowBytes, q.VarWindow, tc.bytes, tc.varWin)
		}
	}
	if r := cc.HPCCDefaults(); r.Eta != 0.95 || r.MaxStage != 0 || r.RateAI != 50 || r.MinRate != 1000 || !r.FastReact || r.IntMulti != 4 || r.Window != "variable" || r.SampleFeedback {
		t.Errorf("defaults %+v are not the hp95ai50 preset", r)
	}
}

// One hop, exact telemetry, max_stage 0: the first ACK only records; a
// full update applies the multiplicative rule; a fast reaction moves the
// pacing rate from the committed rate without committing; a later full
// update with U < η increases multiplicatively.
func TestHPCCOneHopFullAndFastUpdates(t *testing.T) {
	q, h := hpNew(t, nil)
	hop := hpHop{bps: hpLine, ts: 10 * sim.Microsecond, tx: 1_000_000, qlen: 10_000}

	// first ACK: store the INT records, no rate change, U stays 1
	hpAck(q, h, 1000, 10_000, hop.rec())
	hpExpect(t, "first ACK", q, h, hpLine, hpLine, 0, 1)

	// full update: τ = 400 ns, 4500 B → txRate 90 Gb/s; min(20000, 10000)
	// = 10000 B queued → u = 0.9 + 10000/52000 = 1.0923076923076922;
	// U = fma(1, 3760, 400·u)/4160 = 1.0088757396449706; c = U/0.95;
	// R = trunc(1e11/c) + 50e6 = 94214222873.
	hpAck(q, h, 10_001, 20_000, hop.next(400*sim.Nanosecond, 4500, 20_000))
	const u1, r1 = 1.0088757396449706, int64(94214222873)
	hpExpect(t, "full update", q, h, r1, r1, 0, u1)

	// fast reaction (seq 20000 does not pass 20000): τ = 300 ns, 3000 B → 80 Gb/s,
	// min(5000, 20000) → u = 0.896153846153846; U = fma(U1, 3860, 300·u)/4160
	// = 1.0007467569412838; rate trunc(R1/c) + AI = 89486724234; R_c stays.
	hpAck(q, h, 20_000, 20_000, hop.next(300*sim.Nanosecond, 3000, 5000))
	const u2, f2 = 1.0007467569412838, int64(89486724234)
	hpExpect(t, "fast reaction", q, h, f2, r1, 0, u2)

	// full update with τ = 5000 ns > T: dt = T, U = u = 0.9 (56250 B in
	// 5 µs, empty queue); c = 0.9473684210526316 < 1: with max_stage 0 still
	// the multiplicative rule: trunc(R1/c) + AI = 99498346365.
	hpAck(q, h, 20_001, 30_000, hop.next(5000*sim.Nanosecond, 56_250, 0))
	const r3 = int64(99498346365)
	hpExpect(t, "multiplicative increase", q, h, r3, r3, 0, 0.9)

	// the formulas above, evaluated step by step in float64, agree with the
	// constants (variables, not constants: Go constant arithmetic is exact)
	db, tau, qm, bps, w, line, eta := 4500.0, 400.0, 10000.0, 1e11, 52000.0, 1e11, 0.95
	ua := float64(db*8)/float64(tau*1e-9)/bps + float64(qm*line)/bps/w
	if got := math.FMA(1, 4160-tau, float64(tau*ua)) / 4160; got != u1 {
		t.Fatalf("test constant U1 %v disagrees with the formula %v", u1, got)
	}
	if got := int64(line/(float64(u1)/eta)) + hpAI; got != r1 {
		t.Fatalf("test constant R1 %d disagrees with the formula %d", r1, got)
	}
}

// With fast_react off, ACKs that do not pass the last update sequence are
// ignored entirely: no EWMA step, no rate change, and the stored INT
// records stay, so the next full update measures from the earlier record.
func TestHPCCNoFastReact(t *testing.T) {
	q, h := hpNew(t, func(p *cc.HPCCParams) { p.FastReact = false })
	hop := hpHop{bps: hpLine, ts: 10 * sim.Microsecond, tx: 1_000_000, qlen: 10_000}
	hpAck(q, h, 1000, 10_000, hop.rec())
	hpAck(q, h, 10_001, 20_000, hop.next(400*sim.Nanosecond, 4500, 20_000))
	const u1, r1 = 1.0088757396449706, int64(94214222873)
	hpExpect(t, "full update", q, h, r1, r1, 0, u1)
	hpAck(q, h, 15_000, 20_000, hop.next(300*sim.Nanosecond, 3000, 5000))
	hpExpect(t, "ignored ACK", q, h, r1, r1, 0, u1)
	// measured from the full update's record: τ = 5300 ns (> T: dt = T),
	// 59250 B → u = 0.8943396226415093 (queue min(0, 20000) = 0); U = u;
	// trunc(R1/(U/η)) + AI exceeds the line rate: clamp to 100 Gb/s.
	hpAck(q, h, 20_001, 30_000, hop.next(5000*sim.Nanosecond, 56_250, 0))
	hpExpect(t, "full update from the older record", q, h, hpLine, hpLine, 0, 0.8943396226415093)
}

// max_stage 5: with c < 1 the first five full updates add R_AI (stage
// 1..5), the sixth is multiplicative (stage reset); c ≥ 1 is always
// multiplicative. A fast reaction in the additive branch paces at R_c + AI
// and commits neither the rate nor the stage. τ = 5000 ns ≥ T makes U = u
// up to rounding: 118750 B in 5 µs gives u = U = 1.8999999999999997 and
// 31250 B gives u = 0.49999999999999994, U = 0.4999999999999999 (5000·1e-9
// is not exactly 5e-6).
func TestHPCCAdditiveStages(t *testing.T) {
	q, h := hpNew(t, func(p *cc.HPCCParams) { p.MaxStage = 5 })
	hop := hpHop{bps: hpLine, ts: sim.Microsecond}
	const tau = 5000 * sim.Nanosecond
	const uHigh, uLow = 1.8999999999999997, 0.4999999999999999
	seq := int64(10_000)
	full := func(dBytes int64) {
		seq += 10_000
		hpAck(q, h, seq-9_999, seq, hop.next(tau, dBytes, 0))
	}
	hpAck(q, h, 1000, seq, hop.rec())
	full(118_750) // c = 2 (up to rounding): trunc(1e11/c) + AI
	r := int64(50_050_000_000)
	hpExpect(t, "decrease", q, h, r, r, 0, uHigh)
	for st := 1; st <= 2; st++ {
		full(31_250)
		r += hpAI
		hpExpect(t, "additive", q, h, r, r, st, uLow)
	}
	hpAck(q, h, seq-5_000, seq, hop.next(tau, 31_250, 0)) // fast reaction
	hpExpect(t, "fast reaction, additive", q, h, r+hpAI, r, 2, uLow)
	for st := 3; st <= 5; st++ {
		full(31_250)
		r += hpAI
		hpExpect(t, "additive", q, h, r, r, st, uLow)
	}
	if r != 50_300_000_000 {
		t.Fatalf("test arithmetic: %d", r)
	}
	// stage 5 = MI_THRESH: multiplicative, trunc(50.3e9/(U/0.95)) + AI
	full(31_250)
	r = 95_620_000_000
	hpExpect(t, "multiplicative after 5 stages", q, h, r, r, 0, uLow)
	full(31_250)
	r += hpAI
	hpExpect(t, "additive again", q, h, r, r, 1, uLow)
	// c ≥ 1 in stage 1: multiplicative decrease, stage reset
	full(118_750)
	r = 47_885_000_000 // trunc(95.67e9/c) + AI
	hpExpect(t, "decrease resets the stage", q, h, r, r, 0, uHigh)
}

// The rate never falls below the floor: u = 1000 (a queue of 1000 W)
// gives trunc(1e11/(1000/0.95)) + AI = 144999999 < 1 Gb/s.
func TestHPCCMinRate(t *testing.T) {
	for _, minMbps := range []float64{1000, 5000} {
		q, h := hpNew(t, func(p *cc.HPCCParams) { p.MinRate = minMbps })
		hop := hpHop{bps: hpLine, ts: sim.Microsecond, qlen: 1000 * hpW}
		hpAck(q, h, 1000, 10_000, hop.rec())
		hpAck(q, h, 10_001, 20_000, hop.next(5000*sim.Nanosecond, 0, 1000*hpW))
		want := int64(minMbps * 1e6)
		hpExpect(t, "floor", q, h, want, want, 0, 1000)
	}
}

// INT quantisation with int_multi 4: time in ns (floor) mod 2^24, bytes in
// 512 B units mod 2^20, queue in 320 B units mod 2^17; deltas add one wrap.
// The records straddle 2^25 ns and 2^21 byte units (also wraps of the
// narrower fields) and the second queue exceeds 2^17 units, so a wrong
// field width changes the result.
func TestHPCCQuantisedINT(t *testing.T) {
	q, h := hpNew(t, func(p *cc.HPCCParams) { p.IntMulti = 4 })
	const ns = sim.Nanosecond
	first := fabric.IntHop{Bps: hpLine,
		TS:      (1<<25-100)*ns + 999*sim.Picosecond, // floor to ns, mod 2^24: 2^24 − 100
		TxBytes: (1<<21-2)*512 + 300,                 // unit 2^20 − 2 (mod 2^20)
		QLen:    10_000,                              // 31 units (9920 B)
	}
	second := fabric.IntHop{Bps: hpLine,
		TS:      (1<<25+300)*ns + 500*sim.Picosecond, // 300 after the wrap: τ = 400 ns
		TxBytes: (1<<21+7)*512 + 100,                 // unit 7 after the wrap: Δ = 9 units = 4608 B
		QLen:    (1<<17)*320 + 6400,                  // unit 20 after the wrap: min(20, 31) = 20 units = 6400 B
	}
	hpAck(q, h, 1000, 10_000, first)
	hpExpect(t, "first ACK", q, h, hpLine, hpLine, 0, 1)
	// u = 4608·8/400e-9/1e11 + 6400/52000 = 1.0446769230769228
	// U = fma(1, 3760, 400·u)/4160 = 1.0042958579881656 → 94643639159
	hpAck(q, h, 10_001, 20_000, second)
	hpExpect(t, "quantised update", q, h, 94643639159, 94643639159, 0, 1.0042958579881656)

	// exact telemetry of records 400 ns, 4408 B and min(10000, 6400) apart
	// gives another rate: the units above were really applied
	q2, h2 := hpNew(t, nil)
	hpAck(q2, h2, 1000, 10_000, fabric.IntHop{Bps: hpLine, TS: sim.Microsecond, TxBytes: 1e6, QLen: 10_000})
	hpAck(q2, h2, 10_001, 20_000, fabric.IntHop{Bps: hpLine, TS: sim.Microsecond + 400*ns, TxBytes: 1e6 + 4408, QLen: 6400})
	if q2.RateBps == 94643639159 {
		t.Errorf("exact telemetry gives the quantised rate: quantisation not observable")
	}
}

// Five hops: U is the largest per-hop u and the EWMA weight is that hop's
// τ (800 ns at the 25 Gb/s hop, not the first hop's 400 ns).
func TestHPCCFiveHopsPicksMax(t *testing.T) {
	q, h := hpNew(t, nil)
	type step struct {
		bps       int64
		tau       sim.Time
		dBytes    int64
		q0, q1    int64
		uExpected float64
	}
	steps := []step{
		{100e9, 400, 4000, 0, 0, 0.8},
		{400e9, 500, 25_000, 100_000, 200_000, 1.4807692307692306},
		{100e9, 600, 7200, 30_000, 30_000, 1.5369230769230766},
		{100e9, 700, 1000, 50_000, 5000, 0.21043956043956044},
		{25e9, 800, 2000, 10_000, 10_000, 1.5692307692307694}, // the max
	}
	hops := make([]hpHop, 5)
	var recs []fabric.IntHop
	for i, s := range steps {
		hops[i] = hpHop{bps: s.bps, ts: sim.Time(i+1) * sim.Microsecond, tx: int64(i) * 1e6, qlen: s.q0}
		recs = append(recs, hops[i].rec())
	}
	hpAck(q, h, 1000, 10_000, recs...)
	recs = recs[:0]
	for i, s := range steps {
		recs = append(recs, hops[i].next(s.tau*sim.Nanosecond, s.dBytes, s.q1))
		// the table's u values follow the per-hop formula
		qm := float64(min(s.q0, s.q1))
		u := float64(s.dBytes*8)/(float64(s.tau)*1e-9)/float64(s.bps) + float64(qm*1e11)/float64(s.bps)/float64(hpW)
		if u != s.uExpected {
			t.Fatalf("hop %d: test table u %v, formula %v", i, s.uExpected, u)
		}
	}
	hpAck(q, h, 10_001, 20_000, recs...)
	// U = fma(1, 4160−800, 800·1.5692307692307694)/4160 → 85676666666
	hpExpect(t, "5 hops", q, h, 85676666666, 85676666666, 0, 1.1094674556213018)
}

// NHop > 5 (the INT stack wrapped): no rate part, no EWMA step and the
// stored records stay; the update sequence still advances.
func TestHPCCTooManyHopsSkipsRate(t *testing.T) {
	q, h := hpNew(t, nil)
	hop := hpHop{bps: hpLine, ts: 10 * sim.Microsecond, tx: 1_000_000, qlen: 10_000}
	hpAck(q, h, 1000, 10_000, hop.rec())
	junk := fabric.IntHop{Bps: hpLine, TS: 50 * sim.Microsecond, TxBytes: 9e6, QLen: 9e6}
	hpAckN(q, h, 10_001, 20_000, 6, junk, junk, junk, junk, junk)
	hpExpect(t, "nhop 6", q, h, hpLine, hpLine, 0, 1)
	// seq 15000 ≤ 20000 is now a fast reaction, measured from the first
	// ACK's record: the values of TestHPCCOneHopFullAndFastUpdates' full
	// update (τ 400 ns, 4500 B, min queue 10000 B), applied to R_c = line
	// without committing
	hpAck(q, h, 15_000, 20_000, hop.next(400*sim.Nanosecond, 4500, 20_000))
	hpExpect(t, "fast reaction after nhop 6", q, h, 94214222873, hpLine, 0, 1.0088757396449706)
	// no hops at all: nothing happens either, the sequence advances
	hpAckN(q, h, 20_001, 30_000, 0)
	hpExpect(t, "no hops", q, h, 94214222873, hpLine, 0, 1.0088757396449706)
	hpAck(q, h, 25_000, 30_000, hop.next(5000*sim.Nanosecond, 56_250, 0))
	if h.CurRate != hpLine {
		t.Errorf("ACK 25000 after the hop-less update at snd_nxt 30000 committed a rate: %d", h.CurRate)
	}
}

// sample_feedback skips hops with an empty queue on fast reactions only.
func TestHPCCSampleFeedback(t *testing.T) {
	q, h := hpNew(t, func(p *cc.HPCCParams) { p.SampleFeedback = true })
	hop := hpHop{bps: hpLine, ts: 10 * sim.Microsecond, tx: 1_000_000, qlen: 10_000}
	hpAck(q, h, 1000, 10_000, hop.rec())
	hpAck(q, h, 10_001, 20_000, hop.next(400*sim.Nanosecond, 4500, 20_000))
	const u1, r1 = 1.0088757396449706, int64(94214222873)
	hpExpect(t, "full update", q, h, r1, r1, 0, u1)
	hpAck(q, h, 15_000, 20_000, hop.next(300*sim.Nanosecond, 3000, 0))
	hpExpect(t, "fast, empty queue: skipped", q, h, r1, r1, 0, u1)
}

func TestHPCCValidate(t *testing.T) {
	if err := cc.HPCCDefaults().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		mod  func(p *cc.HPCCParams)
		want string
	}{
		{func(p *cc.HPCCParams) { p.Eta = 0 }, "eta = 0 out of range [0 (exclusive), 1]"},
		{func(p *cc.HPCCParams) { p.Eta = 1.5 }, "eta = 1.5 out of range"},
		{func(p *cc.HPCCParams) { p.Eta = math.NaN() }, "eta = NaN out of range"},
		{func(p *cc.HPCCParams) { p.MaxStage = -1 }, "max_stage = -1 out of range [0, 1000]"},
		{func(p *cc.HPCCParams) { p.RateAI = -5 }, "rate_ai_mbps = -5 out of range [0, 1e6]"},
		{func(p *cc.HPCCParams) { p.MinRate = 0 }, "min_rate_mbps = 0 out of range [0 (exclusive), 1e7]"},
		{func(p *cc.HPCCParams) { p.IntMulti = 2000 }, "int_multi = 2000 out of range [0, 1024]"},
		{func(p *cc.HPCCParams) { p.Window = "dynamic" }, `window = "dynamic": allowed values variable, fixed, none`},
	} {
		p := cc.HPCCDefaults()
		tc.mod(p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate() = %v, want an error containing %q", err, tc.want)
		}
	}
}

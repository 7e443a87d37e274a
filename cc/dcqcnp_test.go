package cc_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// Expected values below follow the equations of docs/algorithms/dcqcnp.md §3.2,
// written out independently of the code under test:
//   RateDecrease: T = B = 0; R_t = R_c; R_c = R_c(1 − α/2); α = (1−g)α + g
//   RateIncrease: R_t += R_ai if T > F or B > F; R_c = (R_c + R_t)/2;
//                 R_c ≥ 1 → R_c = 1, R_t = 0, de-register
//   AlphaStep:    α ≤ 0.5: min(α − 1/25, (1−g)α); else max(α − 1/40, (1−g)α); ≥ 0

const (
	dqpUs   = sim.Microsecond
	dqpLine = int64(100e9)
	dqpTH   = 55 * sim.Microsecond // time threshold
)

func dqpNew(t *testing.T, p *cc.DCQCNPParams) (*fabric.QP, *cc.DCQCNP) {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	q := &fabric.QP{LineRateBps: dqpLine, RateBps: dqpLine, SizeBytes: 1 << 40}
	alg := cc.NewDCQCNP(p)(q).(*cc.DCQCNP)
	alg.Start(q, 0)
	return q, alg
}

func dqpMark(q *fabric.QP, alg *cc.DCQCNP, at sim.Time) {
	alg.OnAck(q, &fabric.AckInfo{CNP: true}, at)
}

func dqpSend(q *fabric.QP, alg *cc.DCQCNP, at sim.Time) { alg.OnSend(q, 1048, at) }

func dqpExpect(t *testing.T, label string, q *fabric.QP, alg *cc.DCQCNP, rc, rt, alpha float64) {
	t.Helper()
	if alg.Rc != rc || alg.Rt != rt || alg.Alpha != alpha {
		t.Errorf("%s: Rc, Rt, α = %v, %v, %v; want %v, %v, %v", label, alg.Rc, alg.Rt, alg.Alpha, rc, rt, alpha)
	}
	if want := int64(rc * float64(dqpLine)); alg.Registered && q.RateBps != want {
		t.Errorf("%s: q.RateBps = %d, want R_c·line = %d", label, q.RateBps, want)
	}
}

// dqpE1Run drives one QP through experiment E1's behavioural model
// (docs/algorithms/dcqcnp.md §9): each round is one scheduled transmission; a round is
// either a congestion mark (an ACK with the congestion flag) or a
// transmission, at which the free-running rate-increase timer (period
// TIME_TH = one round) expires once. Rounds are TIME_TH apart, so
// consecutive marks are Δ = U apart and each is a pure RateDecrease, as the
// model says (the D/U gating is not exercised). It returns R_c after each
// round (index 1..rounds) and whether the QP was registered.
func dqpE1Run(t *testing.T, p *cc.DCQCNPParams, rounds int, marks map[int]bool) (rc []float64, reg []bool) {
	t.Helper()
	q, alg := dqpNew(t, p)
	rc = make([]float64, rounds+1)
	reg = make([]bool, rounds+1)
	rc[0] = 1
	for k := 1; k <= rounds; k++ {
		at := sim.Time(k) * dqpTH
		if marks[k] {
			dqpMark(q, alg, at)
		} else {
			dqpSend(q, alg, at)
		}
		rc[k], reg[k] = alg.Rc, alg.Registered
		if got, want := q.RateBps, int64(alg.Rc*float64(dqpLine)); got != want {
			t.Fatalf("round %d: pacing rate %d, want R_c·line %d", k, got, want)
		}
	}
	if alg.Held != 0 || alg.Dropped != 0 {
		t.Errorf("E1 model: %d held and %d dropped notifications, want none", alg.Held, alg.Dropped)
	}
	return rc, reg
}

// dqpFullSpeedAt returns the first round after `from` at which the QP runs at
// full speed and is de-registered.
func dqpFullSpeedAt(rc []float64, reg []bool, from int) int {
	for k := from + 1; k < len(rc); k++ {
		if rc[k] == 1 && !reg[k] {
			return k
		}
	}
	return -1
}

// E1 (docs/algorithms/dcqcnp.md §9, the paper's Fig. 4): 10 congestion marks
// in 100 rounds —
// one decrease, two and three consecutive decreases, and twice an
// increase-then-decrease — with the recovery rounds docs/algorithms/dcqcnp.md
// §9 lists.
func TestDCQCNPE1SingleQPRecovery(t *testing.T) {
	marks := map[int]bool{3: true, 20: true, 21: true, 40: true, 41: true, 42: true, 60: true, 62: true, 80: true, 82: true}
	if len(marks) != 10 {
		t.Fatalf("%d marks, want 10", len(marks))
	}
	rc, reg := dqpE1Run(t, cc.DCQCNPDefaults(), 100, marks)

	// single cut at round 3: (3, 0.5), fast recovery (4, 0.75), (5, 0.875),
	// additive after 5 mark-free rounds, full speed at (9, 1)
	want := map[int]float64{1: 1, 2: 1, 3: 0.5, 4: 0.75, 5: 0.875, 6: 0.9375, 7: 0.96875, 8: 0.984375, 9: 1}
	for k := 1; k <= 9; k++ {
		if rc[k] != want[k] {
			t.Errorf("round %d: R_c = %v, want %v", k, rc[k], want[k])
		}
	}
	if !reg[8] || reg[9] {
		t.Errorf("registered at rounds 8, 9 = %v, %v; want true, false (de-registered at full speed)", reg[8], reg[9])
	}
	for _, ep := range []struct {
		name     string
		lastMark int
		recovery int // rounds from the last mark to full speed
	}{
		{"one decrease (round 3)", 3, 6},                // full speed at round 9
		{"two consecutive decreases (20, 21)", 21, 9},   // docs: 9
		{"three consecutive decreases (40-42)", 42, 10}, // docs: 10
		{"increase then decrease (60, 62)", 62, 8},      // docs: 8 (paper: 6, not reproduced)
		{"increase then decrease (80, 82)", 82, 8},
	} {
		if got := dqpFullSpeedAt(rc, reg, ep.lastMark) - ep.lastMark; got != ep.recovery {
			t.Errorf("%s: full speed %d rounds after the last mark, want %d", ep.name, got, ep.recovery)
		}
	}
	if rc[100] != 1 || reg[100] {
		t.Errorf("after 100 rounds: R_c %v registered %v, want full speed", rc[100], reg[100])
	}
	// DCQCN-p's recovery after 2 or 3 decreases is 9–10 rounds (paper)
	// while the pseudo-code's non-strict boundary (T ≥ F) recovers the
	// single cut one round early: full speed at round 8.
	p := cc.DCQCNPDefaults()
	p.StrictAI = false
	rc2, reg2 := dqpE1Run(t, p, 20, map[int]bool{3: true})
	if got := dqpFullSpeedAt(rc2, reg2, 3); got != 8 {
		t.Errorf("ai_threshold_strict=false: full speed at round %d, want 8", got)
	}
}

// The DCQCN baseline of E1 through the same reaction point: g = 1/256,
// geometric α decay (eq. 8), R_ai = 40 Mb/s of 40 Gb/s = 0.001, additive
// from T ≥ F: full speed at round 11 after the cut at round 3
// (docs/algorithms/dcqcnp.md §9).
func TestDCQCNPE1DCQCNBaseline(t *testing.T) {
	p := cc.DCQCNPDefaults()
	p.G, p.AlphaDecay, p.RAI, p.StrictAI = 1.0/256, "geometric", 0.001, false
	rc, reg := dqpE1Run(t, p, 30, map[int]bool{3: true})
	if got := dqpFullSpeedAt(rc, reg, 3); got != 11 {
		t.Errorf("DCQCN single cut: full speed at round %d, want 11", got)
	}
	p.StrictAI = true
	rc, reg = dqpE1Run(t, p, 30, map[int]bool{3: true})
	if got := dqpFullSpeedAt(rc, reg, 3); got != 11 {
		t.Errorf("DCQCN single cut (strict): full speed at round %d, want 11", got)
	}
}

// Registration, the D gate, the D < Δ < U "decrease then increase" path
// with its timer compensation, and Δ ≥ U.
func TestDCQCNPDecreaseGating(t *testing.T) {
	const g = 1.0 / 16
	q, alg := dqpNew(t, cc.DCQCNPDefaults())
	if alg.Registered || q.WantSendHook || q.RateBps != dqpLine {
		t.Fatalf("after Start: registered %v hook %v rate %d", alg.Registered, q.WantSendHook, q.RateBps)
	}
	dqpSend(q, alg, 5*dqpUs) // unregistered: not counted
	if alg.LPkt != 0 || alg.T != 0 {
		t.Errorf("unregistered send counted: L_pkt %d T %d", alg.LPkt, alg.T)
	}
	t0 := 100 * dqpUs
	dqpMark(q, alg, t0)
	a := (1-g)*1.0 + g // = 1
	dqpExpect(t, "first notification", q, alg, 0.5, 1, a)
	if !alg.Registered || !q.WantSendHook || alg.TLatest != t0 || alg.Deadline != t0+dqpTH {
		t.Errorf("first notification: registered %v hook %v T_latest %v deadline %v", alg.Registered, q.WantSendHook, alg.TLatest, alg.Deadline)
	}
	// Δ ≤ D (4 µs): RateHold
	dqpMark(q, alg, t0+3*dqpUs)
	dqpMark(q, alg, t0+4*dqpUs)
	dqpMark(q, alg, t0) // same instant: coalesced
	dqpExpect(t, "held", q, alg, 0.5, 1, a)
	if alg.Held != 3 || alg.TLatest != t0 {
		t.Errorf("held %d T_latest %v; want 3, %v", alg.Held, alg.TLatest, t0)
	}
	// D < Δ = 10 µs < U: decrease then increase (fast recovery), timer kept
	// at T_latest + TIME_TH
	t1 := t0 + 10*dqpUs
	dqpMark(q, alg, t1)
	rt := 0.5
	rc := 0.5 * (1 - a/2)
	a = (1-g)*a + g
	rc = (rc + rt) / 2
	dqpExpect(t, "D<Δ<U", q, alg, rc, rt, a)
	if alg.Deadline != t0+dqpTH || alg.TLatest != t1 || alg.T != 0 {
		t.Errorf("D<Δ<U: deadline %v T_latest %v T %d; want %v, %v, 0", alg.Deadline, alg.TLatest, alg.T, t0+dqpTH, t1)
	}
	// the timer fires at t0 + 55 µs
	dqpSend(q, alg, t0+dqpTH-1)
	if alg.T != 0 {
		t.Errorf("timer fired early")
	}
	dqpSend(q, alg, t0+dqpTH)
	rc = (rc + rt) / 2
	a = max(a-1.0/40, (1-g)*a)
	dqpExpect(t, "timer", q, alg, rc, rt, a)
	if alg.T != 1 || alg.Deadline != t0+2*dqpTH {
		t.Errorf("timer: T %d deadline %v", alg.T, alg.Deadline)
	}
	// Δ = 60 µs ≥ U: decrease only, timer restarted from now
	t2 := t1 + 60*dqpUs
	dqpMark(q, alg, t2)
	rt = rc
	rc = rc * (1 - a/2)
	a = (1-g)*a + g
	dqpExpect(t, "Δ≥U", q, alg, rc, rt, a)
	if alg.Deadline != t2+dqpTH || alg.T != 0 {
		t.Errorf("Δ≥U: deadline %v T %d; want %v, 0", alg.Deadline, alg.T, t2+dqpTH)
	}
}

// A timer expiry exactly at a notification's instant is ordered after it;
// at a packet departure's instant, before it.
func TestDCQCNPTimerTies(t *testing.T) {
	q, alg := dqpNew(t, cc.DCQCNPDefaults())
	dqpMark(q, alg, dqpTH)
	dqpMark(q, alg, 2*dqpTH) // timer due at 2·TH: not applied first
	if alg.T != 0 || alg.Rc != 0.25 {
		t.Errorf("notification at a timer instant: T %d R_c %v; want 0, 0.25", alg.T, alg.Rc)
	}
	dqpSend(q, alg, 3*dqpTH)
	if alg.T != 1 || alg.Rc != 0.375 {
		t.Errorf("send at a timer instant: T %d R_c %v; want 1, 0.375", alg.T, alg.Rc)
	}
}

// The piecewise α step and its bounds, the clamp at 0, the geometric decay.
func TestDCQCNPAlphaStep(t *testing.T) {
	for _, tc := range []struct {
		name  string
		g, a0 float64
		decay string
	}{
		{"paper: above and below 0.5", 1.0 / 16, 0.52, "piecewise"},
		{"(1-g)α bound above 0.5", 1.0 / 256, 0.6, "piecewise"},
		{"(1-g)α bound at or below 0.5", 0.5, 0.3, "piecewise"},
		{"clamp at 0", 1.0 / 16, 0.02, "piecewise"},
		{"geometric", 1.0 / 16, 1, "geometric"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := cc.DCQCNPDefaults()
			p.G, p.AlphaInit, p.AlphaDecay = tc.g, tc.a0, tc.decay
			p.RAI = 0 // R_c approaches R_t = 1 without reaching it: stays registered
			q, alg := dqpNew(t, p)
			dqpMark(q, alg, 0)
			a := (1-tc.g)*tc.a0 + tc.g
			if alg.Alpha != a {
				t.Fatalf("after the cut α = %v, want %v", alg.Alpha, a)
			}
			for k := 1; k <= 8; k++ {
				dqpSend(q, alg, sim.Time(k)*dqpTH)
				switch {
				case tc.decay == "geometric":
					a = (1 - tc.g) * a
				case a <= 0.5:
					a = math.Min(a-0.04, (1-tc.g)*a)
				default:
					a = math.Max(a-0.025, (1-tc.g)*a)
				}
				if a < 0 {
					a = 0
				}
				if alg.Alpha != a || alg.T != k {
					t.Fatalf("step %d: α = %v T = %d; want %v, %d", k, alg.Alpha, alg.T, a, k)
				}
			}
		})
	}
}

// The byte counter: B events every byte_threshold bytes sent; additive and
// hyper increase from B and T; absolute steps.
func TestDCQCNPByteCounterAndStages(t *testing.T) {
	p := cc.DCQCNPDefaults()
	p.ByteThreshold, p.F, p.RAI, p.RHAI = 3000, 1, 0.01, 0.1
	q, alg := dqpNew(t, p)
	dqpMark(q, alg, 0)
	rc, rt := 0.5, 1.0
	at := sim.Time(0)
	send := func() { at += sim.Nanosecond; alg.OnSend(q, 1000, at) }
	send()
	send()
	if alg.B != 0 || alg.LPkt != 2000 {
		t.Fatalf("B %d L_pkt %d; want 0, 2000", alg.B, alg.LPkt)
	}
	send() // B = 1 = F: fast recovery (strict)
	rc = (rc + rt) / 2
	if alg.B != 1 || alg.LPkt != 0 || alg.Rc != rc || alg.Rt != rt {
		t.Fatalf("B=1: B %d L_pkt %d R_c %v R_t %v", alg.B, alg.LPkt, alg.Rc, alg.Rt)
	}
	alg.OnSend(q, 3000, at+1) // B = 2 > F, T = 0: additive
	rt += 0.01
	rc = (rc + rt) / 2
	if alg.B != 2 || alg.Rc != rc || alg.Rt != rt {
		t.Fatalf("B=2: B %d R_c %v R_t %v; want 2, %v, %v", alg.B, alg.Rc, alg.Rt, rc, rt)
	}
	// timer events: T = 1 (B > F: additive), T = 2 (both > F, hyper off: additive)
	for k := 1; k <= 2; k++ {
		dqpSend(q, alg, sim.Time(k)*dqpTH)
		rt += 0.01
		rc = (rc + rt) / 2
		if alg.T != k || alg.Rc != rc || alg.Rt != rt {
			t.Fatalf("T=%d: R_c %v R_t %v; want %v, %v", k, alg.Rc, alg.Rt, rc, rt)
		}
	}

	p.HyperIncrease = true
	p.IncreaseInterval = 20 // a second pure decrease before the first timer expiry
	q, alg = dqpNew(t, p)
	dqpMark(q, alg, 0)
	t1 := 30 * dqpUs
	dqpMark(q, alg, t1) // Δ ≥ U: R_t = 0.5, R_c = 0.25
	rc, rt = 0.25, 0.5
	alg.OnSend(q, 6000, t1+1) // B = 1 (fast recovery), B = 2 (additive)
	rc = (rc + rt) / 2
	rt += 0.01
	rc = (rc + rt) / 2
	dqpSend(q, alg, t1+dqpTH) // T = 1 = F, B > F: additive
	rt += 0.01
	rc = (rc + rt) / 2
	dqpSend(q, alg, t1+2*dqpTH) // T = 2, B = 2: hyper
	rt += 0.1
	rc = (rc + rt) / 2
	if alg.Rc != rc || alg.Rt != rt || alg.T != 2 || alg.B != 2 {
		t.Errorf("hyper: R_c %v R_t %v T %d B %d; want %v, %v, 2, 2", alg.Rc, alg.Rt, alg.T, alg.B, rc, rt)
	}

	// absolute steps: r_ai in Gb/s, 2 Gb/s at 100 Gb/s = 0.02
	p = cc.DCQCNPDefaults()
	p.AbsoluteSteps, p.RAI, p.F = true, 2, 0
	q, alg = dqpNew(t, p)
	dqpMark(q, alg, 0)
	dqpSend(q, alg, dqpTH)
	if want := 1 + 2e9/float64(dqpLine); alg.Rt != want {
		t.Errorf("absolute steps: R_t %v, want %v", alg.Rt, want)
	}
}

// Lazy timer: at most one timer event per event of the flow.
func TestDCQCNPLazyTimer(t *testing.T) {
	for _, lazy := range []bool{false, true} {
		p := cc.DCQCNPDefaults()
		p.LazyTimer = lazy
		p.RAI = 0
		q, alg := dqpNew(t, p)
		dqpMark(q, alg, 0)
		at := 3*dqpTH + 10*dqpUs
		dqpSend(q, alg, at)
		wantT, wantDeadline := 3, 4*dqpTH
		if lazy {
			wantT, wantDeadline = 1, at+dqpTH
		}
		if alg.T != wantT || alg.Deadline != wantDeadline {
			t.Errorf("lazy=%v: T %d deadline %v; want %d, %v", lazy, alg.T, alg.Deadline, wantT, wantDeadline)
		}
	}
}

// The CAM holds cam_size congested flows per sending NIC; a flow frees its
// entry at full speed or when it completes; each run has its own CAM.
func TestDCQCNPCAM(t *testing.T) {
	p := cc.DCQCNPDefaults()
	p.CAMSize = 2
	mk := cc.NewDCQCNP(p)
	newQP := func(src int32) (*fabric.QP, *cc.DCQCNP) {
		q := &fabric.QP{Src: src, LineRateBps: dqpLine, RateBps: dqpLine, SizeBytes: 1 << 20}
		a := mk(q).(*cc.DCQCNP)
		a.Start(q, 0)
		return q, a
	}
	q1, a1 := newQP(7)
	q2, a2 := newQP(7)
	q3, a3 := newQP(7)
	q4, a4 := newQP(8)
	for _, x := range []struct {
		q *fabric.QP
		a *cc.DCQCNP
	}{{q1, a1}, {q2, a2}, {q3, a3}, {q4, a4}} {
		dqpMark(x.q, x.a, dqpUs)
	}
	if !a1.Registered || !a2.Registered || a3.Registered || !a4.Registered {
		t.Fatalf("registered %v %v %v %v; want true true false true", a1.Registered, a2.Registered, a3.Registered, a4.Registered)
	}
	if a3.Dropped != 1 || q3.RateBps != dqpLine {
		t.Errorf("dropped %d rate %d; want 1, line rate", a3.Dropped, q3.RateBps)
	}
	// q1 completes: its entry is freed
	a1.OnAck(q1, &fabric.AckInfo{Seq: q1.SizeBytes}, 2*dqpUs)
	if a1.Registered {
		t.Errorf("completed flow still registered")
	}
	dqpMark(q3, a3, 3*dqpUs)
	if !a3.Registered {
		t.Errorf("flow 3 not registered after an entry was freed")
	}
	// another run starts with an empty CAM
	q5 := &fabric.QP{Src: 7, LineRateBps: dqpLine, RateBps: dqpLine, SizeBytes: 1 << 20}
	a5 := cc.NewDCQCNP(p)(q5).(*cc.DCQCNP)
	a5.Start(q5, 0)
	dqpMark(q5, a5, dqpUs)
	if !a5.Registered {
		t.Errorf("a new run shares the previous run's CAM")
	}
}

// The rate floor keeps R_c·line ≥ min_rate.
func TestDCQCNPMinRate(t *testing.T) {
	p := cc.DCQCNPDefaults()
	p.MinRate = 20000 // 20 Gb/s = 0.2
	q, alg := dqpNew(t, p)
	for k := 0; k < 5; k++ {
		dqpMark(q, alg, sim.Time(k)*60*dqpUs)
	}
	if alg.Rc != 0.2 || q.RateBps != 20e9 {
		t.Errorf("R_c %v rate %d; want 0.2, 20e9", alg.Rc, q.RateBps)
	}
}

func TestDCQCNPValidate(t *testing.T) {
	if err := cc.DCQCNPDefaults().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		field string
		set   func(p *cc.DCQCNPParams)
	}{
		{"g", func(p *cc.DCQCNPParams) { p.G = 0 }},
		{"g", func(p *cc.DCQCNPParams) { p.G = math.NaN() }},
		{"alpha_init", func(p *cc.DCQCNPParams) { p.AlphaInit = 1.5 }},
		{"alpha_decay", func(p *cc.DCQCNPParams) { p.AlphaDecay = "linear" }},
		{"fast_recovery_times", func(p *cc.DCQCNPParams) { p.F = -1 }},
		{"time_threshold_us", func(p *cc.DCQCNPParams) { p.TimeThreshold = 0 }},
		{"byte_threshold_bytes", func(p *cc.DCQCNPParams) { p.ByteThreshold = 0 }},
		{"r_ai", func(p *cc.DCQCNPParams) { p.RAI = -0.1 }},
		{"r_hai", func(p *cc.DCQCNPParams) { p.RHAI = math.Inf(1) }},
		{"decrease_interval_us", func(p *cc.DCQCNPParams) { p.DecreaseInterval = -1 }},
		{"increase_interval_us", func(p *cc.DCQCNPParams) { p.IncreaseInterval = 3 }},
		{"cam_size", func(p *cc.DCQCNPParams) { p.CAMSize = 0 }},
		{"min_rate_mbps", func(p *cc.DCQCNPParams) { p.MinRate = 0 }},
	} {
		p := cc.DCQCNPDefaults()
		tc.set(p)
		err := p.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tc.field+" ") {
			t.Errorf("%s: Validate() = %v, want an error naming the field", tc.field, err)
		}
	}
}

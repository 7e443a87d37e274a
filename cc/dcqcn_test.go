package cc_test

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// Expected values in these tests are computed from the documented equations
// (docs/reference-simulator.md §0.2 and §4, docs/algorithms/dcqcn.md §3–§4),
// never by calling the
// code under test. The reference arithmetic is:
//   α update:  float64((1−g)·α) + g  if a CNP arrived in the slot, else (1−g)·α
//   cut:       Rc = max(min, trunc(float64(Rc)·(1 − α/2)))
//   increase:  Rc = Rc/2 + Rt/2 (each half truncated)

const (
	us   = sim.Microsecond
	ns   = sim.Nanosecond
	ps   = sim.Picosecond
	line = int64(100e9)
	g    = 1.0 / 256
	mib  = 1 << 20
)

// decay is the α update of a slot without CNP.
func decay(a float64) float64 { return float64((1 - g) * a) }

// decayCNP is the α update of a slot with a CNP (product rounded, no FMA).
func decayCNP(a float64) float64 { return float64((1-g)*a) + g }

// alphaAfter applies k α-timer steps to a, adding g at the steps (1-based)
// listed in cnpSlots.
func alphaAfter(a float64, k int, cnpSlots ...int) float64 {
	withCNP := map[int]bool{}
	for _, s := range cnpSlots {
		withCNP[s] = true
	}
	for i := 1; i <= k; i++ {
		if withCNP[i] {
			a = decayCNP(a)
		} else {
			a = decay(a)
		}
	}
	return a
}

func cutRate(rc int64, a float64, minRate int64) int64 {
	r := int64(float64(rc) * (1 - a/2))
	if r < minRate {
		r = minRate
	}
	return r
}

// expState is the expected (Rc, Rt) evolved by explicitly named operations.
type expState struct{ rc, rt int64 }

func (e *expState) fr() { e.rc = e.rc/2 + e.rt/2 }
func (e *expState) ai(step int64) {
	e.rt += step
	if e.rt > line {
		e.rt = line
	}
	e.fr()
}
func (e *expState) cut(a float64, minRate int64, setTarget bool) {
	if setTarget {
		e.rt = e.rc
	}
	e.rc = cutRate(e.rc, a, minRate)
}

func newDCQCN(t *testing.T, p *cc.DCQCNParams) (*fabric.QP, *cc.DCQCN) {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	q := &fabric.QP{LineRateBps: line, RateBps: line}
	alg := cc.NewDCQCN(p)(q).(*cc.DCQCN)
	alg.Start(q, 0)
	return q, alg
}

func cnp(q *fabric.QP, alg *cc.DCQCN, at sim.Time) {
	alg.OnAck(q, &fabric.AckInfo{CNP: true}, at)
}

func send(q *fabric.QP, alg *cc.DCQCN, at sim.Time) { alg.OnSend(q, 1048, at) }

// expectRates checks Rc, Rt and that the QP's pacing rate follows Rc.
func expectRates(t *testing.T, label string, q *fabric.QP, alg *cc.DCQCN, rc, rt int64) {
	t.Helper()
	if alg.Rc != rc || alg.Rt != rt {
		t.Errorf("%s: Rc, Rt = %d, %d; want %d, %d", label, alg.Rc, alg.Rt, rc, rt)
	}
	if q.RateBps != alg.Rc {
		t.Errorf("%s: q.RateBps = %d, want Rc = %d", label, q.RateBps, alg.Rc)
	}
}

func expectAlpha(t *testing.T, label string, alg *cc.DCQCN, a float64) {
	t.Helper()
	if alg.Alpha != a {
		t.Errorf("%s: α = %v, want %v", label, alg.Alpha, a)
	}
}

// 1. The first CNP does not cut, resets α to 1 and starts the α timer
// (first fire t0+1 µs) and the decrease check (first at t0+4 µs+1 ns).
func TestDCQCNFirstCNP(t *testing.T) {
	for _, tc := range []struct {
		name      string
		t0        sim.Time
		alphaInit float64
		onFirst   float64 // rate_on_first_cnp
		rcFirst   int64   // Rc = Rt right after the first CNP
		rcCut     int64   // Rc after the first decrease check (hand-computed)
	}{
		// 1e11·(1 − 0.9844663145486265/2), α = (255/256)^4
		{"t0=0", 0, 1, 1, line, 50776684272},
		{"t0=10us", 10 * us, 1, 1, line, 50776684272},
		{"t0 odd, alpha_init 0.25", 123456789 * ps, 0.25, 1, line, 50776684272},
		// rate_on_first_cnp 0.5: 5e10 · (1 − 0.9844663145486265/2)
		{"rate_on_first_cnp 0.5", 7 * us, 1, 0.5, 50e9, 25388342136},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := cc.DCQCNDefaults()
			p.AlphaInit, p.RateOnFirstCNP = tc.alphaInit, tc.onFirst
			q, alg := newDCQCN(t, p)
			expectRates(t, "after Start", q, alg, line, line)
			expectAlpha(t, "after Start", alg, tc.alphaInit)
			if q.WantSendHook {
				t.Errorf("reference mode wants the send hook before any CNP")
			}
			// no timer runs before the first CNP
			send(q, alg, tc.t0/2)
			expectAlpha(t, "before the first CNP", alg, tc.alphaInit)
			expectRates(t, "before the first CNP", q, alg, line, line)

			cnp(q, alg, tc.t0)
			expectRates(t, "first CNP", q, alg, tc.rcFirst, tc.rcFirst)
			expectAlpha(t, "first CNP", alg, 1)
			if !q.WantSendHook {
				t.Errorf("first CNP: WantSendHook not set (lazy timers would never advance)")
			}
			send(q, alg, tc.t0+us-ps)
			expectAlpha(t, "t0+1µs−1ps", alg, 1)
			send(q, alg, tc.t0+us)
			expectAlpha(t, "t0+1µs", alg, 0.99609375)
			send(q, alg, tc.t0+2*us)
			expectAlpha(t, "t0+2µs", alg, 0.9922027587890625)
			send(q, alg, tc.t0+4*us+ns-ps)
			expectAlpha(t, "t0+4µs+1ns−1ps", alg, 0.9844663145486265)
			expectRates(t, "t0+4µs+1ns−1ps", q, alg, tc.rcFirst, tc.rcFirst)
			send(q, alg, tc.t0+4*us+ns)
			expectRates(t, "t0+4µs+1ns", q, alg, tc.rcCut, tc.rcFirst)
			if want := cutRate(tc.rcFirst, alphaAfter(1, 4), 1e9); want != tc.rcCut {
				t.Fatalf("test table: hand-computed cut %d disagrees with formula %d", tc.rcCut, want)
			}
		})
	}
}

// 2. The cut at the first decrease check uses α as updated by the α timer
// steps in between, with g added in the slots that saw a CNP; Rt is
// unchanged (stage 0, clamp off).
func TestDCQCNFirstCut(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cnps     []sim.Time // offsets from t0; the first is the first CNP
		cnpSlots []int      // α steps (1..4) whose slot saw a CNP
		rcCut    int64      // hand-computed where given (0 = formula only)
	}{
		{"single CNP", []sim.Time{0}, nil, 50776684272},
		{"CNPs in slots 2 and 4", []sim.Time{0, 1500 * ns, 3200 * ns}, []int{2, 4}, 50387582171},
		{"CNP in slot 1", []sim.Time{0, 500 * ns}, []int{1}, 0},
		{"several CNPs in one slot count once", []sim.Time{0, 1100 * ns, 1200 * ns, 1999 * ns}, []int{2}, 0},
		{"CNP after the last α step before the check", []sim.Time{0, 4*us + 500*ps}, nil, 50776684272},
		{"CNPs in every slot", []sim.Time{0, 500 * ns, 1500 * ns, 2500 * ns, 3500 * ns}, []int{1, 2, 3, 4}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const t0 = 20 * us
			q, alg := newDCQCN(t, cc.DCQCNDefaults())
			for _, c := range tc.cnps {
				cnp(q, alg, t0+c)
				expectRates(t, "CNP before the check", q, alg, line, line)
			}
			a := alphaAfter(1, 4, tc.cnpSlots...)
			want := cutRate(line, a, 1e9)
			if tc.rcCut != 0 && want != tc.rcCut {
				t.Fatalf("test table: hand-computed cut %d disagrees with formula %d", tc.rcCut, want)
			}
			send(q, alg, t0+4*us+ns-ps)
			expectRates(t, "1 ps before the check", q, alg, line, line)
			expectAlpha(t, "1 ps before the check", alg, a)
			send(q, alg, t0+4*us+ns)
			expectRates(t, "first check", q, alg, want, line)
			if alg.Stage != 0 {
				t.Errorf("Stage = %d after the cut, want 0", alg.Stage)
			}
			// no further CNP: the next check does not cut
			send(q, alg, t0+8*us+ns)
			expectRates(t, "second check without CNP", q, alg, want, line)
		})
	}
}

// 3. Without CNPs α decays by (1−g) per µs, whether the timer is replayed
// in one jump or step by step. Chains of up to 16 steps are repeated float
// multiplication, exactly as the reference's timer events compute them;
// longer ones multiply by a correctly rounded power (1−g)^k, which differs
// from the chain only by rounding: within 2 ulp of the exact real value,
// and within 64·√k·2⁻⁵³ of the chain.
func TestDCQCNAlphaDecay(t *testing.T) {
	const t0 = 7 * us
	for _, k := range []int{1, 2, 3, 4, 5, 6, 16, 17, 18, 55, 300, 1000, 1024, 1025, 2049, 12345} {
		chain := func(k int) float64 {
			a := 1.0
			for i := 0; i < k; i++ {
				a = float64(a * (1 - g))
			}
			return a
		}
		want, prev := chain(k), chain(k-1)
		if k <= 6 && want != math.Pow(255.0/256, float64(k)) {
			t.Fatalf("k=%d: (255/256)^k should be exact", k)
		}
		exact := func(k int) float64 { // (255/256)^k correctly rounded
			x := new(big.Float).SetPrec(512).SetInt64(1)
			f := new(big.Float).SetPrec(512).SetFloat64(1 - g)
			for i := 0; i < k; i++ {
				x.Mul(x, f)
			}
			v, _ := x.Float64()
			return v
		}
		// check compares α after steps decay steps replayed in one jump
		// (the first step is the timer's own, the rest the chain)
		check := func(label string, got, chainV float64, steps int) {
			t.Helper()
			if steps-1 <= 16 {
				if got != chainV {
					t.Errorf("%s: α = %v, want the exact chain %v", label, got, chainV)
				}
				return
			}
			ex := exact(steps)
			if ulp := math.Nextafter(ex, 2) - ex; math.Abs(got-ex) > 2*ulp {
				t.Errorf("%s: α = %v, more than 2 ulp from (1−g)^%d = %v", label, got, steps, ex)
			}
			if rel := math.Abs(got-chainV) / chainV; rel > 64*math.Sqrt(float64(steps))*0x1p-53 {
				t.Errorf("%s: α = %v differs from the chain %v by %.3g", label, got, chainV, rel)
			}
		}
		for _, stepwise := range []bool{false, true} {
			q, alg := newDCQCN(t, cc.DCQCNDefaults())
			cnp(q, alg, t0)
			if stepwise {
				for i := 1; i < k; i++ {
					send(q, alg, t0+sim.Time(i)*us)
				}
			}
			send(q, alg, t0+sim.Time(k)*us-ps)
			if stepwise {
				expectAlpha(t, "1 ps before step k", alg, prev)
			} else {
				check(fmt.Sprintf("k=%d, 1 ps before step k", k), alg.Alpha, prev, k-1)
			}
			send(q, alg, t0+sim.Time(k)*us)
			if stepwise {
				expectAlpha(t, fmt.Sprintf("k=%d stepwise", k), alg, want)
			} else {
				check(fmt.Sprintf("k=%d", k), alg.Alpha, want, k)
			}
		}
	}
}

// 4. Fast recovery, additive and hyper increase by the RP timer (300 µs),
// restarted by every cut.
func TestDCQCNIncrease(t *testing.T) {
	const tc1 = 4*us + ns // first cut (first CNP at 0)

	t.Run("default, target at line rate", func(t *testing.T) {
		q, alg := newDCQCN(t, cc.DCQCNDefaults())
		cnp(q, alg, 0)
		e := expState{line, line}
		e.cut(alphaAfter(1, 4), 1e9, false)
		send(q, alg, tc1)
		expectRates(t, "cut", q, alg, e.rc, e.rt)
		if e.rc != 50776684272 {
			t.Fatalf("model: first cut %d", e.rc)
		}
		// F = 1: fast recovery, additive (clamped to line), hyper (clamped);
		// Rc by hand: 25388342136+5e10, 37694171068+5e10, 43847085534+5e10, …
		for i, st := range []struct {
			op string
			rc int64
		}{
			{"fr", 75388342136}, {"ai", 87694171068}, {"hai", 93847085534},
			{"hai", 96923542767}, {"hai", 98461771383},
		} {
			at := tc1 + sim.Time(i+1)*300*us
			send(q, alg, at-ps)
			expectRates(t, "before "+st.op, q, alg, e.rc, e.rt)
			switch st.op {
			case "fr":
				e.fr()
			case "ai":
				e.ai(20e6)
			case "hai":
				e.ai(200e6)
			}
			if e.rc != st.rc || e.rt != line {
				t.Fatalf("model: %s gives %d, %d; hand %d", st.op, e.rc, e.rt, st.rc)
			}
			send(q, alg, at)
			expectRates(t, st.op, q, alg, e.rc, e.rt)
			if alg.Stage != i+1 {
				t.Errorf("%s: Stage = %d, want %d", st.op, alg.Stage, i+1)
			}
		}
	})

	t.Run("second cut after an increase sets Rt=Rc, then AI and HAI steps", func(t *testing.T) {
		q, alg := newDCQCN(t, cc.DCQCNDefaults())
		cnp(q, alg, 0)
		e := expState{line, line}
		e.cut(alphaAfter(1, 4), 1e9, false)
		send(q, alg, tc1)
		expectRates(t, "first cut", q, alg, e.rc, e.rt)
		e.fr()
		send(q, alg, tc1+300*us)
		expectRates(t, "fast recovery", q, alg, e.rc, e.rt)
		if e.rc != 50776684272/2+line/2 {
			t.Fatalf("model: FR gives %d", e.rc)
		}
		// CNP at 305 µs: slot of α step 306; check at 308.001 µs
		cnp(q, alg, 305*us)
		expectRates(t, "CNP (no immediate cut)", q, alg, e.rc, e.rt)
		tc2 := 308*us + ns
		send(q, alg, tc2-ps)
		expectRates(t, "before second cut", q, alg, e.rc, e.rt)
		e.cut(alphaAfter(1, 308, 306), 1e9, true) // stage 1 ≠ 0: Rt = Rc
		send(q, alg, tc2)
		expectRates(t, "second cut", q, alg, e.rc, e.rt)
		if alg.Stage != 0 {
			t.Errorf("Stage = %d after cut", alg.Stage)
		}
		// the increase timer was restarted: nothing at 604.001 µs
		send(q, alg, tc1+600*us)
		expectRates(t, "old increase slot", q, alg, e.rc, e.rt)
		rtBefore := e.rt
		for i, op := range []string{"fr", "ai", "hai", "hai", "hai"} {
			at := tc2 + sim.Time(i+1)*300*us
			send(q, alg, at-ps)
			expectRates(t, "before "+op, q, alg, e.rc, e.rt)
			switch op {
			case "fr":
				e.fr()
			case "ai":
				e.ai(20e6)
			case "hai":
				e.ai(200e6)
			}
			send(q, alg, at)
			expectRates(t, op, q, alg, e.rc, e.rt)
		}
		if want := rtBefore + 20e6 + 3*200e6; e.rt != want || alg.Rt != want {
			t.Errorf("Rt after AI+3 HAI = %d, want %d", alg.Rt, want)
		}
		// hyper increase continues with a constant step until Rt is clamped
		for i := 6; i < 200; i++ {
			e.ai(200e6)
			send(q, alg, tc2+sim.Time(i)*300*us)
			expectRates(t, "hyper", q, alg, e.rc, e.rt)
		}
		if alg.Rt != line || alg.Rc < line-1 {
			t.Errorf("after many increases Rc, Rt = %d, %d; want ≈ line", alg.Rc, alg.Rt)
		}
	})

	// F parameterised; rate_on_first_cnp 0.5 puts Rt below line so the
	// steps are visible. The stage sequence is written out by hand.
	for _, tc := range []struct {
		name string
		f    int
		ops  []string
	}{
		{"F=0", 0, []string{"ai", "hai", "hai", "hai"}},
		{"F=1", 1, []string{"fr", "ai", "hai", "hai"}},
		{"F=3", 3, []string{"fr", "fr", "fr", "ai", "hai", "hai"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := cc.DCQCNDefaults()
			p.FastRecoveryTimes = tc.f
			p.RateOnFirstCNP = 0.5
			p.RateAI, p.RateHAI = 30, 700
			q, alg := newDCQCN(t, p)
			cnp(q, alg, 0)
			e := expState{50e9, 50e9}
			expectRates(t, "first CNP", q, alg, e.rc, e.rt)
			e.cut(alphaAfter(1, 4), 1e9, false)
			send(q, alg, tc1)
			expectRates(t, "cut", q, alg, e.rc, e.rt)
			for i, op := range tc.ops {
				switch op {
				case "fr":
					e.fr()
				case "ai":
					e.ai(30e6)
				case "hai":
					e.ai(700e6)
				}
				send(q, alg, tc1+sim.Time(i+1)*300*us)
				expectRates(t, op, q, alg, e.rc, e.rt)
			}
		})
	}
}

// Ties between the increase timer and the decrease check are resolved in
// the order the reference queued them: the increase first if its period is
// longer than the decrease interval, else the decrease check (which then
// cancels the increase).
func TestDCQCNIncreaseDecreaseTie(t *testing.T) {
	t.Run("default 4/300: increase first", func(t *testing.T) {
		q, alg := newDCQCN(t, cc.DCQCNDefaults())
		cnp(q, alg, 0)
		e := expState{line, line}
		e.cut(alphaAfter(1, 4), 1e9, false)
		send(q, alg, 4*us+ns)
		expectRates(t, "cut", q, alg, e.rc, e.rt)
		cnp(q, alg, 302*us+500*ns) // slot of α step 303
		// 304.001 µs: increase (FR, stage 0→1), then check: Rt = Rc, cut
		e.fr()
		e.cut(alphaAfter(1, 304, 303), 1e9, true)
		send(q, alg, 304*us+ns)
		expectRates(t, "tie", q, alg, e.rc, e.rt)
		if alg.Stage != 0 {
			t.Errorf("Stage = %d, want 0", alg.Stage)
		}
		e.fr()
		send(q, alg, 604*us+ns)
		expectRates(t, "next increase", q, alg, e.rc, e.rt)
	})
	t.Run("equal 50/50: decrease first, increase cancelled", func(t *testing.T) {
		p := cc.DCQCNDefaults()
		p.AlphaResumeInterval, p.RateDecreaseInterval, p.RPTimer = 50, 50, 50
		q, alg := newDCQCN(t, p)
		cnp(q, alg, 0)
		e := expState{line, line}
		e.cut(alphaAfter(1, 1), 1e9, false)
		send(q, alg, 50*us+ns)
		expectRates(t, "cut", q, alg, e.rc, e.rt)
		cnp(q, alg, 60*us)
		e.cut(alphaAfter(1, 2, 2), 1e9, false) // stage 0: Rt kept
		send(q, alg, 100*us+ns)
		expectRates(t, "tie", q, alg, e.rc, e.rt)
		if alg.Stage != 0 {
			t.Errorf("Stage = %d, want 0 (increase must not run)", alg.Stage)
		}
		e.fr()
		send(q, alg, 150*us+ns)
		expectRates(t, "increase 50 µs after the second cut", q, alg, e.rc, e.rt)
	})
	t.Run("shorter increase 10/5: decrease first", func(t *testing.T) {
		p := cc.DCQCNDefaults()
		p.RateDecreaseInterval, p.RPTimer = 10, 5
		q, alg := newDCQCN(t, p)
		cnp(q, alg, 0)
		e := expState{line, line}
		e.cut(alphaAfter(1, 10), 1e9, false)
		send(q, alg, 10*us+ns)
		expectRates(t, "cut", q, alg, e.rc, e.rt)
		e.fr()
		send(q, alg, 15*us+ns)
		expectRates(t, "FR", q, alg, e.rc, e.rt)
		cnp(q, alg, 17*us+500*ns) // slot of α step 18
		e.cut(alphaAfter(1, 20, 18), 1e9, true)
		send(q, alg, 20*us+ns)
		expectRates(t, "tie", q, alg, e.rc, e.rt)
		e.fr()
		send(q, alg, 25*us+ns)
		expectRates(t, "increase restarted by the cut", q, alg, e.rc, e.rt)
	})
}

// 5. Repeated cuts stop at the min rate; the target is not touched by cuts
// without an increase in between.
func TestDCQCNMinRate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		minMbps float64
		floor   int64
		cuts    []int64 // hand-computed Rc after each check
	}{
		{"1 Gb/s", 1000, 1e9, []int64{50e9, 25e9, 12.5e9, 6.25e9, 3.125e9, 1.5625e9, 1e9, 1e9, 1e9}},
		{"1234.5 Mb/s", 1234.5, 1234500000, []int64{50e9, 25e9, 12.5e9, 6.25e9, 3.125e9, 1.5625e9, 1234500000, 1234500000}},
		{"60 Gb/s: first cut floored", 60000, 60e9, []int64{60e9, 60e9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := cc.DCQCNDefaults()
			p.MinRate = tc.minMbps
			q, alg := newDCQCN(t, p)
			// a CNP in every α slot keeps α = (1−g)·1 + g = 1 exactly, so
			// every check halves Rc
			if decayCNP(1) != 1 {
				t.Fatalf("(1−g)+g should be exactly 1")
			}
			cnp(q, alg, 0)
			for i, want := range tc.cuts {
				check := sim.Time(4*(i+1))*us + ns
				for k := 4 * i; k < 4*(i+1); k++ {
					cnp(q, alg, sim.Time(k)*us+500*ns)
				}
				send(q, alg, check)
				expectRates(t, "check", q, alg, want, line)
				expectAlpha(t, "check", alg, 1)
				if alg.Rc < tc.floor {
					t.Errorf("Rc %d below floor %d", alg.Rc, tc.floor)
				}
			}
		})
	}
}

// 6. clamp_target_rate sets Rt = Rc on every cut, also at stage 0.
func TestDCQCNClampTargetRate(t *testing.T) {
	for _, clamp := range []bool{false, true} {
		p := cc.DCQCNDefaults()
		p.ClampTargetRate = clamp
		q, alg := newDCQCN(t, p)
		cnp(q, alg, 0)
		e := expState{line, line}
		e.cut(alphaAfter(1, 4), 1e9, clamp)
		send(q, alg, 4*us+ns)
		expectRates(t, "first cut", q, alg, e.rc, e.rt)
		cnp(q, alg, 5*us)
		e.cut(alphaAfter(1, 8, 6), 1e9, clamp)
		send(q, alg, 8*us+ns)
		expectRates(t, "second cut", q, alg, e.rc, e.rt)
		cnp(q, alg, 9*us)
		rc2 := e.rc
		e.cut(alphaAfter(1, 12, 6, 10), 1e9, clamp)
		send(q, alg, 12*us+ns)
		expectRates(t, "third cut", q, alg, e.rc, e.rt)
		wantRt := line
		if clamp {
			wantRt = rc2
		}
		if alg.Rt != wantRt {
			t.Errorf("clamp=%v: Rt = %d, want %d", clamp, alg.Rt, wantRt)
		}
	}
}

// 7. The dcqcn_paper preset: α 50 µs, decrease check 50 µs, increase timer
// 55 µs; intervals are truncated to whole µs in reference mode.
func TestDCQCNPaperPreset(t *testing.T) {
	p := cc.DCQCNPaperDefaults()
	want := cc.DCQCNDefaults()
	want.AlphaResumeInterval, want.RateDecreaseInterval, want.RPTimer = 50, 50, 55
	if !reflect.DeepEqual(p, want) {
		t.Errorf("DCQCNPaperDefaults = %+v, want %+v", p, want)
	}
	for name, def := range map[string]*cc.DCQCNParams{"dcqcn": cc.DCQCNDefaults(), "dcqcn_paper": want} {
		s, err := cc.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Defaults(); !reflect.DeepEqual(got, def) {
			t.Errorf("registry %s defaults = %+v, want %+v", name, got, def)
		}
	}
	d := cc.DCQCNDefaults()
	if d.Mode != "reference" || d.AlphaResumeInterval != 1 || d.RateDecreaseInterval != 4 || d.RPTimer != 300 ||
		d.G != 0.00390625 || d.FastRecoveryTimes != 1 || d.RateAI != 20 || d.RateHAI != 200 || d.MinRate != 1000 ||
		d.ClampTargetRate || d.RateOnFirstCNP != 1 || d.ByteCounter != 0 || d.AlphaInit != 1 {
		t.Errorf("DCQCNDefaults = %+v differs from the reference preset", d)
	}

	for _, tc := range []struct {
		name                string
		alpha, dec, inc     float64 // parameters
		alphaIv, decIv, rpT sim.Time
	}{
		{"dcqcn_paper", 50, 50, 55, 50 * us, 50 * us, 55 * us},
		{"fractional µs truncated", 1.9, 4.99, 300.7, us, 4 * us, 300 * us},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := cc.DCQCNPaperDefaults()
			p.AlphaResumeInterval, p.RateDecreaseInterval, p.RPTimer = tc.alpha, tc.dec, tc.inc
			q, alg := newDCQCN(t, p)
			const t0 = 3 * us
			cnp(q, alg, t0)
			send(q, alg, t0+tc.alphaIv-ps)
			expectAlpha(t, "before first α step", alg, 1)
			send(q, alg, t0+tc.alphaIv)
			expectAlpha(t, "first α step", alg, 0.99609375)
			steps := int(tc.decIv / tc.alphaIv)
			send(q, alg, t0+tc.decIv+ns-ps)
			expectRates(t, "before check", q, alg, line, line)
			e := expState{line, line}
			e.cut(alphaAfter(1, steps), 1e9, false)
			send(q, alg, t0+tc.decIv+ns)
			expectRates(t, "check", q, alg, e.rc, e.rt)
			send(q, alg, t0+tc.decIv+ns+tc.rpT-ps)
			expectRates(t, "before increase", q, alg, e.rc, e.rt)
			e.fr()
			send(q, alg, t0+tc.decIv+ns+tc.rpT)
			expectRates(t, "increase", q, alg, e.rc, e.rt)
		})
	}
	// hand-computed: 1e11·(1 − (255/256)/2) = 50195312500
	if r := cutRate(line, 255.0/256, 1e9); r != 50195312500 {
		t.Errorf("model: %d", r)
	}
}

// 8. Canonical DCQCN: cut on every CNP, increase events by timer (T) and
// byte counter (B): fast recovery while max(T,B) < F, hyper when
// min(T,B) >= F, else additive.
func TestDCQCNCanonical(t *testing.T) {
	const bc = 10 * mib
	newCanon := func(t *testing.T, byteCounter int64) (*fabric.QP, *cc.DCQCN) {
		p := cc.DCQCNDefaults()
		p.Mode = "canonical"
		p.AlphaResumeInterval, p.RPTimer = 55, 55
		p.FastRecoveryTimes = 5
		p.ByteCounter = byteCounter
		return newDCQCN(t, p)
	}
	// op applies one named event to the expected state
	type step struct {
		what string   // "cnp", "tick" (timer expiry), "bytes" (one OnSend of size), "send" (n × 1048 B)
		at   sim.Time //
		n    int      // for "send"
		size int      // for "bytes"
		ops  []string // expected increase events: fr, ai, hai; "cut" for cnp
		T, B int      // expected counters after the step
	}

	t.Run("T/B stage rule", func(t *testing.T) {
		q, alg := newCanon(t, bc)
		if !q.WantSendHook {
			t.Fatalf("byte counter needs the send hook from Start")
		}
		e := expState{line, line}
		a := 1.0
		apply := func(label string, ops []string) {
			t.Helper()
			for _, op := range ops {
				switch op {
				case "cut":
					e.cut(a, 1e9, true) // Rt = Rc; Rc·(1 − α/2) with the old α
					a = decayCNP(a)
				case "fr":
					e.fr()
				case "ai":
					e.ai(20e6)
				case "hai":
					e.ai(200e6)
				default:
					t.Fatalf("bad op %q", op)
				}
			}
		}
		// residual bytes after the 1048-B sends: 10006·1048 − 10 MiB = 528
		const resid = 10006*1048 - bc
		steps := []step{
			{what: "cnp", at: 0, ops: []string{"cut"}},
			{what: "cnp", at: us, ops: []string{"cut"}},
			// 10005 × 1048 B < 10 MiB ≤ 10006 × 1048 B
			{what: "send", at: 2 * us, n: 10005},
			{what: "send", at: 2 * us, n: 1, ops: []string{"fr"}, B: 1},
			// the remainder (528 B) is kept: 10 MiB − 528 B more → B = 2
			{what: "bytes", at: 2 * us, size: bc - resid, ops: []string{"fr"}, B: 2},
			{what: "bytes", at: 3 * us, size: 2 * bc, ops: []string{"fr", "fr"}, B: 4},
			{what: "bytes", at: 3 * us, size: 2 * bc, ops: []string{"ai", "ai"}, B: 6}, // B=5: max=5, min=T=0
			{what: "tick", at: 56 * us, ops: []string{"ai"}, T: 1, B: 6},
			{what: "tick", at: 111 * us, ops: []string{"ai"}, T: 2, B: 6},
			{what: "tick", at: 166 * us, ops: []string{"ai"}, T: 3, B: 6},
			{what: "tick", at: 221 * us, ops: []string{"ai"}, T: 4, B: 6},
			{what: "tick", at: 276 * us, ops: []string{"hai"}, T: 5, B: 6}, // min(5,6) = F
			{what: "tick", at: 331 * us, ops: []string{"hai"}, T: 6, B: 6},
			{what: "send", at: 335 * us, n: 5, T: 6, B: 6}, // 5240 B counted, no event
			{what: "cnp", at: 340 * us, ops: []string{"cut"}},
			// the CNP restarted the byte counter: 10 MiB − 1000 B is no event
			{what: "bytes", at: 341 * us, size: bc - 1000},
			{what: "tick", at: 386 * us}, // the old timer phase: restarted by the CNP
			{what: "tick", at: 395 * us, ops: []string{"fr"}, T: 1},
			{what: "tick", at: 450 * us, ops: []string{"fr"}, T: 2},
			{what: "tick", at: 505 * us, ops: []string{"fr"}, T: 3},
			{what: "tick", at: 560 * us, ops: []string{"fr"}, T: 4},
			{what: "tick", at: 615 * us, ops: []string{"ai"}, T: 5}, // max(5,0) = F
			{what: "bytes", at: 616 * us, size: 5 * bc, ops: []string{"ai", "ai", "ai", "ai", "hai"}, T: 5, B: 5},
			{what: "tick", at: 670 * us, ops: []string{"hai"}, T: 6, B: 5},
		}
		lastAlphaStep := sim.Never // the α timer starts at the first CNP
		for _, s := range steps {
			// the α timer (restarted by each CNP, period 55 µs) is
			// independent of the increase path; track it by hand
			for lastAlphaStep != sim.Never && lastAlphaStep+55*us <= s.at {
				lastAlphaStep += 55 * us
				a = decay(a)
			}
			switch s.what {
			case "cnp":
				cnp(q, alg, s.at)
				lastAlphaStep = s.at
			case "tick":
				// zero-size sends advance the timers without counting bytes
				alg.OnSend(q, 0, s.at-ps)
				expectRates(t, "1 ps before tick", q, alg, e.rc, e.rt)
				alg.OnSend(q, 0, s.at)
			case "bytes":
				alg.OnSend(q, s.size, s.at)
			case "send":
				for k := 0; k < s.n; k++ {
					send(q, alg, s.at)
				}
			}
			apply(s.what, s.ops)
			label := s.what + " at " + s.at.String()
			expectRates(t, label, q, alg, e.rc, e.rt)
			expectAlpha(t, label, alg, a)
			if alg.T != s.T || alg.B != s.B {
				t.Errorf("%s: T, B = %d, %d; want %d, %d", label, alg.T, alg.B, s.T, s.B)
			}
		}
	})

	t.Run("first cuts by hand", func(t *testing.T) {
		q, alg := newCanon(t, bc)
		cnp(q, alg, 0)
		expectRates(t, "first CNP", q, alg, 50e9, line)
		expectAlpha(t, "first CNP", alg, 1)
		cnp(q, alg, us)
		expectRates(t, "second CNP", q, alg, 25e9, 50e9)
		// 55 µs later: α = 255/256 and one FR: 12.5e9 + 25e9
		send(q, alg, 56*us)
		expectRates(t, "tick", q, alg, 37.5e9, 50e9)
		expectAlpha(t, "tick", alg, 0.99609375)
		// cut with α = 255/256: 37.5e9·(1 − 255/512) = 18823242187.5 → trunc
		cnp(q, alg, 57*us)
		expectRates(t, "third CNP", q, alg, 18823242187, 37.5e9)
		expectAlpha(t, "third CNP", alg, float64(0.99609375*(1-g))+g)
	})

	t.Run("min rate floor", func(t *testing.T) {
		q, alg := newCanon(t, bc)
		// α stays 1 (each CNP: (1−g)·1 + g), so each CNP halves Rc; Rt = old Rc
		prev := line
		for i, w := range []int64{50e9, 25e9, 12.5e9, 6.25e9, 3.125e9, 1.5625e9, 1e9, 1e9} {
			cnp(q, alg, sim.Time(i)*us)
			expectRates(t, "cut", q, alg, w, prev)
			prev = w
		}
	})

	t.Run("timer-only (byte counter off) needs the send hook", func(t *testing.T) {
		q, alg := newCanon(t, 0)
		cnp(q, alg, 10*us)
		if !q.WantSendHook {
			t.Fatalf("canonical CNP without byte counter: WantSendHook not set; the increase timer would only advance at the next CNP")
		}
		send(q, alg, 65*us)
		expectRates(t, "timer increase", q, alg, 75e9, line)
		if alg.T != 1 || alg.B != 0 {
			t.Errorf("T, B = %d, %d; want 1, 0", alg.T, alg.B)
		}
		// without a byte counter bytes never count
		alg.OnSend(q, 100*bc, 66*us)
		if alg.B != 0 {
			t.Errorf("B = %d with byte counter off", alg.B)
		}
	})

	t.Run("fractional µs kept in canonical mode", func(t *testing.T) {
		p := cc.DCQCNDefaults()
		p.Mode = "canonical"
		p.AlphaResumeInterval, p.RPTimer = 0.5, 55.5
		q, alg := newDCQCN(t, p)
		cnp(q, alg, 0)
		send(q, alg, 500*ns-ps)
		expectAlpha(t, "before 0.5 µs", alg, 1)
		send(q, alg, 500*ns)
		expectAlpha(t, "0.5 µs", alg, 0.99609375)
		send(q, alg, 55*us+500*ns-ps)
		expectRates(t, "before 55.5 µs", q, alg, 50e9, line)
		send(q, alg, 55*us+500*ns)
		expectRates(t, "55.5 µs", q, alg, 75e9, line)
	})
}

// 9. Validate names the yaml field and the allowed range.
func TestDCQCNValidate(t *testing.T) {
	yamlNames := map[string]bool{}
	for _, pi := range cc.Describe(cc.DCQCNDefaults()) {
		yamlNames[pi.Name] = true
	}
	nan := math.NaN()
	for _, tc := range []struct {
		field string // yaml name; "" = valid
		set   func(p *cc.DCQCNParams)
		rng   string // expected range text
	}{
		{"g", func(p *cc.DCQCNParams) { p.G = 0 }, "[0 (exclusive), 1]"},
		{"g", func(p *cc.DCQCNParams) { p.G = 2 }, "[0 (exclusive), 1]"},
		{"g", func(p *cc.DCQCNParams) { p.G = -0.5 }, "[0 (exclusive), 1]"},
		{"g", func(p *cc.DCQCNParams) { p.G = nan }, "[0 (exclusive), 1]"},
		{"mode", func(p *cc.DCQCNParams) { p.Mode = "x" }, "reference, canonical"},
		{"mode", func(p *cc.DCQCNParams) { p.Mode = "" }, "reference, canonical"},
		{"rp_timer_us", func(p *cc.DCQCNParams) { p.RPTimer = -1 }, "[1, 1e6]"},
		{"rp_timer_us", func(p *cc.DCQCNParams) { p.RPTimer = 0 }, "[1, 1e6]"},
		// truncated to 0 µs in reference mode: a timer that never advances
		{"rp_timer_us", func(p *cc.DCQCNParams) { p.RPTimer = 0.5 }, "[1, 1e6]"},
		{"rp_timer_us", func(p *cc.DCQCNParams) { p.RPTimer = 1e6 + 1 }, "[1, 1e6]"},
		{"rp_timer_us", func(p *cc.DCQCNParams) { p.RPTimer = nan }, "[1, 1e6]"},
		{"rp_timer_us", func(p *cc.DCQCNParams) { p.Mode = "canonical"; p.RPTimer = 1e-7 }, "[1e-6, 1e6]"},
		{"alpha_resume_interval_us", func(p *cc.DCQCNParams) { p.AlphaResumeInterval = 0 }, "[1, 1e6]"},
		{"alpha_resume_interval_us", func(p *cc.DCQCNParams) { p.AlphaResumeInterval = 0.999 }, "[1, 1e6]"},
		{"rate_decrease_interval_us", func(p *cc.DCQCNParams) { p.RateDecreaseInterval = -4 }, "[1, 1e6]"},
		{"rate_decrease_interval_us", func(p *cc.DCQCNParams) { p.RateDecreaseInterval = 2e6 }, "[1, 1e6]"},
		{"min_rate_mbps", func(p *cc.DCQCNParams) { p.MinRate = 0 }, "[0 (exclusive), 1e7]"},
		{"min_rate_mbps", func(p *cc.DCQCNParams) { p.MinRate = 2e7 }, "[0 (exclusive), 1e7]"},
		{"min_rate_mbps", func(p *cc.DCQCNParams) { p.MinRate = nan }, "[0 (exclusive), 1e7]"},
		{"fast_recovery_times", func(p *cc.DCQCNParams) { p.FastRecoveryTimes = -1 }, "[0, 1000]"},
		{"fast_recovery_times", func(p *cc.DCQCNParams) { p.FastRecoveryTimes = 1001 }, "[0, 1000]"},
		{"rate_ai_mbps", func(p *cc.DCQCNParams) { p.RateAI = -1 }, "[0, 1e6]"},
		{"rate_ai_mbps", func(p *cc.DCQCNParams) { p.RateAI = nan }, "[0, 1e6]"},
		{"rate_hai_mbps", func(p *cc.DCQCNParams) { p.RateHAI = 2e6 }, "[0, 1e6]"},
		{"rate_on_first_cnp", func(p *cc.DCQCNParams) { p.RateOnFirstCNP = 0 }, "[0 (exclusive), 1]"},
		{"rate_on_first_cnp", func(p *cc.DCQCNParams) { p.RateOnFirstCNP = 1.5 }, "[0 (exclusive), 1]"},
		{"byte_counter_bytes", func(p *cc.DCQCNParams) { p.ByteCounter = -1 }, "[0, ∞]"},
		{"alpha_init", func(p *cc.DCQCNParams) { p.AlphaInit = 1.5 }, "[0, 1]"},
		{"alpha_init", func(p *cc.DCQCNParams) { p.AlphaInit = nan }, "[0, 1]"},
		// valid edge values
		{"", func(p *cc.DCQCNParams) {}, ""},
		{"", func(p *cc.DCQCNParams) { p.G = 1 }, ""},
		{"", func(p *cc.DCQCNParams) { p.FastRecoveryTimes = 0; p.RateAI = 0; p.RateHAI = 0 }, ""},
		{"", func(p *cc.DCQCNParams) { p.AlphaInit = 0; p.ByteCounter = 0; p.RateOnFirstCNP = 1e-9 }, ""},
		{"", func(p *cc.DCQCNParams) { p.AlphaResumeInterval, p.RateDecreaseInterval, p.RPTimer = 1, 1e6, 1.5 }, ""},
		{"", func(p *cc.DCQCNParams) { p.Mode = "canonical"; p.RPTimer = 0.5; p.ByteCounter = 10 * mib }, ""},
		{"", func(p *cc.DCQCNParams) { p.MinRate = 1e7 }, ""},
	} {
		p := cc.DCQCNDefaults()
		tc.set(p)
		err := p.Validate()
		if tc.field == "" {
			if err != nil {
				t.Errorf("%+v: unexpected error %v", p, err)
			}
			continue
		}
		if !yamlNames[tc.field] {
			t.Fatalf("test table: %q is not a yaml field", tc.field)
		}
		if err == nil {
			t.Errorf("%s: bad value accepted (%+v)", tc.field, p)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, tc.field+" = ") || !strings.Contains(msg, tc.rng) {
			t.Errorf("error %q: want field %q and range %q", msg, tc.field, tc.rng)
		}
	}
	if err := cc.DCQCNPaperDefaults().Validate(); err != nil {
		t.Errorf("dcqcn_paper preset invalid: %v", err)
	}
}

// 10. ai_threshold_strict (canonical mode): the additive stage starts when
// a counter is greater than F (paper 004's "大于 F"), one event later than
// the default ≥ F; hyper increase when both counters are greater than F.
// One cut at t = 0 from line rate (α = 1: R_C = line/2, R_T = line), F = 5,
// timer-only: the default adds R_AI at the 5th timer event, strict at the
// 6th.
func TestDCQCNStrictAI(t *testing.T) {
	run := func(strict bool, byteCounter int64) (*fabric.QP, *cc.DCQCN) {
		p := cc.DCQCNDefaults()
		p.Mode = "canonical"
		p.AlphaResumeInterval, p.RPTimer = 55, 55
		p.FastRecoveryTimes = 5
		p.RateAI, p.RateHAI = 40, 200
		p.ByteCounter = byteCounter
		p.StrictAI = strict
		q, alg := newDCQCN(t, p)
		cnp(q, alg, 0)
		return q, alg
	}
	for _, strict := range []bool{false, true} {
		q, alg := run(strict, 0)
		e := expState{line / 2, line}
		firstAI := 5
		if strict {
			firstAI = 6
		}
		for k := 1; k <= 7; k++ {
			alg.OnSend(q, 0, sim.Time(k)*55*us)
			if k < firstAI {
				e.fr()
			} else {
				e.rt += 40e6 // R_T above line rate is clamped: stays line
				if e.rt > line {
					e.rt = line
				}
				e.fr()
			}
			expectRates(t, fmt.Sprintf("strict=%v, timer event %d", strict, k), q, alg, e.rc, e.rt)
		}
	}
	// The target rises only when it is below line rate: cut twice so that
	// R_T = line/2, then count the additive steps directly.
	for _, c := range []struct {
		strict bool
		want   []int64 // R_T after timer events 1..7 (B stays 0)
	}{
		{false, []int64{25e9, 25e9, 25e9, 25e9, 25e9 + 40e6, 25e9 + 80e6, 25e9 + 120e6}},
		{true, []int64{25e9, 25e9, 25e9, 25e9, 25e9, 25e9 + 40e6, 25e9 + 80e6}},
	} {
		q, alg := run(c.strict, 0)
		cnp(q, alg, 0) // R_T = 50e9 (α = 1: (1−g)+g = 1), R_C = 25e9
		cnp(q, alg, 0) // R_T = 25e9, R_C = 12.5e9
		for k, want := range c.want {
			alg.OnSend(q, 0, sim.Time(k+1)*55*us)
			if alg.Rt != want {
				t.Errorf("strict=%v: R_T after timer event %d = %d, want %d", c.strict, k+1, alg.Rt, want)
			}
		}
	}
	// Hyper increase: T = F = 5 and B = 6 (six byte-counter events) is
	// hyper by default (min ≥ F), additive when strict (max > F, min = F).
	for _, c := range []struct {
		strict bool
		step   int64
	}{{false, 200e6}, {true, 40e6}} {
		q, alg := run(c.strict, 10*mib)
		cnp(q, alg, 0)
		cnp(q, alg, 0) // R_T = 25e9
		alg.OnSend(q, 6*10*mib, 1*us)
		for k := 1; k <= 4; k++ {
			alg.OnSend(q, 0, sim.Time(k)*55*us)
		}
		before := alg.Rt
		alg.OnSend(q, 0, 5*55*us) // T = 5, B = 6
		if alg.T != 5 || alg.B != 6 {
			t.Fatalf("T, B = %d, %d; want 5, 6", alg.T, alg.B)
		}
		if got := alg.Rt - before; got != c.step {
			t.Errorf("strict=%v: T = F, B = F + 1: R_T step %d, want %d", c.strict, got, c.step)
		}
	}
}

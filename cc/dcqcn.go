package cc

import (
	"fmt"
	"math/big"
	"sync"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// DCQCNParams are the reaction-point parameters of DCQCN (Zhu et al.,
// SIGCOMM 2015; docs/algorithms/dcqcn.md: canonical mode §4, reference mode
// §3 = the reference simulator as coded, docs/reference-simulator.md §4).
// Names follow the reference simulator's config keys.
type DCQCNParams struct {
	// Mode "reference" reproduces the reference simulator's DCQCN (cuts only
	// at the periodic decrease check, α timer uses "any CNP in the slot",
	// timer-only increase with stage count); "canonical" is the DCQCN paper's
	// reaction point (cut on every CNP, α timer and increase timer restarted
	// by a CNP, byte counter, T/B stage rule).
	Mode                 string  `yaml:"mode" doc:"reference | canonical"`
	AlphaResumeInterval  float64 `yaml:"alpha_resume_interval_us" unit:"us" doc:"α update period (reference: truncated to whole µs)"`
	RateDecreaseInterval float64 `yaml:"rate_decrease_interval_us" unit:"us" doc:"period of the rate-decrease check (reference mode)"`
	RPTimer              float64 `yaml:"rp_timer_us" unit:"us" doc:"rate-increase timer period"`
	G                    float64 `yaml:"g" doc:"EWMA gain of α"`
	FastRecoveryTimes    int     `yaml:"fast_recovery_times" doc:"F: increase events of fast recovery before additive increase"`
	RateAI               float64 `yaml:"rate_ai_mbps" unit:"Mb/s" doc:"additive increase step R_AI"`
	RateHAI              float64 `yaml:"rate_hai_mbps" unit:"Mb/s" doc:"hyper increase step R_HAI"`
	MinRate              float64 `yaml:"min_rate_mbps" unit:"Mb/s" doc:"floor of rate decreases"`
	ClampTargetRate      bool    `yaml:"clamp_target_rate" doc:"set R_T = R_C on every cut (reference: only after an increase)"`
	RateOnFirstCNP       float64 `yaml:"rate_on_first_cnp" doc:"reference mode: R_C multiplier on the first CNP (1 = no cut)"`
	ByteCounter          int64   `yaml:"byte_counter_bytes" unit:"B" doc:"canonical mode: byte counter B (0 = off)"`
	AlphaInit            float64 `yaml:"alpha_init" doc:"initial α"`
	// StrictAI (canonical mode) moves each stage boundary one event later:
	// fast recovery while max(T, B) ≤ F, additive increase once a counter
	// is greater than F, hyper increase once both are (the text of the
	// DCQCN restatement in paper 004: "大于 F"). false (the default): the
	// reference simulator's and the pseudo-code's ≥ F (docs/algorithms/dcqcn.md I1).
	StrictAI bool `yaml:"ai_threshold_strict" doc:"canonical mode: additive increase only when T or B > F (hyper when both > F) instead of ≥ F"`
}

// DCQCNDefaults is the reference simulator's `dcqcn` preset at 100 Gb/s
// (run.py --bw 100): α interval 1 µs, decrease interval 4 µs, increase
// timer 300 µs, g = 1/256, F = 1, AI 20 Mb/s, HAI 200 Mb/s, min rate 1 Gb/s.
func DCQCNDefaults() *DCQCNParams {
	return &DCQCNParams{
		Mode:                 "reference",
		AlphaResumeInterval:  1,
		RateDecreaseInterval: 4,
		RPTimer:              300,
		G:                    1.0 / 256,
		FastRecoveryTimes:    1,
		RateAI:               20,
		RateHAI:              200,
		MinRate:              1000,
		RateOnFirstCNP:       1.0,
		AlphaInit:            1,
	}
}

// DCQCNPaperDefaults is the reference simulator's `dcqcn_paper` profile:
// α interval 50 µs, decrease interval 50 µs, increase timer 55 µs; the rest
// as `dcqcn`.
func DCQCNPaperDefaults() *DCQCNParams {
	p := DCQCNDefaults()
	p.AlphaResumeInterval, p.RateDecreaseInterval, p.RPTimer = 50, 50, 55
	return p
}

// Validate checks every field's range. Comparisons are written so that NaN
// fails them. In reference mode the three intervals are truncated to whole
// microseconds (docs/reference-simulator.md §0.1 rule 2), so they must be at
// least 1 µs; in canonical mode at least 1 ps. A shorter interval would
// become a zero-length timer period that never lets simulated time advance.
func (p *DCQCNParams) Validate() error {
	if p.Mode != "reference" && p.Mode != "canonical" {
		return fmt.Errorf("mode = %q: allowed values reference, canonical", p.Mode)
	}
	ivLo, ivLoS := 1e-6, "1e-6"
	if p.Mode == "reference" {
		ivLo, ivLoS = 1, "1"
	}
	for _, iv := range []struct {
		name string
		v    float64
	}{
		{"alpha_resume_interval_us", p.AlphaResumeInterval},
		{"rate_decrease_interval_us", p.RateDecreaseInterval},
		{"rp_timer_us", p.RPTimer},
	} {
		if !(iv.v >= ivLo && iv.v <= 1e6) {
			return rangeErr(iv.name, iv.v, ivLoS, "1e6")
		}
	}
	switch {
	case !(p.G > 0 && p.G <= 1):
		return rangeErr("g", p.G, "0 (exclusive)", "1")
	case p.FastRecoveryTimes < 0 || p.FastRecoveryTimes > 1000:
		return rangeErr("fast_recovery_times", p.FastRecoveryTimes, "0", "1000")
	case !(p.RateAI >= 0 && p.RateAI <= 1e6):
		return rangeErr("rate_ai_mbps", p.RateAI, "0", "1e6")
	case !(p.RateHAI >= 0 && p.RateHAI <= 1e6):
		return rangeErr("rate_hai_mbps", p.RateHAI, "0", "1e6")
	case !(p.MinRate > 0 && p.MinRate <= 1e7):
		return rangeErr("min_rate_mbps", p.MinRate, "0 (exclusive)", "1e7")
	case !(p.RateOnFirstCNP > 0 && p.RateOnFirstCNP <= 1):
		return rangeErr("rate_on_first_cnp", p.RateOnFirstCNP, "0 (exclusive)", "1")
	case p.ByteCounter < 0:
		return rangeErr("byte_counter_bytes", p.ByteCounter, "0", "∞")
	case !(p.AlphaInit >= 0 && p.AlphaInit <= 1):
		return rangeErr("alpha_init", p.AlphaInit, "0", "1")
	}
	return nil
}

// dcqcnConst are the per-run constants shared by all QPs.
type dcqcnConst struct {
	p                     DCQCNParams
	alphaIv, decIv, incIv sim.Time
	ai, hai, minRate      int64
	canonical             bool
	powLo, powHi          []float64 // (1−g)^k tables of decay, built on first use
}

// DCQCN is one QP's reaction point. Its three periodic timers are evaluated
// lazily: their expiries between two observable moments (an ACK, a CNP, a
// packet departure) are replayed step by step when the state is next needed,
// which gives the same arithmetic as queued timers at a fraction of the
// events (docs/algorithms/dcqcn.md §5).
type DCQCN struct {
	c *dcqcnConst

	Rc, Rt   int64   // current and target rate, b/s
	Alpha    float64 // α
	alphaCNP bool    // a CNP arrived in the current α slot
	decCNP   bool    // a CNP arrived since the last decrease check
	firstCNP bool
	Stage    int // increase events since the last cut (reference mode)
	T, B     int // timer and byte-counter events since the last cut (canonical)
	bytes    int64

	alphaAt, decAt, incAt sim.Time // next expiry of each timer (Never = off)
	alphaPend             int64    // decay steps of α not yet applied (see alphaSteps)
	line                  int64
}

// NewDCQCN returns a per-QP constructor for p (which must be valid).
func NewDCQCN(p *DCQCNParams) func(q *fabric.QP) fabric.Algorithm {
	c := &dcqcnConst{
		p:         *p,
		alphaIv:   usToTime(p.AlphaResumeInterval),
		decIv:     usToTime(p.RateDecreaseInterval),
		incIv:     usToTime(p.RPTimer),
		ai:        mbpsToBps(p.RateAI),
		hai:       mbpsToBps(p.RateHAI),
		minRate:   mbpsToBps(p.MinRate),
		canonical: p.Mode == "canonical",
	}
	if !c.canonical {
		// the reference converts µs with MicroSeconds(double): truncation
		// to whole microseconds (docs/reference-simulator.md §0.1 rule 2)
		c.alphaIv = sim.Time(int64(p.AlphaResumeInterval)) * sim.Microsecond
		c.decIv = sim.Time(int64(p.RateDecreaseInterval)) * sim.Microsecond
		c.incIv = sim.Time(int64(p.RPTimer)) * sim.Microsecond
	}
	return func(q *fabric.QP) fabric.Algorithm { return &DCQCN{c: c} }
}

// Start sets R_C = R_T = line rate, α = α_init; no timer runs before the
// first CNP.
func (d *DCQCN) Start(q *fabric.QP, now sim.Time) {
	d.line = q.LineRateBps
	d.Rc, d.Rt = d.line, d.line
	d.Alpha = d.c.p.AlphaInit
	d.firstCNP = true
	d.alphaAt, d.decAt, d.incAt = sim.Never, sim.Never, sim.Never
	q.SetRate(d.Rc)
	if d.c.canonical && d.c.p.ByteCounter > 0 {
		q.WantSendHook = true
	}
}

// OnAck treats an ACK/NACK carrying the CNP flag as a congestion
// notification (the reference simulator has no separate CNP packets).
func (d *DCQCN) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {
	if a.CNP {
		d.onCNP(q, now)
	}
}

// OnNotice handles stand-alone CNP packets.
func (d *DCQCN) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {
	if n.Kind == fabric.KindCNP {
		d.onCNP(q, now)
	}
}

// OnTimer is unused: DCQCN's timers are evaluated lazily.
func (d *DCQCN) OnTimer(q *fabric.QP, id int, now sim.Time) {}

// OnSend advances the timers so the packet is paced at the current rate,
// and runs the byte counter (canonical mode).
func (d *DCQCN) OnSend(q *fabric.QP, size int, now sim.Time) {
	d.advance(q, now)
	if d.c.canonical && d.c.p.ByteCounter > 0 {
		d.bytes += int64(size)
		for d.bytes >= d.c.p.ByteCounter {
			d.bytes -= d.c.p.ByteCounter
			d.B++
			d.increase(q)
		}
	}
}

// advance replays every timer expiry up to and including now, in time
// order, breaking ties in the order in which the reference's events were
// queued. α never ties with the other two in reference mode (they fire 1 ns
// after a whole µs); in canonical mode it is independent of them. An
// increase and a decrease expiring together were scheduled one period
// earlier each (a decrease re-arms itself before it arms the increase
// timer), so the increase runs first only if its period is the longer one.
//
// A decrease check with no CNP since the previous one does nothing, so such
// checks are not visited: the loop stops only at increases and at the one
// check that cuts, and the decrease timer's phase is carried forward at the
// end. Between those stops α only decays (see alphaSteps). A QP that sends
// rarely (thousands of QPs sharing a link) thus costs a few steps per
// packet instead of one per µs of its idle time.
func (d *DCQCN) advance(q *fabric.QP, now sim.Time) {
	for {
		// the next increase, or the next decrease check if it can cut
		t, which := d.incAt, 1
		if d.decCNP && (d.decAt < t || d.decAt == t && d.c.decIv >= d.c.incIv) {
			t, which = d.decAt, 2
		}
		limit := t
		if now < limit {
			limit = now
		}
		// α steps up to it (an α step at the same time runs first)
		if d.alphaAt <= limit {
			d.alphaSteps(limit)
		}
		if t > now {
			break
		}
		if which == 1 {
			d.incAt = t + d.c.incIv
			d.T++
			d.increase(q)
		} else {
			d.decAt = t + d.c.decIv
			d.decreaseCheck(q, t)
		}
	}
	d.settleAlpha()
	// the idle decrease checks up to now (decCNP is false here, or decAt
	// is already past now)
	if d.decAt <= now {
		k := (now-d.decAt)/d.c.decIv + 1
		d.decAt += k * d.c.decIv
	}
}

// alphaSteps runs the α timer's expiries up to limit (d.alphaAt <= limit).
// The first consumes the CNP flag of its slot; steps without a CNP only
// decay α, α ← (1−g)·α, and are counted in alphaPend until α is needed
// (settleAlpha).
func (d *DCQCN) alphaSteps(limit sim.Time) {
	k := int64((limit - d.alphaAt) / d.c.alphaIv) // steps after the first
	d.alphaAt += sim.Time(k+1) * d.c.alphaIv
	if d.alphaCNP && !d.c.canonical {
		d.settleAlpha()
		g := d.c.p.G
		d.Alpha = float64((1-g)*d.Alpha) + g
		d.alphaCNP = false
	} else {
		d.alphaCNP = false
		k++
	}
	d.alphaPend += k
}

// settleAlpha applies the pending decay steps to α.
func (d *DCQCN) settleAlpha() {
	if d.alphaPend > 0 {
		d.Alpha = d.c.decay(d.Alpha, d.alphaPend)
		d.alphaPend = 0
	}
}

// exactDecaySteps is the longest α decay chain replayed multiplication by
// multiplication, exactly as the reference's timer events compute it.
// Longer chains multiply by (1−g)^k from a table (each entry correctly
// rounded): the same value up to floating-point rounding (within 2 ulp of
// the exact power; the chain's own rounding error grows like √k ulp), at
// the cost of one or two multiplications instead of k.
const exactDecaySteps = 16

// The table holds (1−g)^k for k < decayLo and (1−g)^(decayLo·j) for
// j ≤ decayHi; longer chains (α below 1e-100 by then) multiply by the
// last entry repeatedly.
const (
	decayLo = 1024
	decayHi = 64
)

// decay returns α after k more decay steps.
func (c *dcqcnConst) decay(a float64, k int64) float64 {
	if k <= exactDecaySteps {
		f := 1 - c.p.G
		for ; k > 0; k-- {
			a = float64(f * a)
		}
		return a
	}
	if c.powLo == nil {
		c.powLo, c.powHi = decayTables(1 - c.p.G)
	}
	for k >= decayLo*decayHi && a != 0 {
		a = float64(a * c.powHi[decayHi])
		k -= decayLo * decayHi
	}
	if hi := k / decayLo; hi > 0 {
		a = float64(a * c.powHi[hi])
	}
	return float64(a * c.powLo[k%decayLo])
}

// decayTables returns the power tables of decay for factor f, built once
// per process and factor.
func decayTables(f float64) (lo, hi []float64) {
	decayCache.Lock()
	defer decayCache.Unlock()
	if t, ok := decayCache.m[f]; ok {
		return t[0], t[1]
	}
	lo, hi = decayPowers(f, 1, decayLo-1), decayPowers(f, decayLo, decayHi)
	if decayCache.m == nil {
		decayCache.m = map[float64][2][]float64{}
	}
	decayCache.m[f] = [2][]float64{lo, hi}
	return lo, hi
}

var decayCache struct {
	sync.Mutex
	m map[float64][2][]float64
}

// decayPowers returns f^(step·j) for j = 0..n, each correctly rounded from
// a 256-bit computation.
func decayPowers(f float64, step, n int) []float64 {
	const prec = 256
	fb := new(big.Float).SetPrec(prec).SetFloat64(f)
	b := new(big.Float).SetPrec(prec).SetFloat64(f)
	for range step - 1 {
		b.Mul(b, fb)
	}
	x := new(big.Float).SetPrec(prec).SetFloat64(1)
	pow := make([]float64, n+1)
	for j := range pow {
		pow[j], _ = x.Float64()
		x.Mul(x, b)
	}
	return pow
}

// cut applies R_C ← max(min, R_C·(1 − α/2)) with the reference's truncation.
func (d *DCQCN) cut() {
	d.settleAlpha()
	r := int64(float64(d.Rc) * (1 - d.Alpha/2))
	if r < d.c.minRate {
		r = d.c.minRate
	}
	d.Rc = r
}

func (d *DCQCN) decreaseCheck(q *fabric.QP, t sim.Time) {
	if !d.decCNP {
		return
	}
	if d.c.p.ClampTargetRate || d.Stage != 0 {
		d.Rt = d.Rc
	}
	d.cut()
	d.Stage = 0
	d.decCNP = false
	d.incAt = t + d.c.incIv
	q.SetRate(d.Rc)
}

func (d *DCQCN) onCNP(q *fabric.QP, now sim.Time) {
	d.advance(q, now)
	if d.c.canonical {
		// DCQCN paper: cut on every CNP, restart α and increase timers.
		d.Rt = d.Rc
		d.cut()
		g := d.c.p.G
		d.Alpha = float64((1-g)*d.Alpha) + g
		d.T, d.B, d.bytes = 0, 0, 0
		d.alphaAt = now + d.c.alphaIv
		d.incAt = now + d.c.incIv
		q.WantSendHook = true // the timers advance at packet departures
		q.SetRate(d.Rc)
		return
	}
	d.alphaCNP, d.decCNP = true, true
	if d.firstCNP {
		d.Alpha = 1
		d.alphaCNP = false
		d.alphaAt = now + d.c.alphaIv
		d.decAt = now + d.c.decIv + sim.Nanosecond
		d.Rc = int64(float64(d.Rc) * d.c.p.RateOnFirstCNP)
		d.Rt = d.Rc
		d.firstCNP = false
		q.WantSendHook = true
		q.SetRate(d.Rc)
	}
}

// increase is one rate-increase event: fast recovery, additive or hyper
// increase towards the target, then R_C ← (R_C + R_T)/2. Canonical mode:
// fast while max(T, B) < F, hyper while min(T, B) ≥ F, additive otherwise;
// with StrictAI each boundary is "> F" (≤ F fast, min > F hyper).
func (d *DCQCN) increase(q *fabric.QP) {
	F := d.c.p.FastRecoveryTimes
	if d.c.canonical {
		hi, lo := d.T, d.B
		if lo > hi {
			hi, lo = lo, hi
		}
		if d.c.p.StrictAI { // a counter equal to F is still below the next stage
			hi, lo = hi-1, lo-1
		}
		switch {
		case hi < F:
		case lo >= F:
			d.Rt += d.c.hai
		default:
			d.Rt += d.c.ai
		}
	} else {
		switch {
		case d.Stage < F:
		case d.Stage == F:
			d.Rt += d.c.ai
		default:
			d.Rt += d.c.hai
		}
		d.Stage++
	}
	if d.Rt > d.line {
		d.Rt = d.line
	}
	d.Rc = d.Rc/2 + d.Rt/2
	if d.Rc > d.line {
		d.Rc = d.line
	}
	q.SetRate(d.Rc)
}

func init() {
	for _, v := range []struct {
		name, sum string
		def       func() *DCQCNParams
	}{
		{"dcqcn", "DCQCN, reference simulator preset `dcqcn` (α 1 µs, decrease check 4 µs, increase timer 300 µs)", DCQCNDefaults},
		{"dcqcn_paper", "DCQCN, reference profile `dcqcn_paper` (α 50 µs, decrease check 50 µs, increase timer 55 µs)", DCQCNPaperDefaults},
	} {
		def := v.def
		Register(&Spec{
			Name:     v.name,
			Summary:  v.sum,
			Defaults: func() Params { return def() },
			New: func(p Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
				return NewDCQCN(p.(*DCQCNParams)), fabric.Requirements{AckPrio: 1}
			},
		})
	}
}

package cc

import (
	"fmt"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// DCQCNPParams are the parameters of DCQCN-p, the parameterised,
// hardware-oriented DCQCN of Wang et al. (J. Hefei Univ. Tech. 2025;
// docs/algorithms/dcqcnp.md §2–§4, parameters §5). Rates are fractions of
// the NIC's line rate (R_c initial 1).
type DCQCNPParams struct {
	G                float64 `yaml:"g" doc:"EWMA gain of α on a rate decrease (pseudo-code line 5, Table 3: 1/16)"`
	AlphaInit        float64 `yaml:"alpha_init" doc:"α of a newly registered flow (line 4: 1)"`
	AlphaDecay       string  `yaml:"alpha_decay" doc:"α step per timer event: piecewise (DCQCN-p lines 12–15: −1/40 above 0.5, −1/25 at or below, bounded by (1−g)α) | geometric (DCQCN eq. 8: (1−g)α)"`
	F                int     `yaml:"fast_recovery_times" doc:"F: timer/byte events of fast recovery before additive increase (Table 3: 5)"`
	TimeThreshold    float64 `yaml:"time_threshold_us" unit:"us" doc:"rate-increase timer period TIME_TH (Table 3: 55 µs)"`
	ByteThreshold    int64   `yaml:"byte_threshold_bytes" unit:"B" doc:"byte counter BYTE_TH (Table 3: 10 MiB)"`
	RAI              float64 `yaml:"r_ai" doc:"additive step R_ai as a fraction of line rate (Table 3, §3.2: 0.2; see absolute_steps)"`
	RHAI             float64 `yaml:"r_hai" doc:"hyper step R_hai as a fraction of line rate (§3.2 \"R_mai\": 0.8)"`
	HyperIncrease    bool    `yaml:"hyper_increase" doc:"enable the hyper-increase stage (docs/algorithms/dcqcnp.md I9: DCQCN-p ignores it by default)"`
	StrictAI         bool    `yaml:"ai_threshold_strict" doc:"additive increase only when T > F or B > F (true; reproduces E1) instead of ≥ F"`
	DecreaseInterval float64 `yaml:"decrease_interval_us" unit:"us" doc:"D: notifications of a flow closer than D to the last accepted one are ignored (unspecified; docs/algorithms/dcqcnp.md I2: 4 µs)"`
	IncreaseInterval float64 `yaml:"increase_interval_us" unit:"us" doc:"U: a notification D < Δ < U after the last one decreases then increases (unspecified; docs/algorithms/dcqcnp.md I2: 55 µs)"`
	CAMSize          int     `yaml:"cam_size" doc:"congested flows one NIC can register; notifications of further flows are dropped (§2.2: 512)"`
	LazyTimer        bool    `yaml:"lazy_timer" doc:"no free-running timer: at most one timer event per packet or notification, when TIME_TH has passed (docs/algorithms/dcqcnp.md I10)"`
	AbsoluteSteps    bool    `yaml:"absolute_steps" doc:"read r_ai and r_hai in Gb/s instead of fractions of line rate (docs/algorithms/dcqcnp.md I8)"`
	MinRate          float64 `yaml:"min_rate_mbps" unit:"Mb/s" doc:"floor of R_c·line rate (not in the paper; the reference simulator's MIN_RATE, so pacing never stalls)"`
}

// DCQCNPDefaults are the paper's DCQCN-p values (docs/algorithms/dcqcnp.md
// §5) with interpretation I2 for the unspecified D and U.
func DCQCNPDefaults() *DCQCNPParams {
	return &DCQCNPParams{
		G:                1.0 / 16,
		AlphaInit:        1,
		AlphaDecay:       "piecewise",
		F:                5,
		TimeThreshold:    55,
		ByteThreshold:    10 << 20,
		RAI:              0.2,
		RHAI:             0.8,
		StrictAI:         true,
		DecreaseInterval: 4,
		IncreaseInterval: 55,
		CAMSize:          512,
		MinRate:          1000,
	}
}

// Validate checks every field's range (comparisons written so NaN fails).
func (p *DCQCNPParams) Validate() error {
	switch {
	case !(p.G > 0 && p.G <= 1):
		return rangeErr("g", p.G, "0 (exclusive)", "1")
	case !(p.AlphaInit >= 0 && p.AlphaInit <= 1):
		return rangeErr("alpha_init", p.AlphaInit, "0", "1")
	case p.AlphaDecay != "piecewise" && p.AlphaDecay != "geometric":
		return rangeErrS("alpha_decay", p.AlphaDecay, "piecewise, geometric")
	case p.F < 0 || p.F > 1000:
		return rangeErr("fast_recovery_times", p.F, "0", "1000")
	case !(p.TimeThreshold >= 1e-3 && p.TimeThreshold <= 1e6):
		return rangeErr("time_threshold_us", p.TimeThreshold, "0.001", "1e6")
	case p.ByteThreshold < 1 || p.ByteThreshold > 1<<50:
		return rangeErr("byte_threshold_bytes", p.ByteThreshold, "1", "2^50")
	case !(p.RAI >= 0 && p.RAI <= 1e4):
		return rangeErr("r_ai", p.RAI, "0", "1e4")
	case !(p.RHAI >= 0 && p.RHAI <= 1e4):
		return rangeErr("r_hai", p.RHAI, "0", "1e4")
	case !(p.DecreaseInterval >= 0 && p.DecreaseInterval <= 1e6):
		return rangeErr("decrease_interval_us", p.DecreaseInterval, "0", "1e6")
	case !(p.IncreaseInterval >= p.DecreaseInterval && p.IncreaseInterval <= 1e6):
		return rangeErr("increase_interval_us", p.IncreaseInterval, fmt.Sprint("decrease_interval_us = ", p.DecreaseInterval), "1e6")
	case p.CAMSize < 1 || p.CAMSize > 1<<24:
		return rangeErr("cam_size", p.CAMSize, "1", "16777216")
	case !(p.MinRate > 0 && p.MinRate <= 1e7):
		return rangeErr("min_rate_mbps", p.MinRate, "0 (exclusive)", "1e7")
	}
	return nil
}

// dcqcnpRun is the state shared by the QPs of one run: the constants and
// the per-NIC CAM occupancy (docs/algorithms/dcqcnp.md §4: 512 congested
// flows per NIC), modelled as a count of registered flows per sending host.
type dcqcnpRun struct {
	p                    DCQCNPParams
	timeTh, decIv, incIv sim.Time
	piecewise            bool
	cam                  []int32 // registered flows per sending host (node id), grown on demand
}

// camOf returns the CAM occupancy counter of host h.
func (r *dcqcnpRun) camOf(h int32) *int32 {
	if int(h) >= len(r.cam) {
		r.cam = append(r.cam, make([]int32, int(h)+1-len(r.cam))...)
	}
	return &r.cam[h]
}

// DCQCNP is one QP's reaction point (docs/algorithms/dcqcnp.md §3.2, the
// event-driven interpretation). Its PAR-TABLE entry is the exported state
// below. The free-running rate-increase timer is evaluated lazily: expiries
// between two observable moments (a packet departure, an ACK, a
// notification) are replayed when the state is next needed, which gives the
// arithmetic of a queued timer without events.
type DCQCNP struct {
	r *dcqcnpRun

	Registered bool     // v_id: the flow holds a CAM entry
	Rc, Rt     float64  // current and target rate, fractions of line rate
	Alpha      float64  // a
	T, B       int      // timer and byte-counter events since the last decrease
	TLatest    sim.Time // time of the last accepted congestion notification
	LPkt       int64    // bytes sent since the last byte-counter event
	// Deadline is the next expiry of the rate-increase timer (lazy_timer:
	// the earliest time of the next timer event; sim.Never when not
	// registered).
	Deadline sim.Time

	// Held counts notifications ignored by the D gate (RateHold), Dropped
	// those of an unregistered flow while the NIC's CAM was full.
	Held, Dropped int64

	line      int64
	rai, rhai float64
	minFrac   float64
}

// NewDCQCNP returns a per-QP constructor for p (which must be valid). Each
// call starts an empty CAM: call it once per run.
func NewDCQCNP(p *DCQCNPParams) func(q *fabric.QP) fabric.Algorithm {
	r := &dcqcnpRun{
		p:         *p,
		timeTh:    usToTime(p.TimeThreshold),
		decIv:     usToTime(p.DecreaseInterval),
		incIv:     usToTime(p.IncreaseInterval),
		piecewise: p.AlphaDecay == "piecewise",
	}
	return func(q *fabric.QP) fabric.Algorithm { return &DCQCNP{r: r} }
}

// Start: unregistered, full speed (pacing rate = line rate · 1).
func (d *DCQCNP) Start(q *fabric.QP, now sim.Time) {
	p := &d.r.p
	d.line = q.LineRateBps
	d.rai, d.rhai = p.RAI, p.RHAI
	if p.AbsoluteSteps {
		d.rai = p.RAI * 1e9 / float64(d.line)
		d.rhai = p.RHAI * 1e9 / float64(d.line)
	}
	d.minFrac = p.MinRate * 1e6 / float64(d.line)
	d.Rc, d.Rt, d.Alpha = 1, 1, p.AlphaInit
	d.Deadline = sim.Never
	q.SetRate(d.line)
}

// OnAck: an ACK carrying the congestion flag is a congestion notification
// (docs/algorithms/dcqcnp.md §2: reliable connections get a backward
// congestion flag on the ACK; the fabric flags one ACK per marked packet
// when host cnp_interval_us is 0). The ACK that completes the flow frees its CAM entry.
func (d *DCQCNP) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {
	if a.CNP {
		d.notify(q, now)
	} else {
		d.advance(q, now, true)
	}
	if a.Seq >= q.SizeBytes && d.Registered {
		d.deregister(q)
	}
	d.apply(q)
}

// OnNotice handles stand-alone CNP packets (docs/algorithms/dcqcnp.md §2:
// one per marked packet).
func (d *DCQCNP) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {
	if n.Kind == fabric.KindCNP {
		d.notify(q, now)
		d.apply(q)
	}
}

// OnTimer is unused: the timer is evaluated lazily.
func (d *DCQCNP) OnTimer(q *fabric.QP, id int, now sim.Time) {}

// OnSend advances the timer and runs the byte counter. Send events of an
// unregistered flow are not counted (docs/algorithms/dcqcnp.md §4: its
// length is dropped).
func (d *DCQCNP) OnSend(q *fabric.QP, size int, now sim.Time) {
	if !d.Registered {
		return
	}
	d.advance(q, now, true)
	if d.Registered {
		d.LPkt += int64(size)
		for d.Registered && d.LPkt >= d.r.p.ByteThreshold {
			d.LPkt -= d.r.p.ByteThreshold
			d.B++
			d.increase(q)
		}
	}
	d.apply(q)
}

// notify is one congestion notification (docs/algorithms/dcqcnp.md §3.2
// "notification at time t"). A timer expiry at exactly the same instant is
// taken to come after the notification (interpretation I11: with a
// free-running timer this makes a notification round a pure decrease, as
// in experiment E1); the notification re-arms the timer anyway.
func (d *DCQCNP) notify(q *fabric.QP, now sim.Time) {
	d.advance(q, now, false)
	r := d.r
	if !d.Registered {
		cam := r.camOf(q.Src)
		if int(*cam) >= r.p.CAMSize {
			d.Dropped++ // paper: more than 512 congested flows are dropped
			return
		}
		*cam++
		d.Registered = true
		q.WantSendHook = true
		d.Rc, d.Rt, d.Alpha = 1, 1, r.p.AlphaInit
		d.T, d.B, d.LPkt = 0, 0, 0
		d.decrease()
		d.TLatest = now
		d.Deadline = now + r.timeTh
		return
	}
	// Two notifications of a flow at the same instant (the FIFO's pairwise
	// coalescing, docs/algorithms/dcqcnp.md §4, I18) always fall under this
	// gate: Δ = 0 ≤ D.
	delta := now - d.TLatest
	if delta <= r.decIv {
		d.Held++ // RateHold
		return
	}
	d.decrease()
	if delta < r.incIv {
		// "decrease then increase", compensating the timer: it keeps the
		// time elapsed since the previous notification
		d.increase(q)
		if d.Registered {
			d.Deadline = d.TLatest + r.timeTh
		}
	} else if d.Registered {
		// the timer events inside the gap were already applied
		d.Deadline = now + r.timeTh
	}
	d.TLatest = now
}

// advance applies the timer events due by now (inclusive: expiries at now
// included). Free-running timer: every expiry, one period apart; lazy
// timer: at most one event, and the next is TIME_TH after it.
func (d *DCQCNP) advance(q *fabric.QP, now sim.Time, inclusive bool) {
	due := func() bool { return d.Deadline < now || inclusive && d.Deadline == now }
	if !d.Registered || !due() {
		return
	}
	if d.r.p.LazyTimer {
		d.timerEvent(q)
		if d.Registered {
			d.Deadline = now + d.r.timeTh
		}
		return
	}
	for d.Registered && due() {
		d.timerEvent(q)
		if d.Registered {
			d.Deadline += d.r.timeTh
		}
	}
}

// timerEvent: T += 1, RateIncrease, AlphaStep (docs/algorithms/dcqcnp.md
// §3.2 and I16; the paper's pseudo-code lines 9–15).
func (d *DCQCNP) timerEvent(q *fabric.QP) {
	d.T++
	d.increase(q)
	g := d.r.p.G
	a := d.Alpha
	switch {
	case !d.r.piecewise:
		a = (1 - g) * a
	case a <= 0.5:
		a = min(a-1.0/25, (1-g)*a)
	default:
		a = max(a-1.0/40, (1-g)*a)
	}
	d.Alpha = max(a, 0) // docs/algorithms/dcqcnp.md I5: α never below 0
}

// decrease is RateDecrease (pseudo-code lines 2–5).
func (d *DCQCNP) decrease() {
	d.T, d.B = 0, 0
	d.Rt = d.Rc
	d.Rc = max(d.Rc*(1-d.Alpha/2), d.minFrac)
	g := d.r.p.G
	d.Alpha = (1-g)*d.Alpha + g
}

// increase is RateIncrease: additive step when T or B exceeds F (strict by
// default, docs/algorithms/dcqcnp.md I6), hyper step when both do and the
// stage is enabled, then R_c ← (R_c + R_t)/2; reaching full speed frees the
// CAM entry and sets R_t to 0 (paper).
func (d *DCQCNP) increase(q *fabric.QP) {
	F := d.r.p.F
	over := func(x int) bool { return x > F || !d.r.p.StrictAI && x == F }
	switch {
	case d.r.p.HyperIncrease && over(d.T) && over(d.B):
		d.Rt += d.rhai
	case over(d.T) || over(d.B):
		d.Rt += d.rai
	}
	d.Rc = (d.Rc + d.Rt) / 2
	if d.Rc >= 1 {
		d.Rc, d.Rt = 1, 0
		d.deregister(q)
	}
}

func (d *DCQCNP) deregister(q *fabric.QP) {
	d.Registered = false
	*d.r.camOf(q.Src)--
	d.Deadline = sim.Never
	d.Rc = 1
	q.WantSendHook = false
}

// apply sets the pacing rate: line rate × (registered ? R_c : 1).
func (d *DCQCNP) apply(q *fabric.QP) {
	if !d.Registered {
		q.SetRate(d.line)
		return
	}
	q.SetRate(int64(d.Rc * float64(d.line)))
}

func init() {
	Register(&Spec{
		Name:     "dcqcnp",
		Summary:  "DCQCN-p (Wang et al. 2025): per-mark CNPs, decrease gating D/U, g = 1/16, piecewise α, R_ai 0.2 of line rate, 512-flow CAM per NIC",
		Defaults: func() Params { return DCQCNPDefaults() },
		New: func(pp Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			// the paper's NS-3 switch configuration (§3.1): K_min 100 KiB,
			// K_max 400 KiB, P_max 0.1 (given once for its 100 and 25 Gb/s
			// ports; other speeds scale from the nearest rule)
			rule := func(bps int64) fabric.ECNRule {
				return fabric.ECNRule{Bps: bps, KminBytes: 100 << 10, KmaxBytes: 400 << 10, Pmax: 0.1}
			}
			return NewDCQCNP(pp.(*DCQCNPParams)), fabric.Requirements{AckPrio: 1, ECN: []fabric.ECNRule{rule(25e9), rule(100e9)}}
		},
	})
}

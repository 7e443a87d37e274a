package cc

import (
	"math"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// TIMELYParams are the parameters of TIMELY (Mittal et al., SIGCOMM 2015,
// Algorithm 1) with the reference simulator's values
// (docs/reference-simulator.md §6.1; docs/algorithms/timely.md).
type TIMELYParams struct {
	TLow    float64 `yaml:"t_low_us" unit:"us" doc:"T_low: below it always increase"`
	THigh   float64 `yaml:"t_high_us" unit:"us" doc:"T_high: above it decrease by β(1 − T_high/rtt)"`
	MinRTT  float64 `yaml:"min_rtt_us" unit:"us" doc:"gradient normaliser (minRTT)"`
	Alpha   float64 `yaml:"alpha" doc:"EWMA weight of the RTT difference"`
	Beta    float64 `yaml:"beta" doc:"multiplicative decrease factor β"`
	RateAI  float64 `yaml:"rate_ai_mbps" unit:"Mb/s" doc:"additive increase δ"`
	RateHAI float64 `yaml:"rate_hai_mbps" unit:"Mb/s" doc:"hyper-active increase after 5 increases (HAI)"`
	MinRate float64 `yaml:"min_rate_mbps" unit:"Mb/s" doc:"rate floor"`
	HAIN    int     `yaml:"hai_n" doc:"increases before HAI takes over (N)"`
	Window  string  `yaml:"window" doc:"none | variable | fixed (timely_vwin = variable)"`
}

// TIMELYDefaults is the reference `timely` preset at 100 Gb/s: T_low 50 µs,
// T_high 500 µs, minRTT 20 µs, α 0.875, β 0.8, AI 100 Mb/s, HAI 500 Mb/s,
// no window, min rate 1 Gb/s.
func TIMELYDefaults() *TIMELYParams {
	return &TIMELYParams{TLow: 50, THigh: 500, MinRTT: 20, Alpha: 0.875, Beta: 0.8, RateAI: 100, RateHAI: 500, MinRate: 1000, HAIN: 5, Window: "none"}
}

// Validate checks every field's range.
func (p *TIMELYParams) Validate() error {
	switch {
	case !(p.TLow >= 0 && p.TLow <= 1e6):
		return rangeErr("t_low_us", p.TLow, "0", "1e6")
	case !(p.THigh > p.TLow && p.THigh <= 1e6):
		return rangeErr("t_high_us", p.THigh, "t_low_us (exclusive)", "1e6")
	case !(p.MinRTT > 0 && p.MinRTT <= 1e6):
		return rangeErr("min_rtt_us", p.MinRTT, "0 (exclusive)", "1e6")
	case !(p.Alpha >= 0 && p.Alpha <= 1):
		return rangeErr("alpha", p.Alpha, "0", "1")
	case !(p.Beta >= 0 && p.Beta <= 1):
		return rangeErr("beta", p.Beta, "0", "1")
	case !(p.RateAI >= 0 && p.RateAI <= 1e6):
		return rangeErr("rate_ai_mbps", p.RateAI, "0", "1e6")
	case !(p.RateHAI >= 0 && p.RateHAI <= 1e6):
		return rangeErr("rate_hai_mbps", p.RateHAI, "0", "1e6")
	case !(p.MinRate > 0 && p.MinRate <= 1e7):
		return rangeErr("min_rate_mbps", p.MinRate, "0 (exclusive)", "1e7")
	case p.HAIN < 0 || p.HAIN > 1000:
		return rangeErr("hai_n", p.HAIN, "0", "1000")
	case p.Window != "variable" && p.Window != "fixed" && p.Window != "none":
		return rangeErrS("window", p.Window, "variable, fixed, none")
	}
	return nil
}

// TIMELY is one QP's sender (reference RdmaHw::UpdateRateTimely).
type TIMELY struct {
	p                   *TIMELYParams
	ai, hai, minRate    int64
	tLow, tHigh, minRTT float64 // ns
	CurRate             int64
	IncStage            int
	lastUpdateSeq       int64
	lastRTT             float64 // ns
	RTTDiff             float64 // ns, EWMA
}

// Start: line rate.
func (t *TIMELY) Start(q *fabric.QP, now sim.Time) {
	t.CurRate = q.LineRateBps
	q.SetRate(q.LineRateBps)
	applyWindow(q, t.p.Window)
}

// OnAck acts once per window of data (ACKs beyond the sequence recorded at
// the previous update): gradient-based increase or decrease.
func (t *TIMELY) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {
	if a.Seq <= t.lastUpdateSeq {
		return
	}
	rtt := float64(a.RTT) / float64(sim.Nanosecond)
	if t.lastUpdateSeq != 0 {
		al := t.p.Alpha
		newDiff := rtt - t.lastRTT
		diff := math.FMA(1-al, t.RTTDiff, float64(al*newDiff))
		gradient := diff / t.minRTT
		inc := false
		c := 0.0
		switch {
		case rtt < t.tLow:
			inc = true
		case rtt > t.tHigh:
			c = math.FMA(-t.p.Beta, 1-t.tHigh/rtt, 1)
		case gradient <= 0:
			inc = true
		default:
			c = math.Max(0, math.FMA(-t.p.Beta, gradient, 1))
		}
		if inc {
			step := t.ai
			if t.IncStage >= t.p.HAIN {
				step = t.hai
			}
			r := t.CurRate + step
			if r > q.LineRateBps {
				r = q.LineRateBps
			}
			q.SetRate(r)
			t.CurRate = r
			t.IncStage++
		} else {
			r := int64(float64(t.CurRate) * c)
			if r < t.minRate {
				r = t.minRate
			}
			q.SetRate(r)
			t.CurRate = r
			t.IncStage = 0
		}
		t.RTTDiff = diff
	}
	if q.SndNxt > t.lastUpdateSeq {
		t.lastUpdateSeq = q.SndNxt
		t.lastRTT = rtt
	}
}

// OnNotice is unused.
func (t *TIMELY) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {}

// OnTimer is unused.
func (t *TIMELY) OnTimer(q *fabric.QP, id int, now sim.Time) {}

// OnSend is unused.
func (t *TIMELY) OnSend(q *fabric.QP, size int, now sim.Time) {}

func init() {
	Register(&Spec{
		Name:     "timely",
		Summary:  "TIMELY (RTT gradient), reference preset: T_low 50 µs, T_high 500 µs, minRTT 20 µs, α 0.875, β 0.8, AI 100, HAI 500 Mb/s",
		Defaults: func() Params { return TIMELYDefaults() },
		New: func(pp Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			p := pp.(*TIMELYParams)
			return func(q *fabric.QP) fabric.Algorithm {
				return &TIMELY{p: p, ai: mbpsToBps(p.RateAI), hai: mbpsToBps(p.RateHAI), minRate: mbpsToBps(p.MinRate),
					tLow: p.TLow * 1e3, tHigh: p.THigh * 1e3, minRTT: p.MinRTT * 1e3}
			}, fabric.Requirements{Timestamp: true, AckPrio: 1}
		},
	})
}

package cc

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// HPCCParams are HPCC's parameters (Li et al., "HPCC: High Precision
// Congestion Control", SIGCOMM 2019, Algorithm 1), named as in the paper
// and the reference simulator (docs/reference-simulator.md §5;
// docs/algorithms/hpcc.md).
type HPCCParams struct {
	Eta       float64 `yaml:"eta" doc:"target utilisation η (U_TARGET)"`
	MaxStage  int     `yaml:"max_stage" doc:"maxStage (MI_THRESH): additive-increase stages before a multiplicative update; 0 = always multiplicative"`
	RateAI    float64 `yaml:"rate_ai_mbps" unit:"Mb/s" doc:"additive increase R_AI (W_AI = R_AI × T); hp95ai50: 50"`
	MinRate   float64 `yaml:"min_rate_mbps" unit:"Mb/s" doc:"rate floor"`
	FastReact bool    `yaml:"fast_react" doc:"react on every ACK (per-ACK rate from the committed reference rate)"`
	// IntMulti scales the INT units as the reference's INT_MULTI (bytes in
	// 128·m B, queue in 80·m B); 0 disables quantisation (exact values).
	IntMulti       int  `yaml:"int_multi" doc:"INT field unit multiplier (bytes 128·m B, qlen 80·m B, time 1 ns mod 2^24); 0 = exact telemetry"`
	SampleFeedback bool `yaml:"sample_feedback" doc:"on fast reactions skip hops with an empty queue"`
	// Window: "variable" (window = BDP × rate / line rate, VAR_WIN),
	// "fixed" (one BDP) or "none" (rate only; HPCC needs a window for u, so
	// the BDP is still used as W in the utilisation estimate).
	Window string `yaml:"window" doc:"variable | fixed | none"`
}

// HPCCDefaults is the reference simulator's `hp95ai50` preset (run.py --cc
// hp --hpai 50 --bw 100): η 0.95, R_AI 50 Mb/s, maxStage 0, fast react,
// INT_MULTI 4, variable window, min rate 1 Gb/s.
func HPCCDefaults() *HPCCParams {
	return &HPCCParams{Eta: 0.95, MaxStage: 0, RateAI: 50, MinRate: 1000, FastReact: true, IntMulti: 4, Window: "variable"}
}

// Validate checks every field's range.
func (p *HPCCParams) Validate() error {
	switch {
	case !(p.Eta > 0 && p.Eta <= 1):
		return rangeErr("eta", p.Eta, "0 (exclusive)", "1")
	case p.MaxStage < 0 || p.MaxStage > 1000:
		return rangeErr("max_stage", p.MaxStage, "0", "1000")
	case !(p.RateAI >= 0 && p.RateAI <= 1e6):
		return rangeErr("rate_ai_mbps", p.RateAI, "0", "1e6")
	case !(p.MinRate > 0 && p.MinRate <= 1e7):
		return rangeErr("min_rate_mbps", p.MinRate, "0 (exclusive)", "1e7")
	case p.IntMulti < 0 || p.IntMulti > 1024:
		return rangeErr("int_multi", p.IntMulti, "0", "1024")
	case p.Window != "variable" && p.Window != "fixed" && p.Window != "none":
		return fmt.Errorf("window = %q: allowed values variable, fixed, none", p.Window)
	}
	return nil
}

// hpccHop is a hop record as the sender stores it: quantised like the
// reference's 64-bit INT hop (time 24 bits of ns, bytes 20 bits of
// 128·m B, qlen 17 bits of 80·m B) unless quantisation is off.
type hpccHop struct {
	ts    int64 // ns (mod 2^24 when quantised)
	bytes int64 // units
	qlen  int64 // units
	bps   int64
}

type hpccConst struct {
	p                  HPCCParams
	ai, minRate        int64
	byteUnit, qlenUnit int64
	quant              bool
	// with a power-of-two INT_MULTI the unit divisions become shifts:
	// bytes / (128·m) = bytes >> byteShift, qlen / (80·m) = (qlen >>
	// qlenShift) / 5 (nested floor divisions of non-negative integers)
	pow2                 bool
	byteShift, qlenShift uint
}

// HPCC is one QP's HPCC sender (reference RdmaHw::HandleAckHp, single-rate
// mode).
type HPCC struct {
	c             *hpccConst
	CurRate       int64   // committed reference rate R_c, b/s
	IncStage      int     // additive-increase stage
	U             float64 // EWMA of the normalised in-flight estimate (starts at 1)
	lastUpdateSeq int64
	// Updates counts the ACKs that ran Algorithm 1 (fast reactions and
	// full updates): HPCC's decisions (DecisionCount).
	Updates int64
	hops    [fabric.MaxIntHops]hpccHop
}

// NewHPCC returns a per-QP constructor.
func NewHPCC(p *HPCCParams) func(q *fabric.QP) fabric.Algorithm {
	c := &hpccConst{p: *p, ai: mbpsToBps(p.RateAI), minRate: mbpsToBps(p.MinRate), quant: p.IntMulti > 0}
	if c.quant {
		c.byteUnit, c.qlenUnit = 128*int64(p.IntMulti), 80*int64(p.IntMulti)
		if m := p.IntMulti; m&(m-1) == 0 {
			c.pow2 = true
			c.byteShift = uint(bits.TrailingZeros(uint(128 * m)))
			c.qlenShift = uint(bits.TrailingZeros(uint(16 * m)))
		}
	}
	return func(q *fabric.QP) fabric.Algorithm { return &HPCC{c: c} }
}

// Start: rate = line rate, u = 1, window = BDP (variable with the rate).
func (h *HPCC) Start(q *fabric.QP, now sim.Time) {
	h.CurRate = q.LineRateBps
	h.U = 1
	q.SetRate(q.LineRateBps)
	applyWindow(q, h.c.p.Window)
}

func (h *HPCC) record(r *fabric.IntHop) hpccHop {
	if !h.c.quant {
		return hpccHop{ts: int64(r.TS), bytes: r.TxBytes, qlen: r.QLen, bps: r.Bps}
	}
	var b, ql int64
	if h.c.pow2 {
		b, ql = r.TxBytes>>h.c.byteShift, (r.QLen>>h.c.qlenShift)/5
	} else {
		b, ql = r.TxBytes/h.c.byteUnit, r.QLen/h.c.qlenUnit
	}
	return hpccHop{
		ts:    int64(r.TS/sim.Nanosecond) & (1<<24 - 1),
		bytes: b & (1<<20 - 1),
		qlen:  ql & (1<<17 - 1),
		bps:   r.Bps,
	}
}

// deltas returns the time (ns) and byte differences between two records,
// handling one wrap of the quantised fields.
func (h *HPCC) deltas(cur, old *hpccHop) (tauNs float64, bytes int64) {
	if !h.c.quant {
		return float64(cur.ts-old.ts) / float64(sim.Nanosecond), cur.bytes - old.bytes
	}
	dt := cur.ts - old.ts
	if dt < 0 {
		dt += 1 << 24
	}
	db := cur.bytes - old.bytes
	if db < 0 {
		db += 1 << 20
	}
	return float64(dt), db * h.c.byteUnit
}

func (h *HPCC) qlenBytes(r *hpccHop) int64 {
	if !h.c.quant {
		return r.qlen
	}
	return r.qlen * h.c.qlenUnit
}

// OnAck runs a full update once per RTT (when the ACK passes the sequence
// recorded at the previous full update) and a fast reaction otherwise.
func (h *HPCC) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {
	if a.Seq > h.lastUpdateSeq {
		h.update(q, a, false)
	} else if h.c.p.FastReact {
		h.update(q, a, true)
	}
}

// update is Algorithm 1 of the paper as the reference codes it
// (docs/reference-simulator.md §5.2): per hop u = txRate/B + min(qlen, qlen')/(B·T)·...;
// U = the largest; EWMA with weight τ/T; multiplicative (U/η) or additive
// step; fast reactions move only the pacing rate, full updates commit it.
func (h *HPCC) update(q *fabric.QP, a *fabric.AckInfo, fast bool) {
	h.Updates++
	n := len(a.Hops)
	if h.lastUpdateSeq == 0 {
		h.lastUpdateSeq = q.SndNxt
		for i := 0; i < n; i++ {
			h.hops[i] = h.record(&a.Hops[i])
		}
		return
	}
	if a.NHop <= fabric.MaxIntHops && n > 0 {
		T := float64(q.BaseRTT) / float64(sim.Nanosecond)
		win := float64(q.BDPBytes)
		maxRate := float64(q.LineRateBps)
		U, dt := 0.0, 0.0
		any := false
		for i := 0; i < n; i++ {
			cur := h.record(&a.Hops[i])
			if h.c.p.SampleFeedback && fast && cur.qlen == 0 {
				continue
			}
			old := &h.hops[i]
			tau, db := h.deltas(&cur, old)
			if tau <= 0 {
				// two records of one flow at one hop are at least a
				// serialization time apart; a zero gap only follows a
				// go-back-N resend: skip the hop rather than divide by 0
				*old = cur
				continue
			}
			any = true
			lr := float64(cur.bps)
			txRate := float64(db*8) / float64(tau*1e-9)
			ql := h.qlenBytes(&cur)
			if o := h.qlenBytes(old); o < ql {
				ql = o
			}
			u := txRate/lr + float64(float64(ql)*maxRate)/lr/win
			if u > U {
				U, dt = u, tau
			}
			*old = cur
		}
		if any {
			if dt > T {
				dt = T
			}
			h.U = math.FMA(h.U, T-dt, float64(dt*U)) / T
			c := h.U / h.c.p.Eta
			var nr int64
			stage := 0
			if c >= 1 || h.IncStage >= h.c.p.MaxStage {
				nr = int64(float64(h.CurRate)/c) + h.c.ai
			} else {
				nr = h.CurRate + h.c.ai
				stage = h.IncStage + 1
			}
			if nr < h.c.minRate {
				nr = h.c.minRate
			}
			if nr > q.LineRateBps {
				nr = q.LineRateBps
			}
			q.SetRateRepace(nr)
			if !fast {
				h.CurRate = nr
				h.IncStage = stage
			}
		}
	}
	if !fast && q.SndNxt > h.lastUpdateSeq {
		h.lastUpdateSeq = q.SndNxt
	}
}

// OnNotice is unused by HPCC.
func (h *HPCC) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {}

// OnTimer is unused by HPCC.
func (h *HPCC) OnTimer(q *fabric.QP, id int, now sim.Time) {}

// OnSend is unused by HPCC.
func (h *HPCC) OnSend(q *fabric.QP, size int, now sim.Time) {}

func init() {
	Register(&Spec{
		Name:     "hpcc",
		Summary:  "HPCC (INT-based), reference preset hp95ai50: η 0.95, AI 50 Mb/s, maxStage 0, fast react, variable window",
		Defaults: func() Params { return HPCCDefaults() },
		New: func(p Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			return NewHPCC(p.(*HPCCParams)), fabric.Requirements{INT: true, AckPrio: -1}
		},
	})
}

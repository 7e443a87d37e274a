package cc

import (
	"math"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// DCTCPParams are the parameters of DCTCP (Alizadeh et al., SIGCOMM 2010)
// in the RDMA rate/window form of the reference simulator
// (docs/reference-simulator.md §6.2, RdmaHw::HandleAckDctcp;
// docs/algorithms/dctcp.md).
type DCTCPParams struct {
	G        float64 `yaml:"g" doc:"EWMA gain of α (the marked fraction estimate)"`
	RateAI   float64 `yaml:"rate_ai_mbps" unit:"Mb/s" doc:"additive increase per window of ACKs (DCTCP_RATE_AI; 615 = 1 MTU per 13 µs)"`
	MinRate  float64 `yaml:"min_rate_mbps" unit:"Mb/s" doc:"rate floor"`
	K        float64 `yaml:"k_kb" unit:"KB" doc:"switch marking threshold K at 100 Gb/s (step marking, scaled with link speed); the preset's K_min = K_max = 30·bw/10 KB"`
	Window   string  `yaml:"window" doc:"variable | fixed | none"`
	MTUBytes int     `yaml:"mtu_bytes" doc:"bytes per packet used to count a window of ACKs (0 = the fabric's payload size)"`
}

// DCTCPDefaults is the reference `dctcp` preset at 100 Gb/s: g = 1/16,
// rate AI 615 Mb/s, K = 300 KB (1200 KB at 400 Gb/s) with P_max 1,
// variable window, min rate 1 Gb/s.
func DCTCPDefaults() *DCTCPParams {
	return &DCTCPParams{G: 1.0 / 16, RateAI: 615, MinRate: 1000, K: 300, Window: "variable"}
}

// Validate checks every field's range.
func (p *DCTCPParams) Validate() error {
	switch {
	case !(p.G > 0 && p.G <= 1):
		return rangeErr("g", p.G, "0 (exclusive)", "1")
	case !(p.RateAI >= 0 && p.RateAI <= 1e6):
		return rangeErr("rate_ai_mbps", p.RateAI, "0", "1e6")
	case !(p.MinRate > 0 && p.MinRate <= 1e7):
		return rangeErr("min_rate_mbps", p.MinRate, "0 (exclusive)", "1e7")
	case !(p.K > 0 && p.K <= 1e7):
		return rangeErr("k_kb", p.K, "0 (exclusive)", "1e7")
	case p.Window != "variable" && p.Window != "fixed" && p.Window != "none":
		return rangeErrS("window", p.Window, "variable, fixed, none")
	case p.MTUBytes < 0 || p.MTUBytes > 9000:
		return rangeErr("mtu_bytes", p.MTUBytes, "0", "9000")
	}
	return nil
}

// DCTCP is one QP's sender.
type DCTCP struct {
	p             *DCTCPParams
	ai, minRate   int64
	mtu           int64
	Alpha         float64
	ecnCnt        int64
	batch         int64
	lastUpdateSeq int64
	inCWR         bool
	highSeq       int64
}

// Start: α = 1, line rate, window = BDP.
func (d *DCTCP) Start(q *fabric.QP, now sim.Time) {
	d.Alpha = 1
	q.SetRate(q.LineRateBps)
	applyWindow(q, d.p.Window)
}

// OnAck: per-window α update from the marked fraction, one multiplicative
// cut per window of data (CWR), additive increase once per window.
func (d *DCTCP) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {
	if a.CNP {
		d.ecnCnt++
	}
	newBatch := false
	if a.Seq > d.lastUpdateSeq {
		newBatch = true
		if d.lastUpdateSeq == 0 {
			d.lastUpdateSeq = q.SndNxt
			d.batch = q.SndNxt/d.mtu + 1
		} else {
			frac := float64(d.ecnCnt) / float64(d.batch)
			if frac > 1 {
				frac = 1
			}
			g := d.p.G
			d.Alpha = math.FMA(1-g, d.Alpha, float64(g*frac))
			d.lastUpdateSeq = q.SndNxt
			d.ecnCnt = 0
			d.batch = (q.SndNxt-a.Seq)/d.mtu + 1
		}
	}
	if d.inCWR && a.Seq > d.highSeq {
		d.inCWR = false
	}
	if a.CNP && !d.inCWR {
		r := int64(float64(q.RateBps) * (1 - d.Alpha/2))
		if r < d.minRate {
			r = d.minRate
		}
		q.SetRate(r)
		d.inCWR = true
		d.highSeq = q.SndNxt
	}
	if !d.inCWR && newBatch {
		r := q.RateBps + d.ai
		if r > q.LineRateBps {
			r = q.LineRateBps
		}
		q.SetRate(r)
	}
}

// OnNotice is unused.
func (d *DCTCP) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {}

// OnTimer is unused.
func (d *DCTCP) OnTimer(q *fabric.QP, id int, now sim.Time) {}

// OnSend is unused.
func (d *DCTCP) OnSend(q *fabric.QP, size int, now sim.Time) {}

// applyWindow sets a QP's window from a "variable | fixed | none" setting.
func applyWindow(q *fabric.QP, mode string) {
	switch mode {
	case "variable":
		q.SetWindow(q.BDPBytes)
		q.VarWindow = true
	case "fixed":
		q.SetWindow(q.BDPBytes)
	}
}

func init() {
	Register(&Spec{
		Name:     "dctcp",
		Summary:  "DCTCP, the reference simulator's RDMA form: g 1/16, rate AI 615 Mb/s, step ECN at K = 300 KB (100 G), variable window",
		Defaults: func() Params { return DCTCPDefaults() },
		New: func(pp Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			p := pp.(*DCTCPParams)
			k := int64(p.K * 1000)
			req := fabric.Requirements{AckPrio: -1, ECN: []fabric.ECNRule{
				{Bps: 100e9, KminBytes: k, KmaxBytes: k, Pmax: 1},
				{Bps: 400e9, KminBytes: 4 * k, KmaxBytes: 4 * k, Pmax: 1},
			}}
			return func(q *fabric.QP) fabric.Algorithm {
				mtu := int64(p.MTUBytes)
				if mtu == 0 {
					mtu = q.PayloadBytes()
				}
				return &DCTCP{p: p, ai: mbpsToBps(p.RateAI), minRate: mbpsToBps(p.MinRate), mtu: mtu}
			}, req
		},
	})
}

package cc

import (
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// PCN (Cheng et al., "Re-architecting Congestion Management in Lossless
// Ethernet", NSDI 2020) has three parts, all in this file:
//
//   - switch (CP), NP-ECN (non-PAUSE ECN): an egress port marks a data
//     packet at dequeue when its queue is above a threshold — but not the
//     packets that were already queued when the port came out of a PFC
//     pause: that backlog is the pause's doing, not congestion of the port.
//   - receiver (NP), congested-flow identification: every interval T it
//     measures the flow's receive rate and the share of NP-ECN-marked
//     packets and sends a CNP carrying the rate and whether the flow is
//     congested (at least 95 % of its packets marked).
//   - sender (RP), receiver-driven rate adjustment: a congested CNP sets
//     the rate slightly below the measured receive rate — the flow's share
//     of the congested port, so the target is reached within one RTT + T —
//     and restarts the weight ω; a CNP of a flow that is not congested
//     moves the rate towards line rate with a weight that grows slowly at
//     first, then fast:
//
//         congested:     R ← min(R, R_recv·(1 − ω_min));  ω ← ω_min
//         not congested: R ← (1 − ω)·R + ω·R_line;        ω ← ω·(1 − ω) + ω·ω_max
//
//     so ω_{k+1} = ω_k·(1 + ω_max − ω_k) tends to ω_max.
//
// Sources and interpretations (ids) are in docs/algorithms/pcn.md: the
// laws are those the project's revision request states for the paper and
// those of a third-party ns-3 port, which agree; the paper's text itself
// could not be read when this was written.
//   - I1: NP-ECN counts the pause backlog in bytes: the queue at the first
//     dequeue after the port received a PAUSE frame (PortStats.PauseRx
//     changed; a pause of any class counts) leaves unmarked.
//   - I2: the rate is updated with the old ω, then ω; rates are rounded
//     to the nearest b/s.
//   - I3: the receiver's interval is closed by the first packet that
//     arrives T or more after it started, which also starts the next one;
//     no packet, no CNP.
//   - I4: the receive rate counts wire bytes (payload + 48-byte header),
//     the unit of the sender's pacing rate.
//   - I6: a 100 Mb/s rate floor (not part of the law as established).

// PCNParams are PCN's parameters.
type PCNParams struct {
	ECNThreshold int64   `yaml:"np_ecn_threshold_bytes" unit:"B" doc:"NP-ECN: mark at dequeue when the egress queue (all classes) exceeds this (value not established from the paper; ccsim: DCQCN's K_min 5 KiB, I5)"`
	Interval     float64 `yaml:"cnp_interval_us" unit:"us" doc:"T: receiver measurement and CNP period (PCN: 50 µs, DCQCN's CNP timer)"`
	CongRatio    float64 `yaml:"congested_ratio" doc:"NP: a flow is congested when at least this share of its packets in T was marked (PCN: 95 %)"`
	WMin         float64 `yaml:"w_min" doc:"ω_min: decrease margin, R ← R_recv·(1 − ω_min), and ω after a congested CNP (1/128; not verified against the paper's text, a third-party port uses 1/64, I7)"`
	WMax         float64 `yaml:"w_max" doc:"ω_max: limit of the increase weight, ω ← ω(1 − ω) + ω·ω_max (0.5, as the third-party port; not verified against the paper's text, I7)"`
	MinRate      float64 `yaml:"min_rate_mbps" unit:"Mb/s" doc:"rate floor (not part of PCN's law as established; 100 Mb/s, the reference simulator's default MinRate and the third-party port's floor, I6)"`
	NPECN        bool    `yaml:"np_ecn" doc:"leave the backlog of a PFC pause unmarked (PCN's NP-ECN, true); false marks it like plain threshold ECN (ablation)"`
}

// PCNDefaults returns PCN's defaults (see PCNParams).
func PCNDefaults() *PCNParams {
	return &PCNParams{
		ECNThreshold: 5 << 10,
		Interval:     50,
		CongRatio:    0.95,
		WMin:         1.0 / 128,
		WMax:         0.5,
		MinRate:      100,
		NPECN:        true,
	}
}

// Validate checks every field's range (comparisons written so NaN fails).
func (p *PCNParams) Validate() error {
	switch {
	case p.ECNThreshold < 0 || p.ECNThreshold > 1<<40:
		return rangeErr("np_ecn_threshold_bytes", p.ECNThreshold, "0", "2^40")
	case !(p.Interval >= 1e-3 && p.Interval <= 1e6):
		return rangeErr("cnp_interval_us", p.Interval, "0.001", "1e6")
	case !(p.CongRatio > 0 && p.CongRatio <= 1):
		return rangeErr("congested_ratio", p.CongRatio, "0 (exclusive)", "1")
	case !(p.WMin > 0 && p.WMin < 1):
		return rangeErr("w_min", p.WMin, "0 (exclusive)", "1 (exclusive)")
	case !(p.WMax >= p.WMin && p.WMax <= 1):
		return rangeErr("w_max", p.WMax, "w_min", "1")
	case !(p.MinRate > 0 && p.MinRate <= 1e7):
		return rangeErr("min_rate_mbps", p.MinRate, "0 (exclusive)", "1e7")
	}
	return nil
}

// PCNMark is the bit of Packet.Mark that NP-ECN sets.
const PCNMark uint8 = 1

// PCNArg packs a CNP's payload: the receive rate in b/s and the congested
// flag (low bit).
func PCNArg(rateBps int64, congested bool) int64 {
	a := rateBps << 1
	if congested {
		a |= 1
	}
	return a
}

// DecodePCNArg unpacks PCNArg.
func DecodePCNArg(arg int64) (rateBps int64, congested bool) { return arg >> 1, arg&1 != 0 }

// PCN is one QP's sender and receiver (both live on the QP).
type PCN struct {
	p        *PCNParams
	interval sim.Time

	// sender
	RateBps int64   // current rate R_C
	W       float64 // rate-increase weight ω
	minRate int64

	// receiver: the current interval started at RxStart with the arrival
	// of a boundary packet (counted in the previous interval)
	RxStart                sim.Time
	rxOn                   bool
	rxBytes, rxPkts, rxMrk int64
}

// NewPCN returns a per-QP constructor for p (which must be valid).
func NewPCN(p *PCNParams) func(q *fabric.QP) fabric.Algorithm {
	iv := usToTime(p.Interval)
	return func(q *fabric.QP) fabric.Algorithm {
		return &PCN{p: p, interval: iv, minRate: mbpsToBps(p.MinRate)}
	}
}

// Start: line rate, ω = ω_min.
func (c *PCN) Start(q *fabric.QP, now sim.Time) {
	c.RateBps = q.LineRateBps
	c.W = c.p.WMin
	q.SetRate(c.RateBps)
}

// OnDataReceived is the receiver (NP): count the packet; when the interval
// is over, send a CNP with the receive rate (wire bytes of the packets
// after the boundary packet over the time since it) and the congested flag
// (marked packets ≥ congested_ratio × packets of the interval).
func (c *PCN) OnDataReceived(q *fabric.QP, ecn bool, payloadBytes int, mark uint8, now sim.Time) (bool, int64) {
	c.rxPkts++
	if mark&PCNMark != 0 {
		c.rxMrk++
	}
	if !c.rxOn {
		c.rxOn = true
		c.RxStart = now
		return false, 0
	}
	c.rxBytes += int64(payloadBytes) + fabric.DataHeaderBytes
	el := now - c.RxStart
	if el < c.interval {
		return false, 0
	}
	rate := int64(float64(c.rxBytes) * 8 * float64(sim.Second) / float64(el))
	congested := float64(c.rxMrk) >= c.p.CongRatio*float64(c.rxPkts)
	c.RxStart = now
	c.rxBytes, c.rxPkts, c.rxMrk = 0, 0, 0
	return true, PCNArg(rate, congested)
}

// OnNotice is the sender's (RP's) receiver-driven rate adjustment on the
// receiver's CNP (see the laws at the top of the file).
func (c *PCN) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {
	if n.Kind != fabric.KindCNP {
		return
	}
	recv, congested := DecodePCNArg(n.Arg)
	line := q.LineRateBps
	if congested {
		c.RateBps = min(c.RateBps, int64(float64(recv)*(1-c.p.WMin)+0.5))
		c.W = c.p.WMin
	} else {
		w := c.W
		c.RateBps = int64((1-w)*float64(c.RateBps) + w*float64(line) + 0.5)
		c.W = w*(1-w) + w*c.p.WMax
	}
	c.RateBps = max(min(c.RateBps, line), c.minRate)
	q.SetRate(c.RateBps)
}

// OnAck is unused: PCN's feedback is the receiver's CNP.
func (c *PCN) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {}

// OnTimer is unused.
func (c *PCN) OnTimer(q *fabric.QP, id int, now sim.Time) {}

// OnSend is unused.
func (c *PCN) OnSend(q *fabric.QP, size int, now sim.Time) {}

func init() {
	Register(&Spec{
		Name:     "pcn",
		Summary:  "PCN (Cheng et al. 2020): NP-ECN at switches (no marks for PFC backlog), receiver CNP every 50 µs with receive rate and congestion (≥ 95 % marked), receiver-driven rate (R_recv·(1 − ω_min) when congested, else towards line rate)",
		Defaults: func() Params { return PCNDefaults() },
		New: func(pp Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			return NewPCN(pp.(*PCNParams)), fabric.Requirements{}
		},
		Switch: func(pp Params) (func(sw *fabric.SwitchView) fabric.SwitchFeature, sim.Time) {
			p := pp.(*PCNParams)
			return func(sw *fabric.SwitchView) fabric.SwitchFeature { return newPCNSwitch(p, sw) }, 0
		},
	})
}

package cc

import (
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// PCN (Cheng et al., "Re-architecting Congestion Management in Lossless
// Ethernet", NSDI 2020) has three parts, all in this file:
//
//   - switch, NP-ECN (non-PAUSE ECN): an egress port marks a data packet at
//     dequeue when its queue is above a threshold — but not the packets
//     that were already queued when the port came out of a PFC pause: that
//     backlog is the pause's doing, not congestion of the port (flows of a
//     paused port are "undetermined", not "congested").
//   - receiver: every interval T it measures the flow's receive rate and
//     the fraction of NP-ECN-marked packets and sends a CNP carrying both;
//     the flow is congested when the fraction reaches 95 %.
//   - sender, receiver-driven rate adjustment: a congested CNP sets the
//     rate to the measured receive rate — the flow's share of the congested
//     port, so the target is reached within one RTT — reduced by the weight
//     ω so that the queue drains: R ← min(R, R_recv·(1 − ω)); a CNP without
//     marks moves the rate towards line rate, R ← (1 − ω)·R + ω·R_line; ω
//     stays within [w_min, w_max].
//
// Interpretations. The paper's text was not available while this was
// written: the mechanism follows the description above (and the project
// brief), the details below are ours and were checked on an 8:1 incast:
//   - NP-ECN counts the pause backlog in bytes: the queue at the first
//     dequeue after the port received a PAUSE frame (PortStats.PauseRx
//     changed; a pause of any class counts) leaves unmarked. Packets that
//     arrive later are marked if the queue stays above the threshold: the
//     port is then busy and not paused, i.e. congested.
//   - ω restarts at w_min whenever the flow's state flips between
//     congested and not congested. Under persistent congestion it doubles
//     per CNP, so a standing queue (e.g. built while flows started at line
//     rate) drains geometrically faster: with every flow at R_recv·(1 − ω)
//     the port drains at ω of its rate. While uncongested it grows by w_min
//     per CNP: an increase that doubled ω overshot the port several times
//     over within the 50 µs detection delay.
//   - An interval with some marked packets but fewer than 95 % holds the
//     rate (neither congested nor free).
//   - The receive rate counts wire bytes (payload + 48-byte header), the
//     unit of the sender's pacing rate.

// PCNParams are PCN's parameters.
type PCNParams struct {
	ECNThreshold int64   `yaml:"np_ecn_threshold_bytes" unit:"B" doc:"NP-ECN: mark at dequeue when the egress queue (all classes) exceeds this (interpretation: DCQCN's K_min 5 KiB)"`
	Interval     float64 `yaml:"cnp_interval_us" unit:"us" doc:"T: receiver measurement and CNP period (the DCQCN notification-point timer, 50 µs)"`
	CongRatio    float64 `yaml:"congested_ratio" doc:"a flow is congested when this fraction of its packets in T was marked (95 %)"`
	WMin         float64 `yaml:"w_min" doc:"smallest rate-adjustment weight ω (1/128)"`
	WMax         float64 `yaml:"w_max" doc:"largest rate-adjustment weight ω (0.5)"`
	MinRate      float64 `yaml:"min_rate_mbps" unit:"Mb/s" doc:"rate floor (not in the paper; the reference simulator's MIN_RATE)"`
	NPECN        bool    `yaml:"np_ecn" doc:"leave the backlog of a PFC pause unmarked (true); false marks it like plain threshold ECN (ablation)"`
}

// PCNDefaults returns PCN's defaults (see PCNParams).
func PCNDefaults() *PCNParams {
	return &PCNParams{
		ECNThreshold: 5 << 10,
		Interval:     50,
		CongRatio:    0.95,
		WMin:         1.0 / 128,
		WMax:         0.5,
		MinRate:      1000,
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
	case !(p.WMin > 0 && p.WMin <= 1):
		return rangeErr("w_min", p.WMin, "0 (exclusive)", "1")
	case !(p.WMax >= p.WMin && p.WMax <= 1):
		return rangeErr("w_max", p.WMax, "w_min", "1")
	case !(p.MinRate > 0 && p.MinRate <= 1e7):
		return rangeErr("min_rate_mbps", p.MinRate, "0 (exclusive)", "1e7")
	}
	return nil
}

// PCNMark is the bit of Packet.Mark that NP-ECN sets.
const PCNMark uint8 = 1

// PCN congestion states a receiver reports for one interval.
const (
	PCNClean     = 0 // no marked packet
	PCNPartial   = 1 // some marked packets, fewer than congested_ratio
	PCNCongested = 2 // at least congested_ratio of the packets marked
)

// PCNArg packs a CNP's payload: the receive rate in b/s and the state
// (low two bits).
func PCNArg(rateBps int64, state int) int64 { return rateBps<<2 | int64(state&3) }

// DecodePCNArg unpacks PCNArg.
func DecodePCNArg(arg int64) (rateBps int64, state int) { return arg >> 2, int(arg & 3) }

// pcnSwitch is NP-ECN at one switch.
type pcnSwitch struct {
	first     int32
	threshold int64
	npECN     bool
	lastPause []int64 // per egress port: PauseRx seen at the last dequeue
	skip      []int64 // per egress port: pause backlog still to leave unmarked
}

func (s *pcnSwitch) OnEnqueue(n *fabric.Network, sw int32, in, out int32, p *fabric.Packet, now sim.Time) {
}

// OnDequeue marks a departing data packet when the port's queue exceeds the
// threshold, except while the backlog found at the end of a pause leaves.
// Hooks run only for packets of the paused-able classes (not class 0), so
// a class's dequeue after a PAUSE frame happens after its resume; the
// first such dequeue fixes the backlog.
func (s *pcnSwitch) OnDequeue(n *fabric.Network, sw int32, out int32, p *fabric.Packet, now sim.Time) {
	port := &n.Ports[out]
	i := out - s.first
	if rx := port.Stats.PauseRx; rx != s.lastPause[i] && s.npECN {
		s.lastPause[i] = rx
		s.skip[i] = port.QueueBytes() + int64(p.Size)
	}
	if s.skip[i] > 0 {
		s.skip[i] -= int64(p.Size)
		return
	}
	if p.Kind == fabric.KindData && port.QueueBytes() > s.threshold {
		p.Mark |= PCNMark
	}
}

func (s *pcnSwitch) OnPeriod(n *fabric.Network, sw int32, now sim.Time) {}

// PCN is one QP's sender and receiver (both live on the QP).
type PCN struct {
	p        *PCNParams
	interval sim.Time

	// sender
	RateBps   int64   // current rate R_C
	W         float64 // rate-adjustment weight ω
	congested bool    // the last CNP said congested
	minRate   int64

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
		return &PCN{p: p, interval: iv, minRate: int64(p.MinRate * 1e6)}
	}
}

// Start: line rate, ω = w_min.
func (c *PCN) Start(q *fabric.QP, now sim.Time) {
	c.RateBps = q.LineRateBps
	c.W = c.p.WMin
	q.SetRate(c.RateBps)
}

// OnDataReceived is the receiver: count the packet; when the interval is
// over, send a CNP with the receive rate (wire bytes of the packets after
// the boundary packet over the time since it) and the congested flag.
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
	state := PCNClean
	switch {
	case float64(c.rxMrk) >= c.p.CongRatio*float64(c.rxPkts):
		state = PCNCongested
	case c.rxMrk > 0:
		state = PCNPartial
	}
	c.RxStart = now
	c.rxBytes, c.rxPkts, c.rxMrk = 0, 0, 0
	return true, PCNArg(rate, state)
}

// OnNotice is the sender's reaction to the receiver's CNP.
func (c *PCN) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {
	if n.Kind != fabric.KindCNP {
		return
	}
	recv, state := DecodePCNArg(n.Arg)
	line := q.LineRateBps
	if state == PCNPartial {
		return // some marks, fewer than congested_ratio: hold
	}
	congested := state == PCNCongested
	if congested != c.congested {
		c.congested = congested
		c.W = c.p.WMin // the state flipped: start gently
	}
	if congested {
		c.RateBps = min(c.RateBps, int64(float64(recv)*(1-c.W)))
		c.W = min(2*c.W, c.p.WMax)
	} else {
		c.RateBps = int64((1-c.W)*float64(c.RateBps) + c.W*float64(line))
		c.W = min(c.W+c.p.WMin, c.p.WMax)
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
		Summary:  "PCN (Cheng et al. 2020): NP-ECN at switches (no marks for PFC backlog), receiver CNP every 50 µs with receive rate and congestion (≥ 95 % marked), receiver-driven rate",
		Defaults: func() Params { return PCNDefaults() },
		New: func(pp Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			return NewPCN(pp.(*PCNParams)), fabric.Requirements{}
		},
		Switch: func(pp Params) (func(n *fabric.Network, sw int32) fabric.SwitchFeature, sim.Time) {
			p := pp.(*PCNParams)
			return func(n *fabric.Network, sw int32) fabric.SwitchFeature {
				nd := &n.Nodes[sw]
				return &pcnSwitch{first: nd.FirstPort, threshold: p.ECNThreshold, npECN: p.NPECN,
					lastPause: make([]int64, nd.NumPorts), skip: make([]int64, nd.NumPorts)}
			}, 0
		},
	})
}

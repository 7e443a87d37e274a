package cc

import (
	"math"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// Bolt (Arslan et al., "Bolt: Sub-RTT Congestion Control for Ultra-Low
// Latency", NSDI 2023) keeps a window in packets and combines three
// mechanisms:
//
//   - SRC, sub-RTT control: a switch whose egress queue holds CC_THRESH or
//     more when a data packet arrives sends a source congestion
//     notification straight back to the packet's sender, carrying the
//     queue occupancy, the link rate and the packet's send time; only the
//     first congested switch on the path does (the packet is flagged DEC).
//     The sender decrements cwnd by one packet, at most once per
//     rtt_src / target_q, where rtt_src is the time from sending the
//     packet to receiving the SRC and target_q = queue (packets) × flow
//     rate / link rate is this flow's share of the queue to drain.
//   - PRU, proactive ramp-up: senders flag the packets of their last
//     window LAST (and of their first window FIRST); a LAST, non-FIRST
//     packet arriving at an uncongested port adds a token there: capacity
//     that will free up within an RTT when the flow ends.
//   - SM, supply matching: a port accumulates supply tokens (link rate ×
//     time − bytes arriving); a packet flagged INC (a sender asking for
//     more, i.e. not in its first or last window) keeps the flag if a PRU
//     token or a packet's worth of supply is available, which it consumes;
//     otherwise the flag is cleared. The receiver echoes the flag on the
//     ACK and the sender adds one packet to cwnd.
//
// Besides, cwnd grows by ai packets once per RTT (when the ACK number
// passes the sequence number sent at the previous increase).
//
// Interpretations and simplifications (the paper's text was not available
// while this was written; the mechanism follows the description above, the
// details follow the Bolt authors' public ns-3 simulator,
// serhatarslan-hub/bolt_cc_ns3): the queue compared with CC_THRESH is the
// egress port's occupancy before the arriving packet, all classes; at a
// window of one packet or less every SRC multiplies cwnd by 1 − max_mdf,
// before and regardless of the rate limit of decrements, which it leaves
// alone (windows below one packet are paced at RTT/cwnd, as in Swift); a
// NACK (lossy fabric) and a retransmission timeout (the fabric's RTO) cut
// cwnd by max_mdf if the last decrease is at least one RTT ago (see
// docs/algorithms/bolt.md I3, I7, I8); the supply-token balance has no
// lower bound and is capped at sm_cap_pkts packets (the arriving packet's
// own size is subtracted before the check, so a cap below 2 packets grants
// nothing on a busy link); the SRC is a 60-byte class-0 notice whose
// 63-bit payload packs the queue (64-byte units), the link rate (100 Mb/s
// units) and the send time (ns, modulo 2^28 ns ≈ 268 ms; see BoltSRC).
// The window cap defaults to one BDP (the authors' simulations set
// max_cwnd to the BDP).

// Bolt flags in Packet.Mark (data packets; the receiver echoes them on the
// ACK, see fabric.AckInfo.Mark).
const (
	BoltFirst uint8 = 1 << 1 // packet of the flow's first window
	BoltLast  uint8 = 1 << 2 // packet of the flow's last window
	BoltInc   uint8 = 1 << 3 // the sender may add a packet to cwnd
	BoltDec   uint8 = 1 << 4 // a switch already sent an SRC for this packet
)

// BoltSRCBytes is the wire size of an SRC packet (a minimum frame).
const BoltSRCBytes = fabric.CNPBytes

// BoltParams are Bolt's parameters.
type BoltParams struct {
	CCThresh     float64 `yaml:"cc_thresh_pkts" unit:"pkts" doc:"CC_THRESH: a data packet arriving at an egress queue of at least this many full-size packets triggers an SRC (interpretation: 2; the authors' simulator uses 10 KB with 5 KB packets)"`
	PRU          bool    `yaml:"pru" doc:"proactive ramp-up"`
	SM           bool    `yaml:"sm" doc:"supply matching"`
	MaxPRUTokens int     `yaml:"max_pru_tokens" doc:"PRU tokens a port can hold (the authors' simulator: 256)"`
	SMCap        float64 `yaml:"sm_cap_pkts" unit:"pkts" doc:"cap of a port's supply-token balance in full-size packets (the authors' simulator: 30 KB = 6 of its 5 KB packets)"`
	AI           float64 `yaml:"ai" unit:"pkts" doc:"additive increase once per RTT"`
	MaxMDF       float64 `yaml:"max_mdf" doc:"decrease factor of a window at or below one packet, and of a NACK or retransmission timeout (once per RTT); the authors' MaxMd"`
	// SmallCwndMDEverySRC selects the authors' small-window branch (I7);
	// false is ccsim's reading before issue 17 (I3).
	SmallCwndMDEverySRC bool    `yaml:"small_cwnd_md_every_src" doc:"at a window of at most one packet every SRC cuts cwnd by max_mdf, before the rate limit of decrements (the authors' simulator); false: the cut is a rate-limited decrement (ccsim 0.10)"`
	MinCwnd             float64 `yaml:"min_cwnd" unit:"pkts" doc:"smallest window; below one packet the flow is paced at RTT/cwnd"`
	MaxCwnd             float64 `yaml:"max_cwnd" unit:"pkts" doc:"largest window (0 = one BDP)"`
	InitCwnd            float64 `yaml:"init_cwnd" unit:"pkts" doc:"initial window (0 = one BDP: line rate from the first RTT)"`
	MTUBytes            int     `yaml:"mtu_bytes" unit:"B" doc:"payload bytes per packet for windows in packets (0 = the fabric's payload size)"`
}

// BoltDefaults returns Bolt's defaults (see BoltParams).
func BoltDefaults() *BoltParams {
	return &BoltParams{
		CCThresh:     2,
		PRU:          true,
		SM:           true,
		MaxPRUTokens: 256,
		SMCap:        6,
		AI:           1,
		MaxMDF:       0.5,
		MinCwnd:      0.01,

		SmallCwndMDEverySRC: true,
	}
}

// Validate checks every field's range (comparisons written so NaN fails).
func (p *BoltParams) Validate() error {
	switch {
	case !(p.CCThresh >= 0 && p.CCThresh <= 1e6):
		return rangeErr("cc_thresh_pkts", p.CCThresh, "0", "1e6")
	case p.MaxPRUTokens < 0 || p.MaxPRUTokens > 1<<30:
		return rangeErr("max_pru_tokens", p.MaxPRUTokens, "0", "2^30")
	case !(p.SMCap >= 0 && p.SMCap <= 1e6):
		return rangeErr("sm_cap_pkts", p.SMCap, "0", "1e6")
	case !(p.AI >= 0 && p.AI <= 1e6):
		return rangeErr("ai", p.AI, "0", "1e6")
	case !(p.MaxMDF > 0 && p.MaxMDF < 1):
		return rangeErr("max_mdf", p.MaxMDF, "0 (exclusive)", "1 (exclusive)")
	case !(p.MinCwnd > 0 && p.MinCwnd <= 1e6):
		return rangeErr("min_cwnd", p.MinCwnd, "0 (exclusive)", "1e6")
	case !(p.MaxCwnd == 0 || p.MaxCwnd >= p.MinCwnd && p.MaxCwnd <= 1e9):
		return rangeErr("max_cwnd", p.MaxCwnd, "min_cwnd (or 0)", "1e9")
	case !(p.InitCwnd >= 0 && p.InitCwnd <= 1e9):
		return rangeErr("init_cwnd", p.InitCwnd, "0", "1e9")
	case p.MTUBytes < 0 || p.MTUBytes > 9000:
		return rangeErr("mtu_bytes", p.MTUBytes, "0", "9000")
	}
	return nil
}

// BoltSRC is the content of an SRC packet.
type BoltSRC struct {
	QueueBytes int64    // egress queue occupancy when the packet arrived
	LinkBps    int64    // egress link rate
	TxTime     sim.Time // when the sender sent the packet (ns resolution)
}

const (
	boltTsBits    = 28
	boltRateBits  = 16
	boltQueueBits = 19
	boltRateUnit  = 100e6 // b/s
	boltQueueUnit = 64    // bytes
)

// Arg packs the SRC into a notice's 63-bit payload: send time in ns modulo
// 2^28 (bits 0–27), link rate in 100 Mb/s (bits 28–43) and queue in
// 64-byte units (bits 44–62), the latter two saturating.
func (s BoltSRC) Arg() int64 {
	ts := int64(s.TxTime/sim.Nanosecond) & (1<<boltTsBits - 1)
	rate := min((s.LinkBps+boltRateUnit/2)/boltRateUnit, 1<<boltRateBits-1)
	queue := min((s.QueueBytes+boltQueueUnit/2)/boltQueueUnit, 1<<boltQueueBits-1)
	return ts | rate<<boltTsBits | queue<<(boltTsBits+boltRateBits)
}

// DecodeBoltSRC unpacks Arg at time now (the send time is the latest time
// at or before now with the packed low bits).
func DecodeBoltSRC(arg int64, now sim.Time) BoltSRC {
	low := arg & (1<<boltTsBits - 1)
	nowNs := int64(now / sim.Nanosecond)
	tx := nowNs - (nowNs-low)&(1<<boltTsBits-1)
	return BoltSRC{
		QueueBytes: (arg >> (boltTsBits + boltRateBits)) & (1<<boltQueueBits - 1) * boltQueueUnit,
		LinkBps:    (arg >> boltTsBits) & (1<<boltRateBits - 1) * boltRateUnit,
		TxTime:     sim.Time(tx) * sim.Nanosecond,
	}
}

// Bolt is one QP's sender.
type Bolt struct {
	p *BoltParams

	Cwnd      float64  // packets
	RTT       sim.Time // latest RTT sample
	LastDecAt sim.Time // last decrement
	SeqAI     int64    // next additive increase when the ACK number reaches this
	// SRCs counts SRC packets received, Decrements the decrements they
	// made (small-window cuts included), Timeouts the retransmission
	// timeouts the fabric reported.
	SRCs, Decrements, Timeouts int64

	gotAck           bool
	mtu, wire        int64
	minCwnd, maxCwnd float64
}

// NewBolt returns a per-QP constructor for p (which must be valid).
func NewBolt(p *BoltParams) func(q *fabric.QP) fabric.Algorithm {
	return func(q *fabric.QP) fabric.Algorithm { return &Bolt{p: p} }
}

// Start: window one BDP (or init_cwnd), line rate; the send hook flags
// each packet FIRST/LAST/INC.
func (b *Bolt) Start(q *fabric.QP, now sim.Time) {
	b.mtu = int64(b.p.MTUBytes)
	if b.mtu == 0 {
		b.mtu = q.PayloadBytes()
	}
	b.wire = b.mtu + fabric.DataHeaderBytes
	bdp := math.Max(1, float64(q.BDPBytes)/float64(b.mtu))
	b.minCwnd, b.maxCwnd = b.p.MinCwnd, b.p.MaxCwnd
	if b.maxCwnd == 0 {
		b.maxCwnd = math.Max(bdp, b.minCwnd)
	}
	b.Cwnd = b.p.InitCwnd
	if b.Cwnd == 0 {
		b.Cwnd = bdp
	}
	b.Cwnd = math.Max(b.minCwnd, math.Min(b.Cwnd, b.maxCwnd))
	b.SeqAI = int64(b.Cwnd * float64(b.mtu))
	b.LastDecAt = longAgo
	q.WantSendHook = true
	b.apply(q)
}

// OnSend flags the next data packet: FIRST before any ACK arrived, LAST
// within the last window of the flow, INC otherwise.
func (b *Bolt) OnSend(q *fabric.QP, size int, now sim.Time) {
	var f uint8
	win := int64(b.Cwnd * float64(b.mtu))
	if !b.gotAck {
		f = BoltFirst
	} else if q.SndNxt+win < q.SizeBytes {
		f = BoltInc
	}
	if q.SndNxt+win >= q.SizeBytes {
		f |= BoltLast
	}
	q.DataMark = f
}

// OnAck: one packet per echoed INC flag (PRU/SM), ai packets once per RTT;
// a NACK cuts by max_mdf at most once per RTT.
func (b *Bolt) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {
	if a.Nack {
		b.cutOncePerRTT(q, now)
		return
	}
	if a.RTT > 0 {
		b.RTT = a.RTT
	}
	b.gotAck = true
	if a.Mark&BoltInc != 0 {
		b.Cwnd++
	}
	if a.Seq >= b.SeqAI {
		b.Cwnd += b.p.AI
		b.SeqAI = q.SndNxt
	}
	b.apply(q)
}

// Bolt reacts to the fabric's retransmission timeout.
var _ fabric.TimeoutAlgorithm = (*Bolt)(nil)

// OnTimeout is the fabric's retransmission timeout (fabric.TimeoutAlgorithm;
// the fabric has already gone back to the oldest unacknowledged byte): cut
// by max_mdf at most once per RTT, as the authors' HandleRtx does (I8).
func (b *Bolt) OnTimeout(q *fabric.QP, now sim.Time) {
	b.Timeouts++
	b.cutOncePerRTT(q, now)
}

// cutOncePerRTT multiplies cwnd by 1 − max_mdf if the last decrease (SRC
// decrement, NACK or timeout) is at least the latest RTT sample ago; the
// authors share this one time marker among the three.
func (b *Bolt) cutOncePerRTT(q *fabric.QP, now sim.Time) {
	if now-b.LastDecAt >= b.RTT {
		b.Cwnd *= 1 - b.p.MaxMDF
		b.LastDecAt = now
	}
	b.apply(q)
}

// OnNotice handles an SRC: at a window of one packet or less cut it by
// max_mdf (I7); otherwise decrement cwnd by one packet if the last
// decrement is at least rtt_src / target_q ago.
func (b *Bolt) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {
	if n.Kind != fabric.KindNotice {
		return
	}
	b.SRCs++
	if b.Cwnd <= 1 && b.p.SmallCwndMDEverySRC {
		// the authors' HandleBts: every SRC, before the rate limit, and
		// without restarting its interval
		b.Cwnd *= 1 - b.p.MaxMDF
		b.Decrements++
		b.apply(q)
		return
	}
	src := DecodeBoltSRC(n.Arg, now)
	rttSrc := float64(now - src.TxTime)
	rate := float64(q.LineRateBps)
	if b.RTT > 0 {
		rate = b.Cwnd * float64(b.wire) * 8 * float64(sim.Second) / float64(b.RTT)
	}
	targetQ := float64(src.QueueBytes) / float64(b.wire) * rate / float64(src.LinkBps)
	if !(targetQ > 0) || float64(now-b.LastDecAt) < rttSrc/targetQ {
		return
	}
	if b.Cwnd > 1 {
		b.Cwnd--
	} else {
		b.Cwnd *= 1 - b.p.MaxMDF
	}
	b.LastDecAt = now
	b.Decrements++
	b.apply(q)
}

// OnTimer is unused.
func (b *Bolt) OnTimer(q *fabric.QP, id int, now sim.Time) {}

// apply clamps cwnd and sets the window (and pacing below one packet).
func (b *Bolt) apply(q *fabric.QP) {
	b.Cwnd = math.Max(b.minCwnd, math.Min(b.Cwnd, b.maxCwnd))
	if b.Cwnd >= 1 {
		q.SetWindow(int64(b.Cwnd*float64(b.mtu) + 0.5))
		q.SetRateRepace(q.LineRateBps)
		return
	}
	q.SetWindow(b.mtu)
	rtt := b.RTT
	if rtt <= 0 {
		rtt = q.PathBaseRTT
	}
	if rtt <= 0 {
		q.SetRateRepace(q.LineRateBps)
		return
	}
	q.SetRateRepace(int64(b.Cwnd * float64(b.wire) * 8 * float64(sim.Second) / float64(rtt)))
}

func init() {
	Register(&Spec{
		Name:     "bolt",
		Summary:  "Bolt (Arslan et al. 2023): switch SRC notices above CC_THRESH with sub-RTT cwnd decrements, proactive ramp-up and supply matching, windows in packets",
		Defaults: func() Params { return BoltDefaults() },
		New: func(pp Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			return NewBolt(pp.(*BoltParams)), fabric.Requirements{}
		},
		Switch: func(pp Params) (func(sw *fabric.SwitchView) fabric.SwitchFeature, sim.Time) {
			p := pp.(*BoltParams)
			return func(sw *fabric.SwitchView) fabric.SwitchFeature { return newBoltSwitch(p, sw) }, 0
		},
	})
}

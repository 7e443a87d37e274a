package fabric

import "github.com/ccsim/ccsim/sim"

// Per-RTT RTT sampling in the host, whatever the congestion-control
// algorithm (paper 001 §3.2.1, Fig. 6; docs/metrics.md §12): each QP times
// one packet per round trip — its first packet, and afterwards the first
// packet transmitted after the ACK that completed the previous sample;
// packets sent while the timed packet is outstanding are not timed. The
// sample is RTT = arrival of the first ACK whose cumulative sequence covers
// the timed packet − its send time. A NACK or a retransmission timeout
// abandons the outstanding sample (the next transmitted packet is timed),
// as cc.RTTSampler does for a sender that acts once per RTT, so that for
// such a sender the host's samples are exactly the controller's.
//
// Off by default; when off it costs one predictable branch per data
// packet and per ACK. When on, samples are appended to one slice per run
// (amortised growth, no allocation per packet otherwise).

// rttSample is a QP's per-RTT sampling state.
type rttSample struct {
	sampling bool     // a timed packet is outstanding
	seq      int64    // its first byte
	sentAt   sim.Time // its send time
}

// PerRTTSample is one RTT sample of the per-RTT rule.
type PerRTTSample struct {
	Flow int32    // QP (flow) index
	At   sim.Time // the ACK's arrival at the sender
	RTT  sim.Time
}

// EnablePerRTT turns on per-RTT sampling with room for capacity samples
// (the slice grows beyond it as needed). Call before Run.
func (n *Network) EnablePerRTT(capacity int) {
	n.perRTT = true
	if capacity > 0 {
		n.perRTTSamples = make([]PerRTTSample, 0, capacity)
	}
}

// PerRTTSamples returns the per-RTT samples of all flows in the order they
// were taken (nil when sampling is off).
func (n *Network) PerRTTSamples() []PerRTTSample { return n.perRTTSamples }

// perRTTSend times the packet about to leave QP q (its first byte is
// q.SndNxt) if no sample is outstanding.
func (n *Network) perRTTSend(q *QP) {
	if !q.rs.sampling {
		q.rs = rttSample{sampling: true, seq: q.SndNxt, sentAt: n.now}
	}
}

// perRTTAck completes or abandons q's outstanding sample on an ACK (seq:
// its cumulative sequence) or a NACK.
func (n *Network) perRTTAck(q *QP, seq int64, nack bool) {
	if nack {
		q.rs.sampling = false
		return
	}
	if !q.rs.sampling || seq <= q.rs.seq {
		return
	}
	q.rs.sampling = false
	n.perRTTSamples = append(n.perRTTSamples, PerRTTSample{Flow: q.ID, At: n.now, RTT: n.now - q.rs.sentAt})
}

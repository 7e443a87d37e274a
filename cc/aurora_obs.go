package cc

import (
	"github.com/ccsim/ccsim/cc/auroramodel"
	"github.com/ccsim/ccsim/sim"
)

// AuroraMI is one monitoring interval of an Aurora sender, what
// PCC-RL's SenderMonitorInterval holds (src/common/sender_obs.py): the
// deployed controller and the trainer build the observation and the reward
// from it with the same functions below (docs/algorithms/aurora.md §3).
type AuroraMI struct {
	Dur         sim.Time   // the interval's length (send dur = recv dur, as in network_sim.py)
	SentBytes   int64      // payload sent in the interval (QP.TxBytes: retransmissions included)
	AckedBytes  int64      // payload newly acknowledged by the interval's ACKs
	LostBytes   int64      // payload of the flow's data packets dropped in the interval (QP.DataDropBytes; the reward's loss, training only)
	PacketBytes int64      // payload of a full packet (network_sim.py's packet_size, BYTES_PER_PACKET)
	RTTs        []sim.Time // the interval's RTT samples, in arrival order (one per ACK)
}

// MeanRTT is the mean RTT sample in ps (0 without a sample): sender_obs.py
// "avg latency".
func (m *AuroraMI) MeanRTT() float64 {
	if len(m.RTTs) == 0 {
		return 0
	}
	return meanRTT(m.RTTs)
}

func meanRTT(r []sim.Time) float64 {
	s := 0.0
	for _, v := range r {
		s += float64(v)
	}
	return s / float64(len(r))
}

// RecvRate is sender_obs.py "recv rate" in b/s: 8 × (acknowledged bytes −
// one packet) / duration (the authors subtract one packet; it is negative
// when nothing was acknowledged), 0 for an empty interval.
func (m *AuroraMI) RecvRate() float64 {
	d := m.Dur.Seconds()
	if d <= 0 {
		return 0
	}
	return 8 * float64(m.AckedBytes-m.PacketBytes) / d
}

// SendRate is sender_obs.py "send rate" in b/s: 8 × sent bytes / duration.
func (m *AuroraMI) SendRate() float64 {
	d := m.Dur.Seconds()
	if d <= 0 {
		return 0
	}
	return 8 * float64(m.SentBytes) / d
}

// LossRatio is sender_obs.py "loss ratio": lost / (lost + acknowledged)
// bytes, 0 if both are 0.
func (m *AuroraMI) LossRatio() float64 {
	if m.LostBytes+m.AckedBytes > 0 {
		return float64(m.LostBytes) / float64(m.LostBytes+m.AckedBytes)
	}
	return 0
}

// LatencyInflation is sender_obs.py "sent latency inflation": (mean of the
// second half of the RTT samples − mean of the first half) / the
// interval's duration (the halves split at n/2 rounded down, the odd sample
// in the second half); 0 with fewer than two samples.
func (m *AuroraMI) LatencyInflation() float64 {
	half := len(m.RTTs) / 2
	if half < 1 || m.Dur <= 0 {
		return 0
	}
	return (meanRTT(m.RTTs[half:]) - meanRTT(m.RTTs[:half])) / float64(m.Dur)
}

// SendRatio is sender_obs.py "send ratio": send rate / recv rate when the
// recv rate is positive and the ratio below 1000, else 1.
func (m *AuroraMI) SendRatio() float64 {
	thr, snd := m.RecvRate(), m.SendRate()
	if thr > 0 && snd < 1000*thr {
		return snd / thr
	}
	return 1
}

// AuroraObs is a flow's observation: the last auroramodel.History
// intervals' (latency inflation, latency ratio, send ratio), oldest first
// (sender_obs.py SenderHistory.as_array), and the connection's minimum
// latency ("conn min latency": the smallest interval mean RTT so far).
type AuroraObs struct {
	v      [auroramodel.ObsDim]float64
	minLat float64 // ps; 0 = none yet
}

// Reset fills the history with the authors' empty intervals: latency
// inflation 0, latency ratio 1, send ratio 1 (an empty
// SenderMonitorInterval of a new sender evaluates to these).
func (o *AuroraObs) Reset() {
	for i := 0; i < len(o.v); i += auroramodel.Features {
		o.v[i], o.v[i+1], o.v[i+2] = 0, 1, 1
	}
	o.minLat = 0
}

// Push appends interval m's features and drops the oldest.
func (o *AuroraObs) Push(m *AuroraMI) {
	f := auroramodel.Features
	copy(o.v[:], o.v[f:])
	infl, lr, sr := o.Features(m)
	n := len(o.v)
	o.v[n-3], o.v[n-2], o.v[n-1] = infl, lr, sr
}

// Features returns interval m's three features and updates the connection
// minimum latency. The latency ratio is sender_obs.py's: the interval's
// mean RTT / the minimum interval mean so far (this one included), 1
// before any sample, and 0 for an interval without a sample after one (the
// authors' avg latency is 0 then).
func (o *AuroraObs) Features(m *AuroraMI) (inflation, latRatio, sendRatio float64) {
	cur := m.MeanRTT()
	if cur > 0 && (o.minLat == 0 || cur < o.minLat) {
		o.minLat = cur
	}
	latRatio = 1
	if o.minLat > 0 {
		latRatio = cur / o.minLat
	}
	return m.LatencyInflation(), latRatio, m.SendRatio()
}

// Vector returns the observation (auroramodel.ObsDim values, oldest
// interval first), a view valid until the next Push or Reset.
func (o *AuroraObs) Vector() []float64 { return o.v[:] }

// AuroraRewardScale renormalises PCC-RL's reward (network_sim.py
// run_for_dur, "Very high thpt": 0.001 × (10 × throughput in packets/s −
// 1000 × latency in s − 2000 × loss)) from the authors' links of 100–500
// packets/s and 0.1–1 s RTT to any link: the throughput is a fraction of
// the flow's line rate times RefPktRate and the latency a multiple of the
// path base RTT times RefRTT, the mid-points of the authors' ranges, so
// each term keeps the magnitude it had there (docs/algorithms/aurora.md
// §4, I3).
type AuroraRewardScale struct {
	RefPktRate float64 `json:"ref_pkt_rate"` // packets/s of a fully used link (authors: U(100, 500); 300)
	RefRTT     float64 `json:"ref_rtt"`      // seconds of one base RTT (authors: 2 × U(0.05, 0.5); 0.55)
}

// DefaultAuroraRewardScale is the mid-point of the authors' ranges.
func DefaultAuroraRewardScale() AuroraRewardScale {
	return AuroraRewardScale{RefPktRate: 300, RefRTT: 0.55}
}

// AuroraReward is the reward of interval m for a flow whose path
// bottleneck is bnBps (fabric.QP.PathBps) and path base RTT baseRTT:
//
//	0.001 × (10·RefPktRate·recv rate/bottleneck − 1000·RefRTT·mean RTT/base RTT − 2000·loss ratio)
//
// with the authors' recv rate (one packet subtracted), mean RTT 0 without a
// sample and loss ratio (AuroraMI).
func AuroraReward(m *AuroraMI, bnBps int64, baseRTT sim.Time, s AuroraRewardScale) float64 {
	thr := m.RecvRate() / float64(bnBps)
	lat := m.MeanRTT() / float64(baseRTT)
	return 0.001 * (10*s.RefPktRate*thr - 1000*s.RefRTT*lat - 2000*m.LossRatio())
}

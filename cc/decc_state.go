package cc

import (
	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// Indices of DECC's local state (decc.md §1.4, the paper's five features),
// the order of DECCLocalState's output and of train/env's first five
// features (docs/env.md §3).
const (
	DECCThr    = iota // goodput: bytes newly ACKed × 8 / MTP / line rate
	DECCLat           // mean RTT of the MTP's ACKs / path base RTT; the previous value if no ACK came
	DECCLoss          // retransmitted / max(sent, one packet) payload bytes in the MTP
	DECCFlight        // bytes in flight at the MTP's end / path BDP
	DECCRate          // pacing rate / line rate
	DECCFeatures
)

// DECCFlow is what DECC's local state needs of a flow besides its MTP
// counters: the QP's state at the MTP's end (DECCFlowOf). It is a plain
// value so that the state can be computed, and tested, without a network.
type DECCFlow struct {
	TxBytes   int64    // payload sent so far, retransmissions included (fabric.QP.TxBytes)
	RetxBytes int64    // payload retransmitted so far (fabric.QP.RetxBytes)
	InFlight  int64    // bytes sent and not acknowledged (fabric.QP.InFlight)
	RateBps   int64    // pacing rate (fabric.QP.RateBps)
	LineBps   int64    // line rate (fabric.QP.LineRateBps)
	BaseRTT   sim.Time // path base RTT (fabric.QP.PathBaseRTT)
	Payload   int64    // payload of a full packet (fabric.QP.PayloadBytes)
}

// DECCFlowOf reads q's state now.
func DECCFlowOf(q *fabric.QP) DECCFlow {
	return DECCFlow{TxBytes: q.TxBytes, RetxBytes: q.RetxBytes, InFlight: q.InFlight(), RateBps: q.RateBps,
		LineBps: q.LineRateBps, BaseRTT: q.PathBaseRTT, Payload: q.PayloadBytes()}
}

// DECCLocalState writes DECC's local state of the MTP [c.Start, now) into
// out[:DECCFeatures] (decc.md §1.4 with its normalisation; docs/env.md §3;
// docs/algorithms/decc.md §3): thr = ACKed bytes × 8 / MTP / line rate,
// lat = mean RTT / path base RTT (prevLat if the MTP had no ACK: 1 before
// the first), loss = retransmitted / max(sent, one packet) payload bytes,
// pkt_flight = in-flight bytes / path BDP, P_rate = rate / line rate. The
// deployed sender (`decc-nn`) and the trainer (train/env) both call it, so
// that what is trained on is what runs. It allocates nothing.
func DECCLocalState(out []float64, c *AgentCounters, f DECCFlow, now sim.Time, prevLat float64) {
	out = out[:DECCFeatures]
	iv := max(now-c.Start, 1)
	line := float64(f.LineBps)
	sent := f.TxBytes - c.TxBytes0
	retx := f.RetxBytes - c.RetxBytes0
	out[DECCThr] = float64(c.AckedBytes) * 8 / iv.Seconds() / line
	out[DECCLat] = prevLat
	if c.RTTN > 0 {
		out[DECCLat] = float64(c.RTTSum) / float64(c.RTTN) / float64(f.BaseRTT)
	}
	out[DECCLoss] = float64(retx) / float64(max(sent, f.Payload))
	out[DECCFlight] = float64(f.InFlight) * 8 / (line * f.BaseRTT.Seconds())
	out[DECCRate] = float64(f.RateBps) / line
}

// recordAck adds ACK k to the interval's counters (cc.Agent's and
// decc-nn's MTPs alike).
func (c *AgentCounters) recordAck(k *fabric.AckInfo) {
	c.Acks++
	c.AckedBytes += k.NewlyAcked
	if k.CNP {
		c.Marked++
	}
	if k.Nack {
		c.Nacks++
	}
	r := k.RTT
	if c.RTTN == 0 || r < c.RTTMin {
		c.RTTMin = r
	}
	c.RTTMax = max(c.RTTMax, r)
	c.RTTSum += r
	c.RTTN++
}

// DECCHistory is a flow's last w local states, oldest first, step-major
// (the actor's input layout, ml/nn): before w MTPs have ended the missing
// older steps repeat the first state, as rl.History pads and rl.Replay's
// padded windows do (docs/rl.md §2), so the windows acted on are the ones
// trained on.
type DECCHistory struct {
	buf []float64
	n   int // states pushed
}

// NewDECCHistory returns an empty history of w steps.
func NewDECCHistory(w int) DECCHistory {
	return DECCHistory{buf: make([]float64, w*DECCFeatures)}
}

// Push appends one state (DECCFeatures values), dropping the oldest.
func (h *DECCHistory) Push(s []float64) {
	d := DECCFeatures
	if h.n == 0 {
		for i := 0; i < len(h.buf); i += d {
			copy(h.buf[i:i+d], s)
		}
	} else {
		copy(h.buf, h.buf[d:])
		copy(h.buf[len(h.buf)-d:], s)
	}
	h.n++
}

// Window returns the w × DECCFeatures values, oldest first (a view, valid
// until the next Push).
func (h *DECCHistory) Window() []float64 { return h.buf }

// Len is the number of states pushed so far.
func (h *DECCHistory) Len() int { return h.n }

// compile-time check that the state's width is the model's.
var _ = [1]struct{}{}[DECCFeatures-deccmodel.Features]

package env

import (
	"math"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// Local features of one observation, in this order (docs/env.md §3). The
// first five are DECC's local state (decc.md §1.4) with its normalisation,
// so a DECC actor reads them with rl.TD3Config.ActorObs = 5.
const (
	FThr       = iota // goodput: bytes newly ACKed × 8 / interval / line rate (DECC thr)
	FLat              // mean RTT of the interval's ACKs / path base RTT (DECC lat); the previous value if no ACK
	FLoss             // retransmitted / sent payload bytes in the interval (DECC loss, see docs/env.md §3)
	FFlight           // bytes in flight at the boundary / path BDP (DECC pkt_flight)
	FRate             // pacing rate / line rate (DECC P_rate)
	FECN              // fraction of the interval's ACKs echoing a CE mark
	FRTTMin           // smallest RTT sample / path base RTT (previous if none)
	FRTTMax           // largest RTT sample / path base RTT (previous if none)
	FSendRatio        // sent / max(ACKed, one packet) payload bytes (Aurora's send ratio)
	FInterval         // interval length / path base RTT
	NumLocal
)

// The first five local features are cc.DECCLocalState's output, in its
// order: these compile only while the indices agree.
var (
	_ = [1]struct{}{}[FThr-cc.DECCThr]
	_ = [1]struct{}{}[FLat-cc.DECCLat]
	_ = [1]struct{}{}[FLoss-cc.DECCLoss]
	_ = [1]struct{}{}[FFlight-cc.DECCFlight]
	_ = [1]struct{}{}[FRate-cc.DECCRate]
)

// Global features appended with Config.Global (decc.md §1.4 Table 1), over
// the active flows' latest completed intervals.
const (
	GOvrThr  = iota // Σ thr
	GMinThr         // min thr
	GMaxThr         // max thr
	GAvgLat         // mean lat
	GMinCwnd        // min cwnd / BDP, cwnd = rate × mean RTT (decc.md §1.5: P_rate = cwnd / RTT_avg), i.e. rate · lat
	GMaxCwnd        // max of the same
	GAvgCwnd        // mean of the same
	GLoss           // mean loss
	GNumFlow        // log2(1 + active flows)
	GD0             // this flow's path base RTT / 10 µs
	GBuf            // switch buffer / this flow's path BDP
	GC              // line rate / 100 Gb/s
	NumGlobal
)

// MaxHistory is the longest throughput history kept per flow (DECC's w =
// 5, decc.md §1.6 eq. 6–7).
const MaxHistory = 8

// FlowState is what the environment knows of one flow after its latest
// completed interval: the reward functions read it (View).
type FlowState struct {
	Active    bool  // started and not finished
	Intervals int   // completed intervals
	Src       int32 // sending host
	// normalised features of the latest interval (docs/env.md §3)
	Thr, Lat, Loss, Rate float64
	// the latest interval in bytes: newly ACKed, retransmitted, sent
	AckedBytes, RetxBytes, SentBytes int64
	Interval                         sim.Time
	// ThrHist holds the last min(Intervals, MaxHistory) values of Thr,
	// newest at index (Intervals−1) mod MaxHistory.
	ThrHist [MaxHistory]float64
	LineBps int64
	BaseRTT sim.Time
	Payload int64
}

// ThrWindow returns the mean and the sum of squared deviations of the
// last w throughput values (fewer if the flow is younger), and their count.
func (s *FlowState) ThrWindow(w int) (mean, ss float64, n int) {
	n = min(w, s.Intervals, MaxHistory)
	if n == 0 {
		return 0, 0, 0
	}
	for k := range n {
		mean += s.ThrHist[(s.Intervals-1-k)%MaxHistory]
	}
	mean /= float64(n)
	for k := range n {
		d := s.ThrHist[(s.Intervals-1-k)%MaxHistory] - mean
		ss += d * d
	}
	return mean, ss, n
}

// observe closes flow state st's interval [a.C.Start, now) and writes the
// local features into obs (NumLocal values); prev is the flow's previous
// observation (for the values carried over when there is no RTT sample).
func observe(st *FlowState, a *cc.Agent, q *fabric.QP, now sim.Time, obs, prev []float64) {
	c := &a.C
	iv := max(now-c.Start, 1)
	base := float64(q.PathBaseRTT)
	pkt := q.PayloadBytes()
	sent := q.TxBytes - c.TxBytes0
	retx := q.RetxBytes - c.RetxBytes0
	// DECC's five local features: one function for the trainer and the
	// deployed sender (cc/decc_state.go, docs/algorithms/decc.md §3).
	cc.DECCLocalState(obs, c, cc.DECCFlowOf(q), now, prev[FLat])
	if c.RTTN > 0 {
		obs[FRTTMin] = float64(c.RTTMin) / base
		obs[FRTTMax] = float64(c.RTTMax) / base
	} else {
		obs[FRTTMin], obs[FRTTMax] = prev[FRTTMin], prev[FRTTMax]
	}
	obs[FECN] = 0
	if c.Acks > 0 {
		obs[FECN] = float64(c.Marked) / float64(c.Acks)
	}
	obs[FSendRatio] = float64(sent) / float64(max(c.AckedBytes, pkt))
	obs[FInterval] = float64(iv) / base

	st.Intervals++
	st.Thr, st.Lat, st.Loss, st.Rate = obs[FThr], obs[FLat], obs[FLoss], obs[FRate]
	st.AckedBytes, st.RetxBytes, st.SentBytes, st.Interval = c.AckedBytes, retx, sent, iv
	st.ThrHist[(st.Intervals-1)%MaxHistory] = st.Thr
}

// initialObs is the observation before a flow's first interval: RTTs at
// their base (ratio 1), the initial rate, nothing else.
func initialObs(obs []float64, rate float64) {
	clear(obs)
	obs[FLat], obs[FRTTMin], obs[FRTTMax], obs[FRate], obs[FInterval] = 1, 1, 1, rate, 1
}

// globalState writes DECC's global features (NumGlobal values) over the
// active flows with at least one interval, for flow st (decc.md §1.4 Table
// 1; normalisation docs/env.md §3).
func globalState(flows []FlowState, st *FlowState, bufBytes int64, g []float64) {
	n := 0
	sumThr, minThr, maxThr, sumLat := 0.0, math.Inf(1), math.Inf(-1), 0.0
	sumCw, minCw, maxCw, sumLoss := 0.0, math.Inf(1), math.Inf(-1), 0.0
	for i := range flows {
		f := &flows[i]
		if !f.Active || f.Intervals == 0 {
			continue
		}
		n++
		sumThr += f.Thr
		minThr, maxThr = min(minThr, f.Thr), max(maxThr, f.Thr)
		sumLat += f.Lat
		cw := f.Rate * f.Lat
		sumCw += cw
		minCw, maxCw = min(minCw, cw), max(maxCw, cw)
		sumLoss += f.Loss
	}
	clear(g[:NumGlobal])
	if n > 0 {
		k := float64(n)
		g[GOvrThr], g[GMinThr], g[GMaxThr], g[GAvgLat] = sumThr, minThr, maxThr, sumLat/k
		g[GMinCwnd], g[GMaxCwnd], g[GAvgCwnd], g[GLoss] = minCw, maxCw, sumCw/k, sumLoss/k
	}
	g[GNumFlow] = math.Log2(1 + float64(n))
	g[GD0] = float64(st.BaseRTT) / float64(10*sim.Microsecond)
	bdp := float64(st.LineBps) / 8 * st.BaseRTT.Seconds()
	g[GBuf] = float64(bufBytes) / bdp
	g[GC] = float64(st.LineBps) / 100e9
}

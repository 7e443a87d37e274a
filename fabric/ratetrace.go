package fabric

import "github.com/ccsim/ccsim/sim"

// Sending-limit traces (outputs.rate_trace_flows, docs/outputs.md §17): every
// change of the pacing rate or the window of the listed flows, at the exact time the
// algorithm set it, for metrics that need the moment a sender reacted (a
// long flow's reaction time to short flows joining its bottleneck). A
// traced flow's first record is its rate and window when it starts (before
// its algorithm's Start); then one record per SetRate, SetRateRepace or
// SetWindow that changes the rate or the window. An algorithm that writes
// QP.RateBps directly is not traced.
//
// Off by default; then it costs one predictable branch per rate or window
// setting.

// RateChange is one change of a traced flow's pacing rate or window.
type RateChange struct {
	Flow   int32    // QP (flow) index
	At     sim.Time // when the rate or window was set
	Bps    int64    // the pacing rate from then on
	Window int64    // the window (in-flight cap, bytes; 0 = none) from then on
}

// TraceRates traces the pacing rate of the given flows (QP indices, which
// must exist). Call after the network is built and before Run.
func (n *Network) TraceRates(flows []int) {
	for _, f := range flows {
		n.QPs[f].traceRate = true
	}
}

// RateTrace returns the rate and window changes of the traced flows in the order they
// happened (nil when nothing is traced).
func (n *Network) RateTrace() []RateChange { return n.rateTrace }

// recordLimits appends a traced flow's rate bps and window at the current
// time.
func (n *Network) recordLimits(q *QP, bps, window int64) {
	n.rateTrace = append(n.rateTrace, RateChange{Flow: q.ID, At: n.now, Bps: bps, Window: window})
}

package fabric

import "github.com/ccsim/ccsim/sim"

// Pacing-rate traces (outputs.rate_trace_flows, docs/outputs.md §17): every
// change of the pacing rate of the listed flows, at the exact time the
// algorithm set it, for metrics that need the moment a sender reacted (a
// long flow's reaction time to short flows joining its bottleneck). A
// traced flow's first record is its rate when it starts (before its
// algorithm's Start); then one record per SetRate or SetRateRepace that
// changes the rate. An algorithm that writes QP.RateBps directly is not
// traced.
//
// Off by default; then it costs one predictable branch per rate setting.

// RateChange is one change of a traced flow's pacing rate.
type RateChange struct {
	Flow int32    // QP (flow) index
	At   sim.Time // when the rate was set
	Bps  int64    // the new pacing rate
}

// TraceRates traces the pacing rate of the given flows (QP indices, which
// must exist). Call after the network is built and before Run.
func (n *Network) TraceRates(flows []int) {
	for _, f := range flows {
		n.QPs[f].traceRate = true
	}
}

// RateTrace returns the rate changes of the traced flows in the order they
// happened (nil when nothing is traced).
func (n *Network) RateTrace() []RateChange { return n.rateTrace }

// recordRate appends a traced flow's rate bps at the current time.
func (n *Network) recordRate(q *QP, bps int64) {
	n.rateTrace = append(n.rateTrace, RateChange{Flow: q.ID, At: n.now, Bps: bps})
}

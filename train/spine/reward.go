package spine

import "math"

// Constants of the authors' reward (python/agent/definitions.py
// reward_callback).
const (
	// TriggerFactor is the cost of one firing of the gate (TRIGGER_FACTOR).
	TriggerFactor = 0.001
	// LossWeight weighs the mean loss rate against the total throughput
	// (the authors' 5 · 8, both rates in the same unit: I9).
	LossWeight = 5 * 8
	// LatencySlack is the RTT, in base RTTs, below which latency costs
	// nothing (1.15 × 2 × one-way delay).
	LatencySlack = 1.15
	// RewardScale scales the whole reward (the authors' 0.1).
	RewardScale = 0.1
)

// Reward is SPINE's reward of one decision (the authors' reward_callback):
// over the flows sharing the bottleneck, with thr and loss their latest
// periods' throughput and loss rates (one unit, e.g. b/s), rtt their mean
// RTTs (0: no sample, left out), capacity the bottleneck's rate in the
// unit of thr, base the base RTT in the unit of rtt, trigger 1 if the
// rewarded decision fired the gate (else 0):
//
//	fair  = −std(thr)/Σthr · Σthr/capacity   (0 for one flow; std of the population)
//	lat   = 1 if mean rtt < 1.15·base, else mean rtt / (1.15·base)
//	R     = 0.1 · (0.5·fair + (Σthr − 40·mean loss)/capacity / lat − 0.001·trigger)
//
// and 0 when Σthr = 0 (their early return). With no RTT sample lat is 1
// (numpy's mean of nothing is NaN, which compares false: I9).
func Reward(thr, loss, rtt []float64, capacity, base, trigger float64) float64 {
	n := len(thr)
	sum, lsum := 0.0, 0.0
	for i := range n {
		sum += thr[i]
		lsum += loss[i]
	}
	if sum == 0 || n == 0 {
		return 0
	}
	fair := 0.0
	if n > 1 {
		m := sum / float64(n)
		v := 0.0
		for _, x := range thr {
			v += (x - m) * (x - m)
		}
		fair = -math.Sqrt(v/float64(n)) / sum * sum / capacity
	}
	lat, k := 0.0, 0
	for _, r := range rtt {
		if r > 0 {
			lat += r
			k++
		}
	}
	f := 1.0
	if k > 0 {
		if lat /= float64(k); lat >= LatencySlack*base {
			f = lat / (LatencySlack * base)
		}
	}
	return RewardScale * (0.5*fair + (sum-LossWeight*lsum/float64(n))/capacity/f - TriggerFactor*trigger)
}

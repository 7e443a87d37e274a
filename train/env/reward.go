package env

import (
	"fmt"
	"math"
)

// View is what a reward function sees at a boundary: every flow's state
// after its latest completed interval (the flow being rewarded included,
// with the interval that just ended).
type View struct {
	Flows []FlowState
}

// Reward computes the reward of flow's transition at its boundary, from
// the interval that just ended (docs/env.md §4).
type Reward interface {
	Reward(v *View, flow int) float64
}

// ThrLat is a per-flow throughput − latency reward:
// r = thr − Delta · max(0, lat − 1) − Loss · loss, with thr, lat and loss the
// flow's normalised features of the interval (docs/env.md §3): goodput
// as a fraction of line rate, mean RTT over the path base RTT, and the
// retransmitted fraction.
type ThrLat struct {
	Delta float64 // weight of the queueing delay in base RTTs
	Loss  float64 // weight of the retransmitted fraction
}

// Validate checks the weights.
func (r ThrLat) Validate() error {
	if !(r.Delta >= 0 && r.Delta <= 1e6) {
		return fmt.Errorf("env: reward.delta = %v out of range [0, 1e6]", r.Delta)
	}
	if !(r.Loss >= 0 && r.Loss <= 1e6) {
		return fmt.Errorf("env: reward.loss = %v out of range [0, 1e6]", r.Loss)
	}
	return nil
}

// Reward implements Reward.
func (r ThrLat) Reward(v *View, flow int) float64 {
	s := &v.Flows[flow]
	return s.Thr - r.Delta*max(0, s.Lat-1) - r.Loss*s.Loss
}

// DECC is DECC's global reward (decc.md §1.6 eq. 3–8, with that section's
// interpretations 1–5): over the active flows with at least one interval,
//
//	R = C0·R_thr − C1·R_lat − C2·R_loss + C3·R_fair + C4·R_stab, clamped to [−Clip, Clip]
//
// R_thr = Σ thr_i (thr as a fraction of line rate: Σ thr_i / c);
// R_lat = max(0, mean lat_i − (1+β)) · max_i P_rate_i (lat in base RTTs,
// P_rate as a fraction of line rate); R_loss = mean_i lost_i /
// max(ACKed_i, one packet) in bytes of the interval (lost = retransmitted,
// docs/env.md §3); R_fair = −std_i(avg_thr_i); R_stab = −mean_i CoV_i, the
// coefficient of variation of the last W throughputs (0 where their mean
// is 0); avg_thr_i the mean of the last W (fewer for a young flow).
// Every agent's transition at a boundary carries the same global value.
type DECC struct {
	C0, C1, C2, C3, C4 float64
	Beta               float64
	W                  int
	Clip               float64
}

// DECCReward returns DECC's coefficients (decc.md Table 5): c = (0.1,
// 0.02, 1, 0.02, 0.01), β = 0.1, w = 5, clip 0.1.
func DECCReward() DECC {
	return DECC{C0: 0.1, C1: 0.02, C2: 1, C3: 0.02, C4: 0.01, Beta: 0.1, W: 5, Clip: 0.1}
}

// Validate checks the fields.
func (r DECC) Validate() error {
	for i, c := range []float64{r.C0, r.C1, r.C2, r.C3, r.C4} {
		if !(c >= 0 && c <= 1e6) {
			return fmt.Errorf("env: reward.c%d = %v out of range [0, 1e6]", i, c)
		}
	}
	switch {
	case !(r.Beta >= 0 && r.Beta <= 100):
		return fmt.Errorf("env: reward.beta = %v out of range [0, 100]", r.Beta)
	case r.W < 1 || r.W > MaxHistory:
		return fmt.Errorf("env: reward.w = %d out of range [1, %d]", r.W, MaxHistory)
	case !(r.Clip > 0 && r.Clip <= 1e6):
		return fmt.Errorf("env: reward.clip = %v out of range (0, 1e6]", r.Clip)
	}
	return nil
}

// Reward implements Reward (the flow argument is not used: the reward is
// global).
func (r DECC) Reward(v *View, _ int) float64 {
	n := 0
	var thr, lat, pmax, loss, sumAvg, sumAvg2, stab float64
	for i := range v.Flows {
		s := &v.Flows[i]
		if !s.Active || s.Intervals == 0 {
			continue
		}
		n++
		thr += s.Thr
		lat += s.Lat
		pmax = max(pmax, s.Rate)
		loss += float64(s.RetxBytes) / float64(max(s.AckedBytes, s.Payload))
		avg, ss, w := s.ThrWindow(r.W)
		sumAvg += avg
		sumAvg2 += avg * avg
		if avg > 0 {
			stab += math.Sqrt(ss / (float64(w) * avg * avg))
		}
	}
	if n == 0 {
		return 0
	}
	k := float64(n)
	rLat := max(0, lat/k-(1+r.Beta)) * pmax
	mean := sumAvg / k
	fair := -math.Sqrt(max(0, sumAvg2/k-mean*mean))
	R := r.C0*thr - r.C1*rLat - r.C2*loss/k + r.C3*fair - r.C4*stab/k
	return min(max(R, -r.Clip), r.Clip)
}

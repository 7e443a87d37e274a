package decc

// E7's long-flow relative reaction time (the paper's Fig. 10, §4.4),
// measured from the long flows' pacing-rate traces (rate_trace.csv,
// docs/outputs.md §17).

import (
	"fmt"
	"math"
	"sort"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// The reaction rule (decc.md §2.7's interpretation, docs/papers.md §2.6):
// at each short flow's arrival at the switch, every long flow that is
// sending has a pre-arrival sending limit; its reaction is the time until
// that limit first drops below reactFrac of its pre-arrival value, in base
// RTTs. The limit is the pacing rate, or window × 8 / base RTT when that is
// lower (decc.md names the pacing rate; a window-based sender such as
// Bolt paces at line rate and reacts with its window, so the rate alone
// would never move). A pair that does not drop within reactHorizonRTTs is
// censored at the horizon: the run's mean is then a lower bound, and the
// share that reacted is reported beside it. Short flows arriving closer
// than the horizon to the run's end are left out.
const (
	reactFrac        = 0.9
	reactHorizonRTTs = 10
)

// reaction is one run's reaction statistics.
type reaction struct {
	meanRTTs float64 // mean reaction over the pairs, censored ones at the horizon
	share    float64 // share of the pairs that reacted within the horizon
	pairs    int     // (arrival, long flow) pairs considered
}

// rateSeries is one long flow's sending limit (min of its pacing rate and
// window / base RTT, b/s) at each change, in time order.
type rateSeries struct {
	at  []sim.Time
	bps []float64
}

// rateAt is the rate in force at t (the latest change at or before t) and
// whether the flow had started by then.
func (s *rateSeries) rateAt(t sim.Time) (float64, bool) {
	i := sort.Search(len(s.at), func(i int) bool { return s.at[i] > t })
	if i == 0 {
		return 0, false
	}
	return s.bps[i-1], true
}

// firstBelow is the first change after t to a rate below lim, before end.
func (s *rateSeries) firstBelow(t, end sim.Time, lim float64) (sim.Time, bool) {
	for i := sort.Search(len(s.at), func(i int) bool { return s.at[i] > t }); i < len(s.at) && s.at[i] <= end; i++ {
		if s.bps[i] < lim {
			return s.at[i], true
		}
	}
	return 0, false
}

// measureReaction reads a run's flows and rate trace and applies the rule.
// A short flow's first packet reaches the switch one host-link propagation
// delay plus one full packet's serialisation after its start (the sender
// may first finish a packet of its long flow: at most one more packet
// time, 21 ns at 400 Gb/s, against a 4.2 µs base RTT).
func measureReaction(r *experiment.RunRef) (reaction, error) {
	var out reaction
	flows, err := r.Flows()
	if err != nil {
		return out, err
	}
	tr, err := r.Table("rate_trace.csv")
	if err != nil {
		return out, err
	}
	cols, err := tr.FloatCols("flow_id", "time_ns", "rate_bps", "window_bytes")
	if err != nil {
		return out, err
	}
	sc := r.Scenario
	g, err := assemble.Graph(sc)
	if err != nil {
		return out, err
	}
	rtt, _ := g.MaxRTT(sc.Host.PayloadBytes)
	if rtt <= 0 {
		return out, fmt.Errorf("base RTT %v", rtt)
	}
	series := map[int]*rateSeries{}
	for i := range cols[0] {
		f := int(cols[0][i])
		s := series[f]
		if s == nil {
			s = &rateSeries{}
			series[f] = s
		}
		lim := cols[2][i]
		if w := cols[3][i]; w > 0 {
			lim = min(lim, w*8/rtt.Seconds())
		}
		s.at = append(s.at, sim.Time(math.Round(cols[1][i]*float64(sim.Nanosecond))))
		s.bps = append(s.bps, lim)
	}
	lead := sim.Time(sc.Topology.LinkDelayNs*float64(sim.Nanosecond)) +
		sim.TxTime(int64(sc.Host.PayloadBytes+fabric.DataHeaderBytes), int64(sc.Topology.LinkGbps*1e9))
	horizon := reactHorizonRTTs * rtt
	end := sim.Time(sc.StopMs * float64(sim.Millisecond))
	var sum float64
	var reacted int
	cens := float64(reactHorizonRTTs)
	for _, s := range flows {
		if s.SizeBytes == streamBytes || s.NotStarted {
			continue
		}
		ta := s.Start + lead
		if ta+horizon > end {
			continue
		}
		for _, l := range flows {
			ls := series[l.ID]
			if l.SizeBytes != streamBytes || ls == nil || (l.Done && l.Finish <= ta) {
				continue
			}
			pre, ok := ls.rateAt(ta)
			if !ok {
				continue
			}
			out.pairs++
			if at, ok := ls.firstBelow(ta, ta+horizon, reactFrac*pre); ok {
				sum += float64(at-ta) / float64(rtt)
				reacted++
			} else {
				sum += cens
			}
		}
	}
	if out.pairs == 0 {
		return out, fmt.Errorf("no short-flow arrival with a long flow sending (rate_trace.csv has %d rows)", len(cols[0]))
	}
	out.share = float64(reacted) / float64(out.pairs)
	out.meanRTTs = sum / float64(out.pairs)
	return out, nil
}

// reactMetrics are measureReaction's two figures as run metrics
// (ctx.Sample): the mean reaction time in RTTs (a lower bound where the
// share is below 100 %, reactCensored) and the share in per cent. Each
// run's trace is read once for both.
func reactMetrics() (time, share func(*experiment.RunRef) (float64, error)) {
	seen := map[string]reaction{}
	get := func(r *experiment.RunRef) (reaction, error) {
		if x, ok := seen[r.Dir]; ok {
			return x, nil
		}
		x, err := measureReaction(r)
		if err == nil {
			seen[r.Dir] = x
		}
		return x, err
	}
	time = func(r *experiment.RunRef) (float64, error) { x, err := get(r); return x.meanRTTs, err }
	share = func(r *experiment.RunRef) (float64, error) { x, err := get(r); return 100 * x.share, err }
	return time, share
}

// reactCensored reports whether any seed of a point has a pair that did
// not react within the horizon (its mean reaction time is a lower bound).
func reactCensored(share experiment.Sample) bool {
	for _, v := range share {
		if v < 100 {
			return true
		}
	}
	return false
}

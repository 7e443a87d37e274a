package env

import "github.com/ccsim/ccsim/sim"

// cores is one sending host's decision processor (docs/env.md §5): the
// time each core becomes free, and the host's totals.
type cores struct {
	free      []sim.Time
	busy      sim.Time // Cost × decisions taken
	decisions int64
	skipped   int64
}

// decide books a decision arriving at now on the earliest-free core
// (lowest index on ties) and returns when its action takes effect; ok is
// false when the decision is skipped (queue "skip" and every core busy).
func (c *cores) decide(now, cost sim.Time, skip bool) (at sim.Time, ok bool) {
	k := 0
	for i := 1; i < len(c.free); i++ {
		if c.free[i] < c.free[k] {
			k = i
		}
	}
	start := max(now, c.free[k])
	if skip && start > now {
		c.skipped++
		return 0, false
	}
	c.free[k] = start + cost
	c.busy += cost
	c.decisions++
	return start + cost, true
}

// HostBusy reports one sending host's decision processor over an episode.
type HostBusy struct {
	Host      int
	Decisions int64 // decisions taken
	Skipped   int64 // decisions skipped (queue "skip")
	// Busy is the fraction of the host's core time [first start, end] ×
	// cores spent deciding; the part of a decision past the end is not
	// counted.
	Busy float64
}

// busyFraction is c's busy fraction over [from, end].
func (c *cores) busyFraction(from, end sim.Time) float64 {
	b := c.busy
	for _, f := range c.free {
		if f > end {
			b -= f - end
		}
	}
	span := end - from
	if span <= 0 {
		return 0
	}
	return float64(b) / (float64(span) * float64(len(c.free)))
}

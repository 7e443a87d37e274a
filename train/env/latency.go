package env

import (
	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/sim"
)

// cores is one sending host's decision processor (docs/env.md §5): its
// cores (cc.DECCCores, the booking rule decc-nn deploys) and the host's
// totals.
type cores struct {
	cc.DECCCores
	busy      sim.Time // Cost × decisions taken
	decisions int64
	skipped   int64
}

// decide books a decision arriving at now on the earliest-free core
// (lowest index on ties) and returns when its action takes effect; ok is
// false when the decision is skipped (queue "skip" and every core busy).
func (c *cores) decide(now, cost sim.Time, skip bool) (at sim.Time, ok bool) {
	at, ok = c.Book(now, cost, skip)
	if !ok {
		c.skipped++
		return 0, false
	}
	c.busy += cost
	c.decisions++
	return at, true
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
	free := c.Free()
	for _, f := range free {
		if f > end {
			b -= f - end
		}
	}
	span := end - from
	if span <= 0 {
		return 0
	}
	return float64(b) / (float64(span) * float64(len(free)))
}

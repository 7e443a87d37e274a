// Package workload describes the traffic a scenario offers: lists of flows,
// read from YAML or from the reference simulator's flow file format, or
// generated (incast bursts; CDF/Poisson generators arrive with later issues).
package workload

import "github.com/ccsim/ccsim/sim"

// Flow is one message (one queue pair) from Src to Dst.
type Flow struct {
	Src, Dst  int      // host node ids
	Prio      int      // priority class 0..7 (the reference files use 3)
	SPort     int      // source port; 0 = assigned per (src, dst) from 10000 as the reference does
	DPort     int      // destination port (reference files: 100); informational
	SizeBytes int64    // payload bytes
	Start     sim.Time // arrival time: first byte ready at the sender
	// RefStart is the start time the reference simulator actually uses:
	// Seconds(double) of the decimal start time, whole ns (see RefStartTime);
	// e.g. 2.000000223 s starts at 2,000,000,222 ns. Set by ReadNS3Flows and
	// the builders; 0 when unknown.
	RefStart sim.Time
	// Via, when HasVia is set, pins the flow's data path through switch
	// node Via: at every switch before Via the data packets choose only
	// among the equal-cost next hops on a shortest path through Via (see
	// fabric.Network.AddFlows); Via must lie on a shortest path from Src
	// to Dst. Not part of the reference flow file format.
	Via    int
	HasVia bool
}

// Package workload describes the traffic a scenario offers: lists of flows,
// read from YAML or from the reference simulator's flow file format, or
// generated (Poisson from a size CDF, incast bursts, all-to-all,
// many-to-many, long + short, the cross-DC mix, perftest).
package workload

import "github.com/ccsim/ccsim/sim"

// Flow is one message (one queue pair) from Src to Dst.
type Flow struct {
	Src, Dst  int      // host node ids
	Prio      int      // priority class 0..7 (the reference files use 3)
	SPort     int      // source port; 0 = assigned per (src, dst) from 10000 as the reference does
	DPort     int      // destination port (reference files: 100); informational
	SizeBytes int64    // payload bytes (with Messages > 1: of each message)
	Start     sim.Time // arrival time: first byte ready at the sender (ignored with HasAfter)
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

	// Group tags the flow's traffic class (GroupCross, GroupIncast, ...;
	// GroupNone = untagged) so that analyses can select flows; flows.csv
	// writes its name (GroupName) in a `group` column.
	Group Group

	// HasAfter marks a chained flow (After); declared here to share the
	// padding of the small fields. HasNext marks a member of a message
	// ring (Next).
	HasAfter     bool
	HasAlsoAfter bool
	HasNext      bool

	// After, when HasAfter is set, chains the flow to flow After (an index
	// into the same flow list): it starts Gap after that flow completes
	// (its last byte acknowledged), and never if it does not complete.
	// Start is then not a start time (scenario flows leave it 0); Merge,
	// which sorts by Start, renumbers After so that it keeps pointing at
	// the same flow. Chains must not form a cycle (CheckChains).
	After int
	// AlsoAfter, when HasAlsoAfter is set (with HasAfter), is a second
	// predecessor: the flow starts Gap after the later of After and
	// AlsoAfter completes (an MPI round that waits for its send and its
	// receive).
	AlsoAfter int
	// Gap is the delay from the completion of the predecessor (HasAfter)
	// or of the previous message (Messages > 1) to the next start; >= 0.
	Gap sim.Time

	// MaxInFlight, if positive, caps the payload bytes the flow has in
	// flight (sent, not yet acknowledged), independently of the congestion
	// control's window: a packet may be sent while the bytes in flight are
	// below the smaller of the two (perftest's tx-depth × message size;
	// docs/workloads.md §3).
	MaxInFlight int64

	// Messages > 1 makes the flow a message chain on one queue pair:
	// messages of SizeBytes each, message k+1 posted Gap after message k
	// completed (ib_write_lat's ping-pong; docs/workloads.md §3). The
	// fabric posts each message when the previous one completes, so a
	// chain of a million messages costs one queue pair. Until, if
	// positive, ends the chain earlier: no message is posted at or after
	// Until. MessagesUnlimited posts messages until Until.
	Messages int64
	Until    sim.Time

	// Next, when HasNext is set, makes the flow a member of a message ring
	// (docs/workloads.md §4.4): one process posting successive messages of
	// SizeBytes round robin over its queue pairs, one per destination,
	// each message posted Gap after the previous one completed. A completed
	// message of this flow posts the next message on flow Next (starting
	// it if it has not started: Next is then chained to this flow with
	// HasAfter); this flow waits for its own next turn, keeping its queue
	// pair and its algorithm's state. A ring runs until the run ends: its
	// flows never complete. CheckRings states the rules.
	Next int
}

// MessagesUnlimited as Flow.Messages posts messages until Flow.Until.
const MessagesUnlimited = int64(1) << 62

// Group is a flow's traffic class tag.
type Group uint8

// Traffic classes of the generators.
const (
	GroupNone      Group = iota // untagged
	GroupCross                  // cross_dc: all-to-all between two domains
	GroupIntra                  // cross_dc: all-to-all within a domain
	GroupIncast                 // cross_dc: BDP-sized incast flows; incast_bursts: every burst flow
	GroupBandwidth              // perftest: ib_write_bw bandwidth flows
	GroupProbe                  // perftest: ib_write_lat latency probe chain
)

var groupNames = [...]string{"", "cross", "intra", "incast", "bw", "probe"}

// GroupName is the name of a group as written in flows.csv ("" for
// GroupNone and unknown values).
func GroupName(g Group) string {
	if int(g) < len(groupNames) {
		return groupNames[g]
	}
	return ""
}

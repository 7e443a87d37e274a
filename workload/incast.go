package workload

import "github.com/ccsim/ccsim/sim"

// RefDPort is the destination port of every flow in the reference files.
const RefDPort = 100

// Incast returns one flow from each of senders to dst, all starting at
// start with priority prio, in sender order. sizes holds one size per
// sender, or a single size for all. DPort is RefDPort, RefStart is
// RefStartTime(start), and SPort is assigned by AssignRefSPorts over the
// returned flows (10000 unless a sender repeats; call AssignRefSPorts again
// on a combined workload). It panics if len(sizes) is neither 1 nor
// len(senders).
func Incast(senders []int, dst int, sizes []int64, start sim.Time, prio int) []Flow {
	if len(sizes) != 1 && len(sizes) != len(senders) {
		panic("workload: Incast needs one size or one size per sender")
	}
	ref := RefStartTime(start)
	flows := make([]Flow, len(senders))
	for i, s := range senders {
		size := sizes[0]
		if len(sizes) > 1 {
			size = sizes[i]
		}
		flows[i] = Flow{Src: s, Dst: dst, Prio: prio, DPort: RefDPort, SizeBytes: size, Start: start, RefStart: ref}
	}
	AssignRefSPorts(flows)
	return flows
}

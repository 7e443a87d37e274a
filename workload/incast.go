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

// IncastQPs is Incast with each sender's bytes split evenly over qps queue
// pairs (flows of the same src and dst, sender-major order; the first
// size % qps of a sender's QPs carry one byte more). qps = 1 is Incast.
// It panics if qps < 1 or len(sizes) is neither 1 nor len(senders).
func IncastQPs(senders []int, dst int, sizes []int64, qps int, start sim.Time, prio int) []Flow {
	if qps < 1 {
		panic("workload: IncastQPs needs at least one QP per sender")
	}
	if qps == 1 {
		return Incast(senders, dst, sizes, start, prio)
	}
	if len(sizes) != 1 && len(sizes) != len(senders) {
		panic("workload: IncastQPs needs one size or one size per sender")
	}
	ref := RefStartTime(start)
	flows := make([]Flow, 0, len(senders)*qps)
	for i, s := range senders {
		size := sizes[0]
		if len(sizes) > 1 {
			size = sizes[i]
		}
		each, extra := size/int64(qps), size%int64(qps)
		for k := range qps {
			sz := each
			if int64(k) < extra {
				sz++
			}
			flows = append(flows, Flow{Src: s, Dst: dst, Prio: prio, DPort: RefDPort, SizeBytes: sz, Start: start, RefStart: ref})
		}
	}
	AssignRefSPorts(flows)
	return flows
}

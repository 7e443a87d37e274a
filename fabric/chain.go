package fabric

import (
	"fmt"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/workload"
)

// Chained flows and message chains (docs/workloads.md §4).
//
// A chained flow (workload.Flow.HasAfter) is an ordinary flow with its own
// queue pair whose start is the completion of its predecessor plus Gap: it
// is left out of the start list, and finish pushes its start event. The
// start event carries Arg 1 so that it does not advance the start list.
//
// A message chain (workload.Flow.Messages > 1) is one queue pair carrying
// a sequence of messages, the next posted Gap after the previous one
// completed, as perftest's ib_write_lat posts its next message on the
// same QP. The QP's SizeBytes is the end of the data posted so far: it
// grows by one message at each post, so the send path is unchanged and a
// message's last packet may be short (each message is segmented on its
// own). The algorithm's state carries over from message to message. Only
// the chain's counters and its current message's post time are kept; the
// per-message latencies go to OnMessageDone.
//
// A message ring (workload.Flow.HasNext) is a set of such queue pairs, one
// per destination of a process that posts its messages round robin: the
// completion of a message on one member posts the next message on the
// member Next (Gap later), which starts then if it has not started (it is
// chained to its ring predecessor). A member between turns is idle, not
// finished: its algorithm keeps its state and timers, and it never
// completes.

// msgChain is the state of one message chain.
type msgChain struct {
	size  int64    // bytes per message
	left  int64    // messages still to post after the current one
	gap   sim.Time // completion → next post
	until sim.Time // no post at or after (0 = no limit)
	idx   int64    // index of the current message
	post  sim.Time // post time of the current message
	done  int64    // messages completed
	next  int32    // ring successor (a message ring), or -1
}

// checkChainFields validates flow i's gap, cap and message fields (the
// predecessors are checked by workload.CheckChains).
func checkChainFields(i int, f *workload.Flow) error {
	switch {
	case f.MaxInFlight < 0:
		return fmt.Errorf("flow %d: max in-flight %d bytes is negative (0 = no cap)", i, f.MaxInFlight)
	case f.Gap < 0:
		return fmt.Errorf("flow %d: gap %v is negative", i, f.Gap)
	case f.Messages < 0:
		return fmt.Errorf("flow %d: %d messages is negative (0 or 1 = a single message)", i, f.Messages)
	case f.Until < 0:
		return fmt.Errorf("flow %d: until %v is negative (0 = no limit)", i, f.Until)
	}
	return nil
}

// setChains builds the successor lists of chained flows (rejecting invalid
// predecessors and cycles) and the state of the message chains.
func (n *Network) setChains(flows []workload.Flow) error {
	chained := false
	for i := range flows {
		f := &flows[i]
		if f.HasAfter || f.HasAlsoAfter {
			chained = true
		}
		switch {
		case f.HasNext:
			n.chains = append(n.chains, msgChain{size: f.SizeBytes, left: workload.MessagesUnlimited, gap: f.Gap, next: int32(f.Next)})
			n.QPs[i].chain = int32(len(n.chains))
		case f.Messages > 1:
			n.chains = append(n.chains, msgChain{size: f.SizeBytes, left: f.Messages - 1, gap: f.Gap, until: f.Until, next: -1})
			n.QPs[i].chain = int32(len(n.chains))
		}
	}
	if err := workload.CheckRings(flows); err != nil {
		return err
	}
	if !chained {
		return nil
	}
	if err := workload.CheckChains(flows); err != nil {
		return err
	}
	n.succ, n.succOff = workload.Successors(flows)
	for i := range flows {
		if flows[i].HasAlsoAfter {
			if n.predLeft == nil {
				n.predLeft = make([]int8, len(flows))
			}
			n.predLeft[i] = 2
		}
	}
	return nil
}

// startSuccessors schedules the starts of the flows chained to flow i,
// which has just completed, in ascending index order (start events of equal
// time run in that order); a flow with two predecessors starts when the
// second completes.
func (n *Network) startSuccessors(i int32) {
	for _, s := range n.succ[n.succOff[i]:n.succOff[i+1]] {
		if n.predLeft != nil && n.predLeft[s] > 0 {
			if n.predLeft[s]--; n.predLeft[s] > 0 {
				continue
			}
		}
		n.q.Push(n.now+n.Flows[s].Gap, evFlowStart, s, 1)
	}
}

// complete handles the ACK that covers all data posted on QP q: the end of
// the flow, or of the current message of a message chain, which then posts
// its next message (now or after the gap) or ends.
func (n *Network) complete(q *QP) {
	if q.chain == 0 {
		n.finish(q)
		return
	}
	c := &n.chains[q.chain-1]
	c.done++
	if n.OnMessageDone != nil {
		n.OnMessageDone(q, c.idx, c.post, n.now)
	}
	next := n.now + c.gap
	if c.next >= 0 {
		// a message ring: the process's next message goes to the next
		// member; this queue pair waits for its turn
		if n.QPs[c.next].started {
			n.q.Push(next, evMsgPost, c.next, 0)
		} else {
			n.q.Push(next, evFlowStart, c.next, 1)
		}
		return
	}
	if c.left == 0 || c.until > 0 && next >= c.until {
		n.finish(q)
		return
	}
	if c.gap == 0 {
		n.post(q, c)
		return
	}
	n.q.Push(next, evMsgPost, q.ID, 0)
}

// postMessage posts the next message of QP i's chain (after the gap).
func (n *Network) postMessage(i int32) {
	q := &n.QPs[i]
	if q.Done || q.chain == 0 {
		return
	}
	n.post(q, &n.chains[q.chain-1])
	n.hostSend(q.Src)
}

// post makes the chain's next message available to send now.
func (n *Network) post(q *QP, c *msgChain) {
	c.left--
	c.idx++
	c.post = n.now
	q.SizeBytes += c.size
	n.refresh(q)
}

// startChain posts the first message of a chain as its QP starts.
func (n *Network) startChain(q *QP) {
	n.chains[q.chain-1].post = n.now
}

// MessageChain reports the number of messages QP q's message chain has
// posted and completed, and whether q is a message chain.
func (n *Network) MessageChain(q *QP) (posted, completed int64, ok bool) {
	if q.chain == 0 {
		return 0, 0, false
	}
	c := &n.chains[q.chain-1]
	if !q.started {
		return 0, 0, true
	}
	return c.idx + 1, c.done, true
}

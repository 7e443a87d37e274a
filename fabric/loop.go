package fabric

// The event loop: Run pops events in time order and dispatches on their
// kind to the handlers of loop → switch (switch.go) → link (link.go) →
// host (host.go).

import (
	"unsafe"

	"github.com/ccsim/ccsim/internal/prefetch"
	"github.com/ccsim/ccsim/sim"
)

// Event kinds of the fabric's event loop.
const (
	evArrive     uint8 = iota // packet Idx's last bit reaches host port Arg
	evArriveSw                // ... reaches switch port Arg
	evArriveData              // ... a data packet reaches its host's port Arg
	evArriveAck               // ... an ACK/NACK reaches its host's port Arg
	evTxDone                  // switch port Idx's transmitter is free
	evHostWake                // host node Idx's NIC may be able to send
	evFlowStart               // flow Idx becomes ready at its sender
	evQPTimer                 // algorithm timer of QP Idx (Arg = gen<<2 | id)
	evRTO                     // retransmission timer of QP Idx
	evMonitor                 // periodic sampling
	evStop                    // end of simulation
	evFeature                 // periodic switch-feature tick
	evLost                    // packet Idx, lost on its link, would have reached port Arg
	evMsgPost                 // QP Idx's message chain posts its next message (chain.go)
)

// Run executes events until all flows completed, the stop time, or the
// event queue is empty. It returns the time of the last event.
func (n *Network) Run() sim.Time {
	for i := range n.monitors {
		n.q.Push(0, evMonitor, int32(i), 0)
	}
	if n.stopAt != sim.Never {
		n.q.Push(n.stopAt, evStop, 0, 0)
	}
	if n.featureEvery > 0 {
		n.q.Push(n.featureEvery, evFeature, 0, 0)
	}
	for {
		e, ok := n.q.Next()
		if !ok {
			break
		}
		n.now = e.At
		if n.prefetchAhead {
			if f, ok := n.q.Following(); ok && f.Kind() <= evArriveAck {
				// the packet of an arrival about to come has likely left
				// the cache since it was sent; start loading it now
				// (internal/prefetch: a plain load here stalled the core,
				// 48 % of a cross-DC run with deep queues)
				prefetch.T0(unsafe.Pointer(&n.pkts[f.Idx]))
				if n.extOn {
					prefetch.T0(unsafe.Pointer(&n.ext[f.Idx]))
				}
			}
		}
		n.Stats.Events++
		if n.Stats.Events&(1<<20-1) == 0 && n.Progress != nil {
			n.Progress(n.now)
		}
		switch e.Kind() {
		case evArriveSw:
			n.switchReceive(int32(e.Arg), e.Idx)
		case evArriveData:
			n.receiveData(e.Idx)
		case evArriveAck:
			n.receiveAck(e.Idx)
		case evArrive:
			n.hostReceive(int32(e.Arg), e.Idx)
		case evLost:
			n.linkLoss(int32(e.Arg), e.Idx)
		case evTxDone:
			if !n.Ports[e.Idx].txTimer.Fires(e.Arg) {
				continue
			}
			n.switchSend(e.Idx)
		case evHostWake:
			nd := &n.Nodes[e.Idx]
			if !nd.wake.Fires(e.Arg) {
				continue
			}
			n.hostSend(e.Idx)
		case evFlowStart:
			if e.Arg == 0 { // else a chained flow (chain.go)
				n.pushNextStart()
			}
			n.startFlow(e.Idx)
		case evMsgPost:
			n.postMessage(e.Idx)
		case evQPTimer:
			if n.idle != nil {
				if f, ok := n.q.Ahead(idleAhead); ok && f.Kind() == evQPTimer {
					// start loading the idle slot of a later expiry
					prefetch.T0(unsafe.Pointer(&n.idle[f.Idx]))
				}
				if n.idleExpiry(e.Idx, e.Arg) {
					continue
				}
			}
			q := &n.QPs[e.Idx]
			id := int(e.Arg & 3)
			if !q.timers[id].Fires(e.Arg >> 2) {
				continue
			}
			if q.Done {
				continue
			}
			q.CC.OnTimer(q, id, n.now)
			n.refresh(q)
		case evRTO:
			n.onRTO(e.Idx, e.Arg)
		case evMonitor:
			if n.Stats.FlowsDone == len(n.QPs) && len(n.QPs) > 0 {
				continue
			}
			m := &n.monitors[e.Idx]
			m.fn(n, n.now)
			n.q.PushDelay(n.now, m.every, evMonitor, e.Idx, 0)
		case evFeature:
			if n.Stats.FlowsDone == len(n.QPs) && len(n.QPs) > 0 {
				continue
			}
			for i := range n.Nodes {
				if fs := n.Nodes[i].features; fs != nil {
					for _, f := range fs {
						f.OnPeriod(&n.views[i], n.now)
					}
				}
			}
			n.q.PushDelay(n.now, n.featureEvery, evFeature, 0, 0)
		case evStop:
			n.q.Done()
			n.closePauses()
			return n.now
		}
		if n.Stats.FlowsDone == len(n.QPs) && len(n.QPs) > 0 {
			break
		}
	}
	n.q.Done()
	n.closePauses()
	return n.now
}

// closePauses adds still-open pause intervals to the paused-time counters.
func (n *Network) closePauses() {
	for i := range n.Ports {
		p := &n.Ports[i]
		for c := 0; c < numClasses; c++ {
			if p.paused[c] {
				p.Stats.PausedTime += n.now - p.pausedSince[c]
				p.pausedSince[c] = n.now
			}
		}
	}
}

// pushNextStart queues the next flow arrival with its reserved sequence.
func (n *Network) pushNextStart() {
	if n.startNext >= len(n.startOrder) {
		return
	}
	i := n.startOrder[n.startNext]
	n.q.PushSeq(n.Flows[i].Start, n.startSeq+uint64(i), evFlowStart, i, 0)
	n.startNext++
}

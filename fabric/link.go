package fabric

// The link: a packet put on a wire (transmit) reaches the peer port after
// serialization and propagation, or is lost on the way (linkLoss); PFC
// frames act on the port they arrive at (receivePFC).

import "github.com/ccsim/ccsim/sim"

// transmit puts packet pi on port pt's wire now; the transmitter is free
// again after the serialization time.
func (n *Network) transmit(pt int32, pi int32) {
	p := &n.Ports[pt]
	pk := &n.pkts[pi]
	var tx sim.Time
	if p.psPerByte > 0 {
		tx = sim.Time(pk.Size) * p.psPerByte // exact, no division
	} else {
		tx = sim.TxTime(int64(pk.Size), p.Bps)
	}
	p.busyUntil = n.now + tx
	p.txBytes += int64(pk.Size)
	p.Stats.TxPackets++
	p.Stats.TxBytes += int64(pk.Size)
	p.Stats.TxPayloadBytes += int64(pk.Payload) // 0 for control packets
	// The last bit reaches the peer after serialization and propagation.
	// That delay recurs (few packet sizes × few link types), so the event
	// goes into one of the scheduler's FIFO lanes: an append, no heap work.
	// The event kind names the handler, so dispatch is one jump.
	kind := evArriveSw
	if !p.peerSwitch {
		switch pk.Kind {
		case KindData:
			kind = evArriveData
		case KindAck, KindNack:
			kind = evArriveAck
		default:
			kind = evArrive
		}
	}
	if p.lossy && p.lossRng.Float64() < p.lossRate {
		// the packet will be lost on the link (the draw is made as it
		// starts: the link is FIFO, so in the order of arrivals)
		kind = evLost
	}
	p.txOdd = pk.Kind == KindData && int(pk.Payload) != n.cfg.PayloadBytes
	if !p.txOdd {
		n.q.PushDelay(n.now, tx+p.Delay, kind, pi, uint32(p.Peer))
	} else {
		// a flow's short last packet: its delay is rare, keep it out of
		// the lanes (few, busy lanes keep the scan short)
		n.q.Push(n.now+tx+p.Delay, kind, pi, uint32(p.Peer))
	}
}

// linkLoss discards packet pi, lost on the link that ends at port in: the
// receiver drops the corrupted frame (any kind, PFC frames included, as the
// reference's per-link error model does). It counts as a drop at port in.
func (n *Network) linkLoss(in int32, pi int32) {
	p := &n.Ports[in]
	p.Stats.Drops++
	p.Stats.LinkLosses++
	n.Nodes[p.Node].Drops++
	n.Stats.LinkLosses++
	n.countDrop(&n.pkts[pi])
	n.release(pi)
}

// receivePFC applies a PFC frame arriving on port in (which pauses or
// resumes in's own transmitter).
func (n *Network) receivePFC(in int32, pi int32) {
	pk := &n.pkts[pi]
	p := &n.Ports[in]
	c, pause := pk.Prio, pk.Pause
	if pause {
		p.Stats.PauseRx++
		if !p.paused[c] {
			p.paused[c] = true
			p.pauseMask |= 1 << c
			p.pausedSince[c] = n.now
		}
	} else if p.paused[c] {
		p.paused[c] = false
		p.pauseMask &^= 1 << c
		p.Stats.PausedTime += n.now - p.pausedSince[c]
	}
	if n.pfcLog != nil {
		nd := &n.Nodes[p.Node]
		n.pfcLog(PFCEvent{At: n.now, Node: p.Node, Port: in - nd.FirstPort, Pause: pause})
	}
	n.release(pi)
	if !pause {
		if p.isSwitch {
			n.switchSend(in)
		} else {
			n.hostSend(p.Node)
		}
	}
}

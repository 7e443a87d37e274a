package fabric

import "github.com/ccsim/ccsim/sim"

// startFlow creates the QP of flow i at its sender and tries to transmit.
func (n *Network) startFlow(i int32) {
	q := &n.QPs[i]
	q.Start = n.now // the flow's Start, or its predecessor's completion + Gap
	q.started = true
	if q.chain != 0 {
		n.startChain(q)
	}
	q.nextAvail = n.now
	// header bytes of data and ACKs; an ACK is padded to the 60-byte
	// minimum frame
	q.dataHdr = DataHeaderBytes
	ackHdr := int32(AckHeaderBytes)
	if n.req.INT {
		q.dataHdr += IntHeaderBytes
		ackHdr += IntHeaderBytes
	} else if n.req.Timestamp {
		q.dataHdr += 8
	}
	// the algorithm's header extension (ext.go); an ACK with it may still
	// pad to the minimum frame
	q.dataHdr += n.req.Ext.DataBytes
	ackHdr += n.req.Ext.AckBytes
	q.ackSize = max(AckBytes, ackHdr)
	q.CC = n.newCC(int(i))
	q.rx, _ = q.CC.(ReceiverAlgorithm)
	q.tmo, _ = q.CC.(TimeoutAlgorithm)
	if q.traceRate {
		n.recordLimits(q, q.RateBps, q.WindowBytes)
	}
	q.CC.Start(q, n.now)
	q.lastProgress = n.now
	if n.cfg.RTO > 0 {
		g := q.rto.Arm(n.now + n.cfg.RTO)
		n.q.Push(n.now+n.cfg.RTO, evRTO, i, g)
	}
	nd := &n.Nodes[q.Src]
	q.hpos = int32(len(nd.qps))
	nd.qps = append(nd.qps, i)
	nd.openBits = growBits(nd.openBits, len(nd.qps))
	nd.dataBits = growBits(nd.dataBits, len(nd.qps))
	nd.prioQPs[q.Prio]++
	nd.prioMask |= 1 << q.Prio
	q.active = true
	n.refresh(q)
	n.hostSend(q.Src)
}

// refresh recomputes whether active QP q is open (has data to send and is
// not window-bound) and keeps its host's count of open QPs. It runs after
// everything that may change the answer: a packet sent, an ACK, a timeout,
// and every algorithm callback (which may change the rate or window).
func (n *Network) refresh(q *QP) {
	d := q.active && q.SndNxt < q.SizeBytes
	o := d && !q.winBound()
	if o != q.open {
		q.open = o
		nd := &n.Nodes[q.Src]
		if o {
			nd.open++
		} else {
			nd.open--
		}
		setBit(nd.openBits, q.hpos, o)
	}
	if d != q.hasData {
		q.hasData = d
		setBit(n.Nodes[q.Src].dataBits, q.hpos, d)
	}
}

// armWake makes sure host h's NIC runs its transmit routine at time at.
func (n *Network) armWake(h int32, at sim.Time) {
	nd := &n.Nodes[h]
	if t, ok := nd.wake.Armed(); ok && t <= at {
		return
	}
	// a keyed timer: re-arming updates the one pending entry in place
	n.q.SetTimer(h, at, evHostWake, nd.wake.Arm(at))
}

// pullWake moves a pending wake-up of host h earlier to at (never earlier
// than now), as the reference's UpdateNextAvail does after a rate change.
func (n *Network) pullWake(h int32, at sim.Time) {
	nd := &n.Nodes[h]
	if t, ok := nd.wake.Armed(); ok && t > at {
		if at < n.now {
			at = n.now
		}
		n.q.SetTimer(h, at, evHostWake, nd.wake.Arm(at))
	}
}

// hostSend is the NIC transmit routine of host h (docs/reference-simulator.md §2.3): the ACK queue
// first, then round robin among QPs that their pacing, window and PFC allow.
func (n *Network) hostSend(h int32) {
	nd := &n.Nodes[h]
	pt := nd.FirstPort
	p := &n.Ports[pt]
	if n.now < p.busyUntil {
		n.armWake(h, p.busyUntil)
		return
	}
	ackClass := uint8(0)
	if nd.ackQ.size > 0 {
		pi := nd.ackQ.front()
		if !n.cfg.AckHighPrio {
			ackClass = n.pkts[pi].Prio
		}
		if ackClass == 0 || !p.paused[ackClass] {
			nd.ackQ.pop()
			n.transmit(pt, pi)
			n.armNext(h)
			return
		}
	}
	qps := nd.qps
	m := len(qps)
	if debugChecks {
		n.checkBits(h)
	}
	// round robin from the QP after the last one served: positions
	// rrLast+1 … m−1, then 0 … rrLast, visiting only open QPs (skipped
	// when no QP is open or every open QP's class is paused)
	if nd.open > 0 && nd.prioMask&^p.pauseMask != 0 {
		for pass, from, to := 0, nd.rrLast+1, m; pass < 2; pass, from, to = pass+1, 0, min(nd.rrLast+1, m) {
			for j := nextSet(nd.openBits, from, to); j >= 0; j = nextSet(nd.openBits, j+1, to) {
				q := &n.QPs[qps[j]]
				if p.paused[q.Prio] || q.nextAvail > n.now {
					continue
				}
				nd.rrLast = j
				n.sendData(q, pt)
				n.armNext(h)
				return
			}
		}
	}
	// nothing selectable: wake at the earliest pacing time of a QP with
	// data, if that is in the future (one that may send now ends the search)
	t := sim.Never
	for j := nextSet(nd.dataBits, 0, m); j >= 0; j = nextSet(nd.dataBits, j+1, m) {
		q := &n.QPs[qps[j]]
		if q.nextAvail < t {
			t = q.nextAvail
			if t <= n.now {
				return
			}
		}
	}
	if t != sim.Never {
		n.armWake(h, t)
	}
}

// armNext schedules host h's next transmit attempt after the packet just
// started: when the transmitter frees if an ACK waits, else at the earliest
// time a QP that is not paused or window-bound may send.
func (n *Network) armNext(h int32) {
	nd := &n.Nodes[h]
	p := &n.Ports[nd.FirstPort]
	if nd.ackQ.size > 0 {
		n.armWakeTx(h, p.busyUntil)
		return
	}
	if nd.open == 0 || nd.prioMask&^p.pauseMask == 0 {
		return // no QP is open, or every QP's class is paused
	}
	// the earliest time a QP may send; any time up to busyUntil gives the
	// same wake-up, so the first such QP ends the search
	t := sim.Never
	if debugChecks {
		n.checkBits(h)
	}
	for j := nextSet(nd.openBits, 0, len(nd.qps)); j >= 0; j = nextSet(nd.openBits, j+1, len(nd.qps)) {
		q := &n.QPs[nd.qps[j]]
		if q.nextAvail < t && !p.paused[q.Prio] {
			t = q.nextAvail
			if t <= p.busyUntil {
				break
			}
		}
	}
	if t == sim.Never {
		return
	}
	if t <= p.busyUntil {
		n.armWakeTx(h, p.busyUntil)
		return
	}
	n.armWake(h, t)
}

// armWakeTx is armWake for the end of the transmission just started: that
// delay is a serialization time, which recurs, so it uses a FIFO lane,
// unless the packet was a flow's short last one (whose odd sizes would
// each take a lane).
func (n *Network) armWakeTx(h int32, at sim.Time) {
	nd := &n.Nodes[h]
	if t, ok := nd.wake.Armed(); ok && t <= at {
		return
	}
	g := nd.wake.Arm(at)
	n.q.CancelTimer(h) // a pending keyed wake-up is now stale
	if n.Ports[nd.FirstPort].txOdd {
		n.q.Push(at, evHostWake, h, g)
	} else {
		n.q.PushDelay(n.now, at-n.now, evHostWake, h, g)
	}
}

// sendData starts the next data packet of QP q on host port pt.
func (n *Network) sendData(q *QP, pt int32) {
	payload := int64(n.cfg.PayloadBytes)
	if r := q.SizeBytes - q.SndNxt; r < payload {
		payload = r
	}
	size := int32(payload) + q.dataHdr
	if q.WantSendHook {
		q.CC.OnSend(q, int(size), n.now)
	}
	if n.perRTT {
		n.perRTTSend(q)
	}
	pi := n.alloc()
	pk := &n.pkts[pi]
	*pk = Packet{Kind: KindData, Prio: q.Prio, QP: q.ID, Src: q.Src, Dst: q.Dst, Size: size,
		Payload: int32(payload), Seq: q.SndNxt, TS: n.now, Hash: q.hashFwd, Mark: q.DataMark}
	if n.extOn {
		n.ext[pi] = q.Ext
	}
	if q.SndNxt < q.maxSent {
		q.RetxBytes += payload
		n.Stats.Retransmits++
	} else {
		q.maxSent = q.SndNxt + payload
	}
	q.SndNxt += payload
	q.TxPackets++
	q.TxBytes += payload
	q.lastPktSize = size
	if size != q.paceSize || q.RateBps != q.paceBps {
		q.paceSize, q.paceBps = size, q.RateBps
		q.paceGap = sim.TxTime(int64(size), q.RateBps)
	}
	q.nextAvail = n.now + q.paceGap
	n.Stats.DataTxPackets++
	n.Stats.DataTxBytes += payload
	n.refresh(q)
	n.transmit(pt, pi)
}

// hostReceive handles a packet that arrived at host port pt.
func (n *Network) hostReceive(pt int32, pi int32) {
	pk := &n.pkts[pi]
	switch pk.Kind {
	case KindPFC:
		n.receivePFC(pt, pi)
	case KindData:
		n.receiveData(pi)
	case KindAck, KindNack:
		n.receiveAck(pi)
	case KindCNP, KindNotice:
		q := &n.QPs[pk.QP]
		nt := &n.notice
		*nt = Notice{Kind: pk.Kind, From: pk.Src, Arg: pk.Arg}
		if pk.Kind == KindNotice && pk.Mark&noticeHasArgs != 0 {
			slot := int32(pk.Arg)
			nt.Args = n.noticeArgs[slot]
			nt.Arg = nt.Args[0]
			n.noticeArgsFree = append(n.noticeArgsFree, slot)
		}
		n.release(pi)
		if !q.Done {
			if nt.Kind == KindCNP {
				q.CNPs++
			}
			q.CC.OnNotice(q, nt, n.now)
			n.refresh(q)
			n.hostSend(q.Src)
		}
	default:
		n.release(pi)
	}
}

// receiveData is the receiver NIC (docs/reference-simulator.md §3.2): ACK every in-order packet,
// NACK a gap (at most once per NackInterval for the same expected byte),
// discard duplicates and out-of-order packets.
func (n *Network) receiveData(pi int32) {
	pk := &n.pkts[pi]
	q := &n.QPs[pk.QP]
	n.Stats.DataRxPackets++
	n.Stats.DataRxBytes += int64(pk.Payload)
	q.RxBytes += int64(pk.Payload)
	// one-way network latency (docs/metrics.md §16): TS is the start of
	// the packet's transmission at the sender's NIC (sendData), now the
	// arrival of its last bit
	if lat := n.now - pk.TS; !n.latency.TryAdd(lat) {
		n.latency.Add(lat) // a new extreme or page: rare
	}
	if n.OnDataArrive != nil {
		n.OnDataArrive(q, pk.TS, n.now)
	}
	var kind Kind
	notify, narg := false, int64(0)
	switch {
	case pk.Seq == q.rcvNxt:
		q.rcvNxt += int64(pk.Payload)
		kind = KindAck
		if q.rx != nil {
			notify, narg = q.rx.OnDataReceived(q, pk.ECN, int(pk.Payload), pk.Mark, n.now)
		}
	case pk.Seq > q.rcvNxt:
		if n.now >= q.nackTimer || q.lastNack != q.rcvNxt {
			q.nackTimer = n.now + n.cfg.NackInterval
			q.lastNack = q.rcvNxt
			kind = KindNack
		} else {
			n.release(pi)
			return
		}
	default:
		// a duplicate: the reference discards it; with AckDuplicates the
		// receiver re-acknowledges what it holds (a lost last ACK is
		// then repaired by the sender's timeout)
		if !n.cfg.AckDuplicates {
			n.release(pi)
			return
		}
		kind = KindAck
	}
	cnp := false
	if pk.ECN && n.now-q.lastCNP >= n.cfg.CNPInterval {
		cnp = true
		q.lastCNP = n.now
	}
	// reuse the data packet's slot for the ACK: the INT stack and the send
	// timestamp are echoed in place.
	host := pk.Dst
	pk.Kind = kind
	pk.Src, pk.Dst = q.Dst, q.Src
	pk.Seq = q.rcvNxt
	pk.Size = q.ackSize
	pk.Payload = 0
	pk.ECN = false
	pk.CNP = cnp && !n.cfg.CNPAsPacket
	pk.Hash = q.hashRev
	pk.Hop = 0 // the reverse path's switches, counted from its first
	if n.extOn {
		// the data packet's extension is echoed in place, as declared
		n.echoExt(pi, host)
	}
	nd := &n.Nodes[host]
	nd.ackQ.push(pi)
	if kind == KindAck {
		n.Stats.AckPackets++
	} else {
		n.Stats.NackPackets++
	}
	if notify {
		ci := n.alloc()
		n.pkts[ci] = Packet{Kind: KindCNP, Prio: q.Prio, QP: q.ID, Src: q.Dst, Dst: q.Src, Size: CNPBytes, Hash: n.pkts[pi].Hash, Arg: narg}
		nd.ackQ.push(ci)
	}
	if cnp && n.cfg.CNPAsPacket {
		ci := n.alloc()
		n.pkts[ci] = Packet{Kind: KindCNP, Prio: q.Prio, QP: q.ID, Src: q.Dst, Dst: q.Src, Size: CNPBytes, Hash: q.hashRev}
		nd.ackQ.push(ci)
		n.Stats.CNPs++
	} else if cnp {
		n.Stats.CNPs++
	}
	n.hostSend(host)
}

// receiveAck is the sender's ACK/NACK processing (docs/reference-simulator.md §2.7).
func (n *Network) receiveAck(pi int32) {
	pk := &n.pkts[pi]
	q := &n.QPs[pk.QP]
	if q.Done {
		n.release(pi)
		return
	}
	// the AckInfo lives in the network (an interface call would make a
	// local escape and allocate once per ACK)
	a := &n.ackInfo
	*a = AckInfo{Seq: pk.Seq, Nack: pk.Kind == KindNack, CNP: pk.CNP, SentAt: pk.TS, RTT: n.now - pk.TS, Mark: pk.Mark}
	if n.req.INT {
		nh := int(pk.NHop)
		a.NHop = nh
		if nh > MaxIntHops {
			nh = MaxIntHops
		}
		a.Hops = n.intsOf(pi)[:nh]
	}
	if n.extOn {
		a.Ext = n.ext[pi]
	}
	n.Stats.RTT.Add(a.RTT)
	if n.perRTT {
		n.perRTTAck(q, a.Seq, a.Nack)
	}
	prevUna := q.SndUna
	if pk.Seq > q.SndUna {
		a.NewlyAcked = pk.Seq - q.SndUna
		q.SndUna = pk.Seq
		q.lastProgress = n.now
		if q.SndNxt < q.SndUna {
			// a timeout rewound SndNxt, then ACKs of packets still in the
			// network arrived: never resend acknowledged bytes
			q.SndNxt = q.SndUna
		}
	}
	if a.CNP {
		q.CNPs++
	}
	// the ACK that first covers the data posted completes the flow (or
	// the current message of a message chain, whose later duplicate ACKs
	// must not complete it again)
	done := q.SndUna >= q.SizeBytes && prevUna < q.SizeBytes
	if a.Nack {
		q.Nacks++
		q.SndNxt = q.SndUna
	}
	q.CC.OnAck(q, a, n.now)
	n.refresh(q)
	n.release(pi)
	if done {
		n.complete(q)
	}
	n.hostSend(q.Src)
}

// finish completes QP q: its FCT ends now.
func (n *Network) finish(q *QP) {
	q.Done = true
	q.Finish = n.now
	if n.idle != nil && n.idle[q.ID].on {
		q.wakeIdle()
	}
	for i := range q.timers {
		q.timers[i].Cancel()
	}
	q.rto.Cancel()
	q.active = false
	n.refresh(q)
	nd := &n.Nodes[q.Src]
	if nd.prioQPs[q.Prio]--; nd.prioQPs[q.Prio] == 0 {
		nd.prioMask &^= 1 << q.Prio
	}
	n.removeQP(nd, int(q.hpos)) // refresh above cleared its bits
	n.Stats.FlowsDone++
	if n.OnFlowDone != nil {
		n.OnFlowDone(q)
	}
	if n.succOff != nil {
		n.startSuccessors(q.ID)
	}
}

// onRTO handles QP i's retransmission timer: go back to the oldest
// unacknowledged byte if no ACK made progress for RTO.
func (n *Network) onRTO(i int32, gen uint32) {
	q := &n.QPs[i]
	if !q.rto.Fires(gen) || q.Done {
		return
	}
	deadline := q.lastProgress + n.cfg.RTO
	if q.SndUna < q.SndNxt && n.now >= deadline {
		n.Stats.Timeouts++
		q.SndNxt = q.SndUna
		q.lastProgress = n.now
		deadline = n.now + n.cfg.RTO
		if q.tmo != nil {
			q.tmo.OnTimeout(q, n.now)
		}
		q.rs.sampling = false // per-RTT sampling: abandon the sample
		n.refresh(q)
		n.hostSend(q.Src)
	} else if n.now >= deadline {
		deadline = n.now + n.cfg.RTO
	}
	g := q.rto.Arm(deadline)
	n.q.Push(deadline, evRTO, i, g)
}

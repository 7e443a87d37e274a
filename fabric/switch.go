package fabric

import (
	"math/bits"
	"unsafe"

	"github.com/ccsim/ccsim/internal/prefetch"
	"github.com/ccsim/ccsim/topo"
)

// Shared-buffer accounting follows the reference simulator's SwitchMmu
// (docs/reference-simulator.md §7.3): per (ingress port, class) a reserve, then the shared pool up
// to a dynamic threshold, then the port's PFC headroom.

// threshold is the dynamic (or static) shared-buffer limit of class c at
// ingress port p of switch nd.
//
// Static thresholds are capped by the switch's free shared buffer: a
// (port, class) may hold at most its current shared use plus what is still
// free of the pool (buffer − headroom − reserves), so that static per-port
// thresholds whose sum exceeds the pool (paper 002's DCI switch: 100 MB per
// ingress, 250 MB buffer, 5 ports) pause instead of overflowing the buffer.
// The reference simulator has no static mode; this cap is our
// interpretation (docs: README, switch overrides).
func (n *Network) threshold(nd *Node, p *Port, c uint8) int64 {
	free := nd.bufferBytes - nd.totalHeadroom - nd.totalReserve - nd.sharedUsed
	if free < 0 {
		free = 0
	}
	if nd.pfc == PFCStatic {
		th := nd.pfcStatic
		if lim := n.sharedOf(p, c) + free; lim < th {
			th = lim
		}
		return th
	}
	return free >> p.shift
}

func (n *Network) sharedOf(p *Port, c uint8) int64 {
	if v := p.ingress[c] - n.cfg.ReserveBytes; v > 0 {
		return v
	}
	return 0
}

// switchReceive handles a packet whose last bit arrived on switch port in.
func (n *Network) switchReceive(in int32, pi int32) {
	pk := &n.pkts[pi]
	if pk.Kind == KindPFC {
		n.receivePFC(in, pi)
		return
	}
	ip := &n.Ports[in]
	sw := ip.Node
	nd := &n.Nodes[sw]
	// Forwarding. A flow's path is fixed (per-flow ECMP), so the egress
	// port chosen at each hop of each direction is cached per QP; only the
	// first packet of a flow in each direction consults the routing table
	// and hashes.
	h := int(pk.Hop)
	pk.Hop++
	var slot *int32
	if h < routeCacheHops && pk.QP >= 0 && pk.Kind != KindNotice {
		dir := 0
		if pk.Kind != KindData {
			dir = 1
		}
		slot = &n.routeCache[(int(pk.QP)*2+dir)*routeCacheHops+h]
	}
	var out int32
	if slot != nil && *slot != 0 {
		out = *slot - 1
	} else {
		n.Stats.RouteLookups++
		hops := n.routes.Next(int(sw), int(pk.Dst))
		if len(hops) == 0 {
			nd.Drops++
			n.countDrop(pk)
			n.release(pi)
			return
		}
		if n.pin != nil && pk.Kind == KindData && n.pin[pk.QP] >= 0 {
			out = nd.FirstPort + n.pinnedHop(sw, pk, hops)
		} else {
			k := 0
			if len(hops) > 1 {
				k = int(n.ecmp(sw, pk) % uint32(len(hops)))
			}
			out = nd.FirstPort + hops[k]
		}
		if slot != nil {
			*slot = out + 1
		}
	}
	c := pk.Prio
	if pk.Kind == KindCNP || pk.Kind == KindNotice || (n.cfg.SwitchCtrlHighPrio && (pk.Kind == KindAck || pk.Kind == KindNack)) {
		c = 0
	}
	size := int64(pk.Size)
	if c != 0 {
		// admission (docs/reference-simulator.md §7.3)
		th := n.threshold(nd, ip, c)
		if size+ip.headroomUsed[c] > ip.headroom && size+n.sharedOf(ip, c) > th {
			nd.Drops++
			ip.Stats.Drops++
			n.countDrop(pk)
			n.release(pi)
			return
		}
		nn := ip.ingress[c] + size
		switch {
		case nn <= n.cfg.ReserveBytes:
			ip.ingress[c] += size
		case nn-n.cfg.ReserveBytes > th:
			ip.headroomUsed[c] += size
		default:
			ip.ingress[c] += size
			d := nn - n.cfg.ReserveBytes
			if d > size {
				d = size
			}
			nd.sharedUsed += d
		}
		// PFC pause check for the ingress (port, class)
		if nd.pfc != PFCOff && !ip.pauseSent[c] {
			if ip.headroomUsed[c] > 0 || n.sharedOf(ip, c) >= n.threshold(nd, ip, c) {
				ip.pauseSent[c] = true
				n.sendPFC(in, c, true)
				pk = &n.pkts[pi] // the PAUSE's allocation may have moved the pool
			}
		}
	}
	pk.inPort = in
	op := &n.Ports[out]
	op.q[c].push(pi)
	op.qMask |= 1 << c
	op.qBytes[c] += size
	op.qTotal += size
	if op.qTotal > op.Stats.MaxQueueBytes {
		op.Stats.MaxQueueBytes = op.qTotal
	}
	if nd.features != nil {
		v := &n.views[sw]
		for _, f := range nd.features {
			// re-read: a feature may have sent a notice (moving the pool)
			f.OnEnqueue(v, int(in-nd.FirstPort), int(out-nd.FirstPort), &n.pkts[pi], n.now)
		}
	}
	n.switchSend(out)
}

func (n *Network) countDrop(pk *Packet) {
	// attributed to the packet's flow (docs/metrics.md §17); PFC frames
	// (QP −1) belong to no flow
	var q *QP
	if pk.QP >= 0 {
		q = &n.QPs[pk.QP]
	}
	if pk.Kind == KindData {
		n.Stats.DataDropPackets++
		n.Stats.DataDropBytes += int64(pk.Payload)
		q.DataDrops++
		q.DataDropBytes += int64(pk.Payload)
	} else {
		n.Stats.CtrlDrops++
		if q != nil {
			q.CtrlDrops++
		}
	}
}

// ecmp returns the hash that picks among equal-cost next hops at switch sw.
func (n *Network) ecmp(sw int32, pk *Packet) uint32 {
	if n.cfg.RefECMP {
		key := topo.RefECMPKey(topo.RefIP(int(pk.Src)), topo.RefIP(int(pk.Dst)), uint16(pk.Hash), uint16(pk.Hash>>16))
		return topo.Murmur3x86_32(key[:], uint32(sw))
	}
	h := pk.Hash ^ uint32(sw)*0x9e3779b1
	h ^= h >> 15
	h *= 0x2c1b3c6d
	h ^= h >> 12
	return h
}

// sendPFC queues a PFC frame for class c on port pt (towards its peer).
func (n *Network) sendPFC(pt int32, c uint8, pause bool) {
	pi := n.alloc()
	pk := &n.pkts[pi]
	*pk = Packet{Kind: KindPFC, Prio: c, Pause: pause, QP: -1, Src: n.Ports[pt].Node, Dst: -1, Size: PFCBytes}
	p := &n.Ports[pt]
	if pause {
		p.Stats.PauseSent++
		n.Stats.PauseFrames++
	} else {
		p.Stats.ResumeSent++
		n.Stats.ResumeFrames++
	}
	p.q[0].push(pi)
	p.qMask |= 1
	p.qBytes[0] += PFCBytes
	p.qTotal += PFCBytes
	n.switchSend(pt)
}

// switchSend starts the next packet on switch port pt if its transmitter is
// idle; otherwise makes sure a transmit-complete event is pending.
func (n *Network) switchSend(pt int32) {
	p := &n.Ports[pt]
	if n.now < p.busyUntil {
		if p.qTotal > 0 {
			if t, ok := p.txTimer.Armed(); !ok || t != p.busyUntil {
				n.q.Push(p.busyUntil, evTxDone, pt, p.txTimer.Arm(p.busyUntil))
			}
		}
		return
	}
	// class 0 first, regardless of pause; then per-packet round robin over
	// the other non-empty classes that are not paused.
	var c uint8
	if p.qMask&1 != 0 {
		c = 0
	} else {
		m := p.qMask &^ p.pauseMask
		if m == 0 {
			return
		}
		r := p.rrLast + 1
		c = (r + uint8(bits.TrailingZeros8(bits.RotateLeft8(m, -int(r))))) & (numClasses - 1)
		p.rrLast = c
	}
	pi := p.q[c].pop()
	if p.q[c].size == 0 {
		p.qMask &^= 1 << c
	} else {
		// Prefetch the packet behind this one: a long queue's packets
		// have left the cache, and the load overlaps with the work until
		// this port's next dequeue.
		f := p.q[c].front()
		prefetch.T0(unsafe.Pointer(&n.pkts[f]))
		if n.extOn {
			prefetch.T0(unsafe.Pointer(&n.ext[f]))
		}
	}
	pk := &n.pkts[pi]
	size := int64(pk.Size)
	p.qBytes[c] -= size
	p.qTotal -= size
	if c != 0 && pk.Kind != KindPFC {
		nd := &n.Nodes[p.Node]
		ip := &n.Ports[pk.inPort]
		// release (docs/reference-simulator.md §7.3)
		h := ip.headroomUsed[c]
		if h > size {
			h = size
		}
		f := size - h
		if s := n.sharedOf(ip, c); f > s {
			f = s
		}
		ip.headroomUsed[c] -= h
		ip.ingress[c] -= size - h
		nd.sharedUsed -= f
		// ECN at dequeue on the class queue excluding the departing packet
		if nd.ecn {
			q := p.qBytes[c]
			if q > p.kmax {
				pk.ECN = true
				p.Stats.Marked++
			} else if q > p.kmin {
				prob := float64(p.pmax*float64(q-p.kmin)) / float64(p.kmax-p.kmin)
				if nd.rng.Float64() < prob {
					pk.ECN = true
					p.Stats.Marked++
				}
			}
		}
		// PFC resume check for the packet's ingress
		if ip.pauseSent[c] && ip.headroomUsed[c] == 0 {
			s := n.sharedOf(ip, c)
			if s == 0 || s+n.cfg.ResumeOffsetBytes <= n.threshold(nd, ip, c) {
				ip.pauseSent[c] = false
				n.sendPFC(pk.inPort, c, false)
			}
		}
		if nd.features != nil {
			v := &n.views[p.Node]
			for _, f := range nd.features {
				// the pool may have moved (a RESUME above, a notice sent
				// by a feature): pass the packet's current address
				f.OnDequeue(v, int(pt-nd.FirstPort), &n.pkts[pi], n.now)
			}
		}
		pk = &n.pkts[pi]
	}
	// INT stamping of data packets (the reference's HPCC INT record)
	if n.cfg.INT && pk.Kind == KindData {
		h := &n.intsOf(pi)[pk.NHop%MaxIntHops]
		h.Bps, h.TS, h.TxBytes, h.QLen = p.Bps, n.now, p.txBytes, p.qTotal
		pk.NHop++
	}
	n.transmit(pt, pi)
	if p.qTotal > 0 {
		// re-arming makes any older pending transmit-complete stale; the
		// delay is a serialization time, so it goes into a FIFO lane
		// (unless transmit found the packet a short last one)
		if !p.txOdd {
			n.q.PushDelay(n.now, p.busyUntil-n.now, evTxDone, pt, p.txTimer.Arm(p.busyUntil))
		} else {
			n.q.Push(p.busyUntil, evTxDone, pt, p.txTimer.Arm(p.busyUntil))
		}
	}
}

// noticeHasArgs in a notice's Mark says that its Arg is a slot of
// Network.noticeArgs.
const noticeHasArgs uint8 = 1

// sendNoticeArgs is sendNotice with a payload of several values (a slot of
// noticeArgs; SwitchView.SendNoticeArgs).
func (n *Network) sendNoticeArgs(sw int32, qp int32, args NoticeArgs, size int32) {
	var slot int32
	if k := len(n.noticeArgsFree); k > 0 {
		slot = n.noticeArgsFree[k-1]
		n.noticeArgsFree = n.noticeArgsFree[:k-1]
	} else {
		slot = int32(len(n.noticeArgs))
		n.noticeArgs = append(n.noticeArgs, NoticeArgs{})
	}
	n.noticeArgs[slot] = args
	if !n.sendNotice(sw, qp, int64(slot), size, noticeHasArgs) {
		n.noticeArgsFree = append(n.noticeArgsFree, slot)
	}
}

// sendNotice queues a notice at switch sw towards the sender of qp
// (SwitchView.SendNotice); false when the switch has no route to it. It
// leaves on the equal-cost port the QP's reverse-direction hash selects.
func (n *Network) sendNotice(sw int32, qp int32, arg int64, size int32, mark uint8) bool {
	q := &n.QPs[qp]
	hops := n.routes.Next(int(sw), int(q.Src))
	if len(hops) == 0 {
		return false
	}
	pi := n.alloc()
	pk := &n.pkts[pi]
	*pk = Packet{Kind: KindNotice, Prio: 0, QP: qp, Src: sw, Dst: q.Src, Size: size, Arg: arg, Mark: mark, Hash: q.hashRev, Hop: routeCacheHops}
	k := 0
	if len(hops) > 1 {
		k = int(n.ecmp(sw, pk) % uint32(len(hops)))
	}
	out := n.Nodes[sw].FirstPort + hops[k]
	op := &n.Ports[out]
	op.q[0].push(pi)
	op.qMask |= 1
	op.qBytes[0] += int64(size)
	op.qTotal += int64(size)
	n.Stats.Notices++
	n.switchSend(out)
	return true
}

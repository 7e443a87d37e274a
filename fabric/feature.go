package fabric

import "github.com/ccsim/ccsim/sim"

// Switch features (docs/fabric.md §3). A congestion-control algorithm's
// switch-side part is a SwitchFeature attached to a switch. It sees its
// switch only through a SwitchView: the switch's identity, its ports by
// local index (0 … NumPorts−1) and the few actions a feature takes (mark a
// packet, send a notice, rewrite extension values). It never holds the
// Network, so what a feature can read and change is listed here.

// SwitchFeature is a switch-side mechanism attached to a switch. Hooks run
// on enqueue and dequeue of packets and at a fixed sampling period. Ports
// are local indices of the switch (SwitchView.NumPorts). A packet passed
// to a hook is valid until the hook sends a notice (which may move the
// packet pool).
type SwitchFeature interface {
	// OnEnqueue runs after packet p, received on port in, joined the
	// queue of egress port out (every packet but PFC frames).
	OnEnqueue(sw *SwitchView, in, out int, p *Packet, now sim.Time)
	// OnDequeue runs when packet p leaves the queue of port out, before it
	// is transmitted (after the fabric's RED marking and PFC resume check),
	// for packets of classes 1–7 only: class 0 (notices, CNPs, and ACKs
	// with Config.SwitchCtrlHighPrio) bypasses the buffer accounting.
	OnDequeue(sw *SwitchView, out int, p *Packet, now sim.Time)
	// OnPeriod runs every Network.SetFeaturePeriod.
	OnPeriod(sw *SwitchView, now sim.Time)
}

// SwitchView is a switch feature's view of its switch. The network holds
// one per switch (Network.SwitchView) and passes it to the feature's
// constructor and hooks. Its methods are small and inlinable: the
// per-packet cost is that of the field reads they replace.
type SwitchView struct {
	n     *Network
	id    int32
	first int32 // global index of local port 0
	np    int32
}

// SwitchView returns the view of switch node sw, for building its
// features. It panics if sw is not a switch.
func (n *Network) SwitchView(sw int) *SwitchView {
	if !n.Nodes[sw].Switch {
		panic("fabric: SwitchView of a host")
	}
	return &n.views[sw]
}

// ID is the switch's node id.
func (v *SwitchView) ID() int32 { return v.id }

// NumPorts is the switch's number of ports; local port indices run from 0
// to NumPorts−1.
func (v *SwitchView) NumPorts() int { return int(v.np) }

// Domain is the switch's topology domain (datacenter, topo.Graph.Domain;
// 0 on single-domain graphs).
func (v *SwitchView) Domain() uint16 { return v.n.g.Domain(int(v.id)) }

// NodeDomain is the topology domain of any node, e.g. a packet's Src or
// Dst.
func (v *SwitchView) NodeDomain(node int32) uint16 { return v.n.g.Domain(int(node)) }

// HasDomains reports whether the topology assigns domains to its nodes
// (else every node is in domain 0).
func (v *SwitchView) HasDomains() bool { return len(v.n.g.Domains) > 0 }

// Role is the switch's topology role (topo.Graph.Role; "" if none).
func (v *SwitchView) Role() string { return v.n.g.Role(int(v.id)) }

// NumFlows is the number of flows (QPs) of the run, for per-flow tables
// indexed by Packet.QP. Flows are added before features are built.
func (v *SwitchView) NumFlows() int { return len(v.n.QPs) }

// PayloadBytes is the fabric's payload per data packet (MTU).
func (v *SwitchView) PayloadBytes() int { return v.n.cfg.PayloadBytes }

// MaxBaseRTT is the fabric's largest base round-trip time between hosts
// (topo.Graph.MaxRTT at the fabric's payload size). It walks the graph:
// call it once per run, not per packet.
func (v *SwitchView) MaxBaseRTT() sim.Time {
	rtt, _ := v.n.g.MaxRTT(v.n.cfg.PayloadBytes)
	return rtt
}

// Seed is the run's random seed, for a feature's own random streams
// (sim.Stream).
func (v *SwitchView) Seed() uint64 { return v.n.cfg.Seed }

// port is local port e.
func (v *SwitchView) port(e int) *Port { return &v.n.Ports[v.first+int32(e)] }

// InPort is the local index of the port packet p entered this switch on:
// in OnEnqueue the hook's in, and in OnDequeue the ingress whose buffer
// accounting (and PFC) the departing packet is charged to. p must be a
// packet the hook received.
func (v *SwitchView) InPort(p *Packet) int { return int(p.inPort - v.first) }

// QueueBytes is the number of bytes queued at egress port e, all classes
// (including, in OnEnqueue, the packet that has just joined).
func (v *SwitchView) QueueBytes(e int) int64 { return v.port(e).qTotal }

// LineRate is the rate of port e's link, b/s.
func (v *SwitchView) LineRate(e int) int64 { return v.port(e).Bps }

// LinkDelay is the propagation delay of port e's link.
func (v *SwitchView) LinkDelay(e int) sim.Time { return v.port(e).Delay }

// PFCThreshold is the current PFC pause threshold of ingress port e
// (Network.PFCThreshold).
func (v *SwitchView) PFCThreshold(e int) int64 { return v.n.PFCThreshold(v.first + int32(e)) }

// PauseSent is the number of PFC pause frames port e has sent (for its
// ingress).
func (v *SwitchView) PauseSent(e int) int64 { return v.port(e).Stats.PauseSent }

// PauseRx is the number of PFC pause frames port e has received (its
// transmitter paused).
func (v *SwitchView) PauseRx(e int) int64 { return v.port(e).Stats.PauseRx }

// MarkCE sets packet p's congestion-experienced mark at egress port e and
// counts it in the port's Marked statistic, as the fabric's RED marking
// does (for features that decide ECN themselves, Requirements.OwnECN).
func (v *SwitchView) MarkCE(e int, p *Packet) {
	p.ECN = true
	v.port(e).Stats.Marked++
}

// SendNotice makes the switch send a notification packet (KindNotice,
// class 0, size bytes, carrying arg) to the sender of QP qp, as
// switch-assisted mechanisms do. It leaves on the equal-cost port the QP's
// reverse-direction hash selects. Sending allocates a packet: a packet
// pointer the hook received is stale afterwards.
func (v *SwitchView) SendNotice(qp int32, arg int64, size int32) {
	v.n.sendNotice(v.id, qp, arg, size, 0)
}

// SendNoticeArgs is SendNotice with a payload of several values; the
// sender's algorithm finds them in Notice.Args.
func (v *SwitchView) SendNoticeArgs(qp int32, args NoticeArgs, size int32) {
	v.n.sendNoticeArgs(v.id, qp, args, size)
}

// Ext returns the header-extension values of packet p (zero when the run
// declares no extension, Requirements.Ext). p must be a packet the hook
// received.
func (v *SwitchView) Ext(p *Packet) Ext {
	n := v.n
	if !n.extOn {
		return Ext{}
	}
	return n.ext[n.extIndex(p)]
}

// SetExt sets value k of packet p's header extension. The algorithm must
// have declared value k writable by switches (ExtSpec.SwitchWrites); the
// ccsimdebug build checks it, other builds ignore a write to a run without
// an extension.
func (v *SwitchView) SetExt(p *Packet, k int, val uint32) {
	n := v.n
	if debugChecks {
		n.checkExtWrite(k)
	}
	if !n.extOn {
		return
	}
	n.ext[n.extIndex(p)][k] = val
}

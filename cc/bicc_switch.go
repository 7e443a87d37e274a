package cc

import (
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// BiCC's switch part at the DCI switches (docs/algorithms/bicc.md §3–4):
// per-egress VOQ byte counts and the notices to the senders of the
// cross-datacenter flows that congest a port.

// BiCCVOQs is the byte accounting of one DCI egress port's virtual output
// queues (I6): bytes queued per VOQ, their total and the number of
// non-empty VOQs. The port's packets stay in its one FIFO per class; the
// VOQs only decide which flows are notified.
type BiCCVOQs struct {
	Bytes  []int64
	Total  int64
	Active int
}

// Add counts b bytes joining VOQ k.
func (v *BiCCVOQs) Add(k int, b int64) {
	if v.Bytes[k] == 0 {
		v.Active++
	}
	v.Bytes[k] += b
	v.Total += b
}

// Remove counts b bytes of VOQ k leaving the port.
func (v *BiCCVOQs) Remove(k int, b int64) {
	v.Bytes[k] -= b
	v.Total -= b
	if v.Bytes[k] == 0 {
		v.Active--
	}
}

// Culprit reports whether VOQ k holds at least the mean backlog of the
// port's non-empty VOQs (I6): Bytes[k]·Active ≥ Total, Bytes[k] > 0.
func (v *BiCCVOQs) Culprit(k int) bool {
	return v.Bytes[k] > 0 && v.Bytes[k]*int64(v.Active) >= v.Total
}

// BiCCVOQ maps a packet to its VOQ (I5): the destination host id mod voqs
// (key dst), or the flow id mod voqs (key flow).
func BiCCVOQ(byFlow bool, dst, qp int32, voqs int) int {
	if byFlow {
		return int(qp) % voqs
	}
	return int(dst) % voqs
}

// BiCCNotify is the DCI's decision for a cross-datacenter data packet of a
// side that notifies (I7, I8): the packet found q bytes at its egress port
// (itself excluded), K is the port's threshold in bytes, voq the packet's
// VOQ in v (the packet already counted), last the time of the flow's
// previous notice from this switch and gap dci_cnp_interval_us. It
// notifies iff q ≥ K, the VOQ is a culprit and now − last ≥ gap.
func BiCCNotify(q, K int64, v *BiCCVOQs, voq int, last, now, gap sim.Time) bool {
	return q >= K && v.Culprit(voq) && now-last >= gap
}

// BiCCSwitch is BiCC's logic at one DCI switch.
type BiCCSwitch struct {
	r      *biccRun
	domain uint16
	k      []int64 // K_DCI in bytes per local port
	// Ports are the VOQ byte counts of each egress port (local index).
	Ports []BiCCVOQs
	last  []sim.Time // per flow: last notice from this switch
	// Notices counts the notices this switch sent, SenderSide and
	// ReceiverSide those for flows whose sender's or receiver's datacenter
	// is this switch's.
	Notices, SenderSide, ReceiverSide int64
}

// NewBiCCSwitch returns the constructor of BiCC's switch feature for one
// run. It returns nil (no feature) for a switch that is not a DCI switch
// (role dci_role, I2) and for every switch of a graph without datacenter
// domains (no flow is cross-datacenter there, I3), so that the other
// switches run no hook at all. Call it after the flows were added: the
// feature sizes per-flow state.
func NewBiCCSwitch(p *BiCCParams) func(sw *fabric.SwitchView) fabric.SwitchFeature {
	r := newBiCCRun(p)
	return func(sw *fabric.SwitchView) fabric.SwitchFeature {
		if sw.Role() != r.p.DCIRole || !sw.HasDomains() {
			return nil
		}
		return newBiCCSwitch(r, sw)
	}
}

func newBiCCSwitch(r *biccRun, sw *fabric.SwitchView) *BiCCSwitch {
	np := sw.NumPorts()
	s := &BiCCSwitch{r: r, domain: sw.Domain(),
		k: make([]int64, np), Ports: make([]BiCCVOQs, np), last: make([]sim.Time, sw.NumFlows())}
	kd := usToTime(r.p.KDCIUs)
	bytes := make([]int64, np*r.p.VOQs)
	for e := range np {
		s.k[e] = sim.BytesIn(kd, sw.LineRate(e))
		s.Ports[e].Bytes = bytes[e*r.p.VOQs : (e+1)*r.p.VOQs : (e+1)*r.p.VOQs]
	}
	for i := range s.last {
		s.last[i] = longAgo
	}
	return s
}

// OnEnqueue counts a data packet into its VOQ and decides on a notice.
func (s *BiCCSwitch) OnEnqueue(sw *fabric.SwitchView, in, e int, p *fabric.Packet, now sim.Time) {
	if p.Kind != fabric.KindData {
		return
	}
	v := &s.Ports[e]
	voq := BiCCVOQ(s.r.byFlow, p.Dst, p.QP, s.r.p.VOQs)
	size := int64(p.Size)
	v.Add(voq, size)
	ds, dd := sw.NodeDomain(p.Src), sw.NodeDomain(p.Dst)
	if ds == dd {
		return // intra-datacenter (I3)
	}
	snd := ds == s.domain && s.r.p.SenderSide
	rcv := dd == s.domain && s.r.p.ReceiverSide
	if !snd && !rcv {
		return
	}
	q := sw.QueueBytes(e) - size
	if !BiCCNotify(q, s.k[e], v, voq, s.last[p.QP], now, s.r.gap) {
		return
	}
	s.last[p.QP] = now
	s.Notices++
	if ds == s.domain {
		s.SenderSide++
	} else {
		s.ReceiverSide++
	}
	// a CNP-sized notice in class 0 that carries only its send time
	// (statistics; I10)
	sw.SendNotice(p.QP, int64(now), int32(s.r.p.NoticeBytes))
}

// OnDequeue removes a departing data packet from its VOQ.
func (s *BiCCSwitch) OnDequeue(sw *fabric.SwitchView, e int, p *fabric.Packet, now sim.Time) {
	if p.Kind != fabric.KindData {
		return
	}
	s.Ports[e].Remove(BiCCVOQ(s.r.byFlow, p.Dst, p.QP, s.r.p.VOQs), int64(p.Size))
}

// OnPeriod is unused.
func (s *BiCCSwitch) OnPeriod(sw *fabric.SwitchView, now sim.Time) {}

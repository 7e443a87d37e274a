package cc

import (
	"fmt"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// BiCC (Wan, Zhang, Yu, Liu, Yao, Zhao, Huang, "BiCC: Bilateral
// Congestion Control in Cross-datacenter RDMA Networks", IEEE INFOCOM 2024,
// pp. 1381–1390) is the cross-datacenter baseline of paper 002 (WRCC),
// which describes it in one sentence: the DCI switches send fast
// notifications to shorten the long control loop, cannot perceive
// congestion inside the remote datacenter and still rely on the end-to-end
// protocol; the hosts run DCQCN; the DCI switches have 128 virtual output
// queues. The original paper's text was not available to the project, so
// the DCI mechanism below is an interpretation (docs/algorithms/bicc.md,
// whose ids I1–I10 the comments cite):
//
//   - hosts: cc.DCQCN with its parameters and defaults (inline), plus the
//     DCI notice handled as a CNP (I1);
//   - the feature runs only on switches whose role is "dci" (I2) and acts
//     only on cross-datacenter data packets (I3);
//   - each egress port of a DCI switch keeps byte counts of 128 virtual
//     output queues (VOQ = destination host mod 128; I5, I6);
//   - a cross-DC data packet that finds its egress queue at or above
//     K_DCI and belongs to a VOQ holding at least the mean backlog of the
//     port's non-empty VOQs makes the DCI send a notice straight to the
//     flow's sender, at most one per flow per dci_cnp_interval_us (I4, I7,
//     I8); the sender-side DCI's notice bypasses the long haul, the
//     receiver-side DCI's saves the receiver datacenter's part of the loop
//     (I4);
//   - ECN marking and the end-to-end CNPs are unchanged (I9).

// BiCCParams are BiCC's parameters: the DCQCN reaction point's (inline, as
// in dcqcn) and the DCI switches'.
type BiCCParams struct {
	DCQCNParams `yaml:",inline"`

	VOQs             int     `yaml:"voqs" doc:"virtual output queues per DCI egress port (paper 002: the DCI switch's VOQ count of the BiCC paper, 128)"`
	VOQKey           string  `yaml:"voq_key" doc:"what selects a packet's VOQ: dst (destination host id mod voqs, interpretation I5) | flow (flow id mod voqs)"`
	KDCIUs           float64 `yaml:"k_dci_us" unit:"us" doc:"K_DCI: a DCI egress queue at or above this much queueing delay at the port's rate is congested (I7: 32 µs = the reference RED K_min at 100 and 400 Gb/s)"`
	DCICNPIntervalUs float64 `yaml:"dci_cnp_interval_us" unit:"us" doc:"at most one DCI notice per flow per this at each DCI switch (I8: the reaction point's α period, 1 µs; 0 = one per triggering packet)"`
	NoticeBytes      int     `yaml:"notice_bytes" unit:"B" doc:"size of a DCI notice on the wire (a CNP frame, 60 B)"`
	SenderSide       bool    `yaml:"sender_side" doc:"the DCI of the sender's datacenter notifies (near-source loop, I4)"`
	ReceiverSide     bool    `yaml:"receiver_side" doc:"the DCI of the receiver's datacenter notifies (I4)"`
	DCIRole          string  `yaml:"dci_role" doc:"topology role of the DCI switches (I2; graphs without roles have none)"`
}

// BiCCDefaults are DCQCN's defaults (the project's dcqcn preset, paper
// 002's "NIC vendor defaults") and the DCI defaults of
// docs/algorithms/bicc.md §5.
func BiCCDefaults() *BiCCParams {
	return &BiCCParams{
		DCQCNParams:      *DCQCNDefaults(),
		VOQs:             128,
		VOQKey:           "dst",
		KDCIUs:           32,
		DCICNPIntervalUs: 1,
		NoticeBytes:      fabric.CNPBytes,
		SenderSide:       true,
		ReceiverSide:     true,
		DCIRole:          "dci",
	}
}

// Validate checks every field's range.
func (p *BiCCParams) Validate() error {
	if err := p.DCQCNParams.Validate(); err != nil {
		return err
	}
	switch {
	case p.VOQs < 1 || p.VOQs > 65536:
		return rangeErr("voqs", p.VOQs, "1", "65536")
	case p.VOQKey != "dst" && p.VOQKey != "flow":
		return rangeErrS("voq_key", p.VOQKey, "dst, flow")
	case !(p.KDCIUs >= 0 && p.KDCIUs <= 1e6):
		return rangeErr("k_dci_us", p.KDCIUs, "0", "1e6")
	case !(p.DCICNPIntervalUs >= 0 && p.DCICNPIntervalUs <= 1e6):
		return rangeErr("dci_cnp_interval_us", p.DCICNPIntervalUs, "0", "1e6")
	case p.NoticeBytes < 1 || p.NoticeBytes > 9000:
		return rangeErr("notice_bytes", p.NoticeBytes, "1", "9000")
	case p.DCIRole == "":
		return fmt.Errorf("dci_role is empty: name the topology role of the DCI switches (default dci)")
	}
	return nil
}

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

// biccRun holds one run's constants.
type biccRun struct {
	p      BiCCParams
	gap    sim.Time
	byFlow bool
}

func newBiCCRun(p *BiCCParams) *biccRun {
	return &biccRun{p: *p, gap: usToTime(p.DCICNPIntervalUs), byFlow: p.VOQKey == "flow"}
}

// BiCCSwitch is BiCC's logic at one DCI switch.
type BiCCSwitch struct {
	r      *biccRun
	sw     int32
	first  int32
	domain uint16
	dom    []uint16 // datacenter of every node
	k      []int64  // K_DCI in bytes per local port
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
func NewBiCCSwitch(p *BiCCParams) func(n *fabric.Network, sw int32) fabric.SwitchFeature {
	r := newBiCCRun(p)
	return func(n *fabric.Network, sw int32) fabric.SwitchFeature {
		g := n.Graph()
		if g.Role(int(sw)) != r.p.DCIRole || len(g.Domains) == 0 {
			return nil
		}
		return newBiCCSwitch(r, n, sw)
	}
}

func newBiCCSwitch(r *biccRun, n *fabric.Network, sw int32) *BiCCSwitch {
	g := n.Graph()
	nd := &n.Nodes[sw]
	np := int(nd.NumPorts)
	s := &BiCCSwitch{r: r, sw: sw, first: nd.FirstPort, domain: g.Domain(int(sw)), dom: g.Domains,
		k: make([]int64, np), Ports: make([]BiCCVOQs, np), last: make([]sim.Time, len(n.QPs))}
	kd := usToTime(r.p.KDCIUs)
	bytes := make([]int64, np*r.p.VOQs)
	for e := range np {
		s.k[e] = sim.BytesIn(kd, n.Ports[nd.FirstPort+int32(e)].Bps)
		s.Ports[e].Bytes = bytes[e*r.p.VOQs : (e+1)*r.p.VOQs : (e+1)*r.p.VOQs]
	}
	for i := range s.last {
		s.last[i] = -sim.Never / 2
	}
	return s
}

// OnEnqueue counts a data packet into its VOQ and decides on a notice.
func (s *BiCCSwitch) OnEnqueue(n *fabric.Network, sw int32, in, out int32, p *fabric.Packet, now sim.Time) {
	if p.Kind != fabric.KindData {
		return
	}
	e := int(out - s.first)
	v := &s.Ports[e]
	voq := BiCCVOQ(s.r.byFlow, p.Dst, p.QP, s.r.p.VOQs)
	size := int64(p.Size)
	v.Add(voq, size)
	ds, dd := s.dom[p.Src], s.dom[p.Dst]
	if ds == dd {
		return // intra-datacenter (I3)
	}
	snd := ds == s.domain && s.r.p.SenderSide
	rcv := dd == s.domain && s.r.p.ReceiverSide
	if !snd && !rcv {
		return
	}
	q := n.Ports[out].QueueBytes() - size
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
	n.SendNotice(sw, p.QP, int64(now), int32(s.r.p.NoticeBytes))
}

// OnDequeue removes a departing data packet from its VOQ.
func (s *BiCCSwitch) OnDequeue(n *fabric.Network, sw int32, out int32, p *fabric.Packet, now sim.Time) {
	if p.Kind != fabric.KindData {
		return
	}
	s.Ports[out-s.first].Remove(BiCCVOQ(s.r.byFlow, p.Dst, p.QP, s.r.p.VOQs), int64(p.Size))
}

// OnPeriod is unused.
func (s *BiCCSwitch) OnPeriod(n *fabric.Network, sw int32, now sim.Time) {}

// BiCC is one QP's sender: the DCQCN reaction point, which takes a DCI
// notice as a CNP (I1).
type BiCC struct {
	*DCQCN
	// DCINotices counts the DCI notices received; FirstDCINoticeAt is the
	// arrival of the first (sim.Never if none), MaxNoticeDelay the longest
	// time a notice took from its DCI switch, LastNoticeFrom the switch
	// that sent the last one.
	DCINotices       int64
	FirstDCINoticeAt sim.Time
	MaxNoticeDelay   sim.Time
	LastNoticeFrom   int32
}

// NewBiCC returns a per-QP constructor for p (which must be valid).
func NewBiCC(p *BiCCParams) func(q *fabric.QP) fabric.Algorithm {
	dcqcn := NewDCQCN(&p.DCQCNParams)
	return func(q *fabric.QP) fabric.Algorithm {
		return &BiCC{DCQCN: dcqcn(q).(*DCQCN), FirstDCINoticeAt: sim.Never, LastNoticeFrom: -1}
	}
}

// OnNotice handles DCI notices and CNPs.
func (b *BiCC) OnNotice(q *fabric.QP, nt *fabric.Notice, now sim.Time) {
	if nt.Kind != fabric.KindNotice {
		b.DCQCN.OnNotice(q, nt, now)
		return
	}
	b.DCINotices++
	if b.FirstDCINoticeAt == sim.Never {
		b.FirstDCINoticeAt = now
	}
	b.MaxNoticeDelay = max(b.MaxNoticeDelay, now-sim.Time(nt.Arg))
	b.LastNoticeFrom = nt.From
	b.onCNP(q, now)
}

func init() {
	Register(&Spec{
		Name:     "bicc",
		Summary:  "BiCC (Wan et al., INFOCOM 2024; paper 002's cross-DC baseline): DCQCN hosts + DCI switches (role dci) that notify the senders of cross-DC flows congesting them directly, choosing the flows by 128 per-destination VOQ byte counts (an interpretation: docs/algorithms/bicc.md)",
		Defaults: func() Params { return BiCCDefaults() },
		New: func(pp Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			return NewBiCC(pp.(*BiCCParams)), fabric.Requirements{AckPrio: 1}
		},
		Switch: func(pp Params) (func(n *fabric.Network, sw int32) fabric.SwitchFeature, sim.Time) {
			return NewBiCCSwitch(pp.(*BiCCParams)), 0
		},
	})
}

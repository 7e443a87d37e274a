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

// biccRun holds one run's constants.
type biccRun struct {
	p      BiCCParams
	gap    sim.Time
	byFlow bool
}

func newBiCCRun(p *BiCCParams) *biccRun {
	return &biccRun{p: *p, gap: usToTime(p.DCICNPIntervalUs), byFlow: p.VOQKey == "flow"}
}

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
		Switch: func(pp Params) (func(sw *fabric.SwitchView) fabric.SwitchFeature, sim.Time) {
			return NewBiCCSwitch(pp.(*BiCCParams)), 0
		},
	})
}

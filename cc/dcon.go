package cc

import (
	"fmt"
	"sync"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// DCON (Hu, Huang, Wang, Wang, "A transmission control mechanism for
// lossless datacenter network based on direct congestion notification",
// Acta Electronica Sinica; docs/algorithms/dcon.md, whose interpretation ids
// I1–I9 the comments below cite) is DCQCN for persistent
// congestion plus a switch fast path for bursts:
//
//   - every switch egress port is in one of three states by its queue q:
//     q < Q_ECN no congestion; Q_ECN ≤ q < Q_CNM persistent congestion
//     (ECN-mark); q ≥ Q_CNM burst (ECN marking off until q < Q_ECN again,
//     and congestion notification messages, CNMs, straight to senders);
//   - a CNM goes only to the senders of congested flows whose ingress port
//     also carried a non-congested flow in the last T (a PFC pause there
//     would block that innocent flow); it carries N, the number of flows at
//     the congested port, and C, the port's rate, and the sender sets its
//     rate to C/N at once;
//   - Q_CNM is derived so that the CNM reaches the sender before the
//     ingress would trigger PFC (dynamic mode, docs/algorithms/dcon.md §7).
//
// The end-to-end loop is the DCQCN paper's reaction point (canonical mode
// of cc/dcqcn.go, interpretation I1: the paper's Algorithm 1 omits DCQCN's
// increase machinery and could never regain bandwidth) with the DCQCN
// notification point's 50 µs CNP period.

// DCONParams are DCON's parameters: the DCQCN reaction point's (inline, as
// in dcqcn) and the switch's and CNM's.
type DCONParams struct {
	DCQCNParams `yaml:",inline"`

	QECNKB       float64 `yaml:"q_ecn_kb" unit:"KB" doc:"Q_ECN: step ECN marking threshold at enqueue, and the end of a burst (testbed §3.1: 200 KB)"`
	QCNMMode     string  `yaml:"q_cnm_mode" doc:"dynamic: Q_CNM = max(Q_ECN, Q_PFC/M − 3dC(M−1)) per egress port (§4.4, the paper's optimised threshold) | static: q_cnm_kb | pfc_fraction: q_cnm_pfc_fraction × q_cnm_fraction_of_kb (or Q_PFC) (E4's 40 %/60 %)"`
	QCNMKB       float64 `yaml:"q_cnm_kb" unit:"KB" doc:"static Q_CNM"`
	QCNMFraction float64 `yaml:"q_cnm_pfc_fraction" doc:"pfc_fraction mode: Q_CNM as this fraction of q_cnm_fraction_of_kb (E4's 40 %/60 % of a fixed buffer size), never below Q_ECN"`
	QCNMOfKB     float64 `yaml:"q_cnm_fraction_of_kb" unit:"KB" doc:"pfc_fraction mode: the fixed buffer size the fraction applies to; 0 = Q_PFC (interpretation I10)"`
	QCNMM        string  `yaml:"q_cnm_m" doc:"dynamic mode, M of egress e: held = the largest number of egress queues holding bytes of an ingress that holds bytes in e (§4.4's derivation, I8) | fed = the largest number of egress ports an ingress that fed e in the last T fed in the last T (superseded)"`
	QPFCKB       float64 `yaml:"q_pfc_kb" unit:"KB" doc:"Q_PFC of the Q_CNM formula; 0 = the switch's PFC threshold (static, or the dynamic one at the time) of the ingress ports feeding the egress (testbed: 320 KB)"`
	WindowRTTs   float64 `yaml:"window_rtts" doc:"T: window for 'ingress carries non-congested flows' and for counting N, in base RTTs of the fabric (§6.2.2: 3)"`
	CNMGapUs     float64 `yaml:"cnm_gap_us" unit:"us" doc:"switch: at most one CNM per flow per this (the paper gives no switch-side rule; interpretation I4: 0 = one per packet in a burst)"`
	CNMBytes     int     `yaml:"cnm_bytes" unit:"B" doc:"CNM size on the wire (QCN CNM frame, 64 B)"`
	CNPIntervalX float64 `yaml:"cnp_interval_us" unit:"us" doc:"receiver: at most one CNP per flow per this (DCQCN NP, §4.3: 50 µs); host.cnp_interval_us overrides it"`
	CNMMayRaise  bool    `yaml:"cnm_may_raise" doc:"apply R_C = C/N even when it raises the rate, outside the 50 µs duplicate window (Algorithm 1 line 2 and §4.3; interpretation I2); false: a CNM never raises the rate"`
	CNMDupUs     float64 `yaml:"cnm_dup_window_us" unit:"us" doc:"sender: with cnm_may_raise, CNMs within this of an accepted one only lower the rate (§4.3: 50 µs)"`
	IngressRule  string  `yaml:"ingress_rule" doc:"when an ingress carries non-congested flows: egress (an egress port other than the congested one, not in burst, got data from this ingress in the last T; interpretation I6, default) | tlast (the spec's literal T_last: a packet that found no burst arrived on the ingress in the last T, whatever its flow)"`
	LiteralCNP   bool    `yaml:"dcon_literal_cnp" doc:"Algorithm 1 literally: the receiver sends a CNP every cnp_interval_us per active flow, mark 1 if a CE packet arrived else 0; the sender cuts on 1 and recovers half-way to R_T on 0, with no DCQCN timers"`
}

// DCONDefaults are the paper's values: the DCQCN paper's reaction point
// (§4.3 "DCQCN's recommended parameters": α and rate-increase timers 55 µs,
// byte counter 10 MB, F = 5, g = 1/256, α₀ = 1, R_AI 40 Mb/s; R_HAI 200
// Mb/s is unspecified and taken from ns3-rdma), Q_ECN 200 KB, dynamic
// Q_CNM with M the held count (I8), T = 3 RTT, CNP period 50 µs; a CNM
// for every burst packet and the sender's 50 µs window (§4.3, I2, I4).
func DCONDefaults() *DCONParams {
	d := DCQCNDefaults()
	d.Mode = "canonical"
	d.AlphaResumeInterval, d.RPTimer = 55, 55
	d.ByteCounter = 10_000_000
	d.G = 1.0 / 256
	d.FastRecoveryTimes = 5
	d.RateAI, d.RateHAI = 40, 200
	return &DCONParams{
		DCQCNParams:  *d,
		QECNKB:       200,
		QCNMMode:     "dynamic",
		QCNMKB:       320,
		QCNMFraction: 0.4,
		QCNMM:        "held",
		WindowRTTs:   3,
		CNMBytes:     64,
		CNPIntervalX: 50,
		CNMMayRaise:  true,
		CNMDupUs:     50,
		IngressRule:  "egress",
	}
}

// Validate checks every field's range.
func (p *DCONParams) Validate() error {
	if err := p.DCQCNParams.Validate(); err != nil {
		return err
	}
	switch {
	case !(p.QECNKB >= 0 && p.QECNKB <= 1<<30):
		return rangeErr("q_ecn_kb", p.QECNKB, "0", "2^30")
	case p.QCNMMode != "dynamic" && p.QCNMMode != "static" && p.QCNMMode != "pfc_fraction":
		return rangeErrS("q_cnm_mode", p.QCNMMode, "dynamic, static, pfc_fraction")
	case !(p.QCNMKB >= p.QECNKB && p.QCNMKB <= 1<<30):
		return rangeErr("q_cnm_kb", p.QCNMKB, fmt.Sprint("q_ecn_kb = ", p.QECNKB), "2^30")
	case !(p.QCNMFraction > 0 && p.QCNMFraction <= 1):
		return rangeErr("q_cnm_pfc_fraction", p.QCNMFraction, "0 (exclusive)", "1")
	case !(p.QCNMOfKB >= 0 && p.QCNMOfKB <= 1<<30):
		return rangeErr("q_cnm_fraction_of_kb", p.QCNMOfKB, "0", "2^30")
	case p.QCNMM != "held" && p.QCNMM != "fed":
		return rangeErrS("q_cnm_m", p.QCNMM, "held, fed")
	case !(p.QPFCKB >= 0 && p.QPFCKB <= 1<<30):
		return rangeErr("q_pfc_kb", p.QPFCKB, "0", "2^30")
	case !(p.WindowRTTs > 0 && p.WindowRTTs <= 1e4):
		return rangeErr("window_rtts", p.WindowRTTs, "0 (exclusive)", "1e4")
	case !(p.CNMGapUs >= 0 && p.CNMGapUs <= 1e6):
		return rangeErr("cnm_gap_us", p.CNMGapUs, "0", "1e6")
	case p.CNMBytes < 1 || p.CNMBytes > 9000:
		return rangeErr("cnm_bytes", p.CNMBytes, "1", "9000")
	case !(p.CNPIntervalX >= 0 && p.CNPIntervalX <= 1e6):
		return rangeErr("cnp_interval_us", p.CNPIntervalX, "0", "1e6")
	case !(p.CNMDupUs >= 0 && p.CNMDupUs <= 1e6):
		return rangeErr("cnm_dup_window_us", p.CNMDupUs, "0", "1e6")
	case p.IngressRule != "egress" && p.IngressRule != "tlast":
		return rangeErrS("ingress_rule", p.IngressRule, "egress, tlast")
	case p.LiteralCNP && p.CNPIntervalX == 0:
		return fmt.Errorf("cnp_interval_us = 0 with dcon_literal_cnp: the literal notification point needs a period (0, 1e6]")
	}
	return nil
}

// dconRun is the state shared by one run's switches and QPs.
type dconRun struct {
	p          DCONParams
	qECN, qCNM int64 // bytes
	qPFC       int64 // bytes; 0 = the switch's threshold
	qOf        int64 // bytes; pfc_fraction's base, 0 = Q_PFC
	held       bool  // dynamic Q_CNM with the held count M (I8)
	gap, dup   sim.Time
	window     sim.Time // T
	recompute  sim.Time // period of the dynamic Q_CNM recomputation
	cnpIv      sim.Time
	once       sync.Once
	flows      int
	dcqcn      func(q *fabric.QP) fabric.Algorithm
}

func newDCONRun(p *DCONParams) *dconRun {
	return &dconRun{
		p:     *p,
		qECN:  int64(p.QECNKB * 1000),
		qCNM:  int64(p.QCNMKB * 1000),
		qPFC:  int64(p.QPFCKB * 1000),
		qOf:   int64(p.QCNMOfKB * 1000),
		held:  p.QCNMMode == "dynamic" && p.QCNMM == "held",
		gap:   usToTime(p.CNMGapUs),
		dup:   usToTime(p.CNMDupUs),
		cnpIv: usToTime(p.CNPIntervalX),
		dcqcn: NewDCQCN(&p.DCQCNParams),
	}
}

// DCON is one QP's sender: the DCQCN reaction point plus the CNM branch.
type DCON struct {
	*DCQCN
	r *dconRun
	// CNMs counts the CNMs received, CNMCuts those that set the rate.
	CNMs, CNMCuts int64
	LastCNMAt     sim.Time // last accepted CNM
	// LastN and LastC are the last CNM's flow count and link rate (b/s);
	// MaxCNMDelay is the longest time a CNM took from its switch.
	LastN, LastC int64
	MaxCNMDelay  sim.Time
	// literal notification point (receiver side of the QP)
	marked  bool
	lastCNP sim.Time
	seen    bool
}

// dconLiteral is DCON with the literal notification point (a receiver
// side that sends a CNP every period).
type dconLiteral struct{ *DCON }

// NewDCON returns a per-QP constructor for p (which must be valid).
func NewDCON(p *DCONParams) func(q *fabric.QP) fabric.Algorithm {
	r := newDCONRun(p)
	return func(q *fabric.QP) fabric.Algorithm {
		d := &DCON{DCQCN: r.dcqcn(q).(*DCQCN), r: r, LastCNMAt: longAgo}
		if r.p.LiteralCNP {
			return dconLiteral{d}
		}
		return d
	}
}

// Start: the DCQCN reaction point at line rate; the literal mode runs no
// timers and no byte counter.
func (d *DCON) Start(q *fabric.QP, now sim.Time) {
	d.DCQCN.Start(q, now)
	if d.r.p.LiteralCNP {
		q.WantSendHook = false
	}
}

// OnSend advances DCQCN's timers and byte counter (not in literal mode).
func (d *DCON) OnSend(q *fabric.QP, size int, now sim.Time) {
	if !d.r.p.LiteralCNP {
		d.DCQCN.OnSend(q, size, now)
	}
}

// OnAck: in the literal mode the ACKs' CNP flags are ignored (the CNPs
// carry the marks).
func (d *DCON) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {
	if !d.r.p.LiteralCNP {
		d.DCQCN.OnAck(q, a, now)
	}
}

// OnNotice handles CNMs (switch notices) and CNPs.
func (d *DCON) OnNotice(q *fabric.QP, nt *fabric.Notice, now sim.Time) {
	switch {
	case nt.Kind == fabric.KindNotice:
		d.LastN, d.LastC = nt.Args[0], nt.Args[1]
		d.MaxCNMDelay = max(d.MaxCNMDelay, now-sim.Time(nt.Args[2]))
		d.onCNM(q, nt.Args[0], nt.Args[1], now)
	case d.r.p.LiteralCNP:
		d.literalCNP(q, nt.Arg != 0)
	default:
		d.DCQCN.OnNotice(q, nt, now)
	}
}

// onCNM is the CNM branch (docs/algorithms/dcon.md §6, interpretation I2):
// R_C = C/N when that lowers the rate, and with cnm_may_raise (default)
// also when it raises it, unless a CNM was accepted within the last 50 µs
// (§4.3); R_T remembers the pre-burst rate; the increase stage restarts; α
// is unchanged (a CNM says nothing about the marked fraction).
func (d *DCON) onCNM(q *fabric.QP, nFlows, bps int64, now sim.Time) {
	d.CNMs++
	if !d.r.p.LiteralCNP {
		d.advance(q, now)
	}
	target := bps / max(nFlows, 1)
	lower := target < d.Rc
	if !lower && !(d.r.p.CNMMayRaise && now-d.LastCNMAt >= d.r.dup) {
		return
	}
	if lower {
		d.Rt = d.Rc
	}
	d.Rc = max(min(target, d.line), d.c.minRate)
	d.CNMCuts++
	d.LastCNMAt = now
	if !d.r.p.LiteralCNP {
		d.T, d.B, d.bytes = 0, 0, 0
		d.incAt = now + d.c.incIv
		q.WantSendHook = true // the increase timer advances at departures
	}
	q.SetRate(d.Rc)
}

// literalCNP is Algorithm 1 lines 3–11 on a CNP with the given mark.
func (d *DCON) literalCNP(q *fabric.QP, mark bool) {
	g := d.c.p.G
	if mark {
		d.Rt = d.Rc
		d.Alpha = float64((1-g)*d.Alpha) + g
		d.cut()
	} else {
		d.Alpha = float64((1 - g) * d.Alpha)
		d.Rc = d.Rc/2 + d.Rt/2
		if d.Rc > d.line {
			d.Rc = d.line
		}
	}
	q.SetRate(d.Rc)
}

// OnDataReceived is the literal notification point: every cnp_interval_us
// of a flow's data, a CNP carrying 1 if a CE-marked packet arrived in the
// interval, else 0.
func (d dconLiteral) OnDataReceived(q *fabric.QP, ecn bool, payload int, mark uint8, now sim.Time) (bool, int64) {
	d.marked = d.marked || ecn
	if !d.seen {
		d.seen, d.lastCNP = true, now
		return false, 0
	}
	if now-d.lastCNP < d.r.cnpIv {
		return false, 0
	}
	d.lastCNP = now
	m := int64(0)
	if d.marked {
		m = 1
	}
	d.marked = false
	return true, m
}

func init() {
	Register(&Spec{
		Name:     "dcon",
		Summary:  "DCON (Hu et al., Acta Electronica Sinica): DCQCN (the DCQCN paper's reaction point) + switch CNMs with rate C/N to congested flows that share an ingress with innocent ones, step ECN at Q_ECN off during bursts, dynamic Q_CNM",
		Defaults: func() Params { return DCONDefaults() },
		New: func(pp Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			p := pp.(*DCONParams)
			return NewDCON(p), fabric.Requirements{AckPrio: 1, OwnECN: true, CNPInterval: usToTime(p.CNPIntervalX)}
		},
		Switch: func(pp Params) (func(sw *fabric.SwitchView) fabric.SwitchFeature, sim.Time) {
			return NewDCONSwitch(pp.(*DCONParams)), 0
		},
	})
}

// Unwrap returns the DCON sender of a literal-mode QP.
func (d dconLiteral) Unwrap() *DCON { return d.DCON }

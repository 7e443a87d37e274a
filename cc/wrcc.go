package cc

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// WRCC (Liu, Yan, Fang, Xu, Zhang, Yang, "Congestion control for RDMA with
// end-network collaboration in computing power network", Journal on
// Communications 2026, paper 002; docs/algorithms/wrcc.md, whose
// interpretation ids I1–I21 the comments below cite) is an explicit-rate
// scheme for RDMA across datacenters:
//
//   - every data packet carries a 12-byte INT extension (domain id, burst
//     flag FBDP, fair rate in Mb/s, RTT estimate in µs; WRCCExt, carried as
//     the fabric's header extension, fabric.ExtSpec);
//   - every switch computes, every WRCCT, a port fair rate (PFR) per egress
//     port from the port's measured input rate, its queue, the PFC pauses of
//     the ingress ports that fed it and the mean RTT of its traffic (paper
//     Algorithm 1: a multiplicative cut by input/target when the port is
//     overloaded, else an RCP-like adjustment whose gains auto-tune);
//   - a data packet leaving a port whose PFR is below the packet's fair-rate
//     field gets the PFR written into the field, so the field arrives as the
//     path minimum; the receiver echoes it and the sender adopts it (the
//     end-to-end loop);
//   - a switch in the sender's own datacenter that lowers the field of a
//     burst or cross-datacenter packet (FBDP > 0) also sends a fast
//     congestion notification packet (FCNP) straight back to the sender,
//     at most once per T_fcnp per flow (the sub-RTT loop);
//   - senders start at line rate and double their rate every T_1 (paper
//     Algorithm 2), relying on the switches to cap it.

// WRCCParams are WRCC's parameters (paper Table 2, §4.1), named as in the
// paper.
type WRCCParams struct {
	FMinMbps         float64 `yaml:"f_min_mbps" unit:"Mb/s" doc:"F_min: smallest port fair rate; also the sender's rate floor (I7)"`
	FMaxMbps         float64 `yaml:"f_max_mbps" unit:"Mb/s" doc:"F_max: largest port fair rate (the initial PFR)"`
	RateRatioMax     float64 `yaml:"rate_ratio_max" doc:"RateRatio_max: input rate / B_Tar from which the PFR is cut multiplicatively (paper: 100 %–200 %)"`
	QRatioMax        float64 `yaml:"qratio_max" doc:"QRatio_max: standing-queue fraction of Q_max before the queue term acts (paper: recommended 10 %–60 %)"`
	WRCCTUs          float64 `yaml:"wrcct_us" unit:"us" doc:"WRCCT: PFR sampling and update period (paper: 2–4 × the largest intra-DC RTT)"`
	TFCNPUs          float64 `yaml:"t_fcnp_us" unit:"us" doc:"T_fcnp: a switch sends at most one FCNP per flow per this; 0 = WRCCT"`
	BTarGbps         float64 `yaml:"b_tar_gbps" unit:"Gb/s" doc:"B_Tar: target bandwidth of every switch port; 0 = the port's line rate (unspecified by the paper)"`
	Lambda           float64 `yaml:"lambda" doc:"λ: EWMA weight of a period's mean RTT in AvgRTT"`
	T1Us             float64 `yaml:"t1_us" unit:"us" doc:"T_1: the sender's multiplicative-increase timer (STimer); 0 = WRCCT (unspecified by the paper; ≥ WRCCT recommended)"`
	ApproxDivision   bool    `yaml:"approx_division" doc:"emulate the P4 prototype: divisions by measured values (PktNum, RTT_avg, SlowDown) use the divisor rounded to the nearest power of two (I14)"`
	QExtraLiteral    bool    `yaml:"qextra_literal" doc:"Algorithm 1 line 7 as printed: Q_Extra = Q_max − Q_p; false: the excess Q_p − QRatio_max·Q_max (I1)"`
	STimerLiteralMax bool    `yaml:"stimer_literal_max" doc:"Algorithm 2 line 17 as printed: R_c = max(2R_c, B_send), i.e. line rate at every expiry; false: min (I2)"`
	StaleACKLiteral  bool    `yaml:"stale_ack_literal" doc:"Algorithm 2 line 3 as printed: ignore every ACK with PSN ≤ PSN_last; false: such an ACK may still lower R_c (I21: else a cross-DC sender that gets near-source FCNPs every T_1 never hears of a remote bottleneck)"`
	RandomPhase      bool    `yaml:"random_phase" doc:"each switch runs its periodic task at its own random phase (one of 16 slots of WRCCT/16) instead of all at k·WRCCT (I15)"`
	FCNPBytes        int     `yaml:"fcnp_bytes" unit:"B" doc:"FCNP wire size (a minimum frame with the 12-byte fields)"`
}

// WRCCDefaults returns the paper's values (Table 2, §4.1): F_min 100 Mb/s,
// F_max 100 Gb/s, RateRatio_max 110 %, QRatio_max 50 %, WRCCT 24 µs, λ 0.1;
// T_fcnp and T_1 follow WRCCT, B_Tar is the port's line rate.
func WRCCDefaults() *WRCCParams {
	return &WRCCParams{
		FMinMbps:     100,
		FMaxMbps:     100_000,
		RateRatioMax: 1.10,
		QRatioMax:    0.5,
		WRCCTUs:      24,
		Lambda:       0.1,
		FCNPBytes:    64,
	}
}

// Validate checks every field's range (comparisons written so NaN fails).
func (p *WRCCParams) Validate() error {
	switch {
	case !(p.FMinMbps >= 1 && p.FMinMbps <= 1e7):
		return rangeErr("f_min_mbps", p.FMinMbps, "1", "1e7")
	case !(p.FMaxMbps >= p.FMinMbps && p.FMaxMbps <= 1e7):
		return rangeErr("f_max_mbps", p.FMaxMbps, fmt.Sprint("f_min_mbps = ", p.FMinMbps), "1e7")
	case !(p.RateRatioMax >= 1 && p.RateRatioMax <= 2):
		return rangeErr("rate_ratio_max", p.RateRatioMax, "1", "2")
	case !(p.QRatioMax > 0 && p.QRatioMax <= 1):
		return rangeErr("qratio_max", p.QRatioMax, "0 (exclusive)", "1")
	case !(p.WRCCTUs >= 0.01 && p.WRCCTUs <= 1e6):
		return rangeErr("wrcct_us", p.WRCCTUs, "0.01", "1e6")
	case !(p.TFCNPUs >= 0 && p.TFCNPUs <= 1e6):
		return rangeErr("t_fcnp_us", p.TFCNPUs, "0", "1e6")
	case !(p.BTarGbps >= 0 && p.BTarGbps <= 1e4):
		return rangeErr("b_tar_gbps", p.BTarGbps, "0", "1e4")
	case !(p.Lambda > 0 && p.Lambda <= 1):
		return rangeErr("lambda", p.Lambda, "0 (exclusive)", "1")
	case !(p.T1Us == 0 || p.T1Us >= 0.01 && p.T1Us <= 1e6):
		return rangeErr("t1_us", p.T1Us, "0.01 (or 0 = wrcct_us)", "1e6")
	case p.FCNPBytes < 1 || p.FCNPBytes > 9000:
		return rangeErr("fcnp_bytes", p.FCNPBytes, "1", "9000")
	}
	return nil
}

// wrccRun holds one run's constants, shared by its switches or its QPs.
type wrccRun struct {
	p          WRCCParams
	period     sim.Time // WRCCT
	tFCNP, t1  sim.Time
	fMin, fMax float64 // b/s
	fMinBps    int64
	bTar       float64 // b/s; 0 = the port's line rate
	slots      int     // 1, or WRCCPhaseSlots with random_phase
}

func newWRCCRun(p *WRCCParams) *wrccRun {
	r := &wrccRun{p: *p, period: usToTime(p.WRCCTUs), fMin: p.FMinMbps * 1e6, fMax: p.FMaxMbps * 1e6,
		bTar: p.BTarGbps * 1e9, slots: 1}
	r.fMinBps = int64(math.Ceil(r.fMin))
	r.tFCNP, r.t1 = r.period, r.period
	if p.TFCNPUs > 0 {
		r.tFCNP = usToTime(p.TFCNPUs)
	}
	if p.T1Us > 0 {
		r.t1 = usToTime(p.T1Us)
	}
	if p.RandomPhase {
		r.slots = WRCCPhaseSlots
	}
	return r
}

// WRCCExtBytes is the size of WRCC's INT extension on the wire (paper 002
// §3.3: domain id 16 b, FBDP 16 b, fair rate 32 b, RTT estimate 32 b),
// carried after the transport header of every data packet and ACK.
const WRCCExtBytes = 12

// The extension's fields as values of the fabric's header extension
// (fabric.Ext), one field per value.
const (
	wrccDomain   = iota // data: sender's datacenter (SDI); ACK: receiver's (RDI)
	wrccFBDP            // burst / cross-datacenter flag
	wrccFairRate        // 1 Mb/s units
	wrccRTTEst          // µs
	wrccWords
)

// wrccExtSpec declares the extension to the fabric: 12 bytes on data and
// ACKs; the receiver echoes every field with its own domain in place of
// the sender's (§3.5); switches rewrite only the fair rate (§3.2).
var wrccExtSpec = fabric.ExtSpec{
	Words:        wrccWords,
	DataBytes:    WRCCExtBytes,
	AckBytes:     WRCCExtBytes,
	Echo:         1<<wrccWords - 1,
	RecvDomain:   1 << wrccDomain,
	SwitchWrites: 1 << wrccFairRate,
}

// WRCCExt is WRCC's 12-byte INT extension (paper 002 §3.3, Fig. 5(a);
// docs/algorithms/wrcc.md §2) as typed fields: a view of the fabric's
// header-extension values (Pack, UnpackWRCCExt). On a data packet the
// sender writes its own domain, burst flag, rate and RTT estimate, and
// switches lower FairRate to their port fair rate; the receiver echoes the
// extension in the ACK with Domain replaced by its own domain.
type WRCCExt struct {
	Domain   uint16 // data: sender's datacenter (SDI); ACK: receiver's (RDI)
	FBDP     uint16 // burst / cross-datacenter flag (> 0: near-source switches may send FCNPs)
	FairRate uint32 // rate in units of 1 Mb/s (sender's rate, lowered to the path's minimum fair rate)
	RTTEst   uint32 // the connection's RTT estimate, µs
}

// Pack returns the extension as the fabric's header-extension values.
func (x WRCCExt) Pack() fabric.Ext {
	return fabric.Ext{wrccDomain: uint32(x.Domain), wrccFBDP: uint32(x.FBDP), wrccFairRate: x.FairRate, wrccRTTEst: x.RTTEst}
}

// UnpackWRCCExt is the typed view of header-extension values written by
// WRCC (the 16-bit fields hold 16-bit values).
func UnpackWRCCExt(e fabric.Ext) WRCCExt {
	return WRCCExt{Domain: uint16(e[wrccDomain]), FBDP: uint16(e[wrccFBDP]), FairRate: e[wrccFairRate], RTTEst: e[wrccRTTEst]}
}

// mbpsField is a rate in b/s as the INT field's 1 Mb/s units, rounded down
// and saturated to 32 bits.
func mbpsField(bps float64) uint32 {
	v := math.Floor(bps / 1e6)
	if v >= math.MaxUint32 {
		return math.MaxUint32
	}
	if !(v >= 0) {
		return 0
	}
	return uint32(v)
}

// WRCC is one QP's sender (paper Algorithm 2).
type WRCC struct {
	r *wrccRun
	// Rc is the connection's rate R_c (b/s), FBDP its burst flag, PSNLast
	// the largest PSN it acted on (I3), SDI its datacenter.
	Rc      int64
	FBDP    uint16
	PSNLast int64
	SDI     uint16
	line    int64
	// FCNPs counts the FCNPs received, FCNPCuts those that lowered R_c,
	// Doublings the timer expiries below the line rate (those at the line
	// rate change nothing and the fabric handles them alone, see idle),
	// StaleCuts the ACKs older than PSN_last that lowered R_c (I21).
	FCNPs, FCNPCuts, Doublings, StaleCuts int64
}

// NewWRCC returns a per-QP constructor for p (which must be valid).
func NewWRCC(p *WRCCParams) func(q *fabric.QP) fabric.Algorithm {
	r := newWRCCRun(p)
	return func(q *fabric.QP) fabric.Algorithm { return &WRCC{r: r} }
}

// wrccTimer is the QP timer slot of STimer.
const wrccTimer = 0

// Start: R_c = B_send (the NIC's line rate), FBDP = 1, PSN_last = 0, STimer
// armed; the extension carries the sender's datacenter (SDI) and RTT_est =
// the path's base RTT in µs rounded up (I6).
func (w *WRCC) Start(q *fabric.QP, now sim.Time) {
	w.line = q.LineRateBps
	w.SDI = q.SrcDomain()
	q.Ext[wrccDomain] = uint32(w.SDI)
	w.Rc = w.line
	w.FBDP = 1
	w.PSNLast = 0
	us := (q.PathBaseRTT + sim.Microsecond - 1) / sim.Microsecond
	q.Ext[wrccRTTEst] = uint32(min(max(us, 0), math.MaxUint32))
	w.apply(q)
	q.ArmTimerAfter(wrccTimer, now, w.r.t1)
	w.idle(q)
}

// wrccTimersNeverIdle makes every STimer expiry call OnTimer (tests compare
// the two; export_test.go).
var wrccTimersNeverIdle bool

// idle tells the fabric whether STimer's next expiry matters: at the line
// rate it would change nothing (min(2R_c, B_send) = R_c, and apply finds
// R_c and the extension already current), so the fabric may re-arm it
// without calling OnTimer (fabric.QP.SetTimerIdle); results are identical.
// Not with stimer_literal_max, whose expiry raises R_c above the line.
func (w *WRCC) idle(q *fabric.QP) {
	if w.Rc == w.line && !w.r.p.STimerLiteralMax && !wrccTimersNeverIdle {
		q.SetTimerIdle(wrccTimer, w.r.t1)
	} else {
		q.SetTimerIdle(wrccTimer, 0)
	}
}

// clampRate keeps a rate from the network within [F_min, B_send] (I7).
func (w *WRCC) clampRate(bps int64) int64 {
	return min(max(bps, w.r.fMinBps), w.line)
}

// apply makes R_c the pacing rate (re-pacing the pending packet, I8) and
// stamps R_c and FBDP into the extension of the next data packets
// (FillPKTINT).
func (w *WRCC) apply(q *fabric.QP) {
	q.Ext[wrccFBDP] = uint32(w.FBDP)
	q.Ext[wrccFairRate] = mbpsField(float64(w.Rc))
	if w.Rc != q.RateBps {
		q.SetRateRepace(w.Rc)
	}
}

// OnAck is HandleACK: the first ACK ends the burst (FBDP = 0); an ACK newer
// than PSN_last sets R_c to the echoed path-minimum fair rate (an older
// one only if that is lower, I21); an ACK from another datacenter keeps
// FBDP = 1. NACKs are handled alike (I13).
func (w *WRCC) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {
	w.FBDP = 0
	x := UnpackWRCCExt(a.Ext)
	fair := w.clampRate(int64(x.FairRate) * 1e6)
	if a.Seq > w.PSNLast {
		w.Rc = fair
		w.PSNLast = a.Seq
	} else if fair < w.Rc && !w.r.p.StaleACKLiteral {
		// an ACK older than the last FCNP's packet may not raise the rate
		// (the paper's intent), but a lower path minimum is news of a
		// bottleneck elsewhere (I21)
		w.Rc = fair
		w.StaleCuts++
	}
	if x.Domain != w.SDI {
		w.FBDP = 1
	}
	w.apply(q)
	w.idle(q)
}

// OnNotice is HandleFCNP: an FCNP only ever lowers R_c; then ACKs of
// packets up to the FCNP's PSN are ignored and STimer restarts. CNPs are
// ignored (WRCC uses no ECN, I12).
func (w *WRCC) OnNotice(q *fabric.QP, nt *fabric.Notice, now sim.Time) {
	if nt.Kind != fabric.KindNotice {
		return
	}
	w.FCNPs++
	fair := w.clampRate(nt.Args[2] * 1e6)
	if w.Rc > fair {
		w.Rc = fair
		w.PSNLast = nt.Args[1]
		w.FCNPCuts++
		q.ArmTimerAfter(wrccTimer, now, w.r.t1)
		w.apply(q)
		w.idle(q)
	}
}

// OnTimer is STimerExpire: R_c = min(2R_c, B_send) (I2), STimer restarts.
// The fabric calls it only while R_c is below B_send (see idle).
func (w *WRCC) OnTimer(q *fabric.QP, id int, now sim.Time) {
	if id != wrccTimer {
		return
	}
	w.Doublings++
	if w.r.p.STimerLiteralMax {
		w.Rc = max(2*w.Rc, w.line)
	} else {
		w.Rc = min(2*w.Rc, w.line)
	}
	w.apply(q)
	q.ArmTimerAfter(wrccTimer, now, w.r.t1)
	w.idle(q)
}

// OnSend is unused: the fabric stamps the extension from QP.Ext.
func (w *WRCC) OnSend(q *fabric.QP, size int, now sim.Time) {}

func init() {
	Register(&Spec{
		Name:     "wrcc",
		Summary:  "WRCC (paper 002, Liu et al., J. Commun. 2026): switch port fair rates from the queue input rate (multiplicative cut, else RCP-like with auto-tuned gains) written into a 12-byte INT extension, echoed to the sender; fast notifications (FCNP) from near-source switches; senders double every T_1",
		Defaults: func() Params { return WRCCDefaults() },
		New: func(pp Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			return NewWRCC(pp.(*WRCCParams)), fabric.Requirements{Ext: wrccExtSpec, OwnECN: true, AckPrio: 1}
		},
		Switch: func(pp Params) (func(sw *fabric.SwitchView) fabric.SwitchFeature, sim.Time) {
			p := pp.(*WRCCParams)
			r := newWRCCRun(p)
			return func(sw *fabric.SwitchView) fabric.SwitchFeature { return newWRCCSwitch(r, sw) }, r.period / sim.Time(r.slots)
		},
	})
}

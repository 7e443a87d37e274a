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
//     flag FBDP, fair rate in Mb/s, RTT estimate in µs; fabric.WRCCExt);
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

// WRCCPhaseSlots is the number of phase slots of random_phase: the switch
// features tick every WRCCT/WRCCPhaseSlots and each switch works at one
// slot.
const WRCCPhaseSlots = 16

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

// nearestPow2 is d rounded to the nearest power of two (ties up), d > 0:
// the divisor a shift divides by (I14).
func nearestPow2(d float64) float64 {
	if !(d > 0) {
		return d
	}
	lo := math.Exp2(math.Floor(math.Log2(d)))
	if d-lo < 2*lo-d {
		return lo
	}
	return 2 * lo
}

// WRCCAutoParm is AutoParm (paper Algorithm 1 lines 16–24): α = 1/level
// with level doubled from 2 while the spare bandwidth B_Tar − R_input is
// below B_Tar/level (at most 64), when the port's fair rate is below B_Tar;
// β = α/2. Rates in any common unit.
func WRCCAutoParm(rFair, rInput, bTar float64) (alpha, beta float64) {
	level := 2.0
	if rFair < bTar {
		interval := bTar - rInput
		for interval < bTar/level && level < 64 {
			level *= 2
		}
	}
	alpha = 1 / level
	return alpha, alpha / 2
}

// WRCCPortInput is what Algorithm 1 reads for one egress port: its current
// PFR and the period's measurements (eq. 1).
type WRCCPortInput struct {
	RFair  float64 // PortFairRate[p], b/s
	RInput float64 // R_input: bytes the port's feeding ingress ports sent to it this period × 8 / WRCCT, b/s
	SumPFC int64   // Sum_PFC: PAUSE frames those ingress ports sent this period
	QMax   int64   // Q_max: Σ of their PFC thresholds, bytes
	Qp     int64   // Q_p: the port's queue, bytes
	AvgRTT float64 // AvgRTT (EWMA), seconds
}

// WRCCFairRate is Algorithm 1 (paper §3.4.2) for one port: the new PFR in
// b/s. bTar is the port's target bandwidth B_Tar in b/s.
//
//	RTT_avg  = max(AvgRTT, WRCCT)
//	SlowDown = R_input / B_Tar, at least 2 if Sum_PFC > 0
//	Q_Extra  = Q_p − QRatio_max·Q_max if Q_p ≥ QRatio_max·Q_max, else 0   (I1)
//	SlowDown ≥ RateRatio_max: R_Fair /= SlowDown
//	else: R_Fair *= 1 + WRCCT/RTT_avg · (α(B_Tar − R_input) − β·8·Q_Extra/RTT_avg) / B_Tar   (eq. 2)
//	clamp to [F_min, F_max]
func WRCCFairRate(p *WRCCParams, bTar float64, in WRCCPortInput) float64 {
	T := p.WRCCTUs * 1e-6
	rtt := max(in.AvgRTT, T)
	if p.ApproxDivision {
		// the divisor as a power of two of nanoseconds (I14)
		rtt = nearestPow2(rtt*1e9) * 1e-9
	}
	slow := in.RInput / bTar
	if in.SumPFC > 0 {
		slow = max(slow, 2)
	}
	var qExtra float64
	if float64(in.Qp) >= p.QRatioMax*float64(in.QMax) {
		if p.QExtraLiteral {
			qExtra = float64(in.QMax - in.Qp) // as printed (I1)
		} else {
			qExtra = float64(in.Qp) - p.QRatioMax*float64(in.QMax)
		}
	}
	r := in.RFair
	if slow >= p.RateRatioMax {
		if p.ApproxDivision {
			slow = nearestPow2(slow)
		}
		r /= slow
	} else {
		a, b := WRCCAutoParm(r, in.RInput, bTar)
		r *= 1 + T/rtt*(a*(bTar-in.RInput)-b*8*qExtra/rtt)/bTar
	}
	return min(max(r, p.FMinMbps*1e6), p.FMaxMbps*1e6)
}

// WRCCSwitch is WRCC's logic at one switch (paper §3.2, §3.4): the
// statistics tables, the per-packet rewrite and FCNP decision, and the
// periodic PFR computation. All tables are flat slices indexed by the
// switch's local port numbers.
type WRCCSwitch struct {
	r      *wrccRun
	sw     int32
	first  int32
	np     int
	domain uint16
	// Bytes[i][p] at bytes[i·np + p]: wire bytes of data packets from
	// ingress i to egress p this period; ins[p·np : p·np+nIn[p]] lists the
	// ingress ports with Bytes[i][p] > 0 (the set I of eq. 1)
	bytes []int64
	ins   []int32
	nIn   []int32
	// RttSum[p] (µs) and PktNum[p] of the data packets that left p
	rttSum, pktNum []int64
	// PAUSE frames port i had sent at the start of the period (PfcNum[i]
	// is the difference to its counter now)
	pauseBase []int64
	pfr       []float64       // PortFairRate[p], b/s
	pfrMbps   []uint32        // the same in the INT field's 1 Mb/s units (rounded down)
	avgRTT    []float64       // AvgRTT[p], µs
	bTar      []float64       // B_Tar per port, b/s
	last      []WRCCPortInput // the last period's Algorithm 1 input per port (statistics, tests)
	// FCNP table: the last FCNP time per flow (an exact table: one slot per
	// QP, no hash collisions; I5), allocated at the first FCNP candidate
	lastFCNP []sim.Time
	slot     int
	tick     int
	// busy: a packet was enqueued or a data packet left since the last
	// update; idle: at the last update every port was idle at F_max (with
	// both, an update would change nothing and is skipped)
	busy, idle bool
	// FCNPs counts the FCNPs this switch sent; Periods the PFR updates.
	FCNPs, Periods int64
}

// NewWRCCSwitch returns the constructor of WRCC's switch feature for one
// run (call it once per run: the switches share its constants).
func NewWRCCSwitch(p *WRCCParams) func(n *fabric.Network, sw int32) fabric.SwitchFeature {
	r := newWRCCRun(p)
	return func(n *fabric.Network, sw int32) fabric.SwitchFeature { return newWRCCSwitch(r, n, sw) }
}

func newWRCCSwitch(r *wrccRun, n *fabric.Network, sw int32) *WRCCSwitch {
	nd := &n.Nodes[sw]
	np := int(nd.NumPorts)
	s := &WRCCSwitch{r: r, sw: sw, first: nd.FirstPort, np: np, domain: n.Graph().Domain(int(sw)),
		bytes: make([]int64, np*np), ins: make([]int32, np*np), nIn: make([]int32, np),
		rttSum: make([]int64, np), pktNum: make([]int64, np), pauseBase: make([]int64, np),
		pfr: make([]float64, np), pfrMbps: make([]uint32, np), avgRTT: make([]float64, np), bTar: make([]float64, np),
		last: make([]WRCCPortInput, np)}
	for e := range np {
		port := &n.Ports[s.first+int32(e)]
		s.pfr[e] = r.fMax
		s.pfrMbps[e] = mbpsField(r.fMax)
		s.avgRTT[e] = r.p.WRCCTUs
		s.bTar[e] = r.bTar
		if s.bTar[e] == 0 {
			s.bTar[e] = float64(port.Bps)
		}
		s.pauseBase[e] = port.Stats.PauseSent
	}
	if r.slots > 1 {
		s.slot = sim.Stream(n.Config().Seed, fmt.Sprintf("wrcc/phase/%d", sw)).IntN(r.slots)
	}
	return s
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

// PFR is the current port fair rate of local port e, b/s.
func (s *WRCCSwitch) PFR(e int) float64 { return s.pfr[e] }

// AvgRTTUs is AvgRTT of local port e, µs.
func (s *WRCCSwitch) AvgRTTUs(e int) float64 { return s.avgRTT[e] }

// LastInput is the input of Algorithm 1 at local port e in the last period
// the port was computed (eq. 1; zero before, and unchanged while the port
// is idle at F_max).
func (s *WRCCSwitch) LastInput(e int) WRCCPortInput { return s.last[e] }

// Domain is the switch's datacenter id.
func (s *WRCCSwitch) Domain() uint16 { return s.domain }

// OnEnqueue counts a data packet handed to egress out's queue in Bytes
// (paper §3.2 "data-plane statistics"; wire bytes, I10).
func (s *WRCCSwitch) OnEnqueue(n *fabric.Network, sw int32, in, out int32, p *fabric.Packet, now sim.Time) {
	s.busy = true
	if p.Kind != fabric.KindData {
		return
	}
	i, e := int(in-s.first), int(out-s.first)
	k := i*s.np + e
	if s.bytes[k] == 0 {
		s.ins[e*s.np+int(s.nIn[e])] = int32(i)
		s.nIn[e]++
	}
	s.bytes[k] += int64(p.Size)
}

// OnDequeue is the egress processing of a data packet leaving port out
// (paper §3.2): RTT statistics, the compare/overwrite of the fair-rate
// field and the FCNP decision. ACKs and other control packets are not
// rate-compared.
func (s *WRCCSwitch) OnDequeue(n *fabric.Network, sw int32, out int32, p *fabric.Packet, now sim.Time) {
	if p.Kind != fabric.KindData {
		return
	}
	s.busy = true
	e := int(out - s.first)
	x := n.WRCCExt(p)
	s.rttSum[e] += int64(x.RTTEst)
	s.pktNum[e]++
	pfr := s.pfrMbps[e]
	if x.FairRate <= pfr {
		return
	}
	x.FairRate = pfr
	// near-source switch (the packet's domain is ours) and a burst or
	// cross-datacenter flow: a fast notification; otherwise remote
	// congestion, the rewritten packet goes on
	if x.Domain != s.domain || x.FBDP == 0 {
		return
	}
	r := s.r
	if s.lastFCNP == nil {
		s.lastFCNP = make([]sim.Time, len(n.QPs))
		for k := range s.lastFCNP {
			s.lastFCNP[k] = -sim.Never / 2
		}
	}
	if now-s.lastFCNP[p.QP] <= r.tFCNP {
		return
	}
	s.lastFCNP[p.QP] = now
	s.FCNPs++
	// the FCNP carries our domain, the triggering packet's PSN (I3), the
	// PFR and, for statistics only, the time it was sent; p is not used
	// after this (sending allocates a packet)
	psn := p.Seq + int64(p.Payload)
	n.SendNoticeArgs(sw, p.QP, fabric.NoticeArgs{int64(s.domain), psn, int64(pfr), int64(now)}, int32(r.p.FCNPBytes))
}

// OnPeriod runs the periodic task (paper §3.4) every WRCCT: eq. 1 and
// Algorithm 1 for every egress port, then the reset of the period's
// counters (after all ports: PfcNum and Bytes are shared between ports).
// Idle ports and switches are skipped where the update would change
// nothing (I11).
func (s *WRCCSwitch) OnPeriod(n *fabric.Network, sw int32, now sim.Time) {
	r := s.r
	if r.slots > 1 {
		s.tick++
		if s.tick%r.slots != s.slot {
			return
		}
	}
	if s.idle && !s.busy {
		return // nothing arrived or left since an update that changed nothing
	}
	s.Periods++
	np := s.np
	s.idle, s.busy = true, false
	for e := range np {
		if !s.updatePort(n, e) {
			s.idle = false
		}
	}
	for e := range np {
		for k := range int(s.nIn[e]) {
			s.bytes[int(s.ins[e*np+k])*np+e] = 0
		}
		s.nIn[e] = 0
		s.rttSum[e], s.pktNum[e] = 0, 0
		s.pauseBase[e] = n.Ports[s.first+int32(e)].Stats.PauseSent
	}
}

// updatePort computes eq. 1 and Algorithm 1 for egress port e (PfcNum from
// the PAUSE counter's growth, PFCth read now, I9); it reports
// whether the port was idle at F_max (nothing to compute).
func (s *WRCCSwitch) updatePort(n *fabric.Network, e int) bool {
	r := s.r
	np := s.np
	qp := n.Ports[s.first+int32(e)].QueueBytes()
	ni := int(s.nIn[e])
	if ni == 0 && qp == 0 && s.pktNum[e] == 0 && s.pfr[e] == r.fMax {
		// idle port at F_max: Algorithm 1 would leave everything as it is
		return true
	}
	in := WRCCPortInput{RFair: s.pfr[e], Qp: qp}
	var all int64
	for k := range ni {
		i := int(s.ins[e*np+k])
		pt := s.first + int32(i)
		all += s.bytes[i*np+e]
		in.SumPFC += n.Ports[pt].Stats.PauseSent - s.pauseBase[i]
		in.QMax += n.PFCThreshold(pt)
	}
	in.RInput = float64(all) * 8 / r.period.Seconds()
	if c := s.pktNum[e]; c > 0 {
		d := float64(c)
		if r.p.ApproxDivision {
			d = nearestPow2(d)
		}
		s.avgRTT[e] = (1-r.p.Lambda)*s.avgRTT[e] + r.p.Lambda*float64(s.rttSum[e])/d
	}
	in.AvgRTT = s.avgRTT[e] * 1e-6
	s.last[e] = in
	s.pfr[e] = WRCCFairRate(&r.p, s.bTar[e], in)
	s.pfrMbps[e] = mbpsField(s.pfr[e])
	return false
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
	// Doublings the timer expiries, StaleCuts the ACKs older than PSN_last
	// that lowered R_c (I21).
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
// armed; RTT_est = the path's base RTT in µs rounded up (I6). The fabric
// has set the extension's domain to the sender's datacenter (SDI).
func (w *WRCC) Start(q *fabric.QP, now sim.Time) {
	w.line = q.LineRateBps
	w.SDI = q.WRCC.Domain
	w.Rc = w.line
	w.FBDP = 1
	w.PSNLast = 0
	us := (q.PathBaseRTT + sim.Microsecond - 1) / sim.Microsecond
	q.WRCC.RTTEst = uint32(min(max(us, 0), math.MaxUint32))
	w.apply(q)
	q.ArmTimer(wrccTimer, now+w.r.t1)
}

// clampRate keeps a rate from the network within [F_min, B_send] (I7).
func (w *WRCC) clampRate(bps int64) int64 {
	return min(max(bps, w.r.fMinBps), w.line)
}

// apply makes R_c the pacing rate (re-pacing the pending packet, I8) and
// stamps R_c and FBDP into the extension of the next data packets
// (FillPKTINT).
func (w *WRCC) apply(q *fabric.QP) {
	q.WRCC.FBDP = w.FBDP
	q.WRCC.FairRate = mbpsField(float64(w.Rc))
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
	fair := w.clampRate(int64(a.WRCC.FairRate) * 1e6)
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
	if a.WRCC.Domain != w.SDI {
		w.FBDP = 1
	}
	w.apply(q)
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
		q.ArmTimer(wrccTimer, now+w.r.t1)
		w.apply(q)
	}
}

// OnTimer is STimerExpire: R_c = min(2R_c, B_send) (I2), STimer restarts.
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
	q.ArmTimer(wrccTimer, now+w.r.t1)
}

// OnSend is unused: the extension is stamped from QP.WRCC by the fabric.
func (w *WRCC) OnSend(q *fabric.QP, size int, now sim.Time) {}

func init() {
	Register(&Spec{
		Name:     "wrcc",
		Summary:  "WRCC (paper 002, Liu et al., J. Commun. 2026): switch port fair rates from the queue input rate (multiplicative cut, else RCP-like with auto-tuned gains) written into a 12-byte INT extension, echoed to the sender; fast notifications (FCNP) from near-source switches; senders double every T_1",
		Defaults: func() Params { return WRCCDefaults() },
		New: func(pp Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			return NewWRCC(pp.(*WRCCParams)), fabric.Requirements{WRCCExt: true, OwnECN: true, AckPrio: 1}
		},
		Switch: func(pp Params) (func(n *fabric.Network, sw int32) fabric.SwitchFeature, sim.Time) {
			p := pp.(*WRCCParams)
			r := newWRCCRun(p)
			return func(n *fabric.Network, sw int32) fabric.SwitchFeature { return newWRCCSwitch(r, n, sw) }, r.period / sim.Time(r.slots)
		},
	})
}

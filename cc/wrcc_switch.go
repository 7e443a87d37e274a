package cc

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// WRCC's switch part (docs/algorithms/wrcc.md §3–4): Algorithm 1 and the
// switch feature that measures, rewrites the fair-rate field and sends
// FCNPs.

// WRCCPhaseSlots is the number of phase slots of random_phase: the switch
// features tick every WRCCT/WRCCPhaseSlots and each switch works at one
// slot.
const WRCCPhaseSlots = 16

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
func NewWRCCSwitch(p *WRCCParams) func(sw *fabric.SwitchView) fabric.SwitchFeature {
	r := newWRCCRun(p)
	return func(sw *fabric.SwitchView) fabric.SwitchFeature { return newWRCCSwitch(r, sw) }
}

func newWRCCSwitch(r *wrccRun, sw *fabric.SwitchView) *WRCCSwitch {
	np := sw.NumPorts()
	s := &WRCCSwitch{r: r, np: np, domain: sw.Domain(),
		bytes: make([]int64, np*np), ins: make([]int32, np*np), nIn: make([]int32, np),
		rttSum: make([]int64, np), pktNum: make([]int64, np), pauseBase: make([]int64, np),
		pfr: make([]float64, np), pfrMbps: make([]uint32, np), avgRTT: make([]float64, np), bTar: make([]float64, np),
		last: make([]WRCCPortInput, np)}
	for e := range np {
		s.pfr[e] = r.fMax
		s.pfrMbps[e] = mbpsField(r.fMax)
		s.avgRTT[e] = r.p.WRCCTUs
		s.bTar[e] = r.bTar
		if s.bTar[e] == 0 {
			s.bTar[e] = float64(sw.LineRate(e))
		}
		s.pauseBase[e] = sw.PauseSent(e)
	}
	if r.slots > 1 {
		s.slot = sim.Stream(sw.Seed(), fmt.Sprintf("wrcc/phase/%d", sw.ID())).IntN(r.slots)
	}
	return s
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

// OnEnqueue counts a data packet handed from ingress i to egress e's queue
// in Bytes (paper §3.2 "data-plane statistics"; wire bytes, I10).
func (s *WRCCSwitch) OnEnqueue(sw *fabric.SwitchView, i, e int, p *fabric.Packet, now sim.Time) {
	s.busy = true
	if p.Kind != fabric.KindData {
		return
	}
	k := i*s.np + e
	if s.bytes[k] == 0 {
		s.ins[e*s.np+int(s.nIn[e])] = int32(i)
		s.nIn[e]++
	}
	s.bytes[k] += int64(p.Size)
}

// OnDequeue is the egress processing of a data packet leaving port e
// (paper §3.2): RTT statistics, the compare/overwrite of the fair-rate
// field and the FCNP decision. ACKs and other control packets are not
// rate-compared.
func (s *WRCCSwitch) OnDequeue(sw *fabric.SwitchView, e int, p *fabric.Packet, now sim.Time) {
	if p.Kind != fabric.KindData {
		return
	}
	s.busy = true
	x := UnpackWRCCExt(sw.Ext(p))
	s.rttSum[e] += int64(x.RTTEst)
	s.pktNum[e]++
	pfr := s.pfrMbps[e]
	if x.FairRate <= pfr {
		return
	}
	sw.SetExt(p, wrccFairRate, pfr)
	// near-source switch (the packet's domain is ours) and a burst or
	// cross-datacenter flow: a fast notification; otherwise remote
	// congestion, the rewritten packet goes on
	if x.Domain != s.domain || x.FBDP == 0 {
		return
	}
	r := s.r
	if s.lastFCNP == nil {
		s.lastFCNP = make([]sim.Time, sw.NumFlows())
		for k := range s.lastFCNP {
			s.lastFCNP[k] = longAgo
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
	sw.SendNoticeArgs(p.QP, fabric.NoticeArgs{int64(s.domain), psn, int64(pfr), int64(now)}, int32(r.p.FCNPBytes))
}

// OnPeriod runs the periodic task (paper §3.4) every WRCCT: eq. 1 and
// Algorithm 1 for every egress port, then the reset of the period's
// counters (after all ports: PfcNum and Bytes are shared between ports).
// Idle ports and switches are skipped where the update would change
// nothing (I11).
func (s *WRCCSwitch) OnPeriod(sw *fabric.SwitchView, now sim.Time) {
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
		if !s.updatePort(sw, e) {
			s.idle = false
		}
	}
	for e := range np {
		for k := range int(s.nIn[e]) {
			s.bytes[int(s.ins[e*np+k])*np+e] = 0
		}
		s.nIn[e] = 0
		s.rttSum[e], s.pktNum[e] = 0, 0
		s.pauseBase[e] = sw.PauseSent(e)
	}
}

// updatePort computes eq. 1 and Algorithm 1 for egress port e (PfcNum from
// the PAUSE counter's growth, PFCth read now, I9); it reports
// whether the port was idle at F_max (nothing to compute).
func (s *WRCCSwitch) updatePort(sw *fabric.SwitchView, e int) bool {
	r := s.r
	np := s.np
	qp := sw.QueueBytes(e)
	ni := int(s.nIn[e])
	if ni == 0 && qp == 0 && s.pktNum[e] == 0 && s.pfr[e] == r.fMax {
		// idle port at F_max: Algorithm 1 would leave everything as it is
		return true
	}
	in := WRCCPortInput{RFair: s.pfr[e], Qp: qp}
	var all int64
	for k := range ni {
		i := int(s.ins[e*np+k])
		all += s.bytes[i*np+e]
		in.SumPFC += sw.PauseSent(i) - s.pauseBase[i]
		in.QMax += sw.PFCThreshold(i)
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

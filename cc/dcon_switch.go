package cc

import (
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// DCON's switch part (docs/algorithms/dcon.md §1–4, §7): the egress state
// machine with its step ECN marking, the CNMs to congested flows that
// share an ingress with innocent ones, and the dynamic Q_CNM.

// DCONMaxN is the largest N a CNM carries (its 8-bit field).
const DCONMaxN = 255

// init sizes the run from the network (once, at the first switch).
func (r *dconRun) init(sw *fabric.SwitchView) {
	r.once.Do(func() {
		rtt := sw.MaxBaseRTT()
		r.window = sim.Time(r.p.WindowRTTs * float64(rtt))
		r.recompute = max(r.window/4, sim.Nanosecond)
		r.flows = sw.NumFlows()
	})
}

// DCONQCNM is the dynamic burst threshold of an egress port (§4.4, eq. 2
// with all M senders at line rate): max(Q_ECN, Q_PFC/M − 3·d·C·(M − 1)),
// d the per-hop delay and C the link rate; M ≥ 1.
func DCONQCNM(qECN, qPFC int64, m int, d sim.Time, bps int64) int64 {
	if m < 1 {
		m = 1
	}
	x := qPFC/int64(m) - 3*sim.BytesIn(d, bps)*int64(m-1)
	return max(qECN, x)
}

// DCONState is an egress port's congestion state (§1.2).
type DCONState uint8

const (
	DCONNone       DCONState = iota // q < Q_ECN
	DCONPersistent                  // Q_ECN ≤ q < Q_CNM: ECN marking (while enabled)
	DCONBurst                       // q ≥ Q_CNM: CNMs, ECN marking off
)

// DCONPort is the egress state machine of one port: ECN marking is a step
// at Q_ECN decided at enqueue with the queue the arriving packet finds
// (excluding itself); a burst (q ≥ Q_CNM) disables marking until the
// queue falls below Q_ECN (interpretation I3, a hysteresis flag).
type DCONPort struct {
	ECNOff bool // marking disabled since the last burst
}

// Step classifies a packet that finds queue q and says whether to mark it.
func (s *DCONPort) Step(q, qECN, qCNM int64) (st DCONState, mark bool) {
	switch {
	case q >= qCNM:
		s.ECNOff = true
		return DCONBurst, false
	case q < qECN:
		s.ECNOff = false
		return DCONNone, false
	}
	return DCONPersistent, !s.ECNOff
}

// dconSwitch is DCON's logic at one switch.
type dconSwitch struct {
	r     *dconRun
	np    int
	port  []DCONPort
	tLast []sim.Time // per ingress port: last packet of a non-congested flow
	qcnm  []int64    // per egress port (static, pfc_fraction, q_cnm_m fed)
	// fed[i·np + e] = last time ingress i sent data to egress e (the
	// ingress rule I6, and q_cnm_m fed)
	fed  []sim.Time
	qcAt sim.Time
	fan  []int
	m    []int // q_cnm_m fed: M per egress at the last recomputation
	// q_cnm_m held (I8): held[i·np + e] = data bytes queued at egress e
	// that entered on ingress i; fanout[i] = the egress queues holding
	// any of i's bytes
	held   []int64
	fanout []int
	// flows: last time each flow's data was seen here, the flows seen at
	// each egress (pruned when counting N), and the last CNM per flow
	lastSeen []sim.Time
	inList   []bool
	members  [][]int32
	lastCNM  []sim.Time
	// CNMs counts the CNMs this switch sent.
	CNMs int64
	view *fabric.SwitchView // for the read-only accessors
}

func newDCONSwitch(r *dconRun, sw *fabric.SwitchView) *dconSwitch {
	r.init(sw)
	np := sw.NumPorts()
	s := &dconSwitch{r: r, np: np,
		port: make([]DCONPort, np), tLast: make([]sim.Time, np), qcnm: make([]int64, np),
		members: make([][]int32, np), qcAt: longAgo, view: sw}
	for i := range s.tLast {
		s.tLast[i] = longAgo
	}
	s.fed = make([]sim.Time, np*np)
	for i := range s.fed {
		s.fed[i] = longAgo
	}
	s.fan, s.m = make([]int, np), make([]int, np)
	s.held, s.fanout = make([]int64, np*np), make([]int, np)
	for e := range s.qcnm {
		s.qcnm[e], s.m[e] = r.qCNM, 1
		if r.p.QCNMMode == "pfc_fraction" && r.qOf > 0 {
			s.qcnm[e] = max(r.qECN, int64(r.p.QCNMFraction*float64(r.qOf)))
		}
	}
	return s
}

// recomputes reports whether the thresholds are recomputed every T/4:
// dynamic with q_cnm_m fed, and pfc_fraction of the switch's (possibly
// dynamic) PFC threshold.
func (r *dconRun) recomputes() bool {
	return r.p.QCNMMode == "dynamic" && !r.held || r.p.QCNMMode == "pfc_fraction" && r.qOf == 0
}

// OnEnqueue runs the state machine for a data packet that has just joined
// egress port e, having entered on port i.
func (s *dconSwitch) OnEnqueue(sw *fabric.SwitchView, i, e int, p *fabric.Packet, now sim.Time) {
	if p.Kind != fabric.KindData {
		return
	}
	r := s.r
	if s.lastSeen == nil {
		s.lastSeen = make([]sim.Time, r.flows)
		s.inList = make([]bool, r.flows)
		s.lastCNM = make([]sim.Time, r.flows)
		for k := range s.lastCNM {
			s.lastCNM[k] = longAgo
		}
	}
	s.lastSeen[p.QP] = now
	if !s.inList[p.QP] {
		s.inList[p.QP] = true
		s.members[e] = append(s.members[e], p.QP)
	}
	s.fed[i*s.np+e] = now
	if p.Prio != 0 { // class 0 bypasses the buffer (and OnDequeue)
		k := i*s.np + e
		if s.held[k] == 0 {
			s.fanout[i]++
		}
		s.held[k] += int64(p.Size)
	}
	if r.recomputes() && now-s.qcAt >= r.recompute {
		s.recomputeQCNM(sw, now)
	}
	q := sw.QueueBytes(e) - int64(p.Size)
	qcnm := s.qcnm[e]
	if r.held && q >= r.qECN { // below Q_ECN the state is none whatever Q_CNM
		qcnm = s.heldQCNM(sw, e)
	}
	st, mark := s.port[e].Step(q, r.qECN, qcnm)
	if st != DCONBurst {
		s.tLast[i] = now // a non-congested flow's packet at ingress i
		if mark {
			sw.MarkCE(e, p)
		}
		return
	}
	// burst: a CNM if ingress i carries non-congested flows too
	if now-s.lastCNM[p.QP] < r.gap || !s.shared(sw, i, e, now) {
		return
	}
	s.lastCNM[p.QP] = now
	s.CNMs++
	// the CNM carries N, C and (for statistics) the time it was sent
	sw.SendNoticeArgs(p.QP, fabric.NoticeArgs{int64(s.countN(e, now)), sw.LineRate(e), int64(now)}, int32(r.p.CNMBytes))
}

// shared reports whether ingress i carries non-congested flows while
// egress e is in burst. Every flow to e is congested (§1.3 rule 1), so the
// non-congested ones are those to other egress ports: by default (I6) an
// egress port e' ≠ e that got data from i in the last T and is not in burst
// itself now; with ingress_rule tlast, the spec's literal T_last (the last
// packet that found its egress not in burst, any flow, any egress).
func (s *dconSwitch) shared(sw *fabric.SwitchView, i, e int, now sim.Time) bool {
	if s.r.p.IngressRule == "tlast" {
		return now-s.tLast[i] < s.r.window
	}
	since := now - s.r.window
	row := s.fed[i*s.np : (i+1)*s.np]
	for e2, t := range row {
		if e2 != e && t > since && !s.inBurst(sw, e2) {
			return true
		}
	}
	return false
}

// inBurst reports whether egress e's queue is at or above its Q_CNM now.
func (s *dconSwitch) inBurst(sw *fabric.SwitchView, e int) bool {
	q := sw.QueueBytes(e)
	if !s.r.held || q < s.r.qECN {
		return q >= s.qcnm[e]
	}
	return q >= s.heldQCNM(sw, e)
}

// heldM is M of egress e under q_cnm_m held (I8): the largest number of
// egress queues holding bytes of one ingress, over the ingress ports with
// bytes in e (at least 1); and the smallest PFC threshold of those ingress
// ports (-1 if none).
func (s *dconSwitch) heldM(sw *fabric.SwitchView, e int) (m int, qpfc int64) {
	m, qpfc = 1, -1
	for i := range s.np {
		if s.held[i*s.np+e] == 0 {
			continue
		}
		m = max(m, s.fanout[i])
		if s.r.qPFC == 0 {
			if t := sw.PFCThreshold(i); qpfc < 0 || t < qpfc {
				qpfc = t
			}
		}
	}
	return m, qpfc
}

// heldQCNM is egress e's dynamic Q_CNM with the held count M.
func (s *dconSwitch) heldQCNM(sw *fabric.SwitchView, e int) int64 {
	m, qpfc := s.heldM(sw, e)
	return DCONQCNM(s.r.qECN, s.qPFCOr(sw, e, qpfc), m, sw.LinkDelay(e), sw.LineRate(e))
}

// qPFCOr is Q_PFC of egress e's formula: q_pfc_kb, else the smallest
// threshold found among its ingress ports (qpfc), else port e's own.
func (s *dconSwitch) qPFCOr(sw *fabric.SwitchView, e int, qpfc int64) int64 {
	switch {
	case s.r.qPFC > 0:
		return s.r.qPFC
	case qpfc < 0:
		return sw.PFCThreshold(e)
	}
	return qpfc
}

// QCNM is egress port e's current Q_CNM in bytes (read-only, for tests).
func (s *dconSwitch) QCNM(e int) int64 {
	if s.r.held {
		return s.heldQCNM(s.view, e)
	}
	return s.qcnm[e]
}

// M is egress port e's current M (q_cnm_m held), or M at the last
// recomputation (q_cnm_m fed); read-only, for tests.
func (s *dconSwitch) M(e int) int {
	if s.r.held {
		m, _ := s.heldM(s.view, e)
		return m
	}
	return s.m[e]
}

// countN is the number of distinct flows seen at egress e in the last T
// (interpretation I5; at least 1, at most 255), pruning the others.
func (s *dconSwitch) countN(e int, now sim.Time) int {
	m := s.members[e]
	for k := 0; k < len(m); {
		if now-s.lastSeen[m[k]] >= s.r.window {
			s.inList[m[k]] = false
			m[k] = m[len(m)-1]
			m = m[:len(m)-1]
			continue
		}
		k++
	}
	s.members[e] = m
	return min(max(len(m), 1), DCONMaxN)
}

// recomputeQCNM updates every egress port's Q_CNM (dynamic mode with
// q_cnm_m fed, and pfc_fraction of Q_PFC): M(e) = the largest fan-out
// (distinct egress ports fed in the last T) of the ingress ports that fed
// e in the last T; Q_PFC = q_pfc_kb or the smallest PFC threshold among
// those ingress ports.
func (s *dconSwitch) recomputeQCNM(sw *fabric.SwitchView, now sim.Time) {
	s.qcAt = now
	since := now - s.r.window
	np := s.np
	for i := range np {
		c := 0
		for e := range np {
			if s.fed[i*np+e] > since {
				c++
			}
		}
		s.fan[i] = c
	}
	for e := range np {
		m, qpfc := 1, int64(-1)
		for i := range np {
			if s.fed[i*np+e] <= since {
				continue
			}
			m = max(m, s.fan[i])
			if s.r.qPFC == 0 {
				if t := sw.PFCThreshold(i); qpfc < 0 || t < qpfc {
					qpfc = t
				}
			}
		}
		qpfc = s.qPFCOr(sw, e, qpfc)
		s.m[e] = m
		if s.r.p.QCNMMode == "pfc_fraction" {
			s.qcnm[e] = max(s.r.qECN, int64(s.r.p.QCNMFraction*float64(qpfc)))
		} else {
			s.qcnm[e] = DCONQCNM(s.r.qECN, qpfc, m, sw.LinkDelay(e), sw.LineRate(e))
		}
	}
}

// OnDequeue keeps the held counts (I8): a data packet leaving egress e
// no longer holds bytes of its ingress there.
func (s *dconSwitch) OnDequeue(sw *fabric.SwitchView, e int, p *fabric.Packet, now sim.Time) {
	if p.Kind != fabric.KindData {
		return
	}
	i := sw.InPort(p)
	k := i*s.np + e
	s.held[k] -= int64(p.Size)
	if s.held[k] == 0 {
		s.fanout[i]--
	}
}

// OnPeriod is unused.
func (s *dconSwitch) OnPeriod(sw *fabric.SwitchView, now sim.Time) {}

// NewDCONSwitch returns the constructor of DCON's switch feature for one
// run (call it once per run: the switches share its constants).
func NewDCONSwitch(p *DCONParams) func(sw *fabric.SwitchView) fabric.SwitchFeature {
	r := newDCONRun(p)
	return func(sw *fabric.SwitchView) fabric.SwitchFeature { return newDCONSwitch(r, sw) }
}

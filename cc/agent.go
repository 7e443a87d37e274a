package cc

import (
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// AgentParams are the parameters of `agent`, a congestion controller whose
// rate is set by a policy outside the fabric (a learned controller in
// training, issue 17 §1; docs/env.md §2). Without a controller attached
// (a plain `ccsim run`) it applies the constant Action at every
// monitoring boundary.
type AgentParams struct {
	Mode         string  `yaml:"mode" doc:"scale: rate ×(1+α·a) for a ≥ 0, ÷(1−α·a) for a < 0 (decc.md §1.5 eq. 2); rate: a is the rate as a fraction of line rate; decc: decc-nn's window rule (cwnd by eq. 2, pacing cwnd / mean RTT; docs/env.md §2)"`
	Alpha        float64 `yaml:"alpha" doc:"α of the scale mode (decc.md Table 5: 0.85)"`
	InitRate     float64 `yaml:"init_rate" doc:"rate at flow start, fraction of line rate"`
	MinRate      float64 `yaml:"min_rate" doc:"rate floor, fraction of line rate"`
	IntervalRTTs float64 `yaml:"interval_rtts" doc:"monitoring interval in base RTTs of the flow's path"`
	MinPackets   float64 `yaml:"min_packets" doc:"the interval lasts at least this many full packets at the current rate"`
	WindowBDPs   float64 `yaml:"window_bdps" doc:"in-flight cap: rate × path base RTT × this (0 = no window)"`
	Action       float64 `yaml:"action" doc:"constant action applied when no controller is attached"`
	CwndMin      float64 `yaml:"cwnd_min" doc:"decc mode: smallest window in full packets (decc-nn's cwnd_min)"`
	CwndMax      float64 `yaml:"cwnd_max" doc:"decc mode: largest window in path BDPs (decc-nn's cwnd_max)"`
	InitCwnd     float64 `yaml:"init_cwnd" doc:"decc mode: window at flow start in path BDPs (decc-nn's init_cwnd)"`
}

// AgentDefaults: scale mode with DECC's α = 0.85, start at line rate, floor
// 0.1 % of line rate, one base RTT and at least two packets per interval,
// no window, constant action 0 (keep the rate); for the decc mode decc-nn's
// window limits (1 packet to 4 BDPs, starting at 1 BDP).
func AgentDefaults() *AgentParams {
	return &AgentParams{Mode: "scale", Alpha: 0.85, InitRate: 1, MinRate: 0.001, IntervalRTTs: 1, MinPackets: 2,
		CwndMin: 1, CwndMax: 4, InitCwnd: 1}
}

// Validate checks every field's range.
func (p *AgentParams) Validate() error {
	switch {
	case p.Mode != "scale" && p.Mode != "rate" && p.Mode != "decc":
		return rangeErrS("mode", p.Mode, "scale, rate, decc")
	case !(p.Alpha > 0 && p.Alpha <= 1.9):
		return rangeErr("alpha", p.Alpha, "0 (exclusive)", "1.9")
	case !(p.MinRate > 0 && p.MinRate <= 1):
		return rangeErr("min_rate", p.MinRate, "0 (exclusive)", "1")
	case !(p.InitRate >= p.MinRate && p.InitRate <= 1):
		return rangeErr("init_rate", p.InitRate, "min_rate", "1")
	case !(p.IntervalRTTs > 0 && p.IntervalRTTs <= 1e4):
		return rangeErr("interval_rtts", p.IntervalRTTs, "0 (exclusive)", "1e4")
	case !(p.MinPackets >= 0 && p.MinPackets <= 1e6):
		return rangeErr("min_packets", p.MinPackets, "0", "1e6")
	case !(p.WindowBDPs >= 0 && p.WindowBDPs <= 1e4):
		return rangeErr("window_bdps", p.WindowBDPs, "0", "1e4")
	case !(p.Action >= -1 && p.Action <= 1):
		return rangeErr("action", p.Action, "-1", "1")
	case !(p.CwndMin >= 1 && p.CwndMin <= 1e6):
		return rangeErr("cwnd_min", p.CwndMin, "1", "1e6")
	case !(p.CwndMax > 0 && p.CwndMax <= 1e4):
		return rangeErr("cwnd_max", p.CwndMax, "0 (exclusive)", "1e4")
	case !(p.InitCwnd > 0 && p.InitCwnd <= p.CwndMax):
		return rangeErr("init_cwnd", p.InitCwnd, "0 (exclusive)", "cwnd_max")
	}
	return nil
}

// AgentController drives the agents of a simulation (train/env): the
// fabric hands it each agent at the end of every monitoring interval, and
// once when the agent's flow is fully acknowledged. It runs inside the
// fabric's event, so the simulation is suspended while it decides.
type AgentController interface {
	// AgentBoundary is called when agent a's interval [a.C.Start, now)
	// ends, before the counters restart. It may Apply an action at once
	// or Schedule one for later.
	AgentBoundary(a *Agent, q *fabric.QP, now sim.Time)
	// AgentFinish is called when the flow's last byte is acknowledged
	// (from the ACK's callback): the partial interval [a.C.Start, now).
	AgentFinish(a *Agent, q *fabric.QP, now sim.Time)
}

// AgentCounters are one interval's measurements of an agent's flow, what
// a sender (or its DPU) sees from ACKs: docs/env.md §3 builds the
// observation from them.
type AgentCounters struct {
	Start      sim.Time // the interval's start
	Acks       int64    // ACKs and NACKs received
	AckedBytes int64    // bytes newly acknowledged (cumulative ACK: goodput as the sender sees it)
	Marked     int64    // ACKs echoing a CE mark
	Nacks      int64    // NACKs (a gap seen by the receiver)
	Notices    int64    // congestion notification packets (CNP) or switch notices
	RTTN       int64    // RTT samples (one per ACK)
	RTTSum     sim.Time // their sum
	RTTMin     sim.Time // smallest sample (0 if none)
	RTTMax     sim.Time // largest sample
	TxBytes0   int64    // QP.TxBytes at the interval's start (payload sent, retransmissions included)
	RetxBytes0 int64    // QP.RetxBytes at the interval's start
}

// Agent is one flow's `agent` controller. Its fields are read by the
// controller; Apply and Schedule act on the flow.
type Agent struct {
	P    *AgentParams
	Flow int             // the flow (QP) index
	Ctrl AgentController // nil: constant P.Action
	C    AgentCounters   // the current interval's counters
	// Interval is the length of the current interval (docs/env.md §2.1).
	Interval sim.Time
	// Boundaries counts the intervals closed so far.
	Boundaries int64
	// Cwnd (bytes) and RTTAvg (ps, the mean RTT of the latest interval
	// with an ACK) are the decc mode's window and pacing RTT.
	Cwnd, RTTAvg float64
	lo, hi       float64 // decc mode: window limits in bytes
	finished     bool
	minBps       int64
	// pending actions (Schedule), a FIFO ring: due times and values
	pendAt  []sim.Time
	pendAct []float64
	head, n int
}

// Agent timer slots: the monitoring boundary and the next scheduled action.
const (
	agentTimerBoundary = 0
	agentTimerAction   = 1
)

// NewAgent returns the agent of flow for parameters p (validated), driven
// by ctrl (nil: the constant action).
func NewAgent(p *AgentParams, flow int, ctrl AgentController) *Agent {
	return &Agent{P: p, Flow: flow, Ctrl: ctrl}
}

// Start sets the initial rate and the first interval. In decc mode it is
// decc-nn's start (cc.DECC.Start): the window init_cwnd path BDPs within
// the limits, the pacing rate from it over the path base RTT, and no
// action before the first boundary.
func (a *Agent) Start(q *fabric.QP, now sim.Time) {
	if a.P.Mode == "decc" {
		bdp := float64(q.LineRateBps) / 8 * q.PathBaseRTT.Seconds()
		a.lo = a.P.CwndMin * float64(q.PayloadBytes())
		a.hi = max(a.P.CwndMax*bdp, a.lo)
		a.Cwnd = min(max(a.P.InitCwnd*bdp, a.lo), a.hi)
		a.RTTAvg = float64(q.PathBaseRTT)
		a.enforceDECC(q)
		a.restart(q, now)
		return
	}
	a.minBps = max(1, int64(a.P.MinRate*float64(q.LineRateBps)))
	q.SetRate(max(a.minBps, int64(a.P.InitRate*float64(q.LineRateBps))))
	a.setWindow(q)
	if a.Ctrl == nil {
		a.Apply(q, a.P.Action)
	}
	a.restart(q, now)
}

// NextInterval is the interval that starts now at q's current rate:
// max(IntervalRTTs × path base RTT, MinPackets × the wire time of a full
// packet (payload + 48-byte data header) at the current rate), in whole
// picoseconds, at least 1 ps (docs/env.md §2.1).
func (a *Agent) NextInterval(q *fabric.QP) sim.Time {
	iv := sim.Time(a.P.IntervalRTTs*float64(q.PathBaseRTT) + 0.5)
	pkt := q.PayloadBytes() + fabric.DataHeaderBytes
	if m := sim.Time(a.P.MinPackets*float64(sim.TxTime(pkt, q.RateBps)) + 0.5); m > iv {
		iv = m
	}
	return max(iv, 1)
}

// restart begins a new interval at now.
func (a *Agent) restart(q *fabric.QP, now sim.Time) {
	a.C = AgentCounters{Start: now, TxBytes0: q.TxBytes, RetxBytes0: q.RetxBytes}
	a.Interval = a.NextInterval(q)
	q.ArmTimer(agentTimerBoundary, now+a.Interval)
}

// OnAck accumulates the interval's counters; the ACK that covers the whole
// flow hands the partial interval to the controller.
func (a *Agent) OnAck(q *fabric.QP, k *fabric.AckInfo, now sim.Time) {
	a.C.recordAck(k)
	if !a.finished && q.SndUna >= q.SizeBytes {
		a.finished = true
		if a.Ctrl != nil {
			a.Ctrl.AgentFinish(a, q, now)
		}
	}
}

// OnNotice counts congestion notification packets.
func (a *Agent) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) { a.C.Notices++ }

// OnTimer closes an interval (boundary timer) or applies the next
// scheduled action.
func (a *Agent) OnTimer(q *fabric.QP, id int, now sim.Time) {
	if id == agentTimerAction {
		a.applyDue(q, now)
		return
	}
	a.Boundaries++
	if a.P.Mode == "decc" && a.C.RTTN > 0 {
		// decc-nn's RTT_avg: the mean RTT of the latest MTP with an ACK
		// (cc.DECC.Observe), known before the action applies
		a.RTTAvg = float64(a.C.RTTSum) / float64(a.C.RTTN)
	}
	if a.Ctrl != nil {
		a.Ctrl.AgentBoundary(a, q, now)
	} else {
		a.Apply(q, a.P.Action)
	}
	a.restart(q, now)
}

// OnSend is not used.
func (a *Agent) OnSend(q *fabric.QP, size int, now sim.Time) {}

// Apply sets the rate from action x (clamped to [-1, 1]) now: in scale
// mode rate ×(1 + αx) for x ≥ 0 and ÷(1 − αx) for x < 0 (decc.md §1.5 eq.
// 2, applied to the rate), in rate mode rate = x × line rate; the result is
// clamped to [min_rate, 1] × line rate. The window, if any, follows. In
// decc mode the window takes the action (cc.DECCCwnd, eq. 2, clamped to
// [cwnd_min, cwnd_max]) and the rate follows it (cc.DECCPacing over
// RTTAvg): decc-nn's cc.DECC.Apply through the same functions
// (docs/algorithms/decc.md I9, I13).
func (a *Agent) Apply(q *fabric.QP, x float64) {
	x = min(max(x, -1), 1)
	if a.P.Mode == "decc" {
		a.Cwnd = DECCCwnd(a.Cwnd, x, a.P.Alpha, a.lo, a.hi)
		a.enforceDECC(q)
		return
	}
	line := float64(q.LineRateBps)
	var r float64
	if a.P.Mode == "rate" {
		r = x * line
	} else if x >= 0 {
		r = float64(q.RateBps) * (1 + a.P.Alpha*x)
	} else {
		r = float64(q.RateBps) / (1 - a.P.Alpha*x)
	}
	bps := int64(min(r, line))
	q.SetRate(max(bps, a.minBps))
	a.setWindow(q)
}

// enforceDECC is decc-nn's cc.DECC.enforce: the window as the in-flight
// cap, the pacing rate window / RTTAvg capped at line rate.
func (a *Agent) enforceDECC(q *fabric.QP) {
	q.SetWindow(max(int64(a.Cwnd), 1))
	q.SetRate(DECCPacing(a.Cwnd, a.RTTAvg, q.LineRateBps))
}

// setWindow caps bytes in flight at rate × path base RTT × window_bdps
// (at least one packet) when window_bdps > 0.
func (a *Agent) setWindow(q *fabric.QP) {
	if a.P.WindowBDPs <= 0 {
		return
	}
	w := int64(float64(q.RateBps) / 8 * q.PathBaseRTT.Seconds() * a.P.WindowBDPs)
	q.SetWindow(max(w, q.PayloadBytes()))
}

// Schedule applies action x at time at (≥ now). Scheduled actions apply in
// the order they were scheduled; at must not precede an earlier one's.
func (a *Agent) Schedule(q *fabric.QP, at sim.Time, x float64) {
	if a.n == len(a.pendAt) {
		a.grow()
	}
	i := (a.head + a.n) % len(a.pendAt)
	a.pendAt[i], a.pendAct[i] = at, x
	a.n++
	if a.n == 1 {
		q.ArmTimer(agentTimerAction, at)
	}
}

// Pending is the number of scheduled actions not yet applied.
func (a *Agent) Pending() int { return a.n }

// grow doubles the pending ring, keeping its order.
func (a *Agent) grow() {
	m := max(4, 2*len(a.pendAt))
	at, act := make([]sim.Time, m), make([]float64, m)
	for k := range a.n {
		j := (a.head + k) % len(a.pendAt)
		at[k], act[k] = a.pendAt[j], a.pendAct[j]
	}
	a.pendAt, a.pendAct, a.head = at, act, 0
}

// applyDue applies every scheduled action due by now and arms the timer
// for the next one.
func (a *Agent) applyDue(q *fabric.QP, now sim.Time) {
	for a.n > 0 && a.pendAt[a.head] <= now {
		a.Apply(q, a.pendAct[a.head])
		a.head = (a.head + 1) % len(a.pendAt)
		a.n--
	}
	if a.n > 0 {
		q.ArmTimer(agentTimerAction, a.pendAt[a.head])
	}
}

func init() {
	Register(&Spec{
		Name:     "agent",
		Summary:  "rate (mode decc: decc-nn's window) set by a policy at every monitoring interval (training environment, docs/env.md); alone: a constant action",
		Defaults: func() Params { return AgentDefaults() },
		Harness:  true,
		New: func(p Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			ap := p.(*AgentParams)
			return func(q *fabric.QP) fabric.Algorithm { return NewAgent(ap, int(q.ID), nil) }, fabric.Requirements{}
		},
	})
}

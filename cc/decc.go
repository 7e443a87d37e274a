package cc

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/gbdt"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/sim"
)

// DECCParams are the parameters of DECC's three senders (paper 000;
// decc.md §1.3–§1.9, Table 5; docs/algorithms/decc.md): `decc-nn` runs the
// teacher actor, `decc-binary` the compressed network, `decc` the distilled
// trees; they share every field and the per-MTP loop and differ only in the
// policy that turns the history window into an action (DECCPolicy). Windows
// are in bytes internally; the limits are given in packets and path BDPs so
// that one set of defaults fits any link.
type DECCParams struct {
	AlphaAct      float64 `yaml:"alpha_act" doc:"action control coefficient α of eq. 2 (Table 5: 0.85): cwnd ×(1 + α·a) for a ≥ 0, ÷(1 − α·a) for a < 0"`
	History       int     `yaml:"history" doc:"w: MTPs of local state the actor is stepped over (Table 5: 5)"`
	MTP           float64 `yaml:"mtp" doc:"monitoring time period in path base RTTs (unspecified by the paper; decc.md §1.3: one base RTT)"`
	MinPackets    float64 `yaml:"min_packets" doc:"an MTP lasts at least this many full packets at the current rate (train/env's interval rule, docs/env.md §2.1)"`
	CwndMin       float64 `yaml:"cwnd_min" doc:"smallest window in full packets (decc.md §1.3: 1 MTU)"`
	CwndMax       float64 `yaml:"cwnd_max" doc:"largest window in path BDPs (decc.md §1.3: 4 × line rate × base RTT)"`
	InitCwnd      float64 `yaml:"init_cwnd" doc:"window at flow start in path BDPs (unspecified; 1: start at line rate)"`
	Model         string  `yaml:"model" doc:"model file: decc-nn the teacher actor (cc/deccmodel shape; docs/ml.md §5), decc-binary the packed int4 network (docs/compress.md §5), decc the trees (CatBoost JSON, docs/gbdt.md); empty: the shipped model (ccsim train decc)"`
	DecisionNs    float64 `yaml:"decision_ns" unit:"ns" doc:"decision latency: each action takes effect this long after its decision started (decc.md §1.10; Table 3 readings: 458000 decc-nn, 17000 decc-binary, 1530 decc)"`
	DecisionQueue string  `yaml:"decision_queue" doc:"delay (each decision starts at its MTP's end), wait (on the first free decision core, FIFO: decc.md §1.10) or skip (an MTP ending while every core is busy takes no decision); docs/env.md §5"`
	TreeOutput    string  `yaml:"tree_output" doc:"decc only: levels (the trees' scalar mapped to the nearest of the 11 action levels, for trees distilled from the categorical teacher; docs/algorithms/decc.md I21) or value (the scalar itself clamped to [−0.5, 0.5], for trees distilled from a continuous teacher, §10.5)"`
	DecisionCores int     `yaml:"decision_cores" doc:"decision cores of a sending host's DPU, shared by its flows (wait, skip; docs/env.md §5: 1); 0 = one core per flow"`

	policy    *nn.Sequential // the loaded actor (Validate): the teacher, or decc-binary's dequantised network
	trees     *gbdt.Model    // decc's loaded trees (Validate)
	kind      deccKind       // which of the three senders (set by the Defaults functions)
	modelFrom string
	loaded    bool
	record    DECCRecorder // nil: no recording (the normal case)
}

// deccKind tells DECC's three senders apart (their policy, decc.md
// §1.7–§1.9).
type deccKind uint8

const (
	deccNN     deccKind = iota // decc-nn: the teacher actor
	deccBinary                 // decc-binary: the pruned, 4-bit network (decc_binary.go)
	deccTrees                  // decc: the distilled oblivious trees (decc_tree.go)
)

// DECCRecorder receives, at every decision of a DECC sender, the flow's id,
// its history window (History × DECCFeatures values, a view valid only
// during the call) and the chosen action (its value in [−0.5, 0.5]: one of
// the 11 levels, or any value for a continuous actor). train/deccpost
// records the teacher's windows with it (docs/algorithms/decc.md §11).
type DECCRecorder func(flow int32, window []float64, action float64)

// SetRecorder installs r (nil removes it). Without a recorder a decision
// costs one nil check more.
func (p *DECCParams) SetRecorder(r DECCRecorder) { p.record = r }

// DECCDefaults: Table 5's α = 0.85 and w = 5, an MTP of one base RTT and
// at least two packets, windows of 1 packet to 4 BDPs starting at 1 BDP,
// no decision latency, and the shipped teacher (an empty model).
func DECCDefaults() *DECCParams {
	return &DECCParams{AlphaAct: 0.85, History: deccmodel.History, MTP: 1, MinPackets: 2, CwndMin: 1, CwndMax: 4, InitCwnd: 1,
		DecisionQueue: "delay", DecisionCores: 1, TreeOutput: "levels"}
}

// Validate checks every field's range and loads the actor (once per path).
func (p *DECCParams) Validate() error {
	switch {
	case !(p.AlphaAct > 0 && p.AlphaAct <= 1.9):
		// |α·a| ≤ 0.95 < 1 keeps the divisor 1 − α·a positive
		return rangeErr("alpha_act", p.AlphaAct, "0 (exclusive)", "1.9")
	case p.History < 1 || p.History > 64:
		return rangeErr("history", p.History, "1", "64")
	case !(p.MTP > 0 && p.MTP <= 1e4):
		return rangeErr("mtp", p.MTP, "0 (exclusive)", "1e4")
	case !(p.MinPackets >= 0 && p.MinPackets <= 1e6):
		return rangeErr("min_packets", p.MinPackets, "0", "1e6")
	case !(p.CwndMin >= 1 && p.CwndMin <= 1e6):
		return rangeErr("cwnd_min", p.CwndMin, "1", "1e6")
	case !(p.CwndMax > 0 && p.CwndMax <= 1e4):
		return rangeErr("cwnd_max", p.CwndMax, "0 (exclusive)", "1e4")
	case !(p.InitCwnd > 0 && p.InitCwnd <= p.CwndMax):
		return rangeErr("init_cwnd", p.InitCwnd, "0 (exclusive)", "cwnd_max")
	case !(p.DecisionNs >= 0 && p.DecisionNs <= 1e9):
		return rangeErr("decision_ns", p.DecisionNs, "0", "1e9")
	case p.DecisionQueue != "delay" && p.DecisionQueue != "wait" && p.DecisionQueue != "skip":
		return rangeErrS("decision_queue", p.DecisionQueue, "delay, wait, skip")
	case p.TreeOutput != "levels" && p.TreeOutput != "value":
		return rangeErrS("tree_output", p.TreeOutput, "levels, value")
	case p.DecisionCores < 0 || p.DecisionCores > 1024:
		return rangeErr("decision_cores", p.DecisionCores, "0", "1024")
	}
	if p.loaded && p.modelFrom == p.Model {
		return nil
	}
	if p.kind != deccNN {
		return p.loadStudent() // decc-binary, decc: decc_binary.go, decc_tree.go
	}
	load := func(string) (*nn.Sequential, string, error) { return deccmodel.Shipped() } // empty: the shipped teacher
	if p.Model != "" {
		load = deccmodel.LoadActorFile
	}
	m, _, err := load(p.Model)
	if err != nil {
		return fmt.Errorf("model: %v", err)
	}
	p.policy, p.modelFrom, p.loaded = m, p.Model, true
	return nil
}

// Policy returns the actor Validate loaded (nil before).
func (p *DECCParams) Policy() *nn.Sequential { return p.policy }

// SetPolicy sets the actor directly (tests and trainers that hold the
// network in memory), in place of Model; net must have a teacher actor's
// shape (deccmodel.NewActor, or NewContinuousActor).
func (p *DECCParams) SetPolicy(net *nn.Sequential, name string) {
	p.policy, p.Model, p.modelFrom, p.loaded = net, name, name, true
}

// DECCGreedy is the deployed decision rule (docs/algorithms/decc.md I5):
// the index of the largest of the logits, the first on ties (NaN logits
// never win; all NaN gives the no-op action deccmodel.Actions/2).
func DECCGreedy(logits []float64) int {
	best, bi := math.Inf(-1), deccmodel.Actions/2
	for k, z := range logits {
		if z > best {
			best, bi = z, k
		}
	}
	return bi
}

// DECCCwnd is the window after action a from cwnd (eq. 2): ×(1 + α·a) for
// a ≥ 0, ÷(1 − α·a) for a < 0, clamped to [lo, hi] bytes.
func DECCCwnd(cwnd, a, alpha, lo, hi float64) float64 {
	if a >= 0 {
		cwnd *= 1 + alpha*a
	} else {
		cwnd /= 1 - alpha*a
	}
	return min(max(cwnd, lo), hi)
}

// DECCPacing is the pacing rate of window cwnd bytes over a mean RTT of
// rtt picoseconds: cwnd × 8 / RTT in b/s, truncated, capped at line and at
// least 1 (decc.md §1.3: rate = min(cwnd / RTT_avg, line rate)).
func DECCPacing(cwnd, rtt float64, line int64) int64 {
	r := cwnd * 8 / (rtt / float64(sim.Second))
	if !(r < float64(line)) {
		return line
	}
	return max(int64(r), 1)
}

// DECC is one flow's controller of any of DECC's three senders: the per-MTP
// loop of decc.md §1.3 with a DECCPolicy (the teacher actor, the compressed
// network or the trees).
type DECC struct {
	P *DECCParams
	// C is the current MTP's counters (the fields cc.Agent keeps, so that
	// DECCLocalState reads the same values in training and here).
	C AgentCounters
	// Hist is the flow's local-state history (the actor's input).
	Hist DECCHistory
	// Cwnd is the window in bytes (float: eq. 2 compounds fractions).
	Cwnd float64
	// RTTAvg is the mean RTT of the latest MTP with an ACK, in ps (the
	// path base RTT before the first).
	RTTAvg float64
	// Interval is the length of the current MTP.
	Interval sim.Time
	// MTPs counts the MTPs closed; Decisions the policy's runs (one per
	// MTP unless skipped or idle); Skipped the MTPs that took no decision
	// (decision_queue skip); Idle the MTPs of an idle flow (nothing sent
	// or acknowledged, nothing to send: no telemetry, no decision, I26);
	// Applied the actions applied; LastAction the latest chosen action
	// (its value, deccmodel.ActionValue of a level for the categorical
	// policies).
	MTPs, Decisions, Skipped, Idle, Applied int64
	LastAction                              float64
	// Cores is the decision processor the flow books (decision_queue wait
	// or skip): its own single core from NewDECC; the registered
	// constructor shares one per sending host (decision_cores).
	Cores *DECCCores

	pol        DECCPolicy
	state      [DECCFeatures]float64
	lo, hi     float64 // window limits in bytes
	pendAt     []sim.Time
	pendAct    []float64
	head, npen int
}

// DECC timer slots: the MTP's end and the next scheduled action.
const (
	deccTimerMTP    = 0
	deccTimerAction = 1
)

// NewDECC returns a flow's controller for validated parameters p over the
// actor net (read only: each flow has its own workspace). A nil net keeps
// the window (action 0) at every MTP.
func NewDECC(p *DECCParams, net *nn.Sequential) *DECC {
	var pol DECCPolicy
	if net != nil {
		pol = NewDECCNetPolicy(net, p.History)
	}
	return NewDECCWith(p, pol)
}

// NewDECCWith returns a flow's controller for validated parameters p with
// the policy pol (the flow's own: policies hold scratch space). A nil pol
// keeps the window (action 0) at every MTP.
func NewDECCWith(p *DECCParams, pol DECCPolicy) *DECC {
	return &DECC{P: p, pol: pol, Hist: NewDECCHistory(p.History), Cores: NewDECCCores(1)}
}

// DECCPolicy turns a flow's history window into an action in [−0.5, 0.5]
// (eq. 2's a): the one part in which DECC's three senders differ. The
// categorical policies return one of the 11 levels
// (deccmodel.ActionValue), a continuous actor any value.
// Act is called once per decision with History × DECCFeatures values,
// oldest MTP first; it must not allocate. Each flow has its own policy
// value, so a policy may keep scratch space.
type DECCPolicy interface {
	Act(window []float64, steps int) float64
}

// deccNetPolicy is the deployed rule of a network (decc-nn's teacher,
// decc-binary's dequantised network): DECCNetAction of its outputs.
type deccNetPolicy struct {
	net *nn.Sequential
	ws  *nn.Workspace
}

// NewDECCNetPolicy returns the deployed policy of net (shared, read only;
// categorical or continuous, DECCNetAction) with its own workspace for
// windows of up to steps steps.
func NewDECCNetPolicy(net *nn.Sequential, steps int) DECCPolicy {
	return &deccNetPolicy{net: net, ws: net.NewWorkspace(steps)}
}

// Act runs the network and returns DECCNetAction of its outputs (the no-op
// 0 on a forward error).
func (n *deccNetPolicy) Act(window []float64, steps int) float64 {
	z, err := n.net.Forward(n.ws, window, steps)
	if err != nil {
		return 0
	}
	return DECCNetAction(z)
}

// DECCNetAction is a DECC network's deployed action from its outputs z: the
// value of the greedy level (DECCGreedy) of the categorical actor's 11
// logits, or deccmodel.ContinuousAction of the continuous actor's one raw
// output (issue 18's `actor: continuous`, docs/algorithms/decc.md §10.5).
func DECCNetAction(z []float64) float64 {
	if len(z) == 1 {
		return deccmodel.ContinuousAction(z[0])
	}
	return deccmodel.ActionValue(DECCGreedy(z))
}

// newPolicy returns a flow's policy for validated parameters: nil (keep the
// window) when nothing is loaded.
func (p *DECCParams) newPolicy() DECCPolicy {
	switch {
	case p.kind == deccTrees && p.trees != nil && p.TreeOutput == "value":
		return NewDECCTreeValuePolicy(p.trees)
	case p.kind == deccTrees && p.trees != nil:
		return NewDECCTreePolicy(p.trees)
	case p.kind != deccTrees && p.policy != nil:
		return NewDECCNetPolicy(p.policy, p.History)
	}
	return nil
}

// Start sets the initial window (init_cwnd path BDPs, clamped) and rate
// and opens the first MTP.
func (d *DECC) Start(q *fabric.QP, now sim.Time) {
	bdp := float64(q.LineRateBps) / 8 * q.PathBaseRTT.Seconds()
	d.lo = d.P.CwndMin * float64(q.PayloadBytes())
	d.hi = max(d.P.CwndMax*bdp, d.lo)
	d.Cwnd = min(max(d.P.InitCwnd*bdp, d.lo), d.hi)
	d.RTTAvg = float64(q.PathBaseRTT)
	d.state[DECCLat] = 1
	d.enforce(q)
	d.restart(q, now)
}

// enforce sets the in-flight cap to the window and the pacing rate to
// window / mean RTT, capped at line rate.
func (d *DECC) enforce(q *fabric.QP) {
	q.SetWindow(max(int64(d.Cwnd), 1))
	q.SetRate(DECCPacing(d.Cwnd, d.RTTAvg, q.LineRateBps))
}

// NextInterval is the MTP that starts now at q's current rate: max(mtp ×
// path base RTT, min_packets × the wire time of a full packet), at least 1
// ps — cc.Agent's rule (docs/env.md §2.1), so that the deployed sender
// steps as the trainer does.
func (d *DECC) NextInterval(q *fabric.QP) sim.Time {
	iv := sim.Time(d.P.MTP*float64(q.PathBaseRTT) + 0.5)
	pkt := q.PayloadBytes() + fabric.DataHeaderBytes
	if m := sim.Time(d.P.MinPackets*float64(sim.TxTime(pkt, q.RateBps)) + 0.5); m > iv {
		iv = m
	}
	return max(iv, 1)
}

// restart opens an MTP at now: fresh counters, the length by
// NextInterval at the rate now in effect, the end timer.
func (d *DECC) restart(q *fabric.QP, now sim.Time) {
	d.C = AgentCounters{Start: now, TxBytes0: q.TxBytes, RetxBytes0: q.RetxBytes}
	d.Interval = d.NextInterval(q)
	q.ArmTimer(deccTimerMTP, now+d.Interval)
}

// OnAck accumulates the MTP's counters.
func (d *DECC) OnAck(q *fabric.QP, k *fabric.AckInfo, now sim.Time) { d.C.recordAck(k) }

// OnNotice counts notifications (not part of DECC's state).
func (d *DECC) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) { d.C.Notices++ }

// OnSend is not used.
func (d *DECC) OnSend(q *fabric.QP, size int, now sim.Time) {}

// OnTimer closes an MTP (decide) or applies the next scheduled action.
func (d *DECC) OnTimer(q *fabric.QP, id int, now sim.Time) {
	if id == deccTimerAction {
		d.applyDue(q, now)
		return
	}
	if d.C.Acks == 0 && q.InFlight() == 0 && q.Remaining() == 0 {
		// an idle flow (a message ring's queue pair between its turns, a
		// chain between messages): no ACK brought telemetry and nothing is
		// in flight or waiting, so the agent has nothing to act on; the
		// MTP is not observed (I26)
		d.Idle++
		d.restart(q, now)
		return
	}
	if d.P.DecisionNs <= 0 {
		d.Apply(q, d.Decide(q, now))
		d.restart(q, now)
		return
	}
	// decision latency (decc.md §1.10; docs/algorithms/decc.md §5, I8, I12)
	lat := sim.Time(d.P.DecisionNs*float64(sim.Nanosecond) + 0.5)
	if d.P.DecisionQueue == "delay" {
		d.schedule(q, now+lat, d.Decide(q, now))
	} else if at, ok := d.Cores.Book(now, lat, d.P.DecisionQueue == "skip"); ok {
		d.schedule(q, at, d.Decide(q, now))
	} else {
		d.Observe(q, now)
		d.Skipped++
	}
	d.restart(q, now)
}

// Decide closes the MTP [C.Start, now): it computes the local state
// (DECCLocalState), updates the mean RTT, pushes the state into the
// history, runs the policy over the history (History steps; decc-nn: the
// actor's deployed action) and returns the action's value (the no-op 0
// without a policy or on a forward error). It does not act on the flow nor
// restart the MTP (OnTimer does) and allocates nothing.
func (d *DECC) Decide(q *fabric.QP, now sim.Time) float64 {
	d.Observe(q, now)
	d.Decisions++
	k := 0.0
	if d.pol != nil {
		k = d.pol.Act(d.Hist.Window(), d.P.History)
	}
	if d.P.record != nil {
		d.P.record(q.ID, d.Hist.Window(), k)
	}
	d.LastAction = k
	return k
}

// Observe closes the MTP [C.Start, now) without a decision: the local
// state, the mean RTT and the history (the DPU's counters are kept whether
// or not its core is free to run the policy).
func (d *DECC) Observe(q *fabric.QP, now sim.Time) {
	d.MTPs++
	DECCLocalState(d.state[:], &d.C, DECCFlowOf(q), now, d.state[DECCLat])
	if d.C.RTTN > 0 {
		d.RTTAvg = float64(d.C.RTTSum) / float64(d.C.RTTN)
	}
	d.Hist.Push(d.state[:])
}

// State returns the latest local state (DECCFeatures values, a view).
func (d *DECC) State() []float64 { return d.state[:] }

// Apply applies action a (its value) now: the window by eq. 2, then the
// cap and the pacing rate from the latest mean RTT.
func (d *DECC) Apply(q *fabric.QP, a float64) {
	d.Applied++
	d.Cwnd = DECCCwnd(d.Cwnd, a, d.P.AlphaAct, d.lo, d.hi)
	d.enforce(q)
}

// schedule applies action a at time at (FIFO: at is never before an
// earlier one's: the latency is constant, and a booking on the earliest-free
// core never finishes before an earlier booking did).
func (d *DECC) schedule(q *fabric.QP, at sim.Time, a float64) {
	if d.npen == len(d.pendAt) {
		m := max(4, 2*len(d.pendAt))
		t, v := make([]sim.Time, m), make([]float64, m)
		for i := range d.npen {
			j := (d.head + i) % len(d.pendAt)
			t[i], v[i] = d.pendAt[j], d.pendAct[j]
		}
		d.pendAt, d.pendAct, d.head = t, v, 0
	}
	i := (d.head + d.npen) % len(d.pendAt)
	d.pendAt[i], d.pendAct[i] = at, a
	d.npen++
	if d.npen == 1 {
		q.ArmTimer(deccTimerAction, at)
	}
}

// applyDue applies every scheduled action due by now.
func (d *DECC) applyDue(q *fabric.QP, now sim.Time) {
	for d.npen > 0 && d.pendAt[d.head] <= now {
		d.Apply(q, d.pendAct[d.head])
		d.head = (d.head + 1) % len(d.pendAt)
		d.npen--
	}
	if d.npen > 0 {
		q.ArmTimer(deccTimerAction, d.pendAt[d.head])
	}
}

// Pending is the number of scheduled actions not yet applied.
func (d *DECC) Pending() int { return d.npen }

// DECCCores is a decision processor (docs/env.md §5, the same rule as
// train/env's): the time each core becomes free.
type DECCCores struct{ free []sim.Time }

// NewDECCCores returns n idle cores (at least one).
func NewDECCCores(n int) *DECCCores { return &DECCCores{free: make([]sim.Time, max(n, 1))} }

// Book takes a decision arriving at now and lasting lat on the
// earliest-free core (lowest index on ties): it starts at max(now, that
// core's free time) and its action applies at the returned time; with skip
// a decision that cannot start at now is refused (ok false).
func (c *DECCCores) Book(now, lat sim.Time, skip bool) (at sim.Time, ok bool) {
	k := 0
	for i := 1; i < len(c.free); i++ {
		if c.free[i] < c.free[k] {
			k = i
		}
	}
	start := max(now, c.free[k])
	if skip && start > now {
		return 0, false
	}
	c.free[k] = start + lat
	return c.free[k], true
}

// Free returns the time each core becomes free (read only).
func (c *DECCCores) Free() []sim.Time { return c.free }

func init() {
	Register(&Spec{
		Name: "decc-nn",
		Summary: "DECC (paper 000) with its teacher network: 5→128→64→32→LSTM 32→16→11 actor over 5 MTPs of (thr, lat, loss, in-flight, rate), " +
			"argmax of 11 actions in [−0.5, 0.5], cwnd ×/÷(1 + 0.85|a|) every base RTT, pacing cwnd / mean RTT; the shipped teacher (ccsim train decc)",
		Defaults: func() Params { return DECCDefaults() },
		Variant:  true,
		New:      deccNew,
	})
}

// deccNew is the registered constructor of DECC's three senders: one
// controller per flow with its own policy, the decision cores shared per
// sending host (one set per New: scenario/assemble builds one network per
// New).
func deccNew(p Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
	dp := p.(*DECCParams)
	if !dp.loaded {
		_ = dp.Validate() // normally done by the scenario; without a model the window is kept (action 0)
	}
	hosts := map[int32]*DECCCores{}
	return func(q *fabric.QP) fabric.Algorithm {
		d := NewDECCWith(dp, dp.newPolicy())
		if dp.DecisionCores > 0 {
			if hosts[q.Src] == nil {
				hosts[q.Src] = NewDECCCores(dp.DecisionCores)
			}
			d.Cores = hosts[q.Src]
		}
		return d
	}, fabric.Requirements{}
}

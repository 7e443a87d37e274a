package cc

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/cc/auroramodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/sim"
)

// AuroraParams are the parameters of `aurora`, Aurora (Jay et al., ICML
// 2019; PCCproject/PCC-RL): a rate-based sender whose rate a trained policy
// scales once per monitoring interval (docs/algorithms/aurora.md). The
// names follow the authors' code where it has one (network_sim.py,
// config.py).
type AuroraParams struct {
	DeltaScale  float64 `yaml:"delta_scale" doc:"action scale (config.py DELTA_SCALE 0.025): rate ×(1 + δ·a) for a ≥ 0, ÷(1 − δ·a) for a < 0"`
	InitRate    float64 `yaml:"init_rate" doc:"rate at flow start, fraction of line rate"`
	MinRate     float64 `yaml:"min_rate" doc:"rate floor, fraction of line rate (network_sim.py MIN_RATE)"`
	MIRTTs      float64 `yaml:"mi_rtts" doc:"monitoring interval in mean RTTs of the previous interval (network_sim.py: run_dur = 0.5 × avg latency)"`
	FirstMIRTTs float64 `yaml:"first_mi_rtts" doc:"first monitoring interval in path base RTTs (network_sim.py: run_dur = 3 × one-way latency)"`
	MinPackets  float64 `yaml:"min_packets" doc:"an interval lasts at least this many full packets at the current rate"`
	Model       string  `yaml:"model" doc:"policy model file (docs/ml.md §5) to use instead of the shipped one (cc/auroramodel); empty = shipped"`
	DecisionNs  float64 `yaml:"decision_ns" unit:"ns" doc:"decision latency: each action takes effect this long after its interval ended (paper 000's inference lag, decc.md §1.10)"`

	policy    *nn.Sequential // the loaded policy (Validate)
	modelFrom string
	loaded    bool
}

// AuroraDefaults: the authors' δ = 0.025 and intervals of half an RTT (the
// first 1.5 base RTTs), a start at line rate, a floor of 0.1 % of line
// rate, at least two packets per interval, the shipped model, no decision
// latency.
func AuroraDefaults() *AuroraParams {
	return &AuroraParams{DeltaScale: 0.025, InitRate: 1, MinRate: 0.001, MIRTTs: 0.5, FirstMIRTTs: 1.5, MinPackets: 2}
}

// Validate checks every field's range and loads the policy (once per
// model path).
func (p *AuroraParams) Validate() error {
	switch {
	case !(p.DeltaScale > 0 && p.DeltaScale <= 1):
		return rangeErr("delta_scale", p.DeltaScale, "0 (exclusive)", "1")
	case !(p.MinRate > 0 && p.MinRate <= 1):
		return rangeErr("min_rate", p.MinRate, "0 (exclusive)", "1")
	case !(p.InitRate >= p.MinRate && p.InitRate <= 1):
		return rangeErr("init_rate", p.InitRate, "min_rate", "1")
	case !(p.MIRTTs > 0 && p.MIRTTs <= 1e4):
		return rangeErr("mi_rtts", p.MIRTTs, "0 (exclusive)", "1e4")
	case !(p.FirstMIRTTs > 0 && p.FirstMIRTTs <= 1e4):
		return rangeErr("first_mi_rtts", p.FirstMIRTTs, "0 (exclusive)", "1e4")
	case !(p.MinPackets >= 0 && p.MinPackets <= 1e6):
		return rangeErr("min_packets", p.MinPackets, "0", "1e6")
	case !(p.DecisionNs >= 0 && p.DecisionNs <= 1e9):
		return rangeErr("decision_ns", p.DecisionNs, "0", "1e9")
	}
	if p.loaded && p.modelFrom == p.Model {
		return nil
	}
	var m *nn.Sequential
	var err error
	if p.Model == "" {
		m, err = auroramodel.Shipped()
	} else {
		m, _, err = auroramodel.LoadPolicyFile(p.Model)
	}
	if err != nil {
		return fmt.Errorf("model: %v", err)
	}
	p.policy, p.modelFrom, p.loaded = m, p.Model, true
	return nil
}

// Policy returns the policy network Validate loaded (nil before).
func (p *AuroraParams) Policy() *nn.Sequential { return p.policy }

// AuroraDecider chooses the action at the end of each monitoring interval:
// the deployed controller's is the policy's mean (NewAuroraPolicyDecider);
// the trainer (train/aurora) supplies one that samples the Gaussian policy
// and records transitions. It runs inside the fabric's event (the
// simulation is suspended while it decides). m is the interval that just
// ended (its RTTs valid during the call) and obs the observation after it
// (AuroraObs.Vector, valid during the call).
type AuroraDecider interface {
	AuroraDecide(q *fabric.QP, m *AuroraMI, obs []float64, now sim.Time) float64
}

// AuroraPolicyDecider applies a policy network's output (the Gaussian's
// mean: stable-baselines' deterministic action, as PCC-RL's saved model
// serves it) with a workspace of its own, so that flows can share the
// network.
type AuroraPolicyDecider struct {
	net *nn.Sequential
	ws  *nn.Workspace
}

// NewAuroraPolicyDecider returns the decider of one flow over net (read
// only).
func NewAuroraPolicyDecider(net *nn.Sequential) *AuroraPolicyDecider {
	d := &AuroraPolicyDecider{net: net}
	if net != nil {
		d.ws = net.NewWorkspace(1)
	}
	return d
}

// AuroraDecide implements AuroraDecider: the network's output on obs; 0 (keep
// the rate) if it is not finite.
func (d *AuroraPolicyDecider) AuroraDecide(_ *fabric.QP, _ *AuroraMI, obs []float64, _ sim.Time) float64 {
	if d.net == nil {
		return 0
	}
	y, err := d.net.Forward(d.ws, obs, 1)
	if err != nil || math.IsNaN(y[0]) || math.IsInf(y[0], 0) {
		return 0
	}
	return y[0]
}

// Aurora is one flow's `aurora` controller.
type Aurora struct {
	P   *AuroraParams
	Dec AuroraDecider
	// Obs is the flow's observation history (the same code in training).
	Obs AuroraObs
	// MI is the current interval's measurements.
	MI AuroraMI
	// Decisions counts the intervals closed so far.
	Decisions int64

	start      sim.Time // the current interval's start
	sent0      int64    // QP.TxBytes at its start
	drop0      int64    // QP.DataDropBytes at its start
	minBps     int64
	pendAt     []sim.Time // scheduled actions (decision latency), a FIFO ring
	pendAct    []float64
	head, npen int
}

// Aurora timer slots: the interval's end and the next scheduled action.
const (
	auroraTimerMI     = 0
	auroraTimerAction = 1
)

// NewAurora returns flow q's controller for validated parameters p, deciding
// with dec.
func NewAurora(p *AuroraParams, dec AuroraDecider) *Aurora {
	a := &Aurora{P: p, Dec: dec}
	a.Obs.Reset()
	return a
}

// Start sets the initial rate and opens the first interval, of first_mi_rtts
// path base RTTs.
func (a *Aurora) Start(q *fabric.QP, now sim.Time) {
	a.minBps = max(1, int64(a.P.MinRate*float64(q.LineRateBps)))
	q.SetRate(max(a.minBps, int64(a.P.InitRate*float64(q.LineRateBps))))
	a.MI.PacketBytes = q.PayloadBytes()
	a.restart(q, now, sim.Time(a.P.FirstMIRTTs*float64(q.PathBaseRTT)+0.5))
}

// restart opens an interval at now lasting dur, at least min_packets full
// packets (payload + 48-byte header) at the current rate and 1 ps.
func (a *Aurora) restart(q *fabric.QP, now, dur sim.Time) {
	pkt := q.PayloadBytes() + fabric.DataHeaderBytes
	if m := sim.Time(a.P.MinPackets*float64(sim.TxTime(pkt, q.RateBps)) + 0.5); m > dur {
		dur = m
	}
	dur = max(dur, 1)
	a.start, a.sent0, a.drop0 = now, q.TxBytes, q.DataDropBytes
	a.MI.SentBytes, a.MI.AckedBytes, a.MI.LostBytes = 0, 0, 0
	a.MI.RTTs = a.MI.RTTs[:0]
	q.ArmTimer(auroraTimerMI, now+dur)
}

// OnAck records the acknowledged bytes and the RTT sample.
func (a *Aurora) OnAck(q *fabric.QP, k *fabric.AckInfo, now sim.Time) {
	a.MI.AckedBytes += k.NewlyAcked
	a.MI.RTTs = append(a.MI.RTTs, k.RTT) // the buffer is reused: no allocation in steady state
}

// OnNotice is not used: Aurora reacts to latency, not to notifications.
func (a *Aurora) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {}

// OnSend is not used.
func (a *Aurora) OnSend(q *fabric.QP, size int, now sim.Time) {}

// OnTimer closes an interval or applies the next scheduled action.
func (a *Aurora) OnTimer(q *fabric.QP, id int, now sim.Time) {
	if id == auroraTimerAction {
		a.applyDue(q, now)
		return
	}
	m := &a.MI
	m.Dur = now - a.start
	m.SentBytes = q.TxBytes - a.sent0
	m.LostBytes = q.DataDropBytes - a.drop0
	a.Obs.Push(m)
	a.Decisions++
	x := a.Dec.AuroraDecide(q, m, a.Obs.Vector(), now)
	if a.P.DecisionNs > 0 {
		a.schedule(q, now+sim.Time(a.P.DecisionNs*float64(sim.Nanosecond)+0.5), x)
	} else {
		a.Apply(q, x)
	}
	// network_sim.py: the next interval lasts mi_rtts × the mean RTT of the
	// one that ended; without a sample it keeps its length.
	dur := m.Dur
	if len(m.RTTs) > 0 {
		dur = sim.Time(a.P.MIRTTs*m.MeanRTT() + 0.5)
	}
	a.restart(q, now, dur)
}

// Apply scales the rate by action x: ×(1 + δx) for x ≥ 0, ÷(1 − δx) for x <
// 0 (network_sim.py Sender.apply_rate_delta; the action is not clipped, as
// the authors' action space is ±1e12), clamped to [min_rate, 1] × line
// rate and rounded to whole b/s. A non-finite x keeps the rate.
func (a *Aurora) Apply(q *fabric.QP, x float64) {
	q.SetRate(AuroraRate(q.RateBps, x, a.P.DeltaScale, a.minBps, q.LineRateBps))
}

// AuroraRate is the rate after action x from rate bps (Apply's arithmetic).
func AuroraRate(bps int64, x, delta float64, minBps, lineBps int64) int64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return min(max(bps, minBps), lineBps)
	}
	d := x * delta
	var r float64
	if d >= 0 {
		r = float64(bps) * (1 + d)
	} else {
		r = float64(bps) / (1 - d)
	}
	if !(r < float64(lineBps)) {
		return lineBps
	}
	return max(int64(r+0.5), minBps)
}

// schedule applies x at time at (FIFO: at is never before an earlier one's).
func (a *Aurora) schedule(q *fabric.QP, at sim.Time, x float64) {
	if a.npen == len(a.pendAt) {
		m := max(4, 2*len(a.pendAt))
		t, v := make([]sim.Time, m), make([]float64, m)
		for k := range a.npen {
			j := (a.head + k) % len(a.pendAt)
			t[k], v[k] = a.pendAt[j], a.pendAct[j]
		}
		a.pendAt, a.pendAct, a.head = t, v, 0
	}
	i := (a.head + a.npen) % len(a.pendAt)
	a.pendAt[i], a.pendAct[i] = at, x
	a.npen++
	if a.npen == 1 {
		q.ArmTimer(auroraTimerAction, at)
	}
}

// applyDue applies every scheduled action due by now.
func (a *Aurora) applyDue(q *fabric.QP, now sim.Time) {
	for a.npen > 0 && a.pendAt[a.head] <= now {
		a.Apply(q, a.pendAct[a.head])
		a.head = (a.head + 1) % len(a.pendAt)
		a.npen--
	}
	if a.npen > 0 {
		q.ArmTimer(auroraTimerAction, a.pendAt[a.head])
	}
}

// Pending is the number of scheduled actions not yet applied.
func (a *Aurora) Pending() int { return a.npen }

func init() {
	Register(&Spec{
		Name:     "aurora",
		Summary:  "Aurora (Jay et al., ICML 2019): PPO-trained 32-16 tanh policy over 10 intervals × (latency inflation, latency ratio, send ratio), rate ×/÷(1 ± 0.025a) every half RTT",
		Defaults: func() Params { return AuroraDefaults() },
		New: func(p Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			ap := p.(*AuroraParams)
			if ap.policy == nil {
				_ = ap.Validate() // normally done by the scenario; a failure leaves the rate alone (action 0)
			}
			return func(q *fabric.QP) fabric.Algorithm {
				return NewAurora(ap, NewAuroraPolicyDecider(ap.policy))
			}, fabric.Requirements{}
		},
	})
}

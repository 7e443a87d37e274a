package cc

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/cc/adpgmodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/sim"
)

// ADPGParams are the parameters of `adpg`, the RL-CC controller of Tessler
// et al. trained with the analytic deterministic policy gradient
// (NVlabs/RLCC; docs/algorithms/adpg.md). The names of the first five are
// the authors' (config/rlcc.yaml, section agent.adpg).
type ADPGParams struct {
	ActionMultiplierInc float64 `yaml:"action_multiplier_inc" doc:"a ≥ 0: rate ×(1 + inc·a) (authors: 0.2)"`
	ActionMultiplierDec float64 `yaml:"action_multiplier_dec" doc:"a < 0: rate ÷(1 − dec·a) (authors: 0.2)"`
	Target              float64 `yaml:"target" doc:"reward target: the reward is (max(0, RTT/base RTT − beta)·√rate − target)·scale (authors: 0.064)"`
	Beta                float64 `yaml:"beta" doc:"RTT inflation slack of the reward (authors: 1.5)"`
	Scale               float64 `yaml:"scale" doc:"reward scale (authors: 12.5)"`
	InitRate            float64 `yaml:"init_rate" doc:"rate at flow start, fraction of line rate"`
	MinRate             float64 `yaml:"min_rate" doc:"rate floor, fraction of line rate"`
	IntervalRTTs        float64 `yaml:"interval_rtts" doc:"monitoring interval in base RTTs of the flow's path"`
	MinPackets          float64 `yaml:"min_packets" doc:"the interval lasts at least this many full packets at the current rate"`
	Model               string  `yaml:"model" doc:"policy model file (ccsim train adpg); empty = the shipped one (cc/adpgmodel)"`
	RTTClocked          bool    `yaml:"rtt_clocked" doc:"the interval also lasts at least the last mean RTT (an RTT probe per interval; docs/algorithms/adpg.md I2)"`
	DecisionNs          float64 `yaml:"decision_ns" unit:"ns" doc:"decision latency: the action applies this long after its interval ends (decc.md §1.10; 0 = at once)"`

	net     *nn.Sequential // the loaded policy (Validate)
	hist    int            // its history length
	netFrom string         // the Model it was loaded from
}

// ADPGDefaults: the authors' action multipliers and reward constants
// (config/rlcc.yaml), a start at line rate, the agent's floor, one base
// RTT and at least two packets per interval (docs/algorithms/adpg.md I2),
// the shipped model, no decision latency.
func ADPGDefaults() *ADPGParams {
	return &ADPGParams{ActionMultiplierInc: 0.2, ActionMultiplierDec: 0.2, Target: 0.064, Beta: 1.5, Scale: 12.5,
		InitRate: 1, MinRate: 0.001, IntervalRTTs: 1, MinPackets: 2}
}

// Validate checks every field's range and loads the model.
func (p *ADPGParams) Validate() error {
	if err := p.ValidateRanges(); err != nil {
		return err
	}
	if p.net != nil && p.netFrom == p.Model {
		return nil
	}
	var m *nn.Sequential
	var h int
	var err error
	if p.Model == "" {
		m, h, err = adpgmodel.Shipped()
	} else {
		m, h, err = adpgmodel.LoadFile(p.Model)
	}
	if err != nil {
		return fmt.Errorf("model: %v", err)
	}
	p.net, p.hist, p.netFrom = m, h, p.Model
	return nil
}

// ValidateRanges checks every field's range without loading the model
// (the trainer's check: it brings its own policy).
func (p *ADPGParams) ValidateRanges() error {
	switch {
	case !(p.ActionMultiplierInc > 0 && p.ActionMultiplierInc <= 10):
		return rangeErr("action_multiplier_inc", p.ActionMultiplierInc, "0 (exclusive)", "10")
	case !(p.ActionMultiplierDec > 0 && p.ActionMultiplierDec <= 10):
		return rangeErr("action_multiplier_dec", p.ActionMultiplierDec, "0 (exclusive)", "10")
	case !(p.Target >= 0 && p.Target <= 1e3):
		return rangeErr("target", p.Target, "0", "1e3")
	case !(p.Beta >= 0 && p.Beta <= 1e3):
		return rangeErr("beta", p.Beta, "0", "1e3")
	case !(p.Scale > 0 && p.Scale <= 1e6):
		return rangeErr("scale", p.Scale, "0 (exclusive)", "1e6")
	case !(p.MinRate > 0 && p.MinRate <= 1):
		return rangeErr("min_rate", p.MinRate, "0 (exclusive)", "1")
	case !(p.InitRate >= p.MinRate && p.InitRate <= 1):
		return rangeErr("init_rate", p.InitRate, "min_rate", "1")
	case !(p.IntervalRTTs > 0 && p.IntervalRTTs <= 1e4):
		return rangeErr("interval_rtts", p.IntervalRTTs, "0 (exclusive)", "1e4")
	case !(p.MinPackets >= 0 && p.MinPackets <= 1e6):
		return rangeErr("min_packets", p.MinPackets, "0", "1e6")
	case !(p.DecisionNs >= 0 && p.DecisionNs <= 1e9):
		return rangeErr("decision_ns", p.DecisionNs, "0", "1e9 (1 s)")
	}
	return nil
}

// History is the number of intervals the loaded model observes (after
// Validate; the authors' is 2).
func (p *ADPGParams) History() int { return p.hist }

// agentParams are the `agent` mechanics of these parameters: scale mode
// with α = max(inc, dec) (ADPGApply maps the action onto it).
func (p *ADPGParams) agentParams() *AgentParams {
	return &AgentParams{Mode: "scale", Alpha: max(p.ActionMultiplierInc, p.ActionMultiplierDec), InitRate: p.InitRate,
		MinRate: p.MinRate, IntervalRTTs: p.IntervalRTTs, MinPackets: p.MinPackets}
}

// ADPGMultiplier is the rate multiplier of action a ∈ [−1, 1]: 1 + inc·a
// for a ≥ 0, 1/(1 − dec·a) for a < 0 (agents/adpg.py _parse_action).
func ADPGMultiplier(p *ADPGParams, a float64) float64 {
	if a < 0 {
		return 1 / (1 - a*p.ActionMultiplierDec)
	}
	return 1 + a*p.ActionMultiplierInc
}

// ADPGReward is the authors' reward of an interval (env/utils/
// feature_history.py calc_adpg_reward): (max(0, inflation − β)·√rate −
// target)·scale, with inflation the interval's RTT over the base RTT and
// rate the current rate as a fraction of line rate. Positive: the flow
// should slow down; the policy's loss pushes the action against it.
func ADPGReward(p *ADPGParams, inflation, rate float64) float64 {
	x := max(inflation-p.Beta, 0) * math.Sqrt(rate)
	return (x - p.Target) * p.Scale
}

// ADPGState is one flow's observation: the last History intervals, oldest
// first, of (multiplier of the last action, reward), the authors'
// agent_features [action, adpg_reward] (feature_history.py). The deployed
// controller and the trainer (train/adpg) both build it with Observe and
// Acted, so that what was trained is what runs.
type ADPGState struct {
	p         *ADPGParams
	obs       []float64 // History × 2, oldest first
	lastMult  float64   // the last action's multiplier (1 before the first)
	inflation float64   // the last RTT inflation (1 before the first RTT sample)
	rtt       sim.Time  // the last interval's mean RTT (0 before the first sample)
	n         int64     // intervals observed
}

// NewADPGState returns the state of a flow with a history of h intervals.
func NewADPGState(p *ADPGParams, h int) *ADPGState {
	return &ADPGState{p: p, obs: make([]float64, adpgmodel.Features*h), lastMult: 1, inflation: 1}
}

// Observe folds the interval that just ended (its counters c, the QP's
// state now) into the observation and returns it (valid until the next
// Observe; no allocation) with the interval's reward. The RTT inflation is
// the mean RTT of the interval's ACKs over the path's base RTT (the
// previous value if no ACK came); the rate is the pacing rate over the line
// rate at the boundary (docs/algorithms/adpg.md §3, I1, I3). The first
// interval fills the whole history with its values, as the authors'
// update_history does.
func (s *ADPGState) Observe(c *AgentCounters, q *fabric.QP) ([]float64, float64) {
	if c.RTTN > 0 {
		s.rtt = c.RTTSum / sim.Time(c.RTTN)
		s.inflation = float64(c.RTTSum) / float64(c.RTTN) / float64(q.PathBaseRTT)
	}
	r := ADPGReward(s.p, s.inflation, float64(q.RateBps)/float64(q.LineRateBps))
	if s.n == 0 {
		for i := 0; i < len(s.obs); i += 2 {
			s.obs[i], s.obs[i+1] = s.lastMult, r
		}
	} else {
		copy(s.obs, s.obs[2:])
		s.obs[len(s.obs)-2], s.obs[len(s.obs)-1] = s.lastMult, r
	}
	s.n++
	return s.obs, r
}

// Acted records action a (the multiplier the next observation carries).
func (s *ADPGState) Acted(a float64) { s.lastMult = ADPGMultiplier(s.p, a) }

// Intervals is the number of intervals observed.
func (s *ADPGState) Intervals() int64 { return s.n }

// ADPGPolicy chooses the actions of `adpg` flows in place of the model (the
// trainer, train/adpg). Act is called at every monitoring boundary of flow
// with its observation and the reward of the interval that just ended
// (first: the flow's first boundary, whose interval followed no action);
// it returns the action in [−1, 1].
type ADPGPolicy interface {
	Act(flow int, obs []float64, reward float64, first bool, now sim.Time) float64
	// History is the number of intervals the policy observes.
	History() int
}

// RTT is the last interval's mean RTT (0 before the first sample).
func (s *ADPGState) RTT() sim.Time { return s.rtt }

// ADPG is one flow's `adpg` controller: the AgentController of its Agent.
type ADPG struct {
	P     *ADPGParams
	St    *ADPGState
	agent *Agent
	pol   ADPGPolicy
	ws    *nn.Workspace
	delay sim.Time
}

// NewADPG returns the controller of flow q (p validated) and the flow's
// fabric.Algorithm (its Agent with the RTT-clocked interval): the policy is
// pol, or the model when pol is nil.
func NewADPG(p *ADPGParams, q *fabric.QP, pol ADPGPolicy) (*ADPG, fabric.Algorithm) {
	c := &ADPG{P: p, pol: pol, delay: sim.Time(p.DecisionNs*float64(sim.Nanosecond) + 0.5)}
	h := p.hist
	if pol != nil {
		h = pol.History()
	} else if p.net != nil {
		c.ws = p.net.NewWorkspace(1)
	}
	c.St = NewADPGState(p, max(h, 1))
	c.agent = NewAgent(p.agentParams(), int(q.ID), c)
	return c, &adpgAlg{Agent: c.agent, c: c}
}

// adpgAlg is the flow's agent; with rtt_clocked its interval also lasts at
// least the last mean RTT, as if the agent decided when an RTT probe sent
// at the start of its interval returns (docs/algorithms/adpg.md I2), so a
// queue lengthens the interval.
type adpgAlg struct {
	*Agent
	c *ADPG
}

// OnTimer closes the interval as Agent does, then stretches the next one
// to the last mean RTT if that is longer.
func (w *adpgAlg) OnTimer(q *fabric.QP, id int, now sim.Time) {
	w.Agent.OnTimer(q, id, now)
	if id == agentTimerBoundary && w.c.P.RTTClocked {
		if r := w.c.St.RTT(); r > w.Agent.Interval {
			w.Agent.Interval = r
			q.ArmTimer(agentTimerBoundary, now+r)
		}
	}
}

// AgentBoundary implements AgentController: decide, then apply now or
// after the decision latency (Agent.Schedule).
func (c *ADPG) AgentBoundary(a *Agent, q *fabric.QP, now sim.Time) {
	y := c.Decide(&a.C, q, now)
	if c.delay == 0 {
		a.Apply(q, y)
	} else {
		a.Schedule(q, now+c.delay, y)
	}
}

// Decide folds the interval that just ended into the observation, asks the
// policy (the hook or the model) and records its action; it returns the
// action for the agent's scale mode. It allocates nothing.
func (c *ADPG) Decide(cnt *AgentCounters, q *fabric.QP, now sim.Time) float64 {
	first := c.St.Intervals() == 0
	obs, r := c.St.Observe(cnt, q)
	var x float64
	if c.pol != nil {
		x = c.pol.Act(int(q.ID), obs, r, first, now)
	} else {
		x = ADPGAct(c.P.net, c.ws, obs)
	}
	x = min(max(x, -1), 1)
	c.St.Acted(x)
	return c.agentAction(x)
}

// AgentFinish implements AgentController: nothing to do.
func (c *ADPG) AgentFinish(a *Agent, q *fabric.QP, now sim.Time) {}

// ADPGAct is the policy's action on obs: tanh of the network's output
// (agents/adpg.py _policy), 0 if the network fails (a shape error, caught
// by Validate).
func ADPGAct(net *nn.Sequential, ws *nn.Workspace, obs []float64) float64 {
	if net == nil {
		return 0
	}
	z, err := net.Forward(ws, obs, 1)
	if err != nil {
		return 0
	}
	return nn.DetTanh(z[0])
}

// agentAction maps the ADPG action x onto the agent's scale-mode action,
// whose α is max(inc, dec): the same value when the side's multiplier is α
// (the authors' 0.2 both ways), else x·multiplier/α, so that Agent.Apply
// multiplies the rate by exactly ADPGMultiplier(x) up to rounding.
func (c *ADPG) agentAction(x float64) float64 {
	al := c.agent.P.Alpha
	m := c.P.ActionMultiplierInc
	if x < 0 {
		m = c.P.ActionMultiplierDec
	}
	if m == al {
		return x
	}
	return x * m / al
}

func init() {
	Register(&Spec{
		Name:     "adpg",
		Summary:  "RL-CC (Tessler et al., NVlabs/RLCC): per interval an MLP 12-12 on the last 2 (multiplier, RTT-inflation reward) gives a ∈ [−1, 1], rate ×(1+0.2a) or ÷(1−0.2a); trained with ADPG (ccsim train adpg)",
		Defaults: func() Params { return ADPGDefaults() },
		New: func(p Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			ap := p.(*ADPGParams)
			if ap.net == nil {
				_ = ap.Validate() // normally done by the scenario; on error the policy acts 0 (keep the rate)
			}
			return func(q *fabric.QP) fabric.Algorithm { _, a := NewADPG(ap, q, nil); return a }, fabric.Requirements{}
		},
	})
}

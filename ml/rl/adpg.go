package rl

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/ml/nn"
)

// ADPGConfig holds the coefficients of ADPG's loss (NVlabs/RLCC,
// reinforcement_learning/agents/adpg.py and config/rlcc.yaml; docs/rl.md
// §7). The defaults are the authors' rlcc.yaml.
type ADPGConfig struct {
	// Gamma discounts the reward-to-go; the authors' code discounts only
	// when 0 < Gamma < 1 and takes the plain mean otherwise. agent.discount
	// = 0.99. [0, 1].
	Gamma float64
	// LossScale multiplies the reward term (adpg.loss_scale = 2.5); finite.
	LossScale float64
	// ActionCoef weighs the action-smoothing term (adpg.action_loss_coeff
	// = 1); [0, 1e6].
	ActionCoef float64
}

// DefaultADPG returns the authors' coefficients: γ 0.99, loss scale 2.5,
// action coefficient 1.
func DefaultADPG() ADPGConfig { return ADPGConfig{Gamma: 0.99, LossScale: 2.5, ActionCoef: 1} }

// Validate checks every field's range.
func (c ADPGConfig) Validate() error {
	if !(c.Gamma >= 0 && c.Gamma <= 1) {
		return fmt.Errorf("rl: adpg: gamma = %v, want [0, 1]", c.Gamma)
	}
	if math.IsNaN(c.LossScale) || math.IsInf(c.LossScale, 0) {
		return fmt.Errorf("rl: adpg: loss_scale = %v, want finite", c.LossScale)
	}
	if !(c.ActionCoef >= 0 && c.ActionCoef <= 1e6) {
		return fmt.Errorf("rl: adpg: action_coef = %v, want [0, 1e6]", c.ActionCoef)
	}
	return nil
}

// ADPGLoss returns ADPG's analytic policy-gradient loss of one agent's
// rollout of B steps (its actions a_i = tanh of the network's outputs and
// the rewards r_i that followed them), as the authors' code computes it for
// one of nAgents agents sharing the policy, and adds its gradient with
// respect to the actions into dA (len B):
//
//	R_i = (1/(B−i))·Σ_{k=i}^{B−1} γ^{k−i}·r_k        (mean discounted reward-to-go;
//	                                                    the plain mean if γ ∉ (0, 1))
//	reward loss = LossScale·(1/B)·Σ_i a_i·R_i / nAgents
//	action loss = (1/B)·Σ_{i<B−1} [ActionCoef·½·Σ_{j>i} (a_i − a_j)²]/(B−i) / nAgents
//
// R_i is a constant (the rewards carry no gradient), so ∂/∂a_i of the
// reward loss is LossScale·R_i/(B·nAgents). Both sums over pairs are done in
// O(B) with prefix sums. A rollout of one step has no action loss.
func ADPGLoss(cfg ADPGConfig, actions, rewards []float64, nAgents int, dA []float64) (rewardLoss, actionLoss float64, err error) {
	if err := cfg.Validate(); err != nil {
		return 0, 0, err
	}
	b := len(actions)
	if b < 1 || len(rewards) != b || len(dA) != b {
		return 0, 0, fmt.Errorf("rl: adpg: len(actions) = %d, len(rewards) = %d, len(dA) = %d, want equal and ≥ 1", b, len(rewards), len(dA))
	}
	if nAgents < 1 {
		return 0, 0, fmt.Errorf("rl: adpg: agents = %d, want ≥ 1", nAgents)
	}
	norm := 1 / float64(b*nAgents)
	discount := cfg.Gamma > 0 && cfg.Gamma < 1
	// reward term, backward: S_i = r_i + γ·S_{i+1}, R_i = S_i/(B−i)
	s := 0.0
	for i := b - 1; i >= 0; i-- {
		if discount {
			s = rewards[i] + float64(cfg.Gamma*s)
		} else {
			s = rewards[i] + s
		}
		r := s / float64(b-i)
		rewardLoss += float64(actions[i] * r)
		dA[i] += float64(cfg.LossScale * r * norm)
	}
	rewardLoss *= cfg.LossScale * norm
	if b == 1 || cfg.ActionCoef == 0 {
		return rewardLoss, 0, nil
	}
	// action term: with P1_i = Σ_{j>i} a_j and P2_i = Σ_{j>i} a_j²,
	// Σ_{j>i} (a_i − a_j)² = (B−1−i)·a_i² − 2a_i·P1_i + P2_i; its gradient
	// has the part of pair terms i (a_i first) and of pairs (k, i), k < i,
	// where a_i is second: Σ_{k<i} (a_i − a_k)/(B−k) = a_i·Q0_i − Q1_i.
	c := cfg.ActionCoef
	p1, p2 := 0.0, 0.0
	for i := b - 1; i >= 0; i-- {
		a := actions[i]
		if i < b-1 {
			m := float64(b - 1 - i)
			sq := float64(m*float64(a*a)) - float64(2*float64(a*p1)) + p2
			w := 1 / float64(b-i)
			actionLoss += float64(0.5 * c * sq * w)
			dA[i] += float64(c * (float64(m*a) - p1) * w * norm)
		}
		p1 += a
		p2 += float64(a * a)
	}
	q0, q1 := 0.0, 0.0
	for i := range b {
		a := actions[i]
		dA[i] += float64(c * (float64(a*q0) - q1) * norm)
		w := 1 / float64(b-i)
		q0 += w
		q1 += float64(a * w)
	}
	actionLoss *= norm
	return rewardLoss, actionLoss, nil
}

// DefaultADPGAdam returns the authors' optimiser: Adam with learning rate
// 0.01 (training.learning_rate), ε 1e-5, gradients clipped by value at 0.5
// (training.gradient_clip), NVlabs/RLCC config/rlcc.yaml and agents/adpg.py.
func DefaultADPGAdam() nn.AdamConfig {
	c := nn.DefaultAdam()
	c.LR, c.Eps, c.Clip.Value = 0.01, 1e-5, 0.5
	return c
}

// ADPGRollout is one agent's rollout: B states of the model's input width,
// flat (States[i*in:(i+1)*in] is step i), and the B rewards that followed
// the actions taken in them.
type ADPGRollout struct {
	States, Rewards []float64
}

// ADPG trains a policy network with ADPGLoss as the authors do (the
// non-recurrent path of agents/adpg.py): every agent's rollout is run
// through the model, the action is tanh of its single output, each agent's
// loss is divided by the number of agents and their gradients summed, then
// one optimiser step.
type ADPG struct {
	cfg   ADPGConfig
	model *nn.Sequential
	opt   nn.Optimizer
	ws    *nn.Workspace
	a, dA []float64
	dz    [1]float64
}

// NewADPG returns a trainer of model (one step in, one output) with opt
// built on model.Params().
func NewADPG(cfg ADPGConfig, model *nn.Sequential, opt nn.Optimizer) (*ADPG, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if model == nil || opt == nil {
		return nil, fmt.Errorf("rl: adpg: nil model or optimiser")
	}
	if model.OutSize() != 1 || model.OutSteps(1) != 1 {
		return nil, fmt.Errorf("rl: adpg: the model outputs %d values, want 1 (the action before tanh)", model.OutSize())
	}
	mp, op := model.Params(), opt.Params()
	same := len(mp) == len(op)
	for i := 0; same && i < len(mp); i++ {
		same = mp[i] == op[i]
	}
	if !same {
		return nil, fmt.Errorf("rl: adpg: the optimiser was built for other parameters than the model's")
	}
	return &ADPG{cfg: cfg, model: model, opt: opt, ws: model.NewWorkspace(1)}, nil
}

// Act returns the action tanh(model(state)) for one state.
func (p *ADPG) Act(state []float64) (float64, error) {
	z, err := p.model.Forward(p.ws, state, 1)
	if err != nil {
		return 0, err
	}
	return nn.DetTanh(z[0]), nil
}

// Step takes one optimiser step on the rollouts (each of at least two
// steps, as the authors train only agents with more than one reward) and
// returns the summed reward and action losses.
func (p *ADPG) Step(rollouts []ADPGRollout) (rewardLoss, actionLoss float64, err error) {
	if len(rollouts) == 0 {
		return 0, 0, fmt.Errorf("rl: adpg: no rollout")
	}
	in := p.model.InSize()
	for k, r := range rollouts {
		if b := len(r.Rewards); b < 2 || len(r.States) != b*in {
			return 0, 0, fmt.Errorf("rl: adpg: rollout %d has %d rewards and %d state values, want ≥ 2 rewards and %d values per reward", k, b, len(r.States), in)
		}
	}
	for _, q := range p.opt.Params() {
		clear(q.G)
	}
	for _, r := range rollouts {
		rl, al, err := p.grad(r, len(rollouts))
		if err != nil {
			return 0, 0, err
		}
		rewardLoss += rl
		actionLoss += al
	}
	p.opt.Step()
	return rewardLoss, actionLoss, nil
}

// grad adds the gradient of one rollout's loss (divided by agents) to the
// model's parameters: forward every state, the loss's action gradient
// through tanh (1 − a²), backward every state again.
func (p *ADPG) grad(r ADPGRollout, agents int) (float64, float64, error) {
	in, b := p.model.InSize(), len(r.Rewards)
	if cap(p.a) < b {
		p.a, p.dA = make([]float64, b), make([]float64, b)
	}
	a, dA := p.a[:b], p.dA[:b]
	for i := range b {
		v, err := p.Act(r.States[i*in : (i+1)*in])
		if err != nil {
			return 0, 0, err
		}
		a[i] = v
	}
	clear(dA)
	rl, al, err := ADPGLoss(p.cfg, a, r.Rewards, agents, dA)
	if err != nil {
		return 0, 0, err
	}
	for i := range b {
		if _, err := p.model.Forward(p.ws, r.States[i*in:(i+1)*in], 1); err != nil {
			return 0, 0, err
		}
		p.dz[0] = float64(dA[i] * (1 - float64(a[i]*a[i])))
		if _, err := p.model.Backward(p.ws, p.dz[:]); err != nil {
			return 0, 0, err
		}
	}
	return rl, al, nil
}

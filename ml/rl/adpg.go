package rl

import (
	"fmt"
	"math"
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

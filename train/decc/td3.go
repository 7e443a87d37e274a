package decc

import (
	"math/rand/v2"

	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/ml/rl"
)

// The continuous option (issue 18 §1 `actor: continuous`; decc.md §1.5's
// single 0.5·tanh output and §1.7's deterministic gradient
// ∇θJ = E[∇θπ(s)·∇aQ(g, s, a)|a=π(s)]; docs/algorithms/decc.md §10.5): the
// shared actor is deccmodel.NewContinuousActor, the critic reads the 12
// global values, the agent's five local features and the action, and the
// learner is TD3 (Fujimoto et al., 2018) — twin critics with targets, a
// target actor, target-policy smoothing and delayed actor updates — the
// recipe of Astraea, whose set-up DECC copies (decc.md §1.7).

// actionSquash is the continuous action's range (eq. 2: a ∈ (−0.5, 0.5)).
var actionSquash = rl.Squash{Lo: -0.5, Hi: 0.5}

// NewContinuousCritic is the continuous option's critic Q(g, s, a): the 12
// global values, the five local features and the scalar action → 128 → 64
// (ReLU) → 1 (decc.md §1.7's critic input concat(g, s, a) with the scalar
// action).
func NewContinuousCritic() *nn.Sequential { return critic(CriticDim+1, 1) }

// TD3Learner is the continuous option's learner: the shared deterministic
// actor and its target, two critics and their targets, Adam for each.
type TD3Learner struct {
	cfg                 *Config
	Actor, ActorTarget  *nn.Sequential
	Critics, CriticsTgt [2]*nn.Sequential
	aopt                *nn.Adam
	copt                [2]*nn.Adam
	rng                 *rand.Rand
	aws, atws           *nn.Workspace
	cws, ctws           [2]*nn.Workspace
	idx                 []int
	x                   []float64 // a critic's input: g, s, a
	y                   []float64 // TD targets of the batch
	dq                  [1]float64
	du                  [1]float64
	// Updates counts the critic updates (the actor and the targets step
	// every PolicyDelay of them).
	Updates int
}

// NewTD3Learner returns the continuous learner with networks drawn from rng
// (the actor, then critic 1, then critic 2; each target starts as its
// network).
func NewTD3Learner(cfg *Config, rng *rand.Rand) (*TD3Learner, error) {
	l := &TD3Learner{cfg: cfg, Actor: deccmodel.NewContinuousActor(), rng: rng}
	l.Actor.Init(rng)
	l.ActorTarget = l.Actor.Clone()
	ac, cc := nn.DefaultAdam(), nn.DefaultAdam()
	ac.LR, cc.LR = cfg.ActorLR, cfg.CriticLR
	ac.Clip, cc.Clip = nn.Clip{Norm: 1}, nn.Clip{Norm: 10}
	var err error
	if l.aopt, err = nn.NewAdam(l.Actor.Params(), ac); err != nil {
		return nil, err
	}
	for k := range 2 {
		l.Critics[k] = NewContinuousCritic()
		l.Critics[k].Init(rng)
		l.CriticsTgt[k] = l.Critics[k].Clone()
		if l.copt[k], err = nn.NewAdam(l.Critics[k].Params(), cc); err != nil {
			return nil, err
		}
		l.cws[k], l.ctws[k] = l.Critics[k].NewWorkspace(1), l.CriticsTgt[k].NewWorkspace(1)
	}
	l.aws, l.atws = l.Actor.NewWorkspace(deccmodel.History), l.ActorTarget.NewWorkspace(deccmodel.History)
	l.idx, l.y, l.x = make([]int, cfg.Batch), make([]float64, cfg.Batch), make([]float64, CriticDim+1)
	return l, nil
}

// Net is the actor being trained.
func (l *TD3Learner) Net() *nn.Sequential { return l.Actor }

// criticIn writes the critic's input (g and s from gs, then a) into l.x.
func (l *TD3Learner) criticIn(gs []float64, a float64) []float64 {
	copy(l.x, gs)
	l.x[CriticDim] = a
	return l.x
}

// act is net's squashed action on window w (no noise).
func act(net *nn.Sequential, ws *nn.Workspace, w []float64) (float64, error) {
	u, err := net.Forward(ws, w, deccmodel.History)
	if err != nil {
		return 0, err
	}
	return actionSquash.Action(u[0]), nil
}

// Step is one TD3 update on a batch drawn uniformly from buf: both critics
// regress y = r + γ·min(Q1', Q2')(g', s', ã') with ã' the target actor's
// action plus clipped Gaussian smoothing noise (policy_noise, noise_clip,
// fractions of the half-range 0.5), clipped to [−0.5, 0.5]; every
// policy_delay-th update (never while criticOnly) the actor ascends
// Q1(g, s, π(s)) and the three targets move by Polyak τ. MeanQ is critic
// 1's batch mean; ActorLoss −mean Q1(g, s, π(s)) of the update that moved
// the actor, 0 otherwise; Entropy 0.
func (l *TD3Learner) Step(buf *Replay, criticOnly bool) (StepStats, error) {
	var st StepStats
	s, n, B := &buf.S, buf.Len(), float64(len(l.idx))
	for b := range l.idx {
		l.idx[b] = l.rng.IntN(n)
	}
	half := (actionSquash.Hi - actionSquash.Lo) / 2
	sd, clip := l.cfg.PolicyNoise*half, l.cfg.NoiseClip*half
	for b, i := range l.idx {
		y := s.Rew[i]
		if !s.Done[i] {
			a, err := act(l.ActorTarget, l.atws, s.NextWin[i*WinDim:(i+1)*WinDim])
			if err != nil {
				return st, err
			}
			if sd > 0 {
				a += min(clip, max(-clip, sd*l.rng.NormFloat64()))
			}
			a = actionSquash.Clip(a)
			x := l.criticIn(s.NextGS[i*CriticDim:(i+1)*CriticDim], a)
			q1, err := l.CriticsTgt[0].Forward(l.ctws[0], x, 1)
			if err != nil {
				return st, err
			}
			v := q1[0]
			q2, err := l.CriticsTgt[1].Forward(l.ctws[1], x, 1)
			if err != nil {
				return st, err
			}
			y += l.cfg.Gamma * min(v, q2[0])
		}
		l.y[b] = y
	}
	for k := range 2 {
		c := l.Critics[k]
		c.ZeroGrad()
		for b, i := range l.idx {
			q, err := c.Forward(l.cws[k], l.criticIn(s.GS[i*CriticDim:(i+1)*CriticDim], s.Act[i]), 1)
			if err != nil {
				return st, err
			}
			d := q[0] - l.y[b]
			st.CriticLoss += d * d / B / 2
			if k == 0 {
				st.MeanQ += q[0] / B
			}
			l.dq[0] = 2 * d / B
			if _, err := c.Backward(l.cws[k], l.dq[:]); err != nil {
				return st, err
			}
		}
		l.copt[k].Step()
	}
	l.Updates++
	if criticOnly || l.Updates%l.cfg.PolicyDelay != 0 {
		return st, nil
	}
	if err := l.actorStep(s, &st); err != nil {
		return st, err
	}
	rl.Polyak(l.ActorTarget, l.Actor, l.cfg.Tau)
	rl.Polyak(l.CriticsTgt[0], l.Critics[0], l.cfg.Tau)
	rl.Polyak(l.CriticsTgt[1], l.Critics[1], l.cfg.Tau)
	return st, nil
}

// actorStep takes one Adam step of the actor on the batch l.idx, ascending
// Q1(g, s, π(s)): dQ1/da from critic 1's input gradient, through the
// squash's derivative into the actor (the critic's gradients are left and
// zeroed by its next update).
func (l *TD3Learner) actorStep(s *Samples, st *StepStats) error {
	B := float64(len(l.idx))
	c := l.Critics[0]
	l.Actor.ZeroGrad()
	for _, i := range l.idx {
		u, err := l.Actor.Forward(l.aws, s.Win[i*WinDim:(i+1)*WinDim], deccmodel.History)
		if err != nil {
			return err
		}
		q, err := c.Forward(l.cws[0], l.criticIn(s.GS[i*CriticDim:(i+1)*CriticDim], actionSquash.Action(u[0])), 1)
		if err != nil {
			return err
		}
		st.ActorLoss -= q[0] / B
		l.dq[0] = -1 / B
		dx, err := c.Backward(l.cws[0], l.dq[:])
		if err != nil {
			return err
		}
		l.du[0] = dx[CriticDim] * actionSquash.Deriv(u[0])
		if _, err := l.Actor.Backward(l.aws, l.du[:]); err != nil {
			return err
		}
	}
	l.aopt.Step()
	return nil
}

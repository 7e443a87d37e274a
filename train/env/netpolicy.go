package env

import (
	"fmt"
	"math/rand/v2"

	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/ml/rl"
)

// NetPolicy is a frozen actor network as a Policy, the form K parallel
// environments share a policy in (docs/env.md §6): each environment gets
// its own NetPolicy over its own copy of the network (nn.Sequential.Clone),
// since a network's workspace is scratch. The action is Squash(output),
// plus Gaussian noise of standard deviation NoiseStd drawn from Noise (if
// both are set), clipped to the squash's range: rl.MADDPG's Act.
type NetPolicy struct {
	net      *nn.Sequential
	ws       *nn.Workspace
	sq       rl.Squash
	history  int
	obsDim   int
	actorObs int
	steps    int
	win      []float64
	NoiseStd float64
	Noise    *rand.Rand
}

// NewNetPolicy returns the policy of actor (used as is: pass a clone) for
// windows of history observations of obsDim values, of which the actor
// reads the first actorObs of each step (0 = all, rl.TD3Config.ActorObs).
// An actor whose input is actorObs values is stepped over the window (an
// LSTM); one whose input is history × actorObs reads it flattened.
func NewNetPolicy(actor *nn.Sequential, sq rl.Squash, history, obsDim, actorObs int) (*NetPolicy, error) {
	if actor == nil {
		return nil, fmt.Errorf("env: net policy: nil actor")
	}
	if err := sq.Validate(); err != nil {
		return nil, err
	}
	if actorObs == 0 {
		actorObs = obsDim
	}
	if history < 1 || obsDim < 1 || actorObs < 1 || actorObs > obsDim {
		return nil, fmt.Errorf("env: net policy: history %d, obs %d, actor obs %d: want ≥ 1, actor obs ≤ obs", history, obsDim, actorObs)
	}
	steps := 0
	switch actor.InSize() {
	case actorObs:
		steps = history
	case history * actorObs:
		steps = 1
	default:
		return nil, fmt.Errorf("env: net policy: actor input %d, want %d (stepped) or %d (flattened window)", actor.InSize(), actorObs, history*actorObs)
	}
	if actor.OutSize() != ActDim || actor.OutSteps(steps) != 1 {
		return nil, fmt.Errorf("env: net policy: actor output %d × %d steps, want %d × 1", actor.OutSize(), actor.OutSteps(steps), ActDim)
	}
	return &NetPolicy{net: actor, ws: actor.NewWorkspace(steps), sq: sq, history: history, obsDim: obsDim,
		actorObs: actorObs, steps: steps, win: make([]float64, history*actorObs)}, nil
}

// Act implements Policy.
func (p *NetPolicy) Act(_ int, window []float64, out []float64) error {
	if len(window) != p.history*p.obsDim {
		return fmt.Errorf("env: net policy: window of %d values, want %d", len(window), p.history*p.obsDim)
	}
	a, o := p.actorObs, p.obsDim
	for s := range p.history {
		copy(p.win[s*a:(s+1)*a], window[s*o:s*o+a])
	}
	u, err := p.net.Forward(p.ws, p.win, p.steps)
	if err != nil {
		return err
	}
	x := p.sq.Action(u[0])
	if p.Noise != nil && p.NoiseStd > 0 {
		x = p.sq.Clip(x + p.NoiseStd*p.Noise.NormFloat64())
	}
	out[0] = x
	return nil
}

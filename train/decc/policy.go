package decc

import (
	"fmt"
	"math/rand/v2"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/ml/rl"
	"github.com/ccsim/ccsim/train/env"
)

// Sizes of what the learner stores per decision (docs/algorithms/decc.md
// §10.2): the actor's window (History steps of DECC's five local
// features) and the critic's input, the 12 global values of Table 1
// followed by the agent's latest local state.
const (
	WinDim    = deccmodel.History * deccmodel.Features
	CriticDim = env.NumGlobal + deccmodel.Features
	obsDim    = env.NumLocal + env.NumGlobal // train/env's observation with Global
)

// Policy is the shared actor as a train/env policy: the teacher network
// over the flow's window of DECC's five local features (the first five of
// each observation step, docs/env.md §3), deterministic (cc.DECCNetAction,
// the deployed rule) or, in training, sampled from its categorical
// distribution (eq. 10; the action value deccmodel.ActionValue(k)) or, for
// a continuous actor, its action plus Gaussian noise of standard deviation
// noise, clipped to [−0.5, 0.5]. With Record set it is
// also an env.Recorder that keeps every transition with the actor's window
// and the critic's input (Samples).
type Policy struct {
	net *nn.Sequential
	ws  *nn.Workspace
	rng *rand.Rand // nil: greedy
	eps float64    // with rng: a uniform action with this probability (I19)
	// noise is the continuous actor's exploration noise (standard
	// deviation, in action units) with rng
	noise      float64
	continuous bool
	win        []float64
	// per flow: the pending decision's window, critic input and action
	pend, pendGS [][]float64
	pendAct      []float64
	// Record keeps the transitions in S.
	Record bool
	S      Samples
	// Entropy sums the policy's entropy over its decisions (Decisions; 0
	// for a continuous actor).
	Entropy   float64
	Decisions int
	// Counts counts the decisions per action level (a continuous action
	// counts at its nearest level, cc.DECCNearest).
	Counts [deccmodel.Actions]int
}

// NewPolicy returns the policy of actor (used as is: give each episode its
// own clone), sampling with rng (nil: greedy), a uniformly random action
// with probability eps (I19).
func NewPolicy(actor *nn.Sequential, rng *rand.Rand, eps float64) *Policy {
	return &Policy{net: actor, ws: actor.NewWorkspace(deccmodel.History), rng: rng, eps: eps, win: make([]float64, WinDim),
		continuous: deccmodel.IsContinuous(actor)}
}

// SetNoise sets a continuous actor's exploration noise (standard deviation
// in action units) when sampling.
func (p *Policy) SetNoise(sd float64) { p.noise = sd }

// Act implements env.Policy.
func (p *Policy) Act(flow int, window []float64, out []float64) error {
	const h, f = deccmodel.History, deccmodel.Features
	if len(window) != h*obsDim {
		return fmt.Errorf("decc: policy: window of %d values, want %d × %d", len(window), h, obsDim)
	}
	for s := range h {
		copy(p.win[s*f:(s+1)*f], window[s*obsDim:s*obsDim+f])
	}
	z, err := p.net.Forward(p.ws, p.win, h)
	if err != nil {
		return err
	}
	a := cc.DECCNetAction(z)
	switch {
	case p.continuous && p.rng != nil:
		if p.eps > 0 && p.rng.Float64() < p.eps {
			a = actionSquash.Lo + (actionSquash.Hi-actionSquash.Lo)*p.rng.Float64()
		} else if p.noise > 0 {
			a = actionSquash.Clip(a + p.noise*p.rng.NormFloat64())
		}
	case p.rng != nil:
		var k int
		if p.eps > 0 && p.rng.Float64() < p.eps {
			k = p.rng.IntN(deccmodel.Actions)
		} else {
			k = rl.CategoricalSample(p.rng, z)
		}
		a = deccmodel.ActionValue(k)
	}
	if !p.continuous {
		p.Entropy += rl.CategoricalEntropy(z)
	}
	p.Decisions++
	p.Counts[cc.DECCNearest(a)]++
	out[0] = a
	if !p.Record {
		return nil
	}
	for len(p.pend) <= flow {
		p.pend, p.pendGS = append(p.pend, make([]float64, WinDim)), append(p.pendGS, make([]float64, CriticDim))
		p.pendAct = append(p.pendAct, 0)
	}
	copy(p.pend[flow], p.win)
	criticInput(p.pendGS[flow], window[(h-1)*obsDim:])
	p.pendAct[flow] = a
	return nil
}

// criticInput writes the critic's input from one observation step: its
// global values, then its five DECC local features.
func criticInput(dst, obs []float64) {
	copy(dst, obs[env.NumLocal:env.NumLocal+env.NumGlobal])
	copy(dst[env.NumGlobal:], obs[:deccmodel.Features])
}

// Recorded implements env.Recorder: transition i rewards the flow's
// pending decision; its next window is the pending one shifted by one step
// with the new observation's features appended (what rl.History and the
// environment's next window hold).
func (p *Policy) Recorded(t *env.Transitions, i int) {
	if !p.Record {
		return
	}
	const f = deccmodel.Features
	fl := int(t.Flow[i])
	if fl >= len(p.pend) {
		return // a transition without a decision of this policy (none with decisions at once)
	}
	next := t.Next[i*t.ObsDim : (i+1)*t.ObsDim]
	s := &p.S
	s.Win = append(s.Win, p.pend[fl]...)
	s.NextWin = append(s.NextWin, p.pend[fl][f:]...)
	s.NextWin = append(s.NextWin, next[:f]...)
	s.GS = append(s.GS, p.pendGS[fl]...)
	n := len(s.NextGS)
	s.NextGS = append(s.NextGS, make([]float64, CriticDim)...)
	criticInput(s.NextGS[n:], next)
	s.Act = append(s.Act, p.pendAct[fl])
	s.Rew = append(s.Rew, t.Rew[i])
	s.Done = append(s.Done, t.Done[i])
}

// Samples are recorded transitions, flat: sample i is Win[i·WinDim:],
// GS[i·CriticDim:], Act[i] (the action's value), Rew[i], NextWin, NextGS,
// Done[i].
type Samples struct {
	Win, GS, NextWin, NextGS []float64
	Act                      []float64
	Rew                      []float64
	Done                     []bool
}

// level is sample i's action level index (the categorical learner's
// action; a level's value maps back to its index exactly, cc.DECCNearest).
func (s *Samples) level(i int) int { return cc.DECCNearest(s.Act[i]) }

// Len is the number of samples.
func (s *Samples) Len() int { return len(s.Rew) }

package rl

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// Env is a single-agent environment over flat vectors: the interface the
// learners need from the simulator (issue 17 §1) or a toy task.
type Env interface {
	ObsDim() int
	ActDim() int
	// Reset starts an episode, drawing its initial state from r, and writes
	// the first observation into obs.
	Reset(r *rand.Rand, obs []float64) error
	// Step applies act, writes the next observation into next and returns
	// the reward and whether the episode reached a terminal state.
	Step(act, next []float64) (reward float64, done bool, err error)
}

// MultiEnv is an environment of n agents acting together: observations,
// actions and rewards are concatenated agent after agent.
type MultiEnv interface {
	Agents() int
	ObsDim() int // per agent
	ActDim() int // per agent
	// Reset writes the n first observations into obs (n·ObsDim values).
	Reset(r *rand.Rand, obs []float64) error
	// Step applies the n actions, writes the n next observations and n
	// rewards, and reports whether the episode reached a terminal state.
	Step(act, next, rew []float64) (done bool, err error)
}

// Single wraps a single-agent Env as a MultiEnv of one agent.
func Single(e Env) MultiEnv { return single{e} }

type single struct{ Env }

func (single) Agents() int { return 1 }
func (s single) Step(act, next, rew []float64) (bool, error) {
	r, done, err := s.Env.Step(act, next)
	rew[0] = r
	return done, err
}

// Explorer runs a MADDPG (or TD3) learner's exploring policy in an
// environment and records joint transitions into a replay buffer. Episodes
// end at a terminal state or after MaxSteps steps (a time limit: End is set,
// the learner still bootstraps). Stream numbers the explorer's episodes'
// transitions for the buffer's sequence windows.
type Explorer struct {
	env        MultiEnv
	m          *MADDPG
	maxSteps   int
	stream     int
	obs, next  []float64
	act, rew   []float64
	hist       []*History
	step       int
	started    bool
	episodeRet float64
	Returns    []float64 // the per-agent mean return of every finished episode
}

// NewExplorer returns an explorer of env for m with episodes of at most
// maxSteps steps, recording under stream.
func NewExplorer(env MultiEnv, m *MADDPG, maxSteps, stream int) (*Explorer, error) {
	if env == nil || m == nil {
		return nil, errors.New("rl: explorer: nil environment or learner")
	}
	if env.Agents() != m.n || env.ObsDim() != m.obsDim || env.ActDim() != m.actDim {
		return nil, fmt.Errorf("rl: explorer: environment has %d agents × (obs %d, act %d), learner %d × (%d, %d)",
			env.Agents(), env.ObsDim(), env.ActDim(), m.n, m.obsDim, m.actDim)
	}
	if maxSteps < 1 {
		return nil, fmt.Errorf("rl: explorer: max_steps = %d, want ≥ 1", maxSteps)
	}
	n := m.n
	x := &Explorer{env: env, m: m, maxSteps: maxSteps, stream: stream,
		obs: make([]float64, n*m.obsDim), next: make([]float64, n*m.obsDim),
		act: make([]float64, n*m.actDim), rew: make([]float64, n)}
	for range n {
		h, err := NewHistory(m.cfg.History, m.obsDim)
		if err != nil {
			return nil, err
		}
		x.hist = append(x.hist, h)
	}
	return x, nil
}

// Run takes steps environment steps, acting with exploration noise drawn
// from r (r also draws the episodes' initial states; nil noise acts
// greedily), and adds every transition to buf.
func (x *Explorer) Run(buf *Replay, steps int, r *rand.Rand) error {
	if buf == nil || r == nil {
		return errors.New("rl: explorer: nil replay buffer or random source")
	}
	m, o, a := x.m, x.m.obsDim, x.m.actDim
	for range steps {
		if !x.started {
			if err := x.env.Reset(r, x.obs); err != nil {
				return err
			}
			for i, h := range x.hist {
				h.Reset()
				h.Push(x.obs[i*o : (i+1)*o])
			}
			x.started, x.step, x.episodeRet = true, 0, 0
		}
		for i, h := range x.hist {
			if err := m.Act(i, h.Window(), r, x.act[i*a:(i+1)*a]); err != nil {
				return err
			}
		}
		done, err := x.env.Step(x.act, x.next, x.rew)
		if err != nil {
			return err
		}
		x.step++
		end := !done && x.step >= x.maxSteps
		if err := buf.Add(Transition{Obs: x.obs, Act: x.act, Rew: x.rew, NextObs: x.next, Done: done, End: end, Stream: x.stream}); err != nil {
			return err
		}
		for _, v := range x.rew {
			x.episodeRet += v / float64(len(x.rew))
		}
		copy(x.obs, x.next)
		for i, h := range x.hist {
			h.Push(x.obs[i*o : (i+1)*o])
		}
		if done || end {
			x.Returns = append(x.Returns, x.episodeRet)
			x.started = false
		}
	}
	return nil
}

// Actor is a trained policy as the evaluation sees it: MADDPG (and TD3)
// and PPO implement it.
type Actor interface {
	// Act writes agent i's action for its observation window into out;
	// noise nil acts greedily (no exploration).
	Act(i int, window []float64, noise *rand.Rand, out []float64) error
}

// Evaluate runs episodes greedy episodes of actor in env, each of at most
// maxSteps steps, with windows of history observations per agent (1 for a
// policy of the current observation) and initial states drawn from r. It
// returns the mean over episodes of the per-agent mean return.
func Evaluate(env MultiEnv, actor Actor, history, episodes, maxSteps int, r *rand.Rand) (float64, error) {
	if env == nil || actor == nil || r == nil {
		return 0, errors.New("rl: evaluate: nil environment, actor or random source")
	}
	if episodes < 1 || maxSteps < 1 {
		return 0, fmt.Errorf("rl: evaluate: episodes = %d, max_steps = %d, want ≥ 1", episodes, maxSteps)
	}
	n, o, a := env.Agents(), env.ObsDim(), env.ActDim()
	obs, next := make([]float64, n*o), make([]float64, n*o)
	act, rew := make([]float64, n*a), make([]float64, n)
	hist := make([]*History, n)
	for i := range hist {
		var err error
		if hist[i], err = NewHistory(history, o); err != nil {
			return 0, err
		}
	}
	total := 0.0
	for range episodes {
		if err := env.Reset(r, obs); err != nil {
			return 0, err
		}
		for i, h := range hist {
			h.Reset()
			h.Push(obs[i*o : (i+1)*o])
		}
		for s := 0; s < maxSteps; s++ {
			for i, h := range hist {
				if err := actor.Act(i, h.Window(), nil, act[i*a:(i+1)*a]); err != nil {
					return 0, err
				}
			}
			done, err := env.Step(act, next, rew)
			if err != nil {
				return 0, err
			}
			for _, v := range rew {
				total += v / float64(n)
			}
			copy(obs, next)
			for i, h := range hist {
				h.Push(obs[i*o : (i+1)*o])
			}
			if done {
				break
			}
		}
	}
	return total / float64(episodes), nil
}

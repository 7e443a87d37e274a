// Package adpg trains the policy of the `adpg` controller (cc/adpg.go) as
// the authors of RL-CC do (NVlabs/RLCC, agents/adpg.py): every flow of K
// simulations is an agent sharing one deterministic policy; the
// simulations run with the frozen policy until every agent of a round has
// a rollout of rollout_length rewards, then one Adam step on the ADPG loss
// (ml/rl ADPG) summed over the agents (docs/algorithms/adpg.md §5).
// Environments run in parallel; their rollouts merge in environment order,
// so the model file is the same for any worker count.
package adpg

import (
	"fmt"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/ml/rl"
)

// Scenario is one training scenario on the 16-host star at 400 Gb/s
// (docs/algorithms/adpg.md §5.2): long flows from Src[i] to Dst[i].
type Scenario struct {
	Name     string
	Src, Dst []int
}

// ManyToOne is the authors' m2o scenario: hosts 1..n send one long flow
// each to host 0 (omnetpp.ini [Config ManyToOne], one QP per host).
func ManyToOne(n int) Scenario {
	s := Scenario{Name: fmt.Sprintf("m2o%d", n)}
	for i := 1; i <= n; i++ {
		s.Src, s.Dst = append(s.Src, i), append(s.Dst, 0)
	}
	return s
}

// AllToAll is the authors' a2a scenario scaled down: hosts 0..h−1 each send
// q long flows to every other one (omnetpp.ini [Config AllToAll]).
func AllToAll(h, q int) Scenario {
	s := Scenario{Name: fmt.Sprintf("a2a%dx%d", h, q)}
	for src := range h {
		for dst := range h {
			if src == dst {
				continue
			}
			for range q {
				s.Src, s.Dst = append(s.Src, src), append(s.Dst, dst)
			}
		}
	}
	return s
}

// Config configures a training run.
type Config struct {
	// Seed seeds the network's initialisation and every simulation
	// (environment k's episode e uses Seed + k + e·Envs()).
	Seed uint64
	// Scenarios are the training scenarios, EnvsPerScenario environments
	// each (env.envs_per_scenario = 1).
	Scenarios       []Scenario
	EnvsPerScenario int
	// Updates is the number of policy updates (training.max_num_updates =
	// 1000).
	Updates int
	// RolloutLength: a round ends when every agent of an environment has
	// this many rewards (adpg.rollout_length = 15).
	RolloutLength int
	// WarmupUpdates and WarmupLength: the first updates end their round
	// after WarmupLength decisions per environment instead
	// (adpg.warmup_updates = 50, adpg.warmup_length = 1024).
	WarmupUpdates, WarmupLength int
	// MaxSteps caps a round's decisions per environment (adpg.max_step_size
	// = 8000).
	MaxSteps int
	// History is the observation's length in intervals (env.history_length
	// = 2).
	History int
	// Loss holds γ and the loss coefficients (docs/algorithms/adpg.md I6).
	Loss rl.ADPGConfig
	// LR and Clip are Adam's learning rate and the gradient clip by value
	// (training.learning_rate 0.01, training.gradient_clip 0.5).
	LR, Clip float64
	// EpisodeUs is one simulation's length; a finished simulation restarts
	// with the next seed (env.restart_on_end). StartSpreadUs spreads the
	// flows' starts uniformly over [0, StartSpreadUs).
	EpisodeUs, StartSpreadUs float64
	// EvalUs is the length of the greedy evaluation runs (one per
	// scenario) before and after training.
	EvalUs float64
	// Params are the controller's parameters (reward constants, action
	// multipliers, interval); nil = cc.ADPGDefaults().
	Params *cc.ADPGParams
	// Workers runs environments on this many goroutines (0 = 1).
	Workers int
	// Progress, if set, is called after every update with (done, total).
	Progress func(done, total int)
}

// DefaultConfig is the configuration of the shipped model: the authors'
// rlcc.yaml over the scenarios of docs/algorithms/adpg.md §5.2.
func DefaultConfig() Config {
	return Config{Seed: 1, EnvsPerScenario: 1,
		Scenarios: []Scenario{ManyToOne(4), ManyToOne(8), ManyToOne(15), AllToAll(4, 2)},
		Updates:   1000, RolloutLength: 15, WarmupUpdates: 50, WarmupLength: 1024, MaxSteps: 8000, History: 2,
		Loss: rl.ADPGConfig{Gamma: 0.99, LossScale: 10, ActionCoef: 1}, LR: 0.01, Clip: 0.5,
		EpisodeUs: 50_000, StartSpreadUs: 500, EvalUs: 2000}
}

// QuickConfig is a short run for tests and `--quick`: two many-to-one
// scenarios, 60 updates, shorter episodes.
func QuickConfig() Config {
	c := DefaultConfig()
	c.Scenarios = []Scenario{ManyToOne(4), ManyToOne(8)}
	c.Updates, c.WarmupUpdates, c.WarmupLength = 60, 10, 256
	c.EpisodeUs, c.StartSpreadUs, c.EvalUs = 20_000, 200, 1000
	return c
}

// Envs is the number of environments.
func (c *Config) Envs() int { return len(c.Scenarios) * c.EnvsPerScenario }

// Validate checks every field's range; errors name the field.
func (c *Config) Validate() error {
	switch {
	case len(c.Scenarios) == 0:
		return fmt.Errorf("adpg: scenarios: none, want at least one")
	case c.EnvsPerScenario < 1 || c.EnvsPerScenario > 64:
		return fmt.Errorf("adpg: envs_per_scenario = %d out of range [1, 64]", c.EnvsPerScenario)
	case c.Updates < 1 || c.Updates > 1_000_000:
		return fmt.Errorf("adpg: updates = %d out of range [1, 1000000]", c.Updates)
	case c.RolloutLength < 2 || c.RolloutLength > 100_000:
		return fmt.Errorf("adpg: rollout_length = %d out of range [2, 100000]", c.RolloutLength)
	case c.WarmupUpdates < 0 || c.WarmupUpdates > c.Updates:
		return fmt.Errorf("adpg: warmup_updates = %d out of range [0, updates = %d]", c.WarmupUpdates, c.Updates)
	case c.WarmupLength < 2 || c.WarmupLength > 1_000_000:
		return fmt.Errorf("adpg: warmup_length = %d out of range [2, 1000000]", c.WarmupLength)
	case c.MaxSteps < 2 || c.MaxSteps > 10_000_000:
		return fmt.Errorf("adpg: max_steps = %d out of range [2, 10000000]", c.MaxSteps)
	case c.History < 1 || c.History > 64:
		return fmt.Errorf("adpg: history = %d out of range [1, 64]", c.History)
	case !(c.LR > 0 && c.LR <= 1):
		return fmt.Errorf("adpg: lr = %v out of range (0, 1]", c.LR)
	case !(c.Clip >= 0 && c.Clip <= 1e6):
		return fmt.Errorf("adpg: clip = %v out of range [0, 1e6] (0 = none)", c.Clip)
	case !(c.EpisodeUs >= 10 && c.EpisodeUs <= 1e7):
		return fmt.Errorf("adpg: episode_us = %v out of range [10, 1e7]", c.EpisodeUs)
	case !(c.StartSpreadUs >= 0 && c.StartSpreadUs < c.EpisodeUs):
		return fmt.Errorf("adpg: start_spread_us = %v out of range [0, episode_us = %v)", c.StartSpreadUs, c.EpisodeUs)
	case !(c.EvalUs >= 10 && c.EvalUs <= 1e7):
		return fmt.Errorf("adpg: eval_us = %v out of range [10, 1e7]", c.EvalUs)
	case c.Workers < 0 || c.Workers > 1024:
		return fmt.Errorf("adpg: workers = %d out of range [0, 1024] (0 = 1)", c.Workers)
	}
	for i, s := range c.Scenarios {
		if len(s.Src) == 0 || len(s.Src) != len(s.Dst) {
			return fmt.Errorf("adpg: scenarios[%d] (%s): %d sources and %d destinations, want equal and ≥ 1", i, s.Name, len(s.Src), len(s.Dst))
		}
		for j := range s.Src {
			if s.Src[j] < 0 || s.Src[j] >= Hosts || s.Dst[j] < 0 || s.Dst[j] >= Hosts || s.Src[j] == s.Dst[j] {
				return fmt.Errorf("adpg: scenarios[%d] (%s) flow %d: %d → %d, want distinct hosts in [0, %d]", i, s.Name, j, s.Src[j], s.Dst[j], Hosts-1)
			}
		}
	}
	if err := c.Loss.Validate(); err != nil {
		return fmt.Errorf("adpg: loss: %w", err)
	}
	if c.Params != nil {
		if err := c.Params.ValidateRanges(); err != nil {
			return fmt.Errorf("adpg: params: %w", err)
		}
	}
	return nil
}

// Package spine trains SPINE's agent (docs/algorithms/spine.md §5) in
// process over the simulator: incasts on the 16-host star at 400 Gb/s, K
// environments per round in parallel with a frozen exploring actor, their
// transitions merged in environment order into a replay buffer, and
// off-policy actor-critic updates (TD3, ml/rl) between rounds. The result
// is byte-identical for any worker count.
package spine

import (
	"fmt"

	"github.com/ccsim/ccsim/cc"
)

// Config is what a training run depends on (docs/algorithms/spine.md §5.2).
type Config struct {
	Seed    uint64 // initialisation, exploration, batches, the simulations' seeds
	Rounds  int    // collection rounds
	Envs    int    // environments (episodes) per round
	Workers int    // goroutines running the environments (0 = 1); does not change the result
	// FlowCounts are the incast sizes N of the training scenarios: episode
	// e of the run uses FlowCounts[e mod len].
	FlowCounts []int
	Hosts      int     // hosts of the star (16)
	Gbps       float64 // link rate (400)
	EpisodeUs  float64 // simulated time of an episode
	// StaggersUs are the arrival gaps of the training scenarios: in episode
	// e flow i starts at i × StaggersUs[(e / len(FlowCounts)) mod len], so
	// every incast size is trained with every gap (0: all start together).
	StaggersUs []float64
	// WarmupRounds collect with uniformly random actions and train nothing
	// (the authors' random_exp).
	WarmupRounds int
	// NoiseStart and NoiseEnd are the standard deviations of the Gaussian
	// exploration noise added to the actor's actions, decaying linearly
	// over the rounds after the warm-up (the authors: 1.5 → 0.05, I8).
	NoiseStart, NoiseEnd float64
	StepsPerRound        int     // gradient steps after each round
	BatchSize            int     // transitions per gradient step (the authors' 64)
	ActorLR, CriticLR    float64 // Adam learning rates (5e-4, 1e-3)
	Tau                  float64 // Polyak rate of the targets (0.005)
	Gamma                float64 // discount (0.98)
	ReplayCap            int     // replay buffer capacity (10,000)
	Trigger              bool    // train the trigger gate (params.spine.trigger)
	K                    int     // decide every K monitoring intervals (params.spine.k)
	// Progress, if set, is called after every round with (rounds done,
	// rounds).
	Progress func(done, total int)
}

// DefaultConfig returns the shipped model's training set-up.
func DefaultConfig() Config {
	d := cc.SpineDefaults()
	return Config{Seed: 1, Rounds: 600, Envs: 4, FlowCounts: []int{1, 2, 4, 8, 15}, Hosts: 16, Gbps: 400,
		EpisodeUs: 300, StaggersUs: []float64{10, 0}, WarmupRounds: 10, NoiseStart: 0.5, NoiseEnd: 0.05,
		StepsPerRound: 100, BatchSize: 64, ActorLR: 5e-4, CriticLR: 1e-3, Tau: 0.005, Gamma: 0.98,
		ReplayCap: 10000, Trigger: d.Trigger, K: d.K}
}

// QuickConfig is a short run for tests (a few seconds).
func QuickConfig() Config {
	c := DefaultConfig()
	c.Rounds, c.Envs, c.WarmupRounds, c.StepsPerRound, c.EpisodeUs = 24, 2, 4, 20, 200
	return c
}

// Validate checks every field's range; the error names the field.
func (c *Config) Validate() error {
	switch {
	case c.Rounds < 1 || c.Rounds > 1e6:
		return fmt.Errorf("rounds = %d out of range [1, 1e6]", c.Rounds)
	case c.Envs < 1 || c.Envs > 1024:
		return fmt.Errorf("envs = %d out of range [1, 1024]", c.Envs)
	case c.Workers < 0 || c.Workers > 1024:
		return fmt.Errorf("workers = %d out of range [0, 1024]", c.Workers)
	case len(c.FlowCounts) == 0:
		return fmt.Errorf("flow_counts is empty, want at least one incast size in [1, hosts − 1]")
	case c.Hosts < 2 || c.Hosts > 1024:
		return fmt.Errorf("hosts = %d out of range [2, 1024]", c.Hosts)
	case !(c.Gbps > 0 && c.Gbps <= 1e4):
		return fmt.Errorf("gbps = %v out of range (0, 1e4]", c.Gbps)
	case !(c.EpisodeUs >= 10 && c.EpisodeUs <= 1e6):
		return fmt.Errorf("episode_us = %v out of range [10, 1e6]", c.EpisodeUs)
	case len(c.StaggersUs) == 0:
		return fmt.Errorf("staggers_us is empty, want at least one arrival gap in [0, 1e6] µs")
	case c.WarmupRounds < 0 || c.WarmupRounds >= c.Rounds:
		return fmt.Errorf("warmup_rounds = %d out of range [0, rounds − 1 = %d]", c.WarmupRounds, c.Rounds-1)
	case !(c.NoiseStart >= 0 && c.NoiseStart <= 10):
		return fmt.Errorf("noise_start = %v out of range [0, 10]", c.NoiseStart)
	case !(c.NoiseEnd >= 0 && c.NoiseEnd <= 10):
		return fmt.Errorf("noise_end = %v out of range [0, 10]", c.NoiseEnd)
	case c.StepsPerRound < 1 || c.StepsPerRound > 1e6:
		return fmt.Errorf("steps_per_round = %d out of range [1, 1e6]", c.StepsPerRound)
	case c.BatchSize < 1 || c.BatchSize > 65536:
		return fmt.Errorf("batch_size = %d out of range [1, 65536]", c.BatchSize)
	case !(c.ActorLR > 0 && c.ActorLR <= 1):
		return fmt.Errorf("actor_lr = %v out of range (0, 1]", c.ActorLR)
	case !(c.CriticLR > 0 && c.CriticLR <= 1):
		return fmt.Errorf("critic_lr = %v out of range (0, 1]", c.CriticLR)
	case !(c.Tau > 0 && c.Tau <= 1):
		return fmt.Errorf("tau = %v out of range (0, 1]", c.Tau)
	case !(c.Gamma >= 0 && c.Gamma < 1):
		return fmt.Errorf("gamma = %v out of range [0, 1)", c.Gamma)
	case c.ReplayCap < c.BatchSize || c.ReplayCap > 1<<24:
		return fmt.Errorf("replay_cap = %d out of range [batch_size = %d, %d]", c.ReplayCap, c.BatchSize, 1<<24)
	case c.K < 1 || c.K > 1e6:
		return fmt.Errorf("k = %d out of range [1, 1e6]", c.K)
	}
	for i, g := range c.StaggersUs {
		if !(g >= 0 && g <= 1e6) {
			return fmt.Errorf("staggers_us[%d] = %v out of range [0, 1e6]", i, g)
		}
	}
	for i, n := range c.FlowCounts {
		if n < 1 || n > c.Hosts-1 {
			return fmt.Errorf("flow_counts[%d] = %d out of range [1, hosts − 1 = %d]", i, n, c.Hosts-1)
		}
	}
	return nil
}

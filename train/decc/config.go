// Package decc trains DECC's teacher actor (paper 000, decc.md §1.6–§1.7;
// docs/algorithms/decc.md §10): per-flow agents sharing one categorical
// actor (deccmodel.NewActor, sampled in training, greedy when deployed)
// and a centralised critic over the agent's local state and the 12-value
// global state of Table 1, trained by eq. 10's policy gradient with the
// shared reward eqs. 3–8 (env.DECCReward). Episodes are lossy many-to-one
// and many-to-many runs on a 16-host star at 400 Gb/s driven through
// train/env's `agent` in decc mode, which applies decc-nn's own window
// rules (docs/env.md §2). Rounds collect K episodes in parallel with a
// frozen actor; their transitions enter a replay pool in episode order, so
// the result is byte-identical for any worker count.
package decc

import (
	"bytes"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"

	"github.com/ccsim/ccsim/cc/deccmodel"
)

// Config is what a training run depends on (docs/algorithms/decc.md §10.3).
// Fields named by the paper carry Table 5's defaults (decc.md §1.11).
type Config struct {
	Seed    uint64 `yaml:"seed"`    // initialisation, sampling, batches, the simulations' seeds
	Rounds  int    `yaml:"rounds"`  // collection rounds (the paper's T is unstated)
	Envs    int    `yaml:"envs"`    // episodes per round
	Workers int    `yaml:"workers"` // goroutines running the episodes (0 = 1); does not change the result

	// Training scenarios (§10.1): a 16-host star at Gbps, 1 µs links, PFC
	// off, BufferMB of shared buffer, go-back-N. Episode e of the run is
	// many-to-one with ManyToOne[e mod len] flows when e is even and
	// many-to-many with ManyToMany[(e/2) mod len] flows per host when odd.
	Hosts      int     `yaml:"hosts"`
	Gbps       float64 `yaml:"gbps"`
	BufferMB   float64 `yaml:"buffer_mb"`
	EpisodeUs  float64 `yaml:"episode_us"`
	ManyToOne  []int   `yaml:"many_to_one"`
	ManyToMany []int   `yaml:"many_to_many"`
	// StaggerUs spreads the flows' starts uniformly over [0, StaggerUs).
	StaggerUs float64 `yaml:"stagger_us"`

	// Actor is the teacher's head (issue 18 §1, decc.md §1.5):
	// "categorical" (the default: 11 logits, eq. 10's policy gradient,
	// Learner) or "continuous" (one 0.5·tanh output, the deterministic
	// policy gradient trained TD3-style, TD3Learner; §10.5).
	Actor string `yaml:"actor"`

	// Learner (decc.md §1.7, Table 5).
	ActorLR   float64 `yaml:"actor_lr"`   // α (Table 5: 0.001)
	CriticLR  float64 `yaml:"critic_lr"`  // η (Table 5: 0.001)
	Batch     int     `yaml:"batch"`      // B_sample (Table 5: 192)
	Gamma     float64 `yaml:"gamma"`      // γ (Table 5: 0.98)
	Steps     int     `yaml:"steps"`      // gradient steps per round (Table 5 "model update step": 20)
	Tau       float64 `yaml:"tau"`        // target critic's Polyak rate (decc.md §1.7: 0.01)
	Entropy   float64 `yaml:"entropy"`    // entropy bonus on standardised advantages (I15)
	Explore   float64 `yaml:"explore"`    // ε: a uniformly random action with this probability in training (I19)
	ReplayCap int     `yaml:"replay_cap"` // replay pool (transitions)
	Warmup    int     `yaml:"warmup"`     // rounds that train the critic only (I16)
	History   int     `yaml:"history"`    // w (Table 5: 5)
	AlphaAct  float64 `yaml:"alpha_act"`  // α of eq. 2 (Table 5: 0.85)
	// TD3 (actor continuous only; TD3's defaults, as fractions of the
	// action half-range 0.5): the actor and the targets step every
	// PolicyDelay critic updates; the target action's smoothing noise has
	// standard deviation PolicyNoise clipped at ±NoiseClip; the sampling
	// actor adds Gaussian noise of standard deviation ExploreNoise (and,
	// with probability Explore, a uniform action instead).
	PolicyDelay  int     `yaml:"policy_delay"`
	PolicyNoise  float64 `yaml:"policy_noise"`
	NoiseClip    float64 `yaml:"noise_clip"`
	ExploreNoise float64 `yaml:"explore_noise"`
	// EvalEvery evaluates the greedy actor every this many rounds and
	// keeps the best one evaluated (I17); 0 = keep the last.
	EvalEvery int `yaml:"eval_every"`

	// Progress, if set, is called after every round with (rounds done,
	// rounds).
	Progress func(done, total int) `yaml:"-"`
}

// DefaultConfig returns the shipped teacher's training set-up (sized to
// train in about 20 minutes with two workers; docs/algorithms/decc.md
// §10.4).
func DefaultConfig() Config {
	return Config{Seed: 1, Rounds: 600, Envs: 4, Hosts: 16, Gbps: 400, BufferMB: 1, EpisodeUs: 150,
		ManyToOne: []int{4, 8, 16, 32}, ManyToMany: []int{1, 2}, StaggerUs: 20,
		ActorLR: 0.001, CriticLR: 0.001, Batch: 192, Gamma: 0.98, Steps: 20, Tau: 0.01, Entropy: 0.02, Explore: 0.1,
		ReplayCap: 100000, Warmup: 5, History: deccmodel.History, AlphaAct: 0.85, EvalEvery: 20,
		Actor: "categorical", PolicyDelay: 2, PolicyNoise: 0.2, NoiseClip: 0.5, ExploreNoise: 0.1}
}

// QuickConfig is a short run for the tests (a few seconds).
func QuickConfig() Config {
	c := DefaultConfig()
	c.Rounds, c.Envs, c.EpisodeUs, c.Steps, c.Batch, c.Warmup, c.EvalEvery = 4, 2, 40, 2, 32, 1, 2
	c.ManyToOne, c.ManyToMany = []int{4}, []int{1}
	return c
}

// Validate checks every field's range; the error names the field and the
// allowed range.
func (c *Config) Validate() error {
	switch {
	case c.Rounds < 1 || c.Rounds > 1e6:
		return fmt.Errorf("rounds = %d out of range [1, 1e6]", c.Rounds)
	case c.Envs < 1 || c.Envs > 1024:
		return fmt.Errorf("envs = %d out of range [1, 1024]", c.Envs)
	case c.Workers < 0 || c.Workers > 1024:
		return fmt.Errorf("workers = %d out of range [0, 1024]", c.Workers)
	case c.Hosts < 2 || c.Hosts > 1024:
		return fmt.Errorf("hosts = %d out of range [2, 1024]", c.Hosts)
	case !(c.Gbps > 0 && c.Gbps <= 1e4):
		return fmt.Errorf("gbps = %v out of range (0, 1e4]", c.Gbps)
	case !(c.BufferMB >= 0.065536 && c.BufferMB <= 1e4):
		return fmt.Errorf("buffer_mb = %v out of range [0.065536, 1e4]", c.BufferMB)
	case !(c.EpisodeUs >= 10 && c.EpisodeUs <= 1e6):
		return fmt.Errorf("episode_us = %v out of range [10, 1e6]", c.EpisodeUs)
	case len(c.ManyToOne) == 0:
		return fmt.Errorf("many_to_one is empty, want at least one flow count in [1, 4096]")
	case len(c.ManyToMany) == 0:
		return fmt.Errorf("many_to_many is empty, want at least one count of flows per host in [1, 64]")
	case !(c.StaggerUs >= 0 && c.StaggerUs <= 1e6):
		return fmt.Errorf("stagger_us = %v out of range [0, 1e6]", c.StaggerUs)
	case !(c.ActorLR > 0 && c.ActorLR <= 1):
		return fmt.Errorf("actor_lr = %v out of range (0, 1]", c.ActorLR)
	case !(c.CriticLR > 0 && c.CriticLR <= 1):
		return fmt.Errorf("critic_lr = %v out of range (0, 1]", c.CriticLR)
	case c.Batch < 1 || c.Batch > 65536:
		return fmt.Errorf("batch = %d out of range [1, 65536]", c.Batch)
	case !(c.Gamma >= 0 && c.Gamma < 1):
		return fmt.Errorf("gamma = %v out of range [0, 1)", c.Gamma)
	case c.Steps < 1 || c.Steps > 1e6:
		return fmt.Errorf("steps = %d out of range [1, 1e6]", c.Steps)
	case !(c.Tau > 0 && c.Tau <= 1):
		return fmt.Errorf("tau = %v out of range (0, 1]", c.Tau)
	case !(c.Entropy >= 0 && c.Entropy <= 10):
		return fmt.Errorf("entropy = %v out of range [0, 10]", c.Entropy)
	case !(c.Explore >= 0 && c.Explore <= 1):
		return fmt.Errorf("explore = %v out of range [0, 1]", c.Explore)
	case c.ReplayCap < c.Batch || c.ReplayCap > 1<<24:
		return fmt.Errorf("replay_cap = %d out of range [batch = %d, %d]", c.ReplayCap, c.Batch, 1<<24)
	case c.Warmup < 0 || c.Warmup >= c.Rounds:
		return fmt.Errorf("warmup = %d out of range [0, rounds − 1 = %d]", c.Warmup, c.Rounds-1)
	case c.History != deccmodel.History:
		return fmt.Errorf("history = %d: the teacher's shape fixes it to %d (Table 5's w)", c.History, deccmodel.History)
	case !(c.AlphaAct > 0 && c.AlphaAct <= 1.9):
		return fmt.Errorf("alpha_act = %v out of range (0, 1.9]", c.AlphaAct)
	case c.Actor != "categorical" && c.Actor != "continuous":
		return fmt.Errorf("actor = %q: allowed values categorical, continuous", c.Actor)
	case c.PolicyDelay < 1 || c.PolicyDelay > 1000:
		return fmt.Errorf("policy_delay = %d out of range [1, 1000]", c.PolicyDelay)
	case !(c.PolicyNoise >= 0 && c.PolicyNoise <= 10):
		return fmt.Errorf("policy_noise = %v out of range [0, 10] (a fraction of the action half-range 0.5)", c.PolicyNoise)
	case !(c.NoiseClip >= 0 && c.NoiseClip <= 10):
		return fmt.Errorf("noise_clip = %v out of range [0, 10] (a fraction of the action half-range 0.5)", c.NoiseClip)
	case !(c.ExploreNoise >= 0 && c.ExploreNoise <= 10):
		return fmt.Errorf("explore_noise = %v out of range [0, 10] (a fraction of the action half-range 0.5)", c.ExploreNoise)
	case c.EvalEvery < 0 || c.EvalEvery > c.Rounds:
		return fmt.Errorf("eval_every = %d out of range [0, rounds = %d]", c.EvalEvery, c.Rounds)
	}
	for i, n := range c.ManyToOne {
		if n < 1 || n > 4096 {
			return fmt.Errorf("many_to_one[%d] = %d out of range [1, 4096]", i, n)
		}
	}
	for i, n := range c.ManyToMany {
		if n < 1 || n > 64 {
			return fmt.Errorf("many_to_many[%d] = %d out of range [1, 64]", i, n)
		}
	}
	return nil
}

// LoadConfig reads a YAML configuration (the fields' yaml names; unknown
// fields are errors) over DefaultConfig and validates it.
func LoadConfig(path string) (Config, error) {
	c := DefaultConfig()
	b, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

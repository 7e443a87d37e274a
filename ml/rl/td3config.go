package rl

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ccsim/ccsim/ml/nn"
)

// TD3Config holds the hyper-parameters of TD3 and of MADDPG with TD3's
// tricks (docs/rl.md §5 gives each default's source).
type TD3Config struct {
	// Gamma is the discount γ; [0, 1). DECC: 0.98 (decc.md §1.7, eq. 1).
	Gamma float64
	// Tau is the Polyak rate of the target networks; (0, 1]. 0.01, decc.md
	// §1.7's soft update of the target critic.
	Tau float64
	// BatchSize is the number of transitions per gradient step; 1..65536.
	// DECC: 192 (decc.md §1.7, Table 5).
	BatchSize int
	// History is the number of consecutive observations per network input
	// (the actor's sequence, the critic's flattened window); 1..1024. DECC:
	// w = 5 (decc.md §1.4, §1.7).
	History int
	// PadHistory trains also on an episode's first History−1 steps, with
	// the missing older observations repeating the first one (as History
	// does when acting); false trains on full windows only.
	PadHistory bool
	// PolicyDelay d: the actor and the targets are updated every d critic
	// updates; 1..1000. TD3: 2.
	PolicyDelay int
	// PolicyNoise is the standard deviation of the target policy smoothing
	// noise, NoiseClip its clipping bound, ExploreNoise the standard deviation
	// of the exploration noise when acting, all as fractions of the action
	// half-range (Hi−Lo)/2; each [0, 10]. TD3: 0.2, 0.5, 0.1 (for actions in
	// [−1, 1]).
	PolicyNoise, NoiseClip, ExploreNoise float64
	// Actor and Critic are the optimisers' settings. DECC: Adam with
	// learning rate 0.001 for both (decc.md §1.7, Table 5: α = η = 0.001).
	Actor, Critic nn.AdamConfig
	// Action is the range every action component is squashed into. DECC:
	// (−0.5, 0.5) (decc.md §1.5, eq. 2).
	Action Squash
	// SharedActor gives all agents one actor network (and one target and
	// optimiser), trained on the mean of the agents' actor losses: DECC's
	// "all agents share the same policy" (decc.md §1.7). The critics stay
	// per agent. An agent's identity, if the policy needs it, must then be
	// in its observation.
	SharedActor bool
	// ActorObs is the number of leading values of each agent's observation
	// its actor sees (0: all): the critics see whole observations, so a
	// global state used only in training (DECC's g, decc.md §1.4, §1.7) is
	// placed after the local state. 0..obs_dim.
	ActorObs int
	// StepsPerRound is the number of gradient steps Round runs; 1..1e6.
	// DECC: 20 (decc.md §1.1, Table 5 "model update step").
	StepsPerRound int
}

// DefaultTD3 returns DECC's set-up (decc.md §1.7, which copies Astraea's):
// γ 0.98, batch 192, history 5, 20 gradient steps per round, Adam 0.001,
// actions in [−0.5, 0.5], τ 0.01; TD3's own defaults for the rest (delay 2,
// smoothing noise 0.2 clipped at 0.5, exploration noise 0.1).
func DefaultTD3() TD3Config {
	return TD3Config{Gamma: 0.98, Tau: 0.01, BatchSize: 192, History: 5, PadHistory: true,
		PolicyDelay: 2, PolicyNoise: 0.2, NoiseClip: 0.5, ExploreNoise: 0.1,
		Actor: nn.DefaultAdam(), Critic: nn.DefaultAdam(),
		Action: Squash{Lo: -0.5, Hi: 0.5}, StepsPerRound: 20}
}

// Validate checks every field's range; the error names the field.
func (c TD3Config) Validate() error {
	if !(c.Gamma >= 0 && c.Gamma < 1) {
		return fmt.Errorf("rl: td3: gamma = %v, want [0, 1)", c.Gamma)
	}
	if !(c.Tau > 0 && c.Tau <= 1) {
		return fmt.Errorf("rl: td3: tau = %v, want (0, 1]", c.Tau)
	}
	if c.BatchSize < 1 || c.BatchSize > 1<<16 {
		return fmt.Errorf("rl: td3: batch_size = %d, want 1..%d", c.BatchSize, 1<<16)
	}
	if c.History < 1 || c.History > 1024 {
		return fmt.Errorf("rl: td3: history = %d, want 1..1024", c.History)
	}
	if c.PolicyDelay < 1 || c.PolicyDelay > 1000 {
		return fmt.Errorf("rl: td3: policy_delay = %d, want 1..1000", c.PolicyDelay)
	}
	for _, f := range [...]struct {
		name string
		v    float64
	}{{"policy_noise", c.PolicyNoise}, {"noise_clip", c.NoiseClip}, {"explore_noise", c.ExploreNoise}} {
		if !(f.v >= 0 && f.v <= 10) {
			return fmt.Errorf("rl: td3: %s = %v, want [0, 10] (a fraction of the action half-range)", f.name, f.v)
		}
	}
	if err := c.Actor.Validate(); err != nil {
		return fmt.Errorf("rl: td3: actor optimiser: %w", err)
	}
	if err := c.Critic.Validate(); err != nil {
		return fmt.Errorf("rl: td3: critic optimiser: %w", err)
	}
	if err := c.Action.Validate(); err != nil {
		return fmt.Errorf("rl: td3: %w", err)
	}
	if c.ActorObs < 0 {
		return fmt.Errorf("rl: td3: actor_obs = %d, want ≥ 0 (0: the whole observation)", c.ActorObs)
	}
	if c.StepsPerRound < 1 || c.StepsPerRound > 1e6 {
		return fmt.Errorf("rl: td3: steps_per_round = %d, want 1..1000000", c.StepsPerRound)
	}
	return nil
}

// UpdateStats reports one gradient step.
type UpdateStats struct {
	CriticLoss float64 // mean over agents, twins and batch of (Q − y)²
	MeanQ      float64 // mean over the batch of the first critic of agent 0
	ActorLoss  float64 // mean −Q of the actors' actions (NaN when the actors were not updated)
	ActorStep  bool    // the actors and targets were updated at this step
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// NewTD3 returns a TD3 learner (Fujimoto et al., 2018): MADDPG with one
// agent, whose critic sees its own observation window and action (critic
// input History·obsDim + actDim). See NewMADDPG for the networks.
func NewTD3(cfg TD3Config, obsDim, actDim int, actor, critic *nn.Sequential, r *rand.Rand) (*MADDPG, error) {
	return NewMADDPG(cfg, 1, obsDim, actDim, actor, critic, r)
}

// Package aurora trains Aurora's policy (Jay et al., ICML 2019;
// PCCproject/PCC-RL) in process over the simulator: PPO with GAE over a
// Gaussian policy whose mean is the 32-16 tanh network the `aurora`
// controller of package cc deploys, on episodes of randomised star
// networks at 100–400 Gb/s run by the deployed controller itself with a
// sampling decider (docs/algorithms/aurora.md §5). K episodes run in
// parallel with a frozen policy and merge in environment order, so the
// model file is the same bytes for any worker count.
package aurora

import (
	"fmt"

	"github.com/ccsim/ccsim/cc"
)

// Config is a training run's configuration. Its JSON form is recorded in
// train.json.
type Config struct {
	Seed       uint64 `json:"seed"`        // every draw: initialisation, scenarios, noise, shuffles
	Iterations int    `json:"iterations"`  // PPO iterations (rollout + update); 1..100000
	Envs       int    `json:"envs"`        // K episodes per iteration, run in parallel; 1..1024
	Workers    int    `json:"-"`           // goroutines running the episodes (0 = 1); the result does not depend on it
	EpisodeMIs int    `json:"episode_mis"` // episode length in monitoring intervals of half a base RTT (network_sim.py MAX_STEPS 400); 10..100000
	// The scenario ranges (docs/algorithms/aurora.md §5.2): each episode is
	// a star of Flows+1 hosts, Flows ∈ [1, MaxFlows] long flows into one
	// receiver, senders' links of U(GbpsMin, GbpsMax) Gb/s, the receiver's
	// link U(BnMin, 1) times that, every link U(DelayNsMin, DelayNsMax) ns.
	MaxFlows   int     `json:"max_flows"`    // 1..64
	BnMin      float64 `json:"bn_min"`       // the bottleneck (receiver's link) is U(bn_min, 1) × the senders' rate; [0.01, 1]
	GbpsMin    float64 `json:"gbps_min"`     // [1, 1600]
	GbpsMax    float64 `json:"gbps_max"`     // [gbps_min, 1600]
	DelayNsMin float64 `json:"delay_ns_min"` // [10, 1e6]
	DelayNsMax float64 `json:"delay_ns_max"` // [delay_ns_min, 1e6]
	// PPO (stable_solve.py: PPO1 with γ 0.99, optim_batchsize 2048 of
	// 8192 steps, and PPO1's defaults).
	Gamma       float64 `json:"gamma"`        // [0, 1]; 0.99
	Lambda      float64 `json:"lambda"`       // [0, 1]; 0.95
	ClipEps     float64 `json:"clip_eps"`     // (0, 1); 0.2
	EntCoef     float64 `json:"ent_coef"`     // [0, 10]; 0.01
	Epochs      int     `json:"epochs"`       // 1..1000; 4
	MiniBatches int     `json:"mini_batches"` // minibatches per epoch; 1..1024; 4 (8192 / 2048)
	LR          float64 `json:"lr"`           // Adam step; (0, 1]; 0.001
	AdamEps     float64 `json:"adam_eps"`     // (0, 1]; 1e-5
	InitLogStd  float64 `json:"init_log_std"` // [−20, 2]; 0
	// Reward is the renormalisation of the authors' reward (cc.AuroraRewardScale).
	Reward cc.AuroraRewardScale `json:"reward"`
	// EvalEpisodes is the number of fixed episodes the deterministic policy
	// is scored on before and after training; 1..1024.
	EvalEpisodes int `json:"eval_episodes"`
	// Progress, if set, is called after every iteration with (done, total).
	Progress func(done, total int) `json:"-"`
}

// DefaultConfig is the configuration of the shipped model.
func DefaultConfig() Config {
	return Config{Seed: 1, Iterations: 300, Envs: 24, EpisodeMIs: 400, MaxFlows: 1, BnMin: 0.2,
		GbpsMin: 100, GbpsMax: 400, DelayNsMin: 500, DelayNsMax: 2000,
		Gamma: 0.99, Lambda: 0.95, ClipEps: 0.2, EntCoef: 0.01, Epochs: 4, MiniBatches: 4,
		LR: 0.001, AdamEps: 1e-5, InitLogStd: 0, Reward: cc.DefaultAuroraRewardScale(), EvalEpisodes: 8}
}

// QuickConfig is a short run (the tests, `--quick`).
func QuickConfig() Config {
	c := DefaultConfig()
	c.Iterations, c.Envs, c.EpisodeMIs, c.EvalEpisodes = 20, 8, 400, 8
	return c
}

// Validate checks every field's range; the error names the field.
func (c Config) Validate() error {
	ints := []struct {
		name   string
		v      int
		lo, hi int
	}{{"iterations", c.Iterations, 1, 100000}, {"envs", c.Envs, 1, 1024}, {"workers", c.Workers, 0, 1024},
		{"episode_mis", c.EpisodeMIs, 10, 100000}, {"max_flows", c.MaxFlows, 1, 64}, {"epochs", c.Epochs, 1, 1000},
		{"mini_batches", c.MiniBatches, 1, 1024}, {"eval_episodes", c.EvalEpisodes, 1, 1024}}
	for _, f := range ints {
		if f.v < f.lo || f.v > f.hi {
			return fmt.Errorf("aurora: %s = %d out of range [%d, %d]", f.name, f.v, f.lo, f.hi)
		}
	}
	floats := []struct {
		name   string
		v      float64
		lo, hi float64
		open   bool // lower bound exclusive
	}{{"bn_min", c.BnMin, 0.01, 1, false}, {"gbps_min", c.GbpsMin, 1, 1600, false}, {"gbps_max", c.GbpsMax, c.GbpsMin, 1600, false},
		{"delay_ns_min", c.DelayNsMin, 10, 1e6, false}, {"delay_ns_max", c.DelayNsMax, c.DelayNsMin, 1e6, false},
		{"gamma", c.Gamma, 0, 1, false}, {"lambda", c.Lambda, 0, 1, false}, {"clip_eps", c.ClipEps, 0, 1, true},
		{"ent_coef", c.EntCoef, 0, 10, false}, {"lr", c.LR, 0, 1, true}, {"adam_eps", c.AdamEps, 0, 1, true},
		{"init_log_std", c.InitLogStd, -20, 2, false},
		{"reward.ref_pkt_rate", c.Reward.RefPktRate, 0, 1e12, true}, {"reward.ref_rtt", c.Reward.RefRTT, 0, 1e6, true}}
	for _, f := range floats {
		if !(f.v >= f.lo && f.v <= f.hi) || (f.open && f.v == f.lo) || (f.name == "clip_eps" && f.v == f.hi) {
			lo := fmt.Sprint(f.lo)
			if f.open {
				lo += " (exclusive)"
			}
			hi := fmt.Sprint(f.hi)
			if f.name == "clip_eps" {
				hi += " (exclusive)"
			}
			return fmt.Errorf("aurora: %s = %v out of range [%s, %s]", f.name, f.v, lo, hi)
		}
	}
	return nil
}

package spine

import (
	"math"
	"strings"
	"testing"
)

// reward_callback's arithmetic on hand-computed cases.
func TestReward(t *testing.T) {
	const us = 1e-6
	for _, tc := range []struct {
		name                 string
		thr, loss, rtt       []float64
		capacity, base, trig float64
		want                 float64
	}{
		// one flow: no fairness term; mean RTT 5 µs ≥ 1.15 · 4 µs: lat = 5/4.6;
		// 0.1 · (0.75 / (5/4.6) − 0.001) = 0.1 · (0.69 − 0.001)
		{"one flow, latency, trigger", []float64{300e9}, []float64{0}, []float64{5 * us}, 400e9, 4 * us, 1, 0.1 * (0.69 - 0.001)},
		// two flows: std(100, 300) = 100 → fair = −100/400 = −0.25; the RTT
		// 0 is left out, 4 µs < 4.6 µs: lat = 1; loss mean 0.5e9 · 40 = 20e9:
		// 0.1 · (0.5 · −0.25 + (400 − 20)/400) = 0.1 · (−0.125 + 0.95)
		{"two flows, loss", []float64{100e9, 300e9}, []float64{1e9, 0}, []float64{4 * us, 0}, 400e9, 4 * us, 0, 0.0825},
		{"no throughput", []float64{0, 0}, []float64{1e9, 0}, []float64{9 * us, 0}, 400e9, 4 * us, 1, 0},
		{"no RTT sample", []float64{200e9}, []float64{0}, []float64{0}, 400e9, 4 * us, 0, 0.05},
	} {
		if got := Reward(tc.thr, tc.loss, tc.rtt, tc.capacity, tc.base, tc.trig); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		set   func(c *Config)
		field string
	}{
		{func(c *Config) { c.Rounds = 0 }, "rounds"},
		{func(c *Config) { c.Envs = 0 }, "envs"},
		{func(c *Config) { c.Workers = -1 }, "workers"},
		{func(c *Config) { c.FlowCounts = nil }, "flow_counts"},
		{func(c *Config) { c.FlowCounts = []int{1, 16} }, "flow_counts[1]"},
		{func(c *Config) { c.Hosts = 1 }, "hosts"},
		{func(c *Config) { c.Gbps = 0 }, "gbps"},
		{func(c *Config) { c.EpisodeUs = 1 }, "episode_us"},
		{func(c *Config) { c.StaggersUs = nil }, "staggers_us"},
		{func(c *Config) { c.StaggersUs = []float64{0, -1} }, "staggers_us[1]"},
		{func(c *Config) { c.WarmupRounds = c.Rounds }, "warmup_rounds"},
		{func(c *Config) { c.NoiseStart = -1 }, "noise_start"},
		{func(c *Config) { c.NoiseEnd = 11 }, "noise_end"},
		{func(c *Config) { c.StepsPerRound = 0 }, "steps_per_round"},
		{func(c *Config) { c.BatchSize = 0 }, "batch_size"},
		{func(c *Config) { c.ActorLR = 0 }, "actor_lr"},
		{func(c *Config) { c.CriticLR = 2 }, "critic_lr"},
		{func(c *Config) { c.Tau = 0 }, "tau"},
		{func(c *Config) { c.Gamma = 1 }, "gamma"},
		{func(c *Config) { c.ReplayCap = 1 }, "replay_cap"},
		{func(c *Config) { c.K = 0 }, "k"},
	} {
		c := DefaultConfig()
		tc.set(&c)
		err := c.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tc.field+" ") {
			t.Errorf("%s: error %v, want one naming the field", tc.field, err)
		}
		if _, err2 := Run(c, nil); err2 == nil {
			t.Errorf("%s: Run accepted the bad config", tc.field)
		}
	}
	for _, c := range []Config{DefaultConfig(), QuickConfig()} {
		if err := c.Validate(); err != nil {
			t.Errorf("%v", err)
		}
	}
}

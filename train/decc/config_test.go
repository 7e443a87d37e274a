package decc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The defaults carry Table 5's values; every range error names its field
// and range; a YAML file overrides only the fields it names.
func TestConfig(t *testing.T) {
	d := DefaultConfig()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.Actor != "categorical" || d.PolicyDelay != 2 || d.PolicyNoise != 0.2 || d.NoiseClip != 0.5 || d.ExploreNoise != 0.1 {
		t.Errorf("defaults %+v: not the categorical actor with TD3's delay 2 and noises 0.2, 0.5, 0.1 for the continuous option", d)
	}
	if d.ActorLR != 0.001 || d.CriticLR != 0.001 || d.Batch != 192 || d.Gamma != 0.98 || d.Steps != 20 || d.History != 5 || d.AlphaAct != 0.85 {
		t.Errorf("defaults %+v: not Table 5's α = η = 0.001, batch 192, γ 0.98, 20 steps, w 5, α_act 0.85", d)
	}
	for _, c := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.Rounds = 0 }, "rounds = 0 out of range [1, 1e6]"},
		{func(c *Config) { c.BufferMB = 0.01 }, "buffer_mb = 0.01 out of range [0.065536, 1e4]"},
		{func(c *Config) { c.ManyToMany = nil }, "many_to_many is empty, want at least one count of flows per host in [1, 64]"},
		{func(c *Config) { c.ManyToOne = []int{4, 0} }, "many_to_one[1] = 0 out of range [1, 4096]"},
		{func(c *Config) { c.History = 4 }, "history = 4: the teacher's shape fixes it to 5 (Table 5's w)"},
		{func(c *Config) { c.Explore = 1.5 }, "explore = 1.5 out of range [0, 1]"},
		{func(c *Config) { c.Warmup = 600 }, "warmup = 600 out of range [0, rounds − 1 = 599]"},
		{func(c *Config) { c.ReplayCap = 100 }, "replay_cap = 100 out of range [batch = 192, 16777216]"},
		{func(c *Config) { c.EvalEvery = 601 }, "eval_every = 601 out of range [0, rounds = 600]"},
		{func(c *Config) { c.Actor = "gaussian" }, `actor = "gaussian": allowed values categorical, continuous`},
		{func(c *Config) { c.PolicyDelay = 0 }, "policy_delay = 0 out of range [1, 1000]"},
		{func(c *Config) { c.NoiseClip = -1 }, "noise_clip = -1 out of range [0, 10] (a fraction of the action half-range 0.5)"},
	} {
		cfg := DefaultConfig()
		c.set(&cfg)
		if err := cfg.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte("rounds: 7\neval_every: 7\nmany_to_one: [3, 5]\nexplore: 0.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(path)
	want := DefaultConfig()
	want.Rounds, want.ManyToOne, want.Explore = 7, []int{3, 5}, 0.2
	if err != nil || c.Rounds != 7 || !slices.Equal(c.ManyToOne, want.ManyToOne) || c.Explore != 0.2 || c.Batch != want.Batch || c.Seed != want.Seed {
		t.Errorf("LoadConfig: %+v, %v; want %+v", c, err, want)
	}
	if _, err := LoadConfig(path + ".missing"); err == nil || !strings.Contains(err.Error(), "c.yaml.missing") {
		t.Errorf("missing file: %v", err)
	}
}

// The training scenarios: many-to-one for even episodes (flows to host 0
// from hosts 1–15 in turn), many-to-many for odd ones (PerHost flows from
// every host, never to itself), each cycling through its list; the
// scenario is a function of its seed.
func TestScenarios(t *testing.T) {
	c := DefaultConfig()
	got := []string{}
	for e := range 6 {
		got = append(got, c.episodeScenario(e).String())
	}
	if want := []string{"m2o-4", "m2m-1", "m2o-8", "m2m-2", "m2o-16", "m2m-1"}; !slices.Equal(got, want) {
		t.Errorf("episodes 0–5: %v, want %v", got, want)
	}
	for _, s := range []Scenario{{N: 20}, {ManyToMany: true, N: 2}} {
		sc, err := c.Parse(s, 3)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := c.YAML(s, 3), c.YAML(s, 3); a != b || a == c.YAML(s, 4) {
			t.Errorf("%v: the scenario is not a function of its seed", s)
		}
		flows := sc.Workload.Flows
		n := s.N
		if s.ManyToMany {
			n = s.N * c.Hosts
		}
		if len(flows) != n {
			t.Fatalf("%v: %d flows, want %d", s, len(flows), n)
		}
		for i, f := range flows {
			bad := f.Src == f.Dst
			if !s.ManyToMany {
				bad = bad || f.Dst != 0 || int(f.Src) != 1+i%15
			}
			if bad {
				t.Errorf("%v flow %d: %v → %v", s, i, f.Src, f.Dst)
			}
		}
	}
}

package adpg

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/adpgmodel"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/ml/rl"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
)

var rebuild = flag.Bool("rebuild", false, "retrain the shipped ADPG model with the defaults and compare it with cc/adpgmodel byte for byte")

// The quick training gives the same model file and log with one and two
// workers, and the trained policy is better than the untrained one on the
// training reward: a smaller mean |reward| (the reward's attractor is 0)
// in the greedy evaluation of the training scenarios.
func TestQuickTraining(t *testing.T) {
	var res [2]*Result
	for i, w := range []int{1, 2} {
		cfg := QuickConfig()
		cfg.Workers = w
		r, err := Run(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		res[i] = r
	}
	if !bytes.Equal(res[0].ModelBytes, res[1].ModelBytes) || !bytes.Equal(res[0].LogBytes, res[1].LogBytes) {
		t.Fatal("workers 1 and 2 give different files")
	}
	before, after := MeanAbs(res[0].Log.Before), MeanAbs(res[0].Log.After)
	t.Logf("mean |reward|: untrained %.4f, trained %.4f", before, after)
	if !(after < before) {
		t.Fatalf("trained mean |reward| %.4f, untrained %.4f: want lower", after, before)
	}
	if len(res[0].Log.Rounds) != QuickConfig().Updates {
		t.Fatalf("%d rounds logged, want %d", len(res[0].Log.Rounds), QuickConfig().Updates)
	}
	// the file is a valid adpg model with zero biases
	if _, h, _, err := adpgmodel.Decode(res[0].ModelBytes); err != nil || h != 2 {
		t.Fatalf("decode: history %d, %v", h, err)
	}
	dir := t.TempDir()
	if err := res[0].WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, adpgmodel.ModelFile))
	if err != nil || !bytes.Equal(b, res[0].ModelBytes) {
		t.Fatalf("WriteDir: %v", err)
	}
}

// TestShippedModel retrains with the defaults and compares the files with
// the shipped ones (go test ./train/adpg -run TestShippedModel -rebuild).
func TestShippedModel(t *testing.T) {
	if !*rebuild {
		t.Skip("retrains the shipped model (≈ 30 s of CPU); run with -rebuild")
	}
	cfg := DefaultConfig()
	cfg.Workers = 2
	r, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.ModelBytes, adpgmodel.ShippedBytes()) {
		t.Error("the retrained model differs from cc/adpgmodel/adpg.bin")
	}
	if !bytes.Equal(r.LogBytes, adpgmodel.ShippedLog()) {
		t.Error("the retrained log differs from cc/adpgmodel/train.json")
	}
}

// The trainer and the deployed controller act the same: an episode of
// the trainer's environment with a frozen network (no learning) and a run
// of the `adpg` algorithm with that network as its model file end with
// every flow's counters and rate equal.
func TestTrainedIsDeployed(t *testing.T) {
	cfg := QuickConfig()
	net, err := NewPolicy(cfg.History, 7)
	if err != nil {
		t.Fatal(err)
	}
	// make the policy act: scale the output layer so that |a| is not tiny
	ls := net.Layers()
	d := ls[len(ls)-1].(*nn.Dense)
	for i := range d.W.W {
		d.W.W[i] *= 0.3
	}
	file := filepath.Join(t.TempDir(), "m.bin")
	if err := nn.SaveFile(file, net, "test"); err != nil {
		t.Fatal(err)
	}
	cfg.EvalUs = 300
	sc := ManyToOne(4)
	e := newEnvRun(0, &cfg, cc.ADPGDefaults(), sc, net)
	e.eval = true
	e.resume(false)
	e.close()
	if e.err != nil || e.last == nil {
		t.Fatalf("episode: %v", e.err)
	}
	// the deployed run: the same scenario, seed and start times
	src := strings.Replace(ScenarioYAML(sc, e.starts, cfg.EvalUs), "cc: [agent]", "cc: [adpg]\nparams:\n  adpg: {model: "+file+"}", 1)
	s, err := scenario.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	b, err := assemble.Build(s, "adpg", assemble.Options{Seed: cfg.Seed, SeedSet: true})
	if err != nil {
		t.Fatal(err)
	}
	b.Net.Run()
	for i, q := range b.Net.QPs {
		p := e.last.QPs[i]
		if q.TxBytes != p.TxBytes || q.SndUna != p.SndUna || q.RateBps != p.RateBps {
			t.Fatalf("flow %d: deployed tx %d una %d rate %d, trainer tx %d una %d rate %d", i, q.TxBytes, q.SndUna, q.RateBps, p.TxBytes, p.SndUna, p.RateBps)
		}
		if i == 0 {
			t.Logf("flow 0: %d bytes sent, rate %.4f of line rate at the end", q.TxBytes, float64(q.RateBps)/400e9)
		}
	}
	if e.nR < 100 {
		t.Fatalf("%d rewards, want a real episode", e.nR)
	}
}

// The rollouts pair each state with the reward that followed its action;
// the first reward of a flow (no action before it) and a state whose
// reward has not come are dropped; agents with fewer than two rewards are
// not trained (agents/adpg.py).
func TestRolloutPairing(t *testing.T) {
	cfg := QuickConfig()
	cfg.RolloutLength = 1000
	net, err := NewPolicy(cfg.History, 1)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvRun(0, &cfg, cc.ADPGDefaults(), ManyToOne(2), net)
	e.agents = make([]roll, 2)
	obs := func(v float64) []float64 { return []float64{v, v, v, v} }
	e.Act(0, obs(1), 10, true, 0)  // first: reward dropped, state 1
	e.Act(1, obs(5), 50, true, 0)  // flow 1 first
	e.Act(0, obs(2), 11, false, 0) // reward 11 for state 1, state 2
	e.Act(0, obs(3), 12, false, 0) // reward 12 for state 2, state 3 (pending)
	e.Act(1, obs(6), 51, false, 0) // flow 1: one reward only
	got := e.harvest(nil)
	if len(got) != 1 {
		t.Fatalf("%d rollouts, want 1 (flow 1 has one reward)", len(got))
	}
	want := rl.ADPGRollout{States: append(obs(1), obs(2)...), Rewards: []float64{11, 12}}
	if !equal(got[0].States, want.States) || !equal(got[0].Rewards, want.Rewards) {
		t.Fatalf("rollout %+v, want %+v", got[0], want)
	}
	e.clearRound()
	e.Act(0, obs(4), 13, false, 0) // the pending state 3 was dropped: no reward recorded
	if n := len(e.agents[0].rewards); n != 0 || len(e.agents[0].states) != 4 {
		t.Fatalf("after the round: %d rewards, %d state values, want 0 and 4", n, len(e.agents[0].states))
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Orthogonal gives orthonormal rows (wide) or columns (tall) times the
// gain, and the policy's biases are 0.
func TestOrthogonal(t *testing.T) {
	r := nn.NewRand(3)
	for _, sh := range [][2]int{{12, 4}, {12, 12}, {1, 12}} {
		rows, cols := sh[0], sh[1]
		w := make([]float64, rows*cols)
		Orthogonal(r, w, rows, cols, math.Sqrt2)
		// the smaller dimension's vectors are orthonormal: Gram matrix = 2·I
		n, m := rows, cols
		tall := rows >= cols
		k := min(n, m)
		for a := range k {
			for b := range k {
				dot := 0.0
				if tall {
					for i := range rows {
						dot += w[i*cols+a] * w[i*cols+b]
					}
				} else {
					for j := range cols {
						dot += w[a*cols+j] * w[b*cols+j]
					}
				}
				want := 0.0
				if a == b {
					want = 2
				}
				if math.Abs(dot-want) > 1e-12 {
					t.Fatalf("%d×%d: Gram[%d][%d] = %v, want %v", rows, cols, a, b, dot, want)
				}
			}
		}
	}
	net, err := NewPolicy(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range net.Layers() {
		if d, ok := l.(*nn.Dense); ok {
			for _, v := range d.B.W {
				if v != 0 {
					t.Fatal("a bias is not 0")
				}
			}
		}
	}
}

// Every bad configuration field is named with its range.
func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		field string
		set   func(c *Config)
	}{
		{"scenarios", func(c *Config) { c.Scenarios = nil }},
		{"envs_per_scenario", func(c *Config) { c.EnvsPerScenario = 0 }},
		{"updates", func(c *Config) { c.Updates = 0 }},
		{"rollout_length", func(c *Config) { c.RolloutLength = 1 }},
		{"warmup_updates", func(c *Config) { c.WarmupUpdates = c.Updates + 1 }},
		{"warmup_length", func(c *Config) { c.WarmupLength = 0 }},
		{"max_steps", func(c *Config) { c.MaxSteps = 1 }},
		{"history", func(c *Config) { c.History = 0 }},
		{"lr", func(c *Config) { c.LR = 0 }},
		{"clip", func(c *Config) { c.Clip = -1 }},
		{"episode_us", func(c *Config) { c.EpisodeUs = 1 }},
		{"start_spread_us", func(c *Config) { c.StartSpreadUs = c.EpisodeUs }},
		{"eval_us", func(c *Config) { c.EvalUs = math.NaN() }},
		{"workers", func(c *Config) { c.Workers = -1 }},
		{"scenarios[0]", func(c *Config) { c.Scenarios = []Scenario{{Name: "x", Src: []int{1}, Dst: []int{1}}} }},
		{"loss", func(c *Config) { c.Loss.Gamma = 2 }},
		{"params", func(c *Config) { p := cc.ADPGDefaults(); p.Beta = -1; c.Params = p }},
	} {
		cfg := DefaultConfig()
		c.set(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: error %v, want one naming the field", c.field, err)
		}
	}
	if cfg := DefaultConfig(); cfg.Validate() != nil {
		t.Fatal(cfg.Validate())
	}
}

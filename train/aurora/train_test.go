package aurora

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/auroramodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

var rebuild = flag.Bool("rebuild", false, "retrain with the default configuration and compare with the shipped files in cc/auroramodel (minutes)")

// recorder is the deployed decider with a record of what it saw.
type recorder struct {
	*cc.AuroraPolicyDecider
	obs []float64
	act []float64
}

func (r *recorder) AuroraDecide(q *fabric.QP, m *cc.AuroraMI, obs []float64, now sim.Time) float64 {
	a := r.AuroraPolicyDecider.AuroraDecide(q, m, obs, now)
	r.obs = append(r.obs, obs...)
	r.act = append(r.act, a)
	return a
}

// TestTrainerObservationIsDeployed: the trainer's episode with the mean
// action (σ = 0) and the deployed `aurora` (cc.AuroraPolicyDecider over
// the same network) on the same setting see the same observations and take
// the same actions, bit for bit: the observation is one function
// (cc.AuroraObs), run by the same controller (cc.Aurora) in both.
func TestTrainerObservationIsDeployed(t *testing.T) {
	cfg := QuickConfig()
	l, err := newLearner(cfg, stream(7, streamInit, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	// a non-trivial policy: scale the output layer back up
	ps := l.pi.Params()
	for i := range ps[len(ps)-2].W {
		ps[len(ps)-2].W[i] *= 300
	}
	st := cfg.Draw(stream(7, streamScenario, 0, 0))
	st.Flows, st.InitRate, st.StartNs = 2, []float64{0.5, 0.9}, []float64{0, 3000}
	e, err := runEpisode(st, l.pi, 0, nil, cfg.Reward)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Parse([]byte(st.YAML()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := assemble.Build(s, "aurora", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]*recorder, st.Flows)
	b.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm {
		p := cc.AuroraDefaults()
		p.InitRate = st.InitRate[q.ID]
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		recs[q.ID] = &recorder{AuroraPolicyDecider: cc.NewAuroraPolicyDecider(l.pi)}
		return cc.NewAurora(p, recs[q.ID])
	})
	b.Net.Run()
	moved := 0
	for f := range st.Flows {
		tr, r := &e.flows[f], recs[f]
		n := len(tr.u)
		if n < 50 || len(r.act) != n+1 {
			t.Fatalf("flow %d: trainer %d rewarded steps, deployed %d decisions (want steps + 1)", f, n, len(r.act))
		}
		for k := range n {
			if math.Float64bits(tr.u[k]) != math.Float64bits(r.act[k]) {
				t.Fatalf("flow %d step %d: trainer action %v, deployed %v", f, k, tr.u[k], r.act[k])
			}
			if tr.u[k] != tr.u[0] {
				moved++
			}
		}
		for i, v := range tr.obs {
			if math.Float64bits(v) != math.Float64bits(r.obs[i]) {
				t.Fatalf("flow %d value %d: trainer %v, deployed %v", f, i, v, r.obs[i])
			}
		}
		if !slicesEqualBits(tr.next[:], r.obs[n*auroramodel.ObsDim:]) {
			t.Fatalf("flow %d: bootstrap observation differs from the deployed last one", f)
		}
	}
	if moved == 0 {
		t.Fatal("constant actions: the comparison is vacuous")
	}
}

func slicesEqualBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestQuickTraining: the quick configuration gives the same bytes with 1 and
// 2 workers, and the trained policy's mean action scores better on the
// fixed evaluation episodes (the training reward) than the untrained one.
func TestQuickTraining(t *testing.T) {
	t0 := time.Now()
	var files [2][2][]byte
	var logs [2]Log
	for i, w := range []int{1, 2} {
		cfg := QuickConfig()
		cfg.Workers = w
		res, err := Run(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if files[i][0], files[i][1], err = res.Files(); err != nil {
			t.Fatal(err)
		}
		logs[i] = res.Log
	}
	if !bytes.Equal(files[0][0], files[1][0]) || !bytes.Equal(files[0][1], files[1][1]) {
		t.Fatal("1 and 2 workers give different files")
	}
	lg := logs[0]
	t.Logf("quick training (×2): %v; %d steps; evaluation reward per step: untrained %.4f, trained %.4f",
		time.Since(t0).Round(time.Millisecond), lg.TotalSteps, lg.EvalBefore, lg.EvalAfter)
	if !(lg.EvalAfter > lg.EvalBefore) {
		t.Errorf("trained policy %.4f not better than the untrained %.4f", lg.EvalAfter, lg.EvalBefore)
	}
}

// TestShippedModel (with -rebuild) retrains with DefaultConfig and compares
// the bytes with cc/auroramodel's files. Without the flag it checks that
// the shipped policy decodes and that its log records the default
// configuration.
func TestShippedModel(t *testing.T) {
	if _, err := auroramodel.Shipped(); err != nil {
		t.Fatal(err)
	}
	if !*rebuild {
		t.Skip("retraining takes minutes: go test ./train/aurora -run TestShippedModel -rebuild")
	}
	cfg := DefaultConfig()
	cfg.Workers = 2
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	pol, lg, err := res.Files()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "cc", "auroramodel")
	for _, f := range []struct {
		name string
		got  []byte
	}{{auroramodel.PolicyFile, pol}, {auroramodel.LogFile, lg}} {
		want, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f.got, want) {
			t.Errorf("%s differs from the shipped file (%d vs %d bytes)", f.name, len(f.got), len(want))
		}
	}
}

// TestConfigErrors: every bad field is named with its range.
func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.Iterations = 0 }, "iterations = 0 out of range [1, 100000]"},
		{func(c *Config) { c.Envs = 2000 }, "envs = 2000 out of range [1, 1024]"},
		{func(c *Config) { c.Workers = -1 }, "workers = -1 out of range [0, 1024]"},
		{func(c *Config) { c.EpisodeMIs = 5 }, "episode_mis = 5 out of range [10, 100000]"},
		{func(c *Config) { c.MaxFlows = 0 }, "max_flows = 0 out of range [1, 64]"},
		{func(c *Config) { c.Epochs = 0 }, "epochs = 0 out of range [1, 1000]"},
		{func(c *Config) { c.MiniBatches = 0 }, "mini_batches = 0 out of range [1, 1024]"},
		{func(c *Config) { c.EvalEpisodes = 0 }, "eval_episodes = 0 out of range [1, 1024]"},
		{func(c *Config) { c.GbpsMin = 0 }, "gbps_min = 0 out of range [1, 1600]"},
		{func(c *Config) { c.GbpsMax = 50 }, "gbps_max = 50 out of range [100, 1600]"},
		{func(c *Config) { c.DelayNsMin = 1 }, "delay_ns_min = 1 out of range [10, 1e+06]"},
		{func(c *Config) { c.DelayNsMax = 100 }, "delay_ns_max = 100 out of range [500, 1e+06]"},
		{func(c *Config) { c.Gamma = 1.5 }, "gamma = 1.5 out of range [0, 1]"},
		{func(c *Config) { c.Lambda = -0.1 }, "lambda = -0.1 out of range [0, 1]"},
		{func(c *Config) { c.ClipEps = 1 }, "clip_eps = 1 out of range [0 (exclusive), 1 (exclusive)]"},
		{func(c *Config) { c.ClipEps = 0 }, "clip_eps = 0 out of range [0 (exclusive), 1 (exclusive)]"},
		{func(c *Config) { c.EntCoef = 11 }, "ent_coef = 11 out of range [0, 10]"},
		{func(c *Config) { c.LR = 0 }, "lr = 0 out of range [0 (exclusive), 1]"},
		{func(c *Config) { c.AdamEps = math.NaN() }, "adam_eps = NaN out of range [0 (exclusive), 1]"},
		{func(c *Config) { c.InitLogStd = 3 }, "init_log_std = 3 out of range [-20, 2]"},
		{func(c *Config) { c.Reward.RefPktRate = 0 }, "reward.ref_pkt_rate = 0 out of range [0 (exclusive), 1e+12]"},
		{func(c *Config) { c.Reward.RefRTT = -1 }, "reward.ref_rtt = -1 out of range [0 (exclusive), 1e+06]"},
	} {
		cfg := DefaultConfig()
		c.set(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
		if _, err := Run(cfg, nil); err == nil {
			t.Errorf("Run accepted a bad configuration (%q)", c.want)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	if err := QuickConfig().Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestDrawRanges: the drawn settings respect the ranges and the authors'
// queue distribution, and the same stream draws the same setting.
func TestDrawRanges(t *testing.T) {
	cfg := DefaultConfig()
	seen := map[int]bool{}
	for k := range 200 {
		s := cfg.Draw(stream(1, streamScenario, 0, uint64(k)))
		seen[s.Flows] = true
		if s.Flows < 1 || s.Flows > cfg.MaxFlows || s.Gbps < cfg.GbpsMin || s.Gbps > cfg.GbpsMax ||
			s.DelayNs < cfg.DelayNsMin || s.DelayNs > cfg.DelayNsMax {
			t.Fatalf("setting out of range: %+v", s)
		}
		pk := s.BufferMB * 1e6 / 1048
		if s.BufferMB < 0.065536 || pk > 1+math.Exp(8)+1e-9 {
			t.Fatalf("buffer %v MB (%.1f packets) outside [0.065536 MB, 1 + e^8 packets]", s.BufferMB, pk)
		}
		for i := range s.Flows {
			if s.InitRate[i] < 0.3*s.BnGbps/s.Gbps-1e-12 || s.InitRate[i] > 1 || s.StartNs[i] < 0 || s.StartNs[i] > s.StopNs/2 {
				t.Fatalf("flow %d: %+v", i, s)
			}
		}
		if s2 := cfg.Draw(stream(1, streamScenario, 0, uint64(k))); s2.YAML() != s.YAML() {
			t.Fatal("the same stream drew two settings")
		}
	}
	if len(seen) != cfg.MaxFlows {
		t.Errorf("flow counts drawn %v, want all of 1..%d", seen, cfg.MaxFlows)
	}
}

// TestInitialPolicyNearZero: the untrained mean action is within 0.05 of 0
// on the empty history (stable-baselines' 0.01 output scale).
func TestInitialPolicyNearZero(t *testing.T) {
	l, err := newLearner(DefaultConfig(), stream(1, streamInit, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var o cc.AuroraObs
	o.Reset()
	y, err := l.pi.Forward(l.pi.NewWorkspace(1), o.Vector(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(y[0]) > 0.05 {
		t.Errorf("untrained mean action %v, want |a| ≤ 0.05", y[0])
	}
}

package rl

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ccsim/ccsim/ml/nn"
)

func TestGAEExactValues(t *testing.T) {
	adv, ret := make([]float64, 3), make([]float64, 3)
	// terminal at the end: hand computation in docs/rl.md §6.1
	if err := GAE([]float64{1, 2, 3}, []float64{0.5, 1, 1.5}, []float64{1, 1.5, 2},
		[]bool{false, false, true}, []bool{false, false, true}, 0.5, 0.5, adv, ret); err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{1.53125, 2.125, 1.5} {
		if adv[i] != want || ret[i] != want+[]float64{0.5, 1, 1.5}[i] {
			t.Fatalf("adv %v ret %v, want adv (1.53125, 2.125, 1.5)", adv, ret)
		}
	}
	// a time limit at step 1 bootstraps from its next value 10 and stops the sum
	adv, ret = make([]float64, 4), make([]float64, 4)
	GAE(make([]float64, 4), make([]float64, 4), []float64{0, 10, 0, 0},
		make([]bool, 4), []bool{false, true, false, true}, 0.5, 1, adv, ret)
	for i, want := range []float64{2.5, 5, 0, 0} {
		if adv[i] != want {
			t.Fatalf("adv %v, want (2.5, 5, 0, 0)", adv)
		}
	}
	// γ = λ = 1 with zero values: the Monte-Carlo return of each episode
	GAE([]float64{1, 2, 3, 4}, make([]float64, 4), make([]float64, 4),
		[]bool{false, true, false, true}, []bool{false, true, false, true}, 1, 1, adv, ret)
	for i, want := range []float64{3, 2, 7, 4} {
		if ret[i] != want {
			t.Fatalf("ret %v, want (3, 2, 7, 4)", ret)
		}
	}
	if err := GAE([]float64{1}, []float64{1}, []float64{1}, []bool{true}, []bool{true}, 1.5, 1, adv[:1], ret[:1]); err == nil || !strings.Contains(err.Error(), "gamma = 1.5") {
		t.Errorf("gamma 1.5: %v", err)
	}
	if err := GAE([]float64{1}, []float64{1}, nil, []bool{true}, []bool{true}, 1, 1, adv[:1], ret[:1]); err == nil {
		t.Error("short next_val accepted")
	}
}

func TestPPOClipLoss(t *testing.T) {
	const eps = 0.2
	for _, c := range []struct {
		rho, adv  float64
		loss, dlp float64
	}{
		{1.5, 2, -1.2 * 2, 0},        // A > 0, ratio above 1+ε: clipped, no gradient
		{0.5, 2, -0.5 * 2, -0.5 * 2}, // A > 0, ratio below 1−ε: the unclipped term is smaller
		{0.5, -2, 0.8 * 2, 0},        // A < 0, ratio below 1−ε: clipped
		{1.5, -2, 1.5 * 2, 1.5 * 2},  // A < 0, ratio above 1+ε: unclipped
		{1.1, 3, -1.1 * 3, -1.1 * 3}, // inside: unclipped
	} {
		l, d := PPOClipLoss(math.Log(c.rho), 0, c.adv, eps)
		if math.Abs(l-c.loss) > 1e-12 || math.Abs(d-c.dlp) > 1e-12 {
			t.Errorf("ρ %v A %v: loss %v dlogp %v, want %v and %v", c.rho, c.adv, l, d, c.loss, c.dlp)
		}
		x := []float64{math.Log(c.rho)}
		gradCheck(t, "ppo clip loss", func() float64 { l, _ := PPOClipLoss(x[0], 0, c.adv, eps); return l }, x, []float64{d})
	}
}

func smallPPO(t *testing.T, cfg PPOConfig, seed uint64) *PPO {
	t.Helper()
	p, err := NewPPO(cfg, 1, 1, smoothNet(t, 1, 16, 1, false), smoothNet(t, 1, 16, 1, false), nn.NewRand(seed))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPPOLossGradient(t *testing.T) {
	cfg := DefaultPPO()
	cfg.Horizon, cfg.MiniBatch, cfg.Epochs = 64, 16, 1
	cfg.Action = Squash{-0.5, 0.5}
	cfg.Opt.LR = 0.05 // a large step so that some ratios leave [1−ε, 1+ε]
	p := smallPPO(t, cfg, 1)
	if err := p.Collect(&pointEnv{}, 10, nn.NewRand(2)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Update(); err != nil {
		t.Fatal(err)
	}
	mb := p.idx[:16]
	for _, q := range p.opt.Params() {
		clear(q.G)
	}
	st, err := p.grad(mb)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("clip fraction of the checked minibatch %.2f", st.ClipFraction)
	if st.ClipFraction == 0 {
		t.Fatal("no clipped sample: the check does not cover the clipped branch")
	}
	var gs [][]float64
	for _, q := range p.opt.Params() {
		gs = append(gs, append([]float64(nil), q.G...))
	}
	for k, q := range p.opt.Params() {
		gradCheck(t, "ppo loss "+q.Name, func() float64 { return p.lossValue(mb) }, q.W, gs[k])
	}
}

func TestPPOReachesPointOptimum(t *testing.T) {
	start := time.Now()
	cfg := DefaultPPO()
	cfg.Horizon, cfg.MiniBatch, cfg.Epochs, cfg.Gamma = 1000, 100, 10, 0.9
	cfg.Action = Squash{-0.5, 0.5}
	cfg.InitLogStd = math.Log(0.3) // Aurora's learning rate 0.001 (DefaultPPO)
	p := smallPPO(t, cfg, 3)
	const T = 10
	before, _ := Evaluate(Single(&pointEnv{}), p, 1, 100, T, nn.NewRand(99))
	r := nn.NewRand(4)
	for range 15 {
		if err := p.Collect(&pointEnv{}, T, r); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Update(); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := Evaluate(Single(&pointEnv{}), p, 1, 100, T, nn.NewRand(99))
	opt := pointOptimum(100, T, 99)
	t.Logf("PPO point: return %.4f before, %.4f after (optimum %.4f, %.1f %%), std %.3f, %v", before, got, opt, 100*got/opt, math.Exp(p.LogStd()[0]), time.Since(start))
	if got < 0.95*opt {
		t.Fatalf("PPO reached %.4f, below 95 %% of the optimum %.4f", got, opt)
	}
}

func TestPPOConfigErrors(t *testing.T) {
	for _, c := range []struct {
		mod  func(*PPOConfig)
		want string
	}{
		{func(c *PPOConfig) { c.Gamma = -0.1 }, "gamma = -0.1"},
		{func(c *PPOConfig) { c.Lambda = 2 }, "lambda = 2"},
		{func(c *PPOConfig) { c.ClipEps = 0 }, "clip_eps = 0"},
		{func(c *PPOConfig) { c.EntCoef = math.NaN() }, "ent_coef = NaN"},
		{func(c *PPOConfig) { c.Epochs = 0 }, "epochs = 0"},
		{func(c *PPOConfig) { c.MiniBatch = 9000 }, "mini_batch = 9000"},
		{func(c *PPOConfig) { c.Horizon = 0 }, "horizon = 0"},
		{func(c *PPOConfig) { c.Opt.Eps = 0 }, "optimiser"},
	} {
		cfg := DefaultPPO()
		c.mod(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
	if _, err := NewPPO(DefaultPPO(), 3, 1, smoothNet(t, 2, 4, 1, false), smoothNet(t, 3, 4, 1, false), nn.NewRand(1)); err == nil || !strings.Contains(err.Error(), "policy maps 2 inputs") {
		t.Errorf("bad policy: %v", err)
	}
}

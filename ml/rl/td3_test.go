package rl

import (
	"testing"
	"time"

	"github.com/ccsim/ccsim/ml/nn"
)

func toyTD3Config() TD3Config {
	c := DefaultTD3()
	c.History, c.BatchSize, c.Gamma, c.Tau = 1, 32, 0.9, 0.05
	c.Actor.LR, c.Critic.LR = 3e-3, 3e-3
	return c
}

func TestTD3ReachesPointOptimum(t *testing.T) {
	start := time.Now()
	cfg := toyTD3Config()
	m, err := NewTD3(cfg, 1, 1, mlp(t, 1, []int{32, 32}, 1), mlp(t, 2, []int{32, 32}, 1), nn.NewRand(1))
	if err != nil {
		t.Fatal(err)
	}
	const T = 10
	before, _ := Evaluate(Single(&pointEnv{}), m, 1, 100, T, nn.NewRand(99))
	trainOffPolicy(t, Single(&pointEnv{}), m, T, 300, 1500, 2)
	got, err := Evaluate(Single(&pointEnv{}), m, 1, 100, T, nn.NewRand(99))
	if err != nil {
		t.Fatal(err)
	}
	opt := pointOptimum(100, T, 99)
	t.Logf("TD3 point: return %.4f before, %.4f after (optimum %.4f, %.1f %%), %v", before, got, opt, 100*got/opt, time.Since(start))
	if got < 0.95*opt {
		t.Fatalf("TD3 reached %.4f, below 95 %% of the optimum %.4f", got, opt)
	}
}

// TestTD3WithHistoryLSTM runs the sequence path end to end: windows of 3
// observations from the replay buffer (padded at episode starts), an LSTM
// actor stepped over them, a critic over the flattened window.
func TestTD3WithHistoryLSTM(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s; the gradient checks cover the sequence path in -short")
	}
	start := time.Now()
	cfg := toyTD3Config()
	cfg.History = 3
	lstm, _ := nn.NewLSTM(1, 16, false)
	d1, _ := nn.NewDense(16, 16, nn.KaimingUniform)
	a1, _ := nn.NewActivation(nn.ReLU, 16)
	d2, _ := nn.NewDense(16, 1, nn.XavierUniform)
	actor, err := nn.NewSequential(lstm, d1, a1, d2)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewTD3(cfg, 1, 1, actor, mlp(t, 4, []int{32, 32}, 1), nn.NewRand(1))
	if err != nil {
		t.Fatal(err)
	}
	const T = 10
	trainOffPolicy(t, Single(&pointEnv{}), m, T, 300, 1500, 2)
	got, err := Evaluate(Single(&pointEnv{}), m, cfg.History, 100, T, nn.NewRand(99))
	if err != nil {
		t.Fatal(err)
	}
	opt := pointOptimum(100, T, 99)
	t.Logf("TD3 point, history 3, LSTM actor: return %.4f (optimum %.4f, %.1f %%), %v", got, opt, 100*got/opt, time.Since(start))
	if got < 0.95*opt {
		t.Fatalf("reached %.4f, below 95 %% of the optimum %.4f", got, opt)
	}
}

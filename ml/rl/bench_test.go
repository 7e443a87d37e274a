package rl

import (
	"math/rand/v2"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

// deccActor is decc.md §1.7's actor with the continuous head: dense
// 5→128→64→32 (ReLU), LSTM 32→32 (last step), dense 32→16 (ReLU) → 1,
// stepped over the history of 5 local states.
func deccActor(b testing.TB) *nn.Sequential {
	d := func(in, out int, init nn.DenseInit) nn.Layer {
		l, err := nn.NewDense(in, out, init)
		if err != nil {
			b.Fatal(err)
		}
		return l
	}
	relu := func(n int) nn.Layer { a, _ := nn.NewActivation(nn.ReLU, n); return a }
	lstm, _ := nn.NewLSTM(32, 32, false)
	m, err := nn.NewSequential(d(5, 128, nn.KaimingUniform), relu(128), d(128, 64, nn.KaimingUniform), relu(64),
		d(64, 32, nn.KaimingUniform), relu(32), lstm, d(32, 16, nn.KaimingUniform), relu(16), d(16, 1, nn.XavierUniform))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// deccCritic is the critic with the same dense widths over the flattened
// history-5 window and the action: 26→128→64→32→16 (ReLU) → 1 (docs/rl.md
// §5.3: the window replaces the LSTM).
func deccCritic(b testing.TB) *nn.Sequential { return mlp(b, 5*5+1, []int{128, 64, 32, 16}, 1) }

func benchUpdate(b *testing.B, delay int) {
	cfg := DefaultTD3() // batch 192, history 5
	cfg.PolicyDelay = delay
	m, err := NewTD3(cfg, 5, 1, deccActor(b), deccCritic(b), nn.NewRand(1))
	if err != nil {
		b.Fatal(err)
	}
	buf := randomReplay(b, m, 5000, 2)
	if _, err := m.Update(buf); err != nil { // sizes the workspaces
		b.Fatal(err)
	}
	b.ReportAllocs()
	f0 := actorForwardCPU(b, m)
	c0 := processCPU()
	for b.Loop() {
		if _, err := m.Update(buf); err != nil {
			b.Fatal(err)
		}
	}
	if c := processCPU() - c0; c > 0 {
		per := float64(c) / float64(b.N)
		b.ReportMetric(per, "cpu-ns/op")
		// the same update in units of one actor forward measured around it:
		// a figure the machine's load affects much less than ns/op
		if f := (f0 + actorForwardCPU(b, m)) / 2; f > 0 {
			b.ReportMetric(per/f, "actor-fwd/op")
		}
	}
}

// actorForwardCPU returns the CPU time of one forward of m's first actor
// over a 5-step window (the mean of 400), outside the benchmark's timer.
func actorForwardCPU(b *testing.B, m *MADDPG) float64 {
	b.StopTimer()
	defer b.StartTimer()
	ws := m.actors[0].NewWorkspace(m.actorSteps)
	x := make([]float64, m.cfg.History*m.actObs)
	for i := range x {
		x[i] = float64(i) / float64(len(x))
	}
	const n = 400
	c0 := processCPU()
	for range n {
		if _, err := m.actors[0].Forward(ws, x, m.actorSteps); err != nil {
			b.Fatal(err)
		}
	}
	return float64(processCPU()-c0) / n
}

// BenchmarkTD3UpdateDECC is one learner update at DECC's sizes (batch 192,
// 5-step sequences, actor with LSTM, twin critics, targets) with TD3's
// policy delay 2: the mean of a critic-only step and a full step.
func BenchmarkTD3UpdateDECC(b *testing.B) { benchUpdate(b, 2) }

// BenchmarkTD3UpdateDECCFull is the same with an actor and target update at
// every step (policy delay 1): the cost of a full step.
func BenchmarkTD3UpdateDECCFull(b *testing.B) { benchUpdate(b, 1) }

// noiseEnv has obs observations that follow a cheap deterministic map, a
// reward of −(a−0.1)² and no terminal state: a stand-in for the simulator
// when only the learner's cost is measured.
type noiseEnv struct {
	obs int
	x   float64
}

func (e *noiseEnv) ObsDim() int { return e.obs }
func (e *noiseEnv) ActDim() int { return 1 }
func (e *noiseEnv) Reset(r *rand.Rand, obs []float64) error {
	e.x = r.Float64()
	return e.fill(obs)
}
func (e *noiseEnv) fill(obs []float64) error {
	for i := range obs {
		e.x = 3.9 * e.x * (1 - e.x) // logistic map: bounded, no allocation
		obs[i] = e.x
	}
	return nil
}
func (e *noiseEnv) Step(act, next []float64) (float64, bool, error) {
	d := act[0] - 0.1
	return -d * d, false, e.fill(next)
}

// aurora returns Aurora's network shape: 30 inputs (10 intervals × 3
// features), dense 32 → 16 with tanh, a linear head of out values.
func aurora(b testing.TB, out int) *nn.Sequential {
	d1, _ := nn.NewDense(30, 32, nn.XavierUniform)
	a1, _ := nn.NewActivation(nn.Tanh, 32)
	d2, _ := nn.NewDense(32, 16, nn.XavierUniform)
	a2, _ := nn.NewActivation(nn.Tanh, 16)
	d3, _ := nn.NewDense(16, out, nn.XavierUniform)
	m, err := nn.NewSequential(d1, a1, d2, a2, d3)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkPPOAurora is one PPO iteration at Aurora's defaults
// (DefaultPPO: a rollout of 8192 steps, then 4 epochs of minibatches of
// 2048) with Aurora's networks, the environment a stand-in.
func BenchmarkPPOAurora(b *testing.B) {
	p, err := NewPPO(DefaultPPO(), 30, 1, aurora(b, 1), aurora(b, 1), nn.NewRand(1))
	if err != nil {
		b.Fatal(err)
	}
	env, r := &noiseEnv{obs: 30}, nn.NewRand(2)
	b.ReportAllocs()
	c0 := processCPU()
	for b.Loop() {
		if err := p.Collect(env, 400, r); err != nil {
			b.Fatal(err)
		}
		if _, err := p.Update(); err != nil {
			b.Fatal(err)
		}
	}
	if c := processCPU() - c0; c > 0 {
		b.ReportMetric(float64(c)/float64(b.N), "cpu-ns/op")
	}
}

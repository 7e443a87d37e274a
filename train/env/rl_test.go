package env

import (
	"math"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/ml/rl"
)

func mlp(t testing.TB, in int, hidden []int, out int) *nn.Sequential {
	t.Helper()
	var ls []nn.Layer
	w := in
	for _, h := range hidden {
		d, _ := nn.NewDense(w, h, nn.KaimingUniform)
		a, _ := nn.NewActivation(nn.ReLU, h)
		ls = append(ls, d, a)
		w = h
	}
	d, _ := nn.NewDense(w, out, nn.XavierUniform)
	m, err := nn.NewSequential(append(ls, d)...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// End to end with ml/rl: a TD3 learner's actor (DECC's local features,
// history 2, flattened) frozen into one NetPolicy per environment acts in
// two parallel environments with per-environment noise; greedy, the
// NetPolicy acts as rl.MADDPG.Act, bit for bit; the merged transitions
// fill a replay buffer (one stream per flow and environment) from which
// the learner takes gradient steps; the learner as an rl.Actor policy
// (ActorPolicy) gives the transitions of its frozen copy.
func TestTD3OverEnvironments(t *testing.T) {
	cfg := rl.DefaultTD3()
	cfg.History, cfg.BatchSize, cfg.ActorObs = 2, 16, 5
	m, err := rl.NewTD3(cfg, NumLocal, ActDim, mlp(t, 2*5, []int{16}, 1), mlp(t, 2*NumLocal+1, []int{16}, 1), nn.NewRand(1))
	if err != nil {
		t.Fatal(err)
	}
	s := mustScenario(t, starYAML(4, 8, 100, 10_000_000, 40, ""))
	e := mustEnv(t, Config{Scenario: s, Seed: 1, History: 2, Reward: DECCReward()})
	b, err := e.Run(2, 2, func(k int) (Policy, error) {
		p, err := NewNetPolicy(m.Actor(0).Clone(), cfg.Action, 2, NumLocal, 5)
		if err == nil {
			p.Noise, p.NoiseStd = nn.NewRand(uint64(100+k)), 0.05
		}
		return p, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if b.T.Len() < 100 {
		t.Fatalf("%d transitions", b.T.Len())
	}
	greedy, err := NewNetPolicy(m.Actor(0).Clone(), cfg.Action, 2, NumLocal, 5)
	if err != nil {
		t.Fatal(err)
	}
	win := make([]float64, 2*NumLocal)
	got, want := make([]float64, 1), make([]float64, 1)
	for i := 0; i+1 < b.T.Len(); i += 17 {
		copy(win, b.T.Obs[i*NumLocal:(i+2)*NumLocal]) // any two observations
		if err := greedy.Act(0, win, got); err != nil {
			t.Fatal(err)
		}
		if err := m.Act(0, win, nil, want); err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(got[0]) != math.Float64bits(want[0]) {
			t.Fatalf("window %d: net policy %v, learner %v", i, got[0], want[0])
		}
	}
	buf, err := rl.NewReplay(m.ReplayConfig(1 << 14))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.T.AddTo(buf, b.Episodes[0].Flows); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if _, err := m.Update(buf); err != nil {
			t.Fatal(err)
		}
	}
	// the learner itself as the policy (rl.Actor, greedy) acts as its
	// frozen copy
	e1 := mustEnv(t, Config{Scenario: s, Seed: 1, History: 2})
	viaActor, err := e1.Episode(0, ActorPolicy{Actor: m, Agent: 0})
	if err != nil {
		t.Fatal(err)
	}
	np, _ := NewNetPolicy(m.Actor(0).Clone(), cfg.Action, 2, NumLocal, 5)
	viaNet, err := e1.Episode(0, np)
	if err != nil {
		t.Fatal(err)
	}
	sameTransitions(t, &viaActor.T, &viaNet.T)
	if _, err := NewNetPolicy(m.Actor(0), cfg.Action, 3, NumLocal, 5); err == nil {
		t.Error("an actor of input 10 accepted for windows of 3 × 5")
	}
}

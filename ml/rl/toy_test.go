package rl

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

// Toy tasks with known optima for the learners' tests.

// pointEnv: a point on a line starts at x0 ~ U(−1, 1) and must reach 0; the
// action a ∈ [−0.5, 0.5] moves it (x ← clamp(x + a, −2, 2)); the reward
// after each step is 1 − |x|. The optimal policy moves toward 0 at full
// speed: from x0 its return over T steps is Σ_{t=1..T} 1 − max(0, |x0| − t/2)
// (pointOptimum), whatever the discount.
type pointEnv struct{ x float64 }

func (*pointEnv) ObsDim() int { return 1 }
func (*pointEnv) ActDim() int { return 1 }
func (e *pointEnv) Reset(r *rand.Rand, obs []float64) error {
	e.x = 2*r.Float64() - 1
	obs[0] = e.x
	return nil
}
func (e *pointEnv) Step(act, next []float64) (float64, bool, error) {
	e.x = min(2, max(-2, e.x+act[0]))
	next[0] = e.x
	return 1 - math.Abs(e.x), false, nil
}

// pointOptimum returns the mean optimal return of episodes of T steps whose
// starts are drawn as pointEnv.Reset draws them from a source seeded seed.
func pointOptimum(episodes, T int, seed uint64) float64 {
	r := nn.NewRand(seed)
	total := 0.0
	for range episodes {
		x0 := math.Abs(2*r.Float64() - 1)
		for t := 1; t <= T; t++ {
			total += 1 - max(0, x0-0.5*float64(t))
		}
	}
	return total / float64(episodes)
}

// coopEnv: two agents see the same context s ~ U(−1, 1) (agent 1 sees −s
// if flip) and share the reward 1 − |a0 + a1 − 0.9s| − |a0 − a1| of one step. The
// joint optimum a0 = a1 = 0.45s gives 1; acting alone cannot reach it (each
// term needs both agents).
type coopEnv struct {
	s    float64
	flip bool
}

func (e *coopEnv) obs(o []float64) {
	o[0], o[1] = e.s, e.s
	if e.flip {
		o[1] = -e.s
	}
}

func (*coopEnv) Agents() int { return 2 }
func (*coopEnv) ObsDim() int { return 1 }
func (*coopEnv) ActDim() int { return 1 }
func (e *coopEnv) Reset(r *rand.Rand, obs []float64) error {
	e.s = 2*r.Float64() - 1
	e.obs(obs)
	return nil
}
func (e *coopEnv) Step(act, next, rew []float64) (bool, error) {
	r := 1 - math.Abs(act[0]+act[1]-0.9*e.s) - math.Abs(act[0]-act[1])
	rew[0], rew[1] = r, r
	e.obs(next)
	return true, nil
}

// mlp returns in → hidden… → out with ReLU between the dense layers.
func mlp(t testing.TB, in int, hidden []int, out int) *nn.Sequential {
	t.Helper()
	var ls []nn.Layer
	w := in
	for _, h := range hidden {
		d, err := nn.NewDense(w, h, nn.KaimingUniform)
		if err != nil {
			t.Fatal(err)
		}
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

// trainOffPolicy explores warm steps, then alternates one environment step
// and one gradient step for steps steps.
func trainOffPolicy(t *testing.T, env MultiEnv, m *MADDPG, maxSteps, warm, steps int, seed uint64) {
	t.Helper()
	buf, err := NewReplay(m.ReplayConfig(100000))
	if err != nil {
		t.Fatal(err)
	}
	x, err := NewExplorer(env, m, maxSteps, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := nn.NewRand(seed)
	if err := x.Run(buf, warm, r); err != nil {
		t.Fatal(err)
	}
	for range steps {
		if err := x.Run(buf, 1, r); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Update(buf); err != nil {
			t.Fatal(err)
		}
	}
}

package decc

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/ml/nn"
)

// banditReplay is n one-step transitions (done) with random windows and
// critic inputs and uniform actions rewarded −(a − target(window))².
func banditReplay(n int, target func(w []float64) float64, r *rand.Rand) *Replay {
	buf := NewReplay(n)
	var s Samples
	for range n {
		w := make([]float64, WinDim)
		for k := range w {
			w[k] = 2 * r.Float64()
		}
		gs := make([]float64, CriticDim)
		for k := range gs {
			gs[k] = r.Float64()
		}
		copy(gs[CriticDim-deccmodel.Features:], w[WinDim-deccmodel.Features:]) // s: the window's latest step
		a := r.Float64() - 0.5
		d := a - target(w)
		s.Win, s.NextWin = append(s.Win, w...), append(s.NextWin, w...)
		s.GS, s.NextGS = append(s.GS, gs...), append(s.NextGS, gs...)
		s.Act = append(s.Act, a)
		s.Rew, s.Done = append(s.Rew, -d*d), append(s.Done, true)
	}
	buf.Add(&s)
	return buf
}

func paramsOf(m *nn.Sequential) []float64 {
	var w []float64
	for _, p := range m.Params() {
		w = append(w, p.W...)
	}
	return w
}

// TestTD3Bandit: on one-step transitions rewarded −(a − a*)² with a* =
// 0.3·(lat − 1), lat ∈ [0, 2) the window's latest latency feature, the
// deterministic gradient through the critics moves the actor's action to
// a* (mean error ≤ 0.05, largest ≤ 0.2 over held-out windows, where the
// best constant action, 0, errs by 0.15 on average; measured 0.038 and
// 0.135; an actor that ignored the
// critic's action gradient, or followed it with the wrong sign, stays near
// its initial action or runs to a bound).
func TestTD3Bandit(t *testing.T) {
	target := func(w []float64) float64 { return 0.3 * (w[WinDim-deccmodel.Features+1] - 1) }
	cfg := QuickConfig()
	cfg.Actor, cfg.Batch, cfg.ActorLR, cfg.CriticLR = "continuous", 32, 0.003, 0.005
	l, err := NewTD3Learner(&cfg, nn.NewRand(3))
	if err != nil {
		t.Fatal(err)
	}
	buf := banditReplay(4000, target, rand.New(rand.NewPCG(1, 2)))
	for range 1500 {
		if _, err := l.Step(buf, false); err != nil {
			t.Fatal(err)
		}
	}
	test := banditReplay(400, target, rand.New(rand.NewPCG(3, 4)))
	ws := l.Actor.NewWorkspace(deccmodel.History)
	worst, mean := 0.0, 0.0
	for i := range test.Len() {
		w := test.S.Win[i*WinDim : (i+1)*WinDim]
		a, err := act(l.Actor, ws, w)
		if err != nil {
			t.Fatal(err)
		}
		worst = max(worst, math.Abs(a-target(w)))
		mean += math.Abs(a-target(w)) / float64(test.Len())
	}
	t.Logf("after %d updates: |a − a*| mean %.4f, largest %.4f over %d windows", l.Updates, mean, worst, test.Len())
	if mean > 0.05 || worst > 0.2 {
		t.Errorf("|a − a*| mean %.4f, largest %.4f: want ≤ 0.05 and ≤ 0.2", mean, worst)
	}
}

// TestTD3Step: the TD target is r + γ·min of the two target critics at
// the target actor's next action (no smoothing noise: exact); the actor
// and the three targets move only at every policy_delay-th update and
// never while training the critics only; both critics move at every one.
func TestTD3Step(t *testing.T) {
	cfg := QuickConfig()
	cfg.Actor, cfg.Batch, cfg.PolicyNoise, cfg.PolicyDelay = "continuous", 1, 0, 2
	l, err := NewTD3Learner(&cfg, nn.NewRand(5))
	if err != nil {
		t.Fatal(err)
	}
	buf := banditReplay(1, func([]float64) float64 { return 0 }, rand.New(rand.NewPCG(5, 6)))
	buf.S.Done[0], buf.S.Rew[0] = false, 0.05
	for k := range buf.S.NextGS {
		buf.S.NextGS[k] += 0.5 // next state differs from this one
	}
	wantY := func() float64 {
		s := &buf.S
		at := l.ActorTarget.Clone()
		a, err := act(at, at.NewWorkspace(deccmodel.History), s.NextWin)
		if err != nil {
			t.Fatal(err)
		}
		x := append(slices.Clone(s.NextGS), a)
		c1, c2 := l.CriticsTgt[0].Clone(), l.CriticsTgt[1].Clone()
		q1, _ := c1.Forward(c1.NewWorkspace(1), x, 1)
		v1 := q1[0]
		q2, _ := c2.Forward(c2.NewWorkspace(1), x, 1)
		return 0.05 + cfg.Gamma*min(v1, q2[0])
	}
	type snap struct{ actor, actorT, c1, c2, c1T, c2T []float64 }
	take := func() snap {
		return snap{paramsOf(l.Actor), paramsOf(l.ActorTarget), paramsOf(l.Critics[0]), paramsOf(l.Critics[1]),
			paramsOf(l.CriticsTgt[0]), paramsOf(l.CriticsTgt[1])}
	}
	for i, c := range []struct {
		criticOnly, actorMoves bool
	}{{true, false}, {true, false}, {false, false}, {false, true}, {false, false}, {false, true}} {
		y := wantY()
		before := take()
		if _, err := l.Step(buf, c.criticOnly); err != nil {
			t.Fatal(err)
		}
		after := take()
		if l.y[0] != y {
			t.Errorf("update %d: target %v, want r + γ·min(Q1', Q2') = %v", i+1, l.y[0], y)
		}
		if slices.Equal(before.c1, after.c1) || slices.Equal(before.c2, after.c2) {
			t.Errorf("update %d: a critic did not move", i+1)
		}
		for name, p := range map[string][2][]float64{"actor": {before.actor, after.actor}, "target actor": {before.actorT, after.actorT},
			"target critic 1": {before.c1T, after.c1T}, "target critic 2": {before.c2T, after.c2T}} {
			if moved := !slices.Equal(p[0], p[1]); moved != c.actorMoves {
				t.Errorf("update %d (critic only %v): %s moved %v, want %v", i+1, c.criticOnly, name, moved, c.actorMoves)
			}
		}
	}
}

// TestQuickContinuous: the quick configuration with the continuous actor
// trains, gives the same teacher bytes with 1 and 2 workers, and its file
// decodes as the continuous shape with the option in its meta text.
func TestQuickContinuous(t *testing.T) {
	var files [2][]byte
	for w := range 2 {
		cfg := QuickConfig()
		cfg.Actor, cfg.Workers = "continuous", w+1
		res, err := Run(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if files[w], err = res.Teacher(); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(files[0], files[1]) {
		t.Errorf("1 and 2 workers differ")
	}
	m, meta, err := deccmodel.DecodeActor(files[0])
	if err != nil || !deccmodel.IsContinuous(m) {
		t.Fatalf("decode: continuous %v, %v", err == nil && deccmodel.IsContinuous(m), err)
	}
	if !strings.Contains(meta, deccmodel.ContinuousShape) || !strings.Contains(meta, "trained TD3-style: policy delay 2") {
		t.Errorf("meta %q: want the continuous shape and the TD3 settings", meta)
	}
}

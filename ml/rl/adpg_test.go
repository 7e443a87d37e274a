package rl

import (
	"math"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

// adpgNaive is the loss written as the authors' code spells it (a mean of
// discounted terms per step, a double loop over action pairs), O(B²).
func adpgNaive(cfg ADPGConfig, a, r []float64, agents int) (float64, float64) {
	b := len(a)
	rl, al := 0.0, 0.0
	for i := range b {
		s := 0.0
		for k := i; k < b; k++ {
			if cfg.Gamma > 0 && cfg.Gamma < 1 {
				s += r[k] * math.Pow(cfg.Gamma, float64(k-i))
			} else {
				s += r[k]
			}
		}
		rl += a[i] * s / float64(b-i)
		if i < b-1 {
			d := 0.0
			for j := i + 1; j < b; j++ {
				d += cfg.ActionCoef * 0.5 * (a[i] - a[j]) * (a[i] - a[j])
			}
			al += d / float64(b-i)
		}
	}
	return cfg.LossScale * rl / float64(b) / float64(agents), al / float64(b) / float64(agents)
}

func TestADPGLossValuesAndGradient(t *testing.T) {
	r := nn.NewRand(8)
	for _, c := range []struct {
		cfg    ADPGConfig
		b, agt int
	}{
		{DefaultADPG(), 12, 3},
		{ADPGConfig{Gamma: 1, LossScale: -1.5, ActionCoef: 0.7}, 9, 1}, // γ = 1: plain mean
		{ADPGConfig{Gamma: 0, LossScale: 2, ActionCoef: 2}, 5, 2},      // γ = 0: plain mean too (as the authors' test 0 < γ < 1)
		{DefaultADPG(), 1, 1},
	} {
		a, rw := randVec(r, c.b, 0.9), randVec(r, c.b, 1)
		dA := make([]float64, c.b)
		rl, al, err := ADPGLoss(c.cfg, a, rw, c.agt, dA)
		if err != nil {
			t.Fatal(err)
		}
		wr, wa := adpgNaive(c.cfg, a, rw, c.agt)
		if math.Abs(rl-wr) > 1e-13 || math.Abs(al-wa) > 1e-13 {
			t.Fatalf("%+v B %d: losses %v, %v; naive %v, %v", c.cfg, c.b, rl, al, wr, wa)
		}
		scratch := make([]float64, c.b)
		gradCheck(t, "adpg loss", func() float64 {
			x, y, _ := ADPGLoss(c.cfg, a, rw, c.agt, scratch)
			return x + y
		}, a, dA)
	}
	// a hand example: B = 2, γ = 0.5, scale 1, coefficient 1, one agent,
	// a = (1, 0), r = (2, 4): R = ((2 + 0.5·4)/2, 4) = (2, 4);
	// reward loss = (1·2 + 0·4)/2 = 1; action loss = (½·(1−0)²/2)/2 = 0.125
	dA := make([]float64, 2)
	rl, al, _ := ADPGLoss(ADPGConfig{Gamma: 0.5, LossScale: 1, ActionCoef: 1}, []float64{1, 0}, []float64{2, 4}, 1, dA)
	if rl != 1 || al != 0.125 {
		t.Fatalf("hand example: %v, %v, want 1 and 0.125", rl, al)
	}
	// dA = R/B + action part: a_0: (1·1 − 0)/2/2 = 0.25; a_1: (0·½ − ½)/2 = −0.25
	if dA[0] != 1+0.25 || dA[1] != 2-0.25 {
		t.Fatalf("hand example gradient %v, want (1.25, 1.75)", dA)
	}
}

func TestADPGErrors(t *testing.T) {
	d := make([]float64, 2)
	for _, c := range []struct {
		cfg  ADPGConfig
		a, r []float64
		n    int
		want string
	}{
		{ADPGConfig{Gamma: 1.5, LossScale: 1}, []float64{0, 0}, []float64{0, 0}, 1, "gamma = 1.5"},
		{ADPGConfig{Gamma: 0.5, LossScale: math.Inf(1)}, []float64{0, 0}, []float64{0, 0}, 1, "loss_scale = +Inf"},
		{ADPGConfig{Gamma: 0.5, ActionCoef: -1}, []float64{0, 0}, []float64{0, 0}, 1, "action_coef = -1"},
		{DefaultADPG(), []float64{0, 0}, []float64{0}, 1, "len(rewards) = 1"},
		{DefaultADPG(), []float64{0, 0}, []float64{0, 0}, 0, "agents = 0"},
	} {
		if _, _, err := ADPGLoss(c.cfg, c.a, c.r, c.n, d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
}

func TestADPGTrainerGradient(t *testing.T) {
	model := smoothNet(t, 2, 5, 1, false)
	r := nn.NewRand(3)
	for _, p := range model.Params() {
		copy(p.W, randVec(r, len(p.W), 0.8))
	}
	opt, _ := nn.NewAdam(model.Params(), DefaultADPGAdam())
	p, err := NewADPG(DefaultADPG(), model, opt)
	if err != nil {
		t.Fatal(err)
	}
	var rs []ADPGRollout
	for _, b := range []int{4, 5, 2} {
		rs = append(rs, ADPGRollout{States: randVec(r, 2*b, 1), Rewards: randVec(r, b, 1)})
	}
	loss := func() float64 {
		s := 0.0
		for _, ro := range rs {
			rl, al, err := p.grad(ro, len(rs))
			if err != nil {
				t.Fatal(err)
			}
			s += rl + al
		}
		return s
	}
	model.ZeroGrad()
	loss()
	checkParamGrads(t, "adpg trainer", model, loss)
	if _, _, err := p.Step([]ADPGRollout{{States: []float64{1, 2}, Rewards: []float64{1}}}); err == nil || !strings.Contains(err.Error(), "want ≥ 2 rewards") {
		t.Errorf("a one-step rollout: %v", err)
	}
	other, _ := nn.NewAdam(smoothNet(t, 2, 5, 1, false).Params(), DefaultADPGAdam())
	if _, err := NewADPG(DefaultADPG(), model, other); err == nil {
		t.Error("an optimiser of another model accepted")
	}
}

// TestADPGReachesAttractor: agents observe s ~ U(−1, 1) and receive
// r = a − 0.5s after each action; ADPG's loss pushes a against the
// reward-to-go, so the policy's fixed point is a = 0.5s (reward 0, equal
// actions). With the authors' optimiser and coefficients it gets there.
func TestADPGReachesAttractor(t *testing.T) {
	model := mlp(t, 1, []int{12, 12}, 1) // the authors' 12-12 (ReLU)
	model.Init(nn.NewRand(1))
	opt, _ := nn.NewAdam(model.Params(), DefaultADPGAdam())
	p, err := NewADPG(DefaultADPG(), model, opt)
	if err != nil {
		t.Fatal(err)
	}
	gap := func() float64 {
		worst := 0.0
		for k := range 41 {
			s := -1 + float64(k)/20
			a, _ := p.Act([]float64{s})
			worst = max(worst, math.Abs(a-0.5*s))
		}
		return worst
	}
	before := gap()
	r := nn.NewRand(2)
	const agents, steps = 8, 6
	rs := make([]ADPGRollout, agents)
	for i := range rs {
		rs[i] = ADPGRollout{States: make([]float64, steps), Rewards: make([]float64, steps)}
	}
	for range 400 {
		for i := range rs {
			s := 2*r.Float64() - 1
			for k := range steps {
				rs[i].States[k] = s
				a, _ := p.Act(rs[i].States[k : k+1])
				rs[i].Rewards[k] = a - 0.5*s
			}
		}
		if _, _, err := p.Step(rs); err != nil {
			t.Fatal(err)
		}
	}
	worst := gap()
	t.Logf("ADPG attractor: worst |a − 0.5s| over s ∈ [−1, 1] %.4f before, %.4f after", before, worst)
	if worst > 0.05 {
		t.Fatalf("worst |a − 0.5s| = %.4f, want ≤ 0.05", worst)
	}
}

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

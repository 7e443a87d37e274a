package rl

import (
	"strings"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

func tinyMLP(t testing.TB, in, hidden, out int) *nn.Sequential {
	t.Helper()
	d1, err := nn.NewDense(in, hidden, nn.KaimingUniform)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := nn.NewActivation(nn.ReLU, hidden)
	d2, _ := nn.NewDense(hidden, out, nn.XavierUniform)
	m, err := nn.NewSequential(d1, a, d2)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPolyakExactValues(t *testing.T) {
	src := tinyMLP(t, 1, 1, 1) // W1, b1, W2, b2: one value each
	dst := src.Clone()
	for i, p := range src.Params() {
		p.W[0] = float64(i + 1) // 1, 2, 3, 4
	}
	for i, p := range dst.Params() {
		p.W[0] = -2 * float64(i+1) // −2, −4, −6, −8
	}
	// τ = 0.25: 0.25·θ + 0.75·θ' = 0.25k − 1.5k = −1.25k (exact in binary)
	if err := Polyak(dst, src, 0.25); err != nil {
		t.Fatal(err)
	}
	for i, p := range dst.Params() {
		if want := -1.25 * float64(i+1); p.W[0] != want {
			t.Fatalf("tensor %d: %v, want %v", i, p.W[0], want)
		}
	}
	// a second step: 0.25k + 0.75·(−1.25k) = −0.6875k (exact)
	Polyak(dst, src, 0.25)
	for i, p := range dst.Params() {
		if want := -0.6875 * float64(i+1); p.W[0] != want {
			t.Fatalf("second step, tensor %d: %v, want %v", i, p.W[0], want)
		}
	}
	Polyak(dst, src, 1)
	for i, p := range dst.Params() {
		if p.W[0] != float64(i+1) {
			t.Fatalf("τ = 1 does not copy: %v", p.W[0])
		}
	}
	// τ = 0.01 on random weights equals the formula with separate rounding
	big := tinyMLP(t, 3, 8, 2)
	big.Init(nn.NewRand(1))
	tgt := big.Clone()
	tgt.Init(nn.NewRand(2))
	before := tgt.Clone()
	Polyak(tgt, big, 0.01)
	for k, p := range tgt.Params() {
		for i, w := range p.W {
			want := float64(0.01*big.Params()[k].W[i]) + float64(0.99*before.Params()[k].W[i])
			if w != want {
				t.Fatalf("tensor %d[%d] = %v, want %v", k, i, w, want)
			}
		}
	}
}

func TestPolyakErrors(t *testing.T) {
	a, b := tinyMLP(t, 2, 3, 1), tinyMLP(t, 2, 4, 1)
	if err := Polyak(a, b, 0.5); err == nil || !strings.Contains(err.Error(), "values in the target") {
		t.Errorf("shape mismatch: err = %v", err)
	}
	for _, tau := range []float64{-0.1, 1.5} {
		if err := Polyak(a, a.Clone(), tau); err == nil || !strings.Contains(err.Error(), "want [0, 1]") {
			t.Errorf("tau %v: err = %v", tau, err)
		}
	}
}

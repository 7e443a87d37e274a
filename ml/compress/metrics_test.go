package compress

import (
	"math"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

// TestModelCostDECCActor: the actor's weight matrices hold 640 + 8192 +
// 2048 + 8192 (LSTM 4·32·64) + 512 + 176 = 19,760 weights; over one step
// that is 19,760 multiply-adds, 39,520 FLOPs (decc.md §1.7's "≈ 40 k").
// Over its 5-step window the layers up to the LSTM run 5 times and the two
// after it once: 5·19,072 + 688 = 96,048 MACs. Zeroing 1000 weights of
// the first LSTM-free layer and 3 of the last removes 5·1000 + 3.
func TestModelCostDECCActor(t *testing.T) {
	m := deccActor(t)
	m.Init(nn.NewRand(1))
	c1 := must[Cost](t)(ModelCost(m, 1))
	if c1.MACs != 19760 || c1.FLOPs != 39520 || c1.NonzeroMACs != 19760 {
		t.Errorf("one step: %+v, want 19,760 MACs, 39,520 FLOPs, all nonzero", c1)
	}
	c5 := must[Cost](t)(ModelCost(m, 5))
	if c5.MACs != 96048 {
		t.Errorf("five steps: %d MACs, want 96,048", c5.MACs)
	}
	w := matrixParam(m.Layers()[2]).W
	clear(w[:1000])
	clear(matrixParam(m.Layers()[9]).W[:3])
	c5 = must[Cost](t)(ModelCost(m, 5))
	if c5.NonzeroMACs != 96048-5003 || c5.NonzeroFLOPs != 2*(96048-5003) || c5.MACs != 96048 {
		t.Errorf("after zeroing: %+v, want nonzero %d", c5, 96048-5003)
	}
	if got := Float32Bytes(m); got != 4*(19760+128+64+32+128+16+11) {
		t.Errorf("float32 bytes %d", got)
	}
	_, err := ModelCost(m, 0)
	wantErr(t, err, "steps = 0", "≥ 1")
}

// TestDiscrepancyHand: a dense 1→2 reference y = (x, −2x) against a model
// y = (1.1x, −2x): over x ∈ {1, −3} the L1 differences are 0.1 and 0.3 and
// the reference norms 3 and 9, so D = 0.4/12 = 1/30.
func TestDiscrepancyHand(t *testing.T) {
	ref := seq(t, dense(t, 1, 2))
	copy(matrixParam(ref.Layers()[0]).W, []float64{1, -2})
	cmp := ref.Clone()
	matrixParam(cmp.Layers()[0]).W[0] = 1.1
	d, err := Discrepancy(ref, cmp, [][]float64{{1}, {-3}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(d-1.0/30) > 1e-15 {
		t.Errorf("D = %v, want 1/30", d)
	}
	if d, _ := Discrepancy(ref, ref, [][]float64{{1}}, 1); d != 0 {
		t.Errorf("D of a model against itself = %v", d)
	}
	_, err = Discrepancy(ref, cmp, nil, 1)
	wantErr(t, err, "no inputs")
	_, err = Discrepancy(ref, cmp, [][]float64{{0}}, 1)
	wantErr(t, err, "all zero")
	_, err = Discrepancy(ref, cmp, [][]float64{{1, 2}}, 1)
	wantErr(t, err, "input 0")
}

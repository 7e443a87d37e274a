package deccpost

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/ml/nn"
)

var writeFixture = flag.Bool("fixture", false, "regenerate testdata/teacher.bin, the test teacher (about 10 s)")

// fixtureMeta marks the test teacher: it is not a trained DECC policy.
const fixtureMeta = "TEST FIXTURE, not a trained DECC policy: the seed-7 random actor fitted to a synthetic delay rule (train/deccpost/fixture_test.go)"

// fixturePath is the test teacher (docs/algorithms/decc.md §11.3).
var fixturePath = filepath.Join("testdata", "teacher.bin")

// syntheticAction is the rule the test teacher imitates, so that its
// greedy actions vary over realistic windows: from the latest MTP,
// a* = 0.4 − 0.6·(lat − 1) − 3·loss, clamped to [−0.5, 0.5] (raise the
// window near the base RTT, lower it as the queue or the loss grows).
func syntheticAction(w []float64) float64 {
	last := w[len(w)-deccmodel.Features:]
	a := 0.4 - 0.6*(last[1]-1) - 3*last[2]
	return min(max(a, -0.5), 0.5)
}

// syntheticWindow draws a window of plausible local states: per MTP thr in
// [0, 1], lat in [1, 3.5], loss 0 or in [0, 0.2], in-flight in [0, 4],
// rate in [0, 1].
func syntheticWindow(r interface{ Float64() float64 }) []float64 {
	w := make([]float64, deccmodel.History*deccmodel.Features)
	for s := range deccmodel.History {
		v := w[s*deccmodel.Features:]
		v[0], v[1], v[3], v[4] = r.Float64(), 1+2.5*r.Float64(), 4*r.Float64(), r.Float64()
		if r.Float64() < 0.3 {
			v[2] = 0.2 * r.Float64()
		}
	}
	return w
}

// fitFixture returns the test teacher: the random actor of seed 7 trained
// for a few epochs on logits z_k = −25·(a_k − a*)² of the synthetic rule.
func fitFixture(t *testing.T) *nn.Sequential {
	m := deccmodel.NewActor()
	m.Init(nn.NewRand(7))
	r := nn.NewRand(8)
	d := nn.Dataset{Steps: deccmodel.History}
	for range 3000 {
		x := syntheticWindow(r)
		a := syntheticAction(x)
		y := make([]float64, deccmodel.Actions)
		for k := range y {
			y[k] = -25 * math.Pow(deccmodel.ActionValue(k)-a, 2)
		}
		d.X, d.Y = append(d.X, x), append(d.Y, y)
	}
	opt, err := nn.NewAdam(m.Params(), nn.AdamConfig{LR: 0.003, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := nn.NewTrainer(m, opt, nn.MSE, 32, nn.NewRand(9))
	if err != nil {
		t.Fatal(err)
	}
	for e := range 8 {
		l, err := tr.Epoch(d)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("fixture epoch %d: loss %.4f", e, l)
	}
	return m
}

// loadFixture returns the test teacher.
func loadFixture(t testing.TB) *nn.Sequential {
	m, meta, err := deccmodel.LoadActorFile(fixturePath)
	if err != nil {
		t.Fatal(err)
	}
	if meta != fixtureMeta {
		t.Fatalf("fixture meta %q, want %q", meta, fixtureMeta)
	}
	return m
}

// TestFixtureTeacher: the test teacher decodes with the actor's shape and
// its marker; with -fixture it is regenerated, and it must come out byte
// for byte the committed file.
func TestFixtureTeacher(t *testing.T) {
	if *writeFixture {
		m := fitFixture(t)
		b, err := nn.Encode(m, fixtureMeta)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fixturePath, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loadFixture(t)
}

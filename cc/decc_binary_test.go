package cc_test

import (
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/ml/compress"
	"github.com/ccsim/ccsim/sim"
)

// deccPackedPolicy runs the packed int4 inference of ml/compress (the
// alternative decc-binary does not use: slower, docs/algorithms/decc.md
// §11.5).
type deccPackedPolicy struct {
	pm *compress.PackedModel
	ws *compress.PackedWorkspace
}

func (p *deccPackedPolicy) Act(w []float64, steps int) float64 {
	z, err := p.pm.Forward(p.ws, w, steps)
	if err != nil {
		return 0
	}
	return cc.DECCNetAction(z)
}

// TestDECCBinaryScenario: `decc-binary` with the embedded compressed
// network on a lossy 6-to-1 incast: every decision's action is the greedy
// action of the packed int4 inference on the recorded window (so the
// dequantised network the sender runs and the packed file agree in use),
// each flow's window shifts by one MTP from one decision to the next, the
// recorder saw each controller's decisions exactly once, and a second run
// makes the same decisions.
func TestDECCBinaryScenario(t *testing.T) {
	y := deccStudentScenario("decc-binary", 4, 6, 400_000, 80, "")
	ds, net, _ := deccStudentRun(t, "decc-binary", y)
	var decided int64
	for i := range net.QPs {
		decided += net.QPs[i].CC.(*cc.DECC).Decisions
	}
	if decided != int64(len(ds)) {
		t.Errorf("%d decisions recorded, the controllers made %d", len(ds), decided)
	}
	pm, _, err := deccmodel.ShippedBinary()
	if err != nil {
		t.Fatal(err)
	}
	pp := &deccPackedPolicy{pm, pm.NewWorkspace(5)}
	last := map[int32][]float64{}
	acts := map[float64]int{}
	for i, d := range ds {
		if k := pp.Act(d.window, 5); k != d.action {
			t.Fatalf("decision %d: action %v, packed inference %v", i, d.action, k)
		}
		if prev := last[d.flow]; prev != nil {
			for j := 5; j < 25; j++ {
				if d.window[j-5] != prev[j] {
					t.Fatalf("decision %d: window not shifted by one MTP", i)
				}
			}
		}
		last[d.flow] = d.window
		acts[d.action]++
	}
	if len(ds) < 50 {
		t.Errorf("%d decisions, want ≥ 50", len(ds))
	}
	ds2, _, _ := deccStudentRun(t, "decc-binary", y)
	if len(ds2) != len(ds) {
		t.Fatalf("second run: %d decisions, want %d", len(ds2), len(ds))
	}
	for i := range ds {
		if ds2[i].action != ds[i].action || ds2[i].flow != ds[i].flow {
			t.Fatalf("second run: decision %d differs", i)
		}
	}
	t.Logf("%d decisions, actions %v", len(ds), acts)
}

// TestDECCBinaryNoAlloc: a decision of `decc-binary` allocates nothing.
func TestDECCBinaryNoAlloc(t *testing.T) {
	_, net, p := deccStudentRun(t, "decc-binary", deccStudentScenario("decc-binary", 2, 1, 1_000_000, 20, ""))
	p.SetRecorder(nil)
	d := cc.NewDECCWith(p, cc.NewDECCNetPolicy(p.Policy(), p.History))
	q := &net.QPs[0]
	d.Start(q, 0)
	if n := testing.AllocsPerRun(200, func() {
		d.Apply(q, d.Decide(q, 20*sim.Microsecond))
	}); n != 0 {
		t.Errorf("%v allocations per decision, want 0", n)
	}
}

// BenchmarkDECCBinaryDecision is `decc-binary`'s cost per decision: the
// dequantised float network through ml/nn, as the sender runs it.
func BenchmarkDECCBinaryDecision(b *testing.B) {
	_, net, p := deccStudentRun(b, "decc-binary", deccStudentScenario("decc-binary", 2, 1, 1_000_000, 20, ""))
	p.SetRecorder(nil)
	benchDECCPolicy(b, net, p, cc.NewDECCNetPolicy(p.Policy(), p.History))
}

// BenchmarkDECCBinaryPacked is the same decision through ml/compress's
// packed int4 inference (bit-identical outputs; not used: slower).
func BenchmarkDECCBinaryPacked(b *testing.B) {
	_, net, p := deccStudentRun(b, "decc-binary", deccStudentScenario("decc-binary", 2, 1, 1_000_000, 20, ""))
	p.SetRecorder(nil)
	pm, _, _ := deccmodel.ShippedBinary()
	benchDECCPolicy(b, net, p, &deccPackedPolicy{pm, pm.NewWorkspace(5)})
}

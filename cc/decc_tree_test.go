package cc_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/gbdt"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// deccStudentScenario is deccScenario's incast for sender name with
// params ("key: value, …", may be empty).
func deccStudentScenario(name string, hosts, flows int, size int64, stopUs float64, params string) string {
	y := fmt.Sprintf("name: decc-student\nstop_ms: %g\ncc: [%s]\ntopology: {kind: star, hosts: %d, link_gbps: 100, link_delay_ns: 1000}\n",
		stopUs/1000, name, hosts)
	if params != "" {
		y += fmt.Sprintf("params:\n  %s: {%s}\n", name, params)
	}
	y += "workload:\n  flows:\n"
	for i := range flows {
		y += fmt.Sprintf("    - {src: %d, dst: %d, size_bytes: %d, start_ns: 0}\n", i%(hosts-1), hosts-1, size)
	}
	return y
}

// deccDecision is one decision seen by the recorder.
type deccDecision struct {
	flow   int32
	window []float64
	action float64
}

// deccStudentRun runs scenario y with sender name through the registered
// constructor, recording every decision; it returns the decisions, the
// network and the parameters.
func deccStudentRun(t testing.TB, name, y string) ([]deccDecision, *fabric.Network, *cc.DECCParams) {
	t.Helper()
	s, err := scenario.Parse([]byte(y))
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	p := s.ParamsOf(name).(*cc.DECCParams)
	var ds []deccDecision
	p.SetRecorder(func(f int32, w []float64, k float64) {
		ds = append(ds, deccDecision{f, append([]float64(nil), w...), k})
	})
	b, err := assemble.Build(s, name, assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b.Net.Run()
	return ds, b.Net, p
}

// deccStumpTrees is a hand-made model over the 25-value window: one tree
// of depth 1 on the latest MTP's lat (feature 21), border 1.25: 0.33 below
// (nearest level 0.3, index 8), −0.26 at or above (−0.3, index 2); bias 0.
func deccStumpTrees(t testing.TB) *gbdt.Model {
	borders := make([][]float32, deccmodel.TreeFeatures)
	for i := range borders {
		borders[i] = []float32{}
	}
	borders[21] = []float32{1.25}
	m, err := gbdt.NewModel(gbdt.ModelSpec{Borders: borders, Trees: []gbdt.Tree{{Splits: []gbdt.Split{{Feature: 21, Border: 0}}, Leaves: []float64{0.33, -0.26}}}, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDECCNearest: the trees' scalar to the nearest of the 11 levels
// (docs/algorithms/decc.md I21), by hand, at the clamps and for NaN.
func TestDECCNearest(t *testing.T) {
	for _, c := range []struct {
		a    float64
		want int
	}{{0, 5}, {0.04, 5}, {0.05, 6}, {0.06, 6}, {-0.05, 4}, {-0.049, 5}, {0.149, 6}, {0.151, 7},
		{0.5, 10}, {0.7, 10}, {-0.5, 0}, {-3, 0}, {math.Inf(1), 10}, {math.Inf(-1), 0}, {math.NaN(), 5}} {
		if g := cc.DECCNearest(c.a); g != c.want {
			t.Errorf("DECCNearest(%v) = %d, want %d", c.a, g, c.want)
		}
	}
}

// TestDECCTreesScenario: `decc` with the hand-made stump of
// deccStumpTrees loaded from a CatBoost JSON file: every decision of a
// 3-to-1 incast takes index 8 when the window's latest lat (feature 21) is
// below 1.25 and index 2 otherwise, and both occur.
func TestDECCTreesScenario(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trees.json")
	if err := deccStumpTrees(t).SaveCatBoostJSON(path); err != nil {
		t.Fatal(err)
	}
	ds, _, p := deccStudentRun(t, "decc", deccStudentScenario("decc", 4, 3, 300_000, 60, fmt.Sprintf("model: %q", path)))
	if p.Trees() == nil || p.Trees().NumTrees() != 1 {
		t.Fatalf("trees not loaded: %v", p.Trees())
	}
	seen := map[int]int{}
	for i, d := range ds {
		want := 8
		if d.window[21] >= 1.25 {
			want = 2
		}
		if d.action != deccmodel.ActionValue(want) {
			t.Fatalf("decision %d (flow %d, lat %v): action %v, want %v", i, d.flow, d.window[21], d.action, deccmodel.ActionValue(want))
		}
		seen[want]++
	}
	if seen[8] == 0 || seen[2] == 0 || len(ds) < 20 {
		t.Errorf("%d decisions, actions %v: want both 8 and 2", len(ds), seen)
	}
}

// TestDECCStudentParams: decc (DECC as deployed: in the default
// comparison) and decc-binary (an ablation variant: not) are registered,
// and their defaults load the shipped students; their model files are checked
// (a teacher file is not a packed network, a packed network is not trees),
// errors name the field and the path; decc refuses a history the trees do
// not read, naming history.
func TestDECCStudentParams(t *testing.T) {
	for _, name := range []string{"decc-binary", "decc"} {
		s, err := cc.Lookup(name)
		if err != nil || s.Harness || s.Variant != (name == "decc-binary") || slices.Contains(cc.Compared(), name) != (name == "decc") {
			t.Fatalf("%s: %v, harness %v, variant %v, compared %v", name, err, s != nil && s.Harness, s != nil && s.Variant, cc.Compared())
		}
		p := s.Defaults().(*cc.DECCParams)
		if err := p.Validate(); err != nil {
			t.Fatalf("%s defaults: %v", name, err)
		}
		if name == "decc" && p.Trees() == nil || name == "decc-binary" && p.Policy() == nil {
			t.Errorf("%s: no embedded student loaded", name)
		}
		if p.DecisionNs != 0 || p.AlphaAct != 0.85 || p.History != 5 {
			t.Errorf("%s defaults: decision_ns %v alpha %v history %d", name, p.DecisionNs, p.AlphaAct, p.History)
		}
	}
	dir := t.TempDir()
	teacher := deccModelFile(t, deccRandom(1))
	bin, trees, _ := deccmodel.ShippedStudentBytes()
	binPath, treesPath := filepath.Join(dir, "binary.bin"), filepath.Join(dir, "trees.json")
	os.WriteFile(binPath, bin, 0o644)
	os.WriteFile(treesPath, trees, 0o644)
	for _, c := range []struct{ name, model, want string }{
		{"decc-binary", teacher, filepath.Base(teacher)},
		{"decc-binary", treesPath, "trees.json"},
		{"decc-binary", filepath.Join(dir, "none.bin"), "none.bin"},
		{"decc", binPath, "binary.bin"},
		{"decc", filepath.Join(dir, "none.json"), "none.json"},
	} {
		s, _ := cc.Lookup(c.name)
		p := s.Defaults().(*cc.DECCParams)
		p.Model = c.model
		if err := p.Validate(); err == nil || !strings.HasPrefix(err.Error(), "model: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with %s: err = %v, want model: … %s", c.name, c.model, err, c.want)
		}
	}
	p := cc.DECCTreeDefaults()
	p.History = 4
	if err := p.Validate(); err == nil || !strings.HasPrefix(err.Error(), "history = 4") {
		t.Errorf("decc with history 4: err = %v", err)
	}
	p = cc.DECCBinaryDefaults()
	p.Model = binPath
	if err := p.Validate(); err != nil || p.Policy() == nil {
		t.Errorf("decc-binary from a file: %v", err)
	}
}

// TestDECCTreesNoAlloc: a decision of `decc` (state, trees, nearest level,
// window and rate) allocates nothing.
func TestDECCTreesNoAlloc(t *testing.T) {
	_, net, p := deccStudentRun(t, "decc", deccStudentScenario("decc", 2, 1, 1_000_000, 20, ""))
	p.SetRecorder(nil)
	d := cc.NewDECCWith(p, cc.NewDECCTreePolicy(p.Trees()))
	q := &net.QPs[0]
	d.Start(q, 0)
	if n := testing.AllocsPerRun(1000, func() {
		d.C.AckedBytes, d.C.RTTN, d.C.RTTSum = 10000, 2, 8*sim.Microsecond
		d.Apply(q, d.Decide(q, 20*sim.Microsecond))
	}); n != 0 {
		t.Errorf("%v allocations per decision, want 0", n)
	}
}

// BenchmarkDECCTreeDecision is `decc`'s cost per decision with the
// embedded trees (docs/algorithms/decc.md §11.5).
func BenchmarkDECCTreeDecision(b *testing.B) {
	_, net, p := deccStudentRun(b, "decc", deccStudentScenario("decc", 2, 1, 1_000_000, 20, ""))
	p.SetRecorder(nil)
	benchDECCPolicy(b, net, p, cc.NewDECCTreePolicy(p.Trees()))
}

// benchDECCPolicy times Decide + Apply of a controller with policy pol.
func benchDECCPolicy(b *testing.B, net *fabric.Network, p *cc.DECCParams, pol cc.DECCPolicy) {
	d := cc.NewDECCWith(p, pol)
	q := &net.QPs[0]
	d.Start(q, 0)
	b.ReportAllocs()
	for b.Loop() {
		d.C.AckedBytes, d.C.RTTN, d.C.RTTSum = 10000, 2, 8*sim.Microsecond
		d.Apply(q, d.Decide(q, 20*sim.Microsecond))
	}
}

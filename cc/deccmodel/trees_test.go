package deccmodel

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/ml/gbdt"
	"github.com/ccsim/ccsim/ml/nn"
)

// TestTreesDecode: the embedded trees decode once, read 25 features and
// predict finite actions; trees over another width, a file that is not
// JSON and a missing file are refused, naming the width or the path.
func TestTreesDecode(t *testing.T) {
	m, err := ShippedTrees()
	if err != nil {
		t.Fatal(err)
	}
	if m2, _ := ShippedTrees(); m2 != m {
		t.Error("ShippedTrees decoded twice")
	}
	if m.NumFeatures() != 25 || m.NumTrees() < 1 {
		t.Errorf("%d features, %d trees", m.NumFeatures(), m.NumTrees())
	}
	x := make([]float64, 25)
	for i := range x {
		x[i] = 1
	}
	if a := m.Predict(x); a != a || a < -1 || a > 1 {
		t.Errorf("prediction %v", a)
	}
	spec := m.Spec()
	spec.Borders, spec.NaNAsTrue = spec.Borders[:24], nil
	for i := range spec.Trees {
		for j := range spec.Trees[i].Splits {
			spec.Trees[i].Splits[j].Feature %= 24
			spec.Trees[i].Splits[j].Border = 0
		}
	}
	for f := range spec.Borders {
		if len(spec.Borders[f]) == 0 {
			spec.Borders[f] = []float32{0.5}
		}
	}
	narrow, err := gbdt.NewModel(spec)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	narrow.WriteCatBoostJSON(&b)
	if _, err := DecodeTrees(b.Bytes()); err == nil || !strings.Contains(err.Error(), "24 features, want 25") {
		t.Errorf("24-feature trees: err = %v", err)
	}
	teacher, _ := nn.Encode(NewActor(), "")
	if _, err := DecodeTrees(teacher); err == nil || !strings.HasPrefix(err.Error(), "DECC trees: ") {
		t.Errorf("a network as trees: err = %v", err)
	}
	if _, err := LoadTreesFile(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("missing file: err = %v", err)
	}
}

// BenchmarkShippedTreesPredict is the embedded trees' scoring of one
// window alone (docs/algorithms/decc.md §11.5).
func BenchmarkShippedTreesPredict(b *testing.B) {
	m, err := ShippedTrees()
	if err != nil {
		b.Fatal(err)
	}
	x := make([]float64, 25)
	for i := range x {
		x[i] = 0.04 * float64(i)
	}
	b.ReportAllocs()
	s := 0.0
	for b.Loop() {
		s += m.Predict(x)
	}
	_ = s
}

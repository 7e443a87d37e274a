package pidnnmodel

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

// A predictor whose output overflows (finite weights: the file format
// already refuses NaN ones) is refused at load with the reason (issue 19
// §3.3: such a model passed validate and stalled every flow at 1 b/s); the
// shipped one passes.
func TestLoadRefusesNonFinitePredictor(t *testing.T) {
	if _, _, err := Shipped(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, want string
		spoil      func(m *nn.Sequential)
	}{
		{"overflow", "want a finite prediction", func(m *nn.Sequential) {
			d := m.Layers()[1].(*nn.Dense)
			for i := range d.W.W {
				d.W.W[i] = math.MaxFloat64
			}
		}},
	} {
		m, _, err := Shipped()
		if err != nil {
			t.Fatal(err)
		}
		m = m.Clone()
		tc.spoil(m)
		path := filepath.Join(dir, tc.name+".bin")
		if err := nn.SaveFile(path, m, "spoilt"); err != nil {
			t.Fatal(err)
		}
		_, _, err = LoadPredictorFile(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: LoadPredictorFile error %v, want one naming the file and %q", tc.name, err, tc.want)
		}
	}
}

// CheckPredictor also names a non-finite weight of a model in memory.
func TestCheckPredictorNaNWeight(t *testing.T) {
	m := NewPredictor()
	m.Params()[1].W[2] = math.Inf(-1)
	if err := CheckPredictor(m); err == nil || !strings.Contains(err.Error(), "parameter 1, weight 2 is -Inf") {
		t.Errorf("CheckPredictor = %v", err)
	}
}

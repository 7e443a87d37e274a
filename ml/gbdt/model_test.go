package gbdt

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// slowPredict scores x straight from the spec: linear border counts, one
// split at a time, trees summed in order.
func slowPredict(s ModelSpec, x []float64) float64 {
	bins := make([]int, len(s.Borders))
	for f, b := range s.Borders {
		v := float32(x[f])
		if v != v {
			if s.NaNAsTrue != nil && s.NaNAsTrue[f] {
				bins[f] = len(b)
			}
			continue
		}
		for _, bv := range b {
			if v > bv {
				bins[f]++
			}
		}
	}
	sum := 0.0
	for _, t := range s.Trees {
		idx := 0
		for j, sp := range t.Splits {
			if bins[sp.Feature] > sp.Border {
				idx |= 1 << j
			}
		}
		sum += t.Leaves[idx]
	}
	return float64(s.Scale*sum) + s.Bias
}

// randomRows draws rows on [-2.5, 2.5] with some values exactly on borders
// and some NaN.
func randomRows(seed uint64, n int, m *Model) [][]float64 {
	r := rand.New(rand.NewPCG(seed, 9))
	s := m.Spec()
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = make([]float64, len(s.Borders))
		for f := range rows[i] {
			switch u := r.IntN(20); {
			case u == 0:
				rows[i][f] = math.NaN()
			case u < 4 && len(s.Borders[f]) > 0:
				rows[i][f] = float64(s.Borders[f][r.IntN(len(s.Borders[f]))])
			default:
				rows[i][f] = 5*r.Float64() - 2.5
			}
		}
	}
	return rows
}

// TestPredictPaths: the fast paths (depth 6 with the pair table, depth 6
// unrolled, other uniform depths up to 7), the general path (mixed or
// deeper trees) and the pooled path (over 256 features) all equal the
// straightforward scorer bit for bit.
func TestPredictPaths(t *testing.T) {
	mixed := randomModel(4, 5, 20, 30, 3).Spec()
	mixed.Trees = append(mixed.Trees, randomModel(5, 5, 20, 30, 5).Spec().Trees...)
	mixed.NaNAsTrue = []bool{true, false, true, false, false}
	mixed.Scale = 0.5
	mixedModel, err := NewModel(mixed)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]*Model{
		"depth 6":  randomModel(1, 25, MaxBorders, 203, 6), // not a multiple of the unrolling
		"6, 40 f":  randomModel(8, 40, 30, 200, 6),
		"depth 1":  randomModel(2, 3, 5, 50, 1),
		"depth 7":  randomModel(3, 30, 100, 50, 7),
		"depth 9":  randomModel(3, 30, 100, 50, 9),
		"mixed":    mixedModel,
		"300 feat": randomModel(6, 300, 10, 100, 6),
	} {
		s := m.Spec()
		wantFast := len(s.Borders) <= 256 && name != "mixed" && name != "depth 9"
		if m.fast.ok != wantFast {
			t.Errorf("%s: fast path %v, want %v", name, m.fast.ok, wantFast)
		}
		if wantPairs := name == "depth 6"; (m.fast.pairs != nil) != wantPairs {
			t.Errorf("%s: pair path %v, want %v", name, m.fast.pairs != nil, wantPairs)
		}
		rows := randomRows(7, 2000, m)
		for i, x := range rows {
			if got, want := m.Predict(x), slowPredict(s, x); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%s: row %d: Predict %v, straightforward %v", name, i, got, want)
			}
		}
		out := make([]float64, len(rows))
		if err := m.PredictBatch(rows, out); err != nil {
			t.Fatal(err)
		}
		for i := range out {
			if out[i] != m.Predict(rows[i]) {
				t.Fatalf("%s: PredictBatch row %d differs", name, i)
			}
		}
	}
}

// TestOrderKey: the integer search over padded keys gives the float
// search's bin, which is the linear count of borders below x.
func TestOrderKey(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	special := []float32{0, float32(math.Copysign(0, -1)), 1e-45, -1e-45, math.MaxFloat32, -math.MaxFloat32, float32(math.Inf(1)), float32(math.Inf(-1))}
	for range 200 {
		var vals []float32
		for range 1 + r.IntN(300) {
			vals = append(vals, float32(r.NormFloat64()*10))
		}
		vals = append(vals, special[:6]...)
		b := Borders(vals, 1+r.IntN(MaxBorders))
		keys := newKeyTable(b)
		for _, x := range append(append(vals, special...), b...) {
			if g, w := keys.bin(orderKey(x)), binOf(x, b); g != w {
				t.Fatalf("x = %v: keyTable.bin %d, binOf %d", x, g, w)
			}
			lin := uint8(0)
			for _, v := range b {
				if x > v {
					lin++
				}
			}
			if lin != binOf(x, b) {
				t.Fatalf("x = %v: binOf %d, linear count %d", x, binOf(x, b), lin)
			}
		}
	}
}

func TestPredictNoAlloc(t *testing.T) {
	m := randomModel(1, 25, MaxBorders, 100, 6)
	x := randomRows(1, 1, m)[0]
	rows := randomRows(2, 10, m)
	out := make([]float64, 10)
	if a := testing.AllocsPerRun(100, func() { m.Predict(x) }); a != 0 {
		t.Errorf("Predict allocates %v times", a)
	}
	if a := testing.AllocsPerRun(100, func() { _ = m.PredictBatch(rows, out) }); a != 0 {
		t.Errorf("PredictBatch allocates %v times", a)
	}
}

func TestPredictBadInput(t *testing.T) {
	m := randomModel(1, 3, 5, 10, 2)
	if v := m.Predict([]float64{1, 2}); !math.IsNaN(v) {
		t.Errorf("Predict of a short vector = %v, want NaN", v)
	}
	err := m.PredictBatch([][]float64{{1, 2, 3}, {1}}, make([]float64, 2))
	if err == nil || !strings.Contains(err.Error(), "X[1] has 1 features, the model 3") {
		t.Errorf("PredictBatch ragged: %v", err)
	}
	err = m.PredictBatch([][]float64{{1, 2, 3}}, make([]float64, 2))
	if err == nil || !strings.Contains(err.Error(), "out has 2 slots for 1 rows") {
		t.Errorf("PredictBatch out length: %v", err)
	}
}

func TestNewModelBadSpec(t *testing.T) {
	good := randomModel(1, 2, 3, 2, 2).Spec()
	cases := []struct {
		name string
		mod  func(*ModelSpec)
		want string
	}{
		{"no features", func(s *ModelSpec) { s.Borders = nil }, "model has 0 features"},
		{"unsorted", func(s *ModelSpec) { s.Borders[1][2] = -5 }, "feature 1 border 2 = -5: borders must be strictly ascending"},
		{"nan border", func(s *ModelSpec) { s.Borders[0][0] = float32(math.NaN()) }, "feature 0 border 0 = NaN"},
		{"leaves", func(s *ModelSpec) { s.Trees[1].Leaves = s.Trees[1].Leaves[:3] }, "tree 1 has 3 leaves for depth 2, want 4"},
		{"feature", func(s *ModelSpec) { s.Trees[0].Splits[1].Feature = 2 }, "tree 0 split 1 (feature 2, border"},
		{"border", func(s *ModelSpec) { s.Trees[0].Splits[0].Border = 3 }, "border 3) names no border"},
		{"leaf nan", func(s *ModelSpec) { s.Trees[0].Leaves[0] = math.NaN() }, "tree 0 leaf 0 = NaN"},
		{"scale", func(s *ModelSpec) { s.Scale = math.Inf(1) }, "scale +Inf and bias"},
		{"nan flags", func(s *ModelSpec) { s.NaNAsTrue = []bool{true} }, "NaNAsTrue has 1 entries for 2 features"},
	}
	for _, c := range cases {
		s := good.clone()
		c.mod(&s)
		if _, err := NewModel(s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

package gbdt

import (
	"bytes"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCatBoostFixture loads a model written by hand in CatBoost's JSON
// layout (testdata/catboost_small.json, docs/gbdt.md §3) and checks scores
// worked out by hand from CatBoost's rules: split i of a tree sets bit i of
// the leaf index when float32(x) > border; NaN goes left unless the feature
// says AsTrue; prediction = scale·Σ leaves + bias, trees in order.
func TestCatBoostFixture(t *testing.T) {
	m, err := LoadCatBoostJSON(filepath.Join("testdata", "catboost_small.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.NumFeatures() != 3 || m.NumTrees() != 3 {
		t.Fatalf("%d features, %d trees; want 3, 3", m.NumFeatures(), m.NumTrees())
	}
	nan := math.NaN()
	score := func(l0, l1, l2 float64) float64 { return float64(2*(0+l0+l1+l2)) + 0.5 }
	cases := []struct {
		x    []float64
		want float64
		why  string
	}{
		{[]float64{0, 7, 0}, score(0.3, -1, 0.01), "x2 > -1 sets bit 1 of tree 0"},
		{[]float64{1.5, 0, 2.25}, score(0.3, -1, 0.02), "a value equal to a border goes left"},
		{[]float64{2, 0, nan}, score(0.4, 1, 0.08), "NaN of an AsTrue feature goes right"},
		{[]float64{nan, 0, -2}, score(0.1, -1, 0.01), "NaN of an AsIs feature goes left"},
		{[]float64{0.1000000016, 0, 0}, score(0.3, -1, 0.01), "float32(0.1000000016) = float32(0.1) is not > the border 0.1f"},
		{[]float64{0.1000001, 0, 3}, score(0.3, 1, 0.06), "bits 0 and 2 of tree 2: leaf 5"},
	}
	for _, c := range cases {
		if got := m.Predict(c.x); got != c.want {
			t.Errorf("Predict(%v) = %v, want %v (%s)", c.x, got, c.want, c.why)
		}
	}
}

// TestJSONRoundTrip: a trained model written and read back scores every
// row bit for bit the same, has the same content, and writes the same
// bytes again.
func TestJSONRoundTrip(t *testing.T) {
	d, _ := synth(21, 3000)
	p := DefaultParams()
	p.Iterations, p.LearningRate = 40, 0.3
	m, _, err := Train(p, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.WriteCatBoostJSON(&buf); err != nil {
		t.Fatal(err)
	}
	first := buf.String()
	back, err := ReadCatBoostJSON(strings.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Spec(), withNaNFlags(m.Spec())) {
		t.Fatal("model read back differs from the model written")
	}
	for i, x := range append(d.X, randomRows(3, 1000, m)...) {
		if a, b := m.Predict(x), back.Predict(x); math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("row %d: %v before, %v after the round trip", i, a, b)
		}
	}
	buf.Reset()
	if err := back.WriteCatBoostJSON(&buf); err != nil {
		t.Fatal(err)
	}
	// model_info differs (the training parameters are not kept on reading);
	// everything after it must be byte-identical.
	cut := func(s string) string { return s[strings.Index(s, `"features_info"`):] }
	if cut(buf.String()) != cut(first) {
		t.Fatal("writing the model read back gives different JSON")
	}
	for _, key := range []string{`"float_features"`, `"borders"`, `"feature_index"`, `"flat_feature_index"`, `"oblivious_trees"`, `"splits"`, `"split_index"`, `"split_type": "FloatFeature"`, `"leaf_values"`, `"scale_and_bias"`, `"learning_rate": 0.3`} {
		if !strings.Contains(first, key) {
			t.Errorf("written JSON lacks %s", key)
		}
	}
}

// withNaNFlags gives a spec the all-false NaNAsTrue a read model has.
func withNaNFlags(s ModelSpec) ModelSpec {
	if s.NaNAsTrue == nil {
		s.NaNAsTrue = make([]bool, len(s.Borders))
	}
	return s
}

func TestReadCatBoostJSONErrors(t *testing.T) {
	base := `{"features_info": {"float_features": [{"borders": [1, 2], "feature_index": 0, "flat_feature_index": 0}]},
	"oblivious_trees": [{"leaf_values": [1, 2], "splits": [{"border": 2, "float_feature_index": 0, "split_index": 1, "split_type": "FloatFeature"}]}],
	"scale_and_bias": [1, [0]]}`
	if _, err := ReadCatBoostJSON(strings.NewReader(base)); err != nil {
		t.Fatalf("base case: %v", err)
	}
	cases := []struct{ old, new, want string }{
		{`"split_index": 1`, `"split_index": 0`, "tree 0 split 0: float_feature_index 0, border 2 match no border"},
		{`"split_index": 1`, `"split_index": 7`, "split_index 7 out of range [0, 2)"},
		{`, "split_index": 1`, ``, ""}, // found by feature and border
		{`"border": 2, "float_feature_index": 0, "split_index": 1,`, `"border": 1.5, "float_feature_index": 0,`, "match no border"},
		{`"FloatFeature"`, `"OnlineCtr"`, `split_type "OnlineCtr", only FloatFeature`},
		{`[1, 2], "splits"`, `[1, 2, 3], "splits"`, "3 leaf_values for depth 1: only single-output"},
		{`[1, [0]]`, `[1, [0, 1]]`, "2 biases"},
		{`[1, [0]]`, `[1, 0.5]`, ""},
		{`"flat_feature_index": 0`, `"flat_feature_index": 1`, "flat_feature_index 1"},
		{`"flat_feature_index": 0}`, `"flat_feature_index": 0, "nan_value_treatment": "AsMax"}`, `nan_value_treatment "AsMax"`},
		{`[1, 2], "feature_index"`, `[2, 1], "feature_index"`, "float feature 0 border 1 = 1: borders must be strictly ascending"},
		{`"scale_and_bias"`, `"trees": [{"split": {}}], "scale_and_bias"`, "non-symmetric"},
		{`{"float_features"`, `{"categorical_features": [{"feature_index": 1}], "float_features"`, "categorical features"},
		{`{"float_features": [{"borders": [1, 2], "feature_index": 0, "flat_feature_index": 0}]}`, `{}`, "float_features is empty"},
		{`"leaf_values": [1, 2]`, `"leaf_values": [1, "x"]`, "catboost json: json: cannot unmarshal string"},
		{`"feature_index": 0, "flat_feature_index": 0`, `"feature_index": 70000, "flat_feature_index": 70000`, "feature_index out of range [0, 65536)"},
	}
	for _, c := range cases {
		if !strings.Contains(base, c.old) {
			t.Fatalf("case %q: base lacks it", c.old)
		}
		_, err := ReadCatBoostJSON(strings.NewReader(strings.Replace(base, c.old, c.new, 1)))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q → %q: %v", c.old, c.new, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q → %q: error %v, want %q", c.old, c.new, err, c.want)
		}
	}
}

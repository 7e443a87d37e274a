package gbdt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
)

// CatBoost's JSON model layout (docs/gbdt.md §3), as written by
// model.save_model(path, format="json") and read back by CatBoost
// (catboost/libs/model/model_export/json_model_helpers.cpp). Only what a
// model over float features with symmetric trees uses is read; anything
// else (categorical features, CTRs, non-symmetric trees, several outputs)
// is refused with an error rather than scored wrongly.

type cbModel struct {
	ModelInfo      map[string]any    `json:"model_info"`
	FeaturesInfo   cbFeaturesInfo    `json:"features_info"`
	ObliviousTrees []cbTree          `json:"oblivious_trees"`
	Trees          json.RawMessage   `json:"trees,omitempty"`
	CtrData        json.RawMessage   `json:"ctr_data,omitempty"`
	ScaleAndBias   []json.RawMessage `json:"scale_and_bias,omitempty"`
}

type cbFeaturesInfo struct {
	FloatFeatures       []cbFloatFeature `json:"float_features,omitempty"`
	CategoricalFeatures json.RawMessage  `json:"categorical_features,omitempty"`
	TextFeatures        json.RawMessage  `json:"text_features,omitempty"`
	EmbeddingFeatures   json.RawMessage  `json:"embedding_features,omitempty"`
	Ctrs                json.RawMessage  `json:"ctrs,omitempty"`
}

type cbFloatFeature struct {
	Borders           []float64 `json:"borders"`
	FeatureIndex      int       `json:"feature_index"`
	FlatFeatureIndex  int       `json:"flat_feature_index"`
	HasNaNs           bool      `json:"has_nans"`
	NaNValueTreatment string    `json:"nan_value_treatment,omitempty"`
	FeatureID         string    `json:"feature_id"`
}

type cbTree struct {
	LeafValues  []float64 `json:"leaf_values"`
	LeafWeights []float64 `json:"leaf_weights,omitempty"`
	Splits      []cbSplit `json:"splits"`
}

type cbSplit struct {
	Border            float64 `json:"border"`
	FloatFeatureIndex int     `json:"float_feature_index"`
	SplitIndex        *int    `json:"split_index,omitempty"`
	SplitType         string  `json:"split_type"`
}

// present reports whether a raw JSON member holds something other than
// null, an empty array or an empty object.
func present(r json.RawMessage) bool {
	t := string(bytes.TrimSpace(r))
	return t != "" && t != "null" && t != "[]" && t != "{}"
}

// ReadCatBoostJSON reads a model in CatBoost's JSON layout. Borders are
// read as CatBoost reads them, a JSON number rounded to float32; leaf
// values, scale and bias as float64.
func ReadCatBoostJSON(r io.Reader) (*Model, error) {
	var cb cbModel
	dec := json.NewDecoder(r)
	if err := dec.Decode(&cb); err != nil {
		return nil, fmt.Errorf("gbdt: catboost json: %w", err)
	}
	switch fi := cb.FeaturesInfo; {
	case present(cb.Trees):
		return nil, fmt.Errorf("gbdt: catboost json: non-symmetric \"trees\" (grow_policy Depthwise or Lossguide) are not supported, only \"oblivious_trees\"")
	case present(fi.CategoricalFeatures), present(fi.Ctrs), present(cb.CtrData):
		return nil, fmt.Errorf("gbdt: catboost json: categorical features and CTRs are not supported, only float features")
	case present(fi.TextFeatures), present(fi.EmbeddingFeatures):
		return nil, fmt.Errorf("gbdt: catboost json: text and embedding features are not supported, only float features")
	}
	s, err := cb.spec()
	if err != nil {
		return nil, fmt.Errorf("gbdt: catboost json: %w", err)
	}
	return NewModel(s)
}

// spec converts the decoded JSON into a ModelSpec.
func (cb *cbModel) spec() (ModelSpec, error) {
	ffs := slices.Clone(cb.FeaturesInfo.FloatFeatures)
	if len(ffs) == 0 {
		return ModelSpec{}, fmt.Errorf("features_info.float_features is empty")
	}
	// CatBoost numbers the binary splits over the float features in feature
	// order, each feature's borders ascending: split_index is a position in
	// that list.
	slices.SortStableFunc(ffs, func(a, b cbFloatFeature) int { return a.FeatureIndex - b.FeatureIndex })
	nf := ffs[len(ffs)-1].FeatureIndex + 1
	if ffs[0].FeatureIndex < 0 || nf > MaxFeatures {
		return ModelSpec{}, fmt.Errorf("float feature_index out of range [0, %d)", MaxFeatures)
	}
	s := ModelSpec{Borders: make([][]float32, nf), NaNAsTrue: make([]bool, nf), Scale: 1}
	type ref struct{ feature, border int }
	var flat []ref
	for i, ff := range ffs {
		if i > 0 && ff.FeatureIndex == ffs[i-1].FeatureIndex {
			return ModelSpec{}, fmt.Errorf("float feature_index %d listed twice", ff.FeatureIndex)
		}
		if ff.FlatFeatureIndex != ff.FeatureIndex {
			return ModelSpec{}, fmt.Errorf("float feature %d has flat_feature_index %d: models mixing in other feature types are not supported", ff.FeatureIndex, ff.FlatFeatureIndex)
		}
		switch ff.NaNValueTreatment {
		case "", "AsIs", "AsFalse":
		case "AsTrue":
			s.NaNAsTrue[ff.FeatureIndex] = true
		default:
			return ModelSpec{}, fmt.Errorf("float feature %d: nan_value_treatment %q, want AsIs, AsFalse or AsTrue", ff.FeatureIndex, ff.NaNValueTreatment)
		}
		for k, b := range ff.Borders {
			bs := append(s.Borders[ff.FeatureIndex], float32(b))
			if k > 0 && !(bs[k] > bs[k-1]) {
				return ModelSpec{}, fmt.Errorf("float feature %d border %d = %v: borders must be strictly ascending (as float32)", ff.FeatureIndex, k, b)
			}
			s.Borders[ff.FeatureIndex] = bs
			flat = append(flat, ref{ff.FeatureIndex, k})
		}
	}
	for t, ct := range cb.ObliviousTrees {
		if len(ct.Splits) > MaxDepth {
			return ModelSpec{}, fmt.Errorf("tree %d has depth %d, at most %d", t, len(ct.Splits), MaxDepth)
		}
		if n := len(ct.LeafValues); n != 1<<len(ct.Splits) {
			return ModelSpec{}, fmt.Errorf("tree %d has %d leaf_values for depth %d: only single-output models (2^depth leaves) are supported", t, n, len(ct.Splits))
		}
		tr := Tree{Leaves: slices.Clone(ct.LeafValues)}
		for j, sp := range ct.Splits {
			if sp.SplitType != "FloatFeature" {
				return ModelSpec{}, fmt.Errorf("tree %d split %d: split_type %q, only FloatFeature is supported", t, j, sp.SplitType)
			}
			f, b32 := sp.FloatFeatureIndex, float32(sp.Border)
			var r ref
			if sp.SplitIndex != nil {
				if *sp.SplitIndex < 0 || *sp.SplitIndex >= len(flat) {
					return ModelSpec{}, fmt.Errorf("tree %d split %d: split_index %d out of range [0, %d)", t, j, *sp.SplitIndex, len(flat))
				}
				r = flat[*sp.SplitIndex]
			} else {
				r = ref{f, -1}
				if f >= 0 && f < nf {
					r.border = slices.Index(s.Borders[f], b32)
				}
			}
			if r.feature != f || r.border < 0 || s.Borders[f][r.border] != b32 {
				return ModelSpec{}, fmt.Errorf("tree %d split %d: float_feature_index %d, border %v match no border of features_info (or not the one split_index names)", t, j, f, sp.Border)
			}
			tr.Splits = append(tr.Splits, Split{Feature: r.feature, Border: r.border})
		}
		s.Trees = append(s.Trees, tr)
	}
	scale, bias, err := cb.scaleAndBias()
	s.Scale, s.Bias = scale, bias
	return s, err
}

// scaleAndBias decodes [scale, [bias]] (or the older [scale, bias]).
func (cb *cbModel) scaleAndBias() (float64, float64, error) {
	sb := cb.ScaleAndBias
	if len(sb) == 0 {
		return 1, 0, nil
	}
	var scale float64
	if len(sb) != 2 || json.Unmarshal(sb[0], &scale) != nil {
		return 0, 0, fmt.Errorf("scale_and_bias must be [scale, [bias]]")
	}
	var bias []float64
	if err := json.Unmarshal(sb[1], &bias); err != nil {
		var b float64
		if json.Unmarshal(sb[1], &b) != nil {
			return 0, 0, fmt.Errorf("scale_and_bias must be [scale, [bias]]")
		}
		bias = []float64{b}
	}
	switch len(bias) {
	case 0:
		return scale, 0, nil
	case 1:
		return scale, bias[0], nil
	}
	return 0, 0, fmt.Errorf("scale_and_bias has %d biases: only single-output models are supported", len(bias))
}

// WriteCatBoostJSON writes the model in CatBoost's JSON layout, which
// CatBoost loads with load_model(path, format="json"). Borders are written
// as the exact decimal of their float32 value, so reading them back (here
// or in CatBoost) gives the same float32.
func (m *Model) WriteCatBoostJSON(w io.Writer) error {
	s := m.spec
	cb := cbModel{ModelInfo: m.modelInfo()}
	split := 0
	flat := make([]int, len(s.Borders)) // first split_index of each feature
	for f, b := range s.Borders {
		ff := cbFloatFeature{Borders: make([]float64, len(b)), FeatureIndex: f, FlatFeatureIndex: f, NaNValueTreatment: "AsIs"}
		if m.nanHigh(f) {
			ff.HasNaNs, ff.NaNValueTreatment = true, "AsTrue"
		}
		for k, v := range b {
			ff.Borders[k] = float64(v)
		}
		flat[f] = split
		split += len(b)
		cb.FeaturesInfo.FloatFeatures = append(cb.FeaturesInfo.FloatFeatures, ff)
	}
	for _, t := range s.Trees {
		ct := cbTree{LeafValues: t.Leaves, Splits: make([]cbSplit, len(t.Splits))}
		for j, sp := range t.Splits {
			idx := flat[sp.Feature] + sp.Border
			ct.Splits[j] = cbSplit{Border: float64(s.Borders[sp.Feature][sp.Border]), FloatFeatureIndex: sp.Feature, SplitIndex: &idx, SplitType: "FloatFeature"}
		}
		cb.ObliviousTrees = append(cb.ObliviousTrees, ct)
	}
	if cb.ObliviousTrees == nil {
		cb.ObliviousTrees = []cbTree{}
	}
	sc, _ := json.Marshal(s.Scale)
	bi, _ := json.Marshal([]float64{s.Bias})
	cb.ScaleAndBias = []json.RawMessage{sc, bi}
	b, err := json.MarshalIndent(&cb, "", "  ")
	if err != nil {
		return fmt.Errorf("gbdt: catboost json: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// modelInfo is the model_info object written: the training parameters in
// CatBoost's names when the model was trained here.
func (m *Model) modelInfo() map[string]any {
	info := map[string]any{"written_by": "ccsim ml/gbdt"}
	if p := m.params; p != nil {
		info["params"] = map[string]any{
			"loss_function":    map[string]any{"type": "RMSE"},
			"boosting_options": map[string]any{"iterations": p.Iterations, "learning_rate": p.LearningRate, "od_config": map[string]any{"wait_iterations": p.EarlyStoppingRounds}},
			"tree_learner_options": map[string]any{
				"depth": p.Depth, "l2_leaf_reg": p.L2LeafReg, "grow_policy": "SymmetricTree", "score_function": "L2",
			},
			"data_processing_options": map[string]any{
				"float_features_binarization": map[string]any{"border_count": p.BorderCount, "border_type": "GreedyLogSum", "nan_mode": "Forbidden"},
			},
		}
	}
	return info
}

// LoadCatBoostJSON reads a CatBoost JSON model file.
func LoadCatBoostJSON(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gbdt: %w", err)
	}
	defer f.Close()
	m, err := ReadCatBoostJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return m, nil
}

// SaveCatBoostJSON writes the model to a CatBoost JSON file.
func (m *Model) SaveCatBoostJSON(path string) error {
	var b bytes.Buffer
	if err := m.WriteCatBoostJSON(&b); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("gbdt: %w", err)
	}
	return nil
}

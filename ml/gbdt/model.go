package gbdt

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// MaxFeatures bounds a model's number of input features (it keeps a model
// file naming a huge feature index from allocating without bound).
const MaxFeatures = 1 << 16

// Split is one level of an oblivious tree: a row goes right (its leaf index
// gets this level's bit) when float32(x[Feature]) > Borders[Feature][Border].
type Split struct {
	Feature int
	Border  int
}

// Tree is an oblivious tree: Splits[i] sets bit i of the leaf index, so
// Leaves has 2^len(Splits) values (CatBoost's order, docs/gbdt.md §3).
type Tree struct {
	Splits []Split
	Leaves []float64
}

// ModelSpec is the content of a model: the borders of every input feature,
// the trees, and the affine map applied to the trees' sum.
type ModelSpec struct {
	// Borders[f] are feature f's ascending borders (possibly none).
	Borders [][]float32
	// NaNAsTrue[f] sends a NaN value of feature f right at every split
	// (CatBoost's nan_value_treatment "AsTrue"); otherwise a NaN goes left
	// ("AsFalse"/"AsIs"). Nil means false for every feature.
	NaNAsTrue []bool
	Trees     []Tree
	// The prediction is Scale·Σ leaves + Bias (CatBoost's scale_and_bias).
	Scale, Bias float64
}

// Model is a validated, compiled ensemble of oblivious trees. It is
// immutable, so one Model serves any number of goroutines.
type Model struct {
	spec ModelSpec
	// split[k] packs the k-th split of all trees in order:
	// feature<<8 | (border index + 1); a row goes right when its bin is at
	// least the low byte.
	split  []uint32
	depth  []uint8     // depth of each tree
	leaves []float64   // all trees' leaves, tree after tree
	keys   []*keyTable // every feature's border keys
	pool   sync.Pool   // *[]uint8 bin scratch for models over 256 features
	fast   fastPath
	params *Params // the training parameters, when Train made the model
}

// NewModel validates s and compiles it for scoring. The model keeps a copy
// of s.
func NewModel(s ModelSpec) (*Model, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	m := &Model{spec: s.clone()}
	for _, t := range m.spec.Trees {
		for _, sp := range t.Splits {
			m.split = append(m.split, uint32(sp.Feature)<<8|uint32(sp.Border+1))
		}
		m.depth = append(m.depth, uint8(len(t.Splits)))
		m.leaves = append(m.leaves, t.Leaves...)
	}
	n := len(m.spec.Borders)
	m.fast = newFastPath(n, m.spec.Trees)
	m.keys = make([]*keyTable, n)
	none := newKeyTable(nil) // shared by the features without borders
	for f, b := range m.spec.Borders {
		m.keys[f] = none
		if len(b) > 0 {
			m.keys[f] = newKeyTable(b)
		}
	}
	m.pool.New = func() any { b := make([]uint8, n); return &b }
	return m, nil
}

// validate checks every index and value of s.
func (s ModelSpec) validate() error {
	nf := len(s.Borders)
	if nf < 1 || nf > MaxFeatures {
		return fmt.Errorf("gbdt: model has %d features, want [1, %d]", nf, MaxFeatures)
	}
	if s.NaNAsTrue != nil && len(s.NaNAsTrue) != nf {
		return fmt.Errorf("gbdt: NaNAsTrue has %d entries for %d features", len(s.NaNAsTrue), nf)
	}
	for f, b := range s.Borders {
		if len(b) > MaxBorders {
			return fmt.Errorf("gbdt: feature %d has %d borders, at most %d", f, len(b), MaxBorders)
		}
		for i, v := range b {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) || (i > 0 && !(v > b[i-1])) {
				return fmt.Errorf("gbdt: feature %d border %d = %v: borders must be strictly ascending finite numbers", f, i, v)
			}
		}
	}
	if math.IsNaN(s.Scale) || math.IsInf(s.Scale, 0) || math.IsNaN(s.Bias) || math.IsInf(s.Bias, 0) {
		return fmt.Errorf("gbdt: scale %v and bias %v must be finite", s.Scale, s.Bias)
	}
	for t, tr := range s.Trees {
		if len(tr.Splits) > MaxDepth {
			return fmt.Errorf("gbdt: tree %d has depth %d, out of range [0, %d]", t, len(tr.Splits), MaxDepth)
		}
		if len(tr.Leaves) != 1<<len(tr.Splits) {
			return fmt.Errorf("gbdt: tree %d has %d leaves for depth %d, want %d", t, len(tr.Leaves), len(tr.Splits), 1<<len(tr.Splits))
		}
		for i, sp := range tr.Splits {
			if sp.Feature < 0 || sp.Feature >= nf || sp.Border < 0 || sp.Border >= len(s.Borders[sp.Feature]) {
				return fmt.Errorf("gbdt: tree %d split %d (feature %d, border %d) names no border of the %d features", t, i, sp.Feature, sp.Border, nf)
			}
		}
		for i, v := range tr.Leaves {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("gbdt: tree %d leaf %d = %v: leaf values must be finite", t, i, v)
			}
		}
	}
	return nil
}

// clone deep-copies s.
func (s ModelSpec) clone() ModelSpec {
	c := ModelSpec{Scale: s.Scale, Bias: s.Bias, NaNAsTrue: slices.Clone(s.NaNAsTrue)}
	c.Borders = make([][]float32, len(s.Borders))
	for f, b := range s.Borders {
		c.Borders[f] = slices.Clone(b)
	}
	c.Trees = make([]Tree, len(s.Trees))
	for t, tr := range s.Trees {
		c.Trees[t] = Tree{Splits: slices.Clone(tr.Splits), Leaves: slices.Clone(tr.Leaves)}
	}
	return c
}

// Spec returns a copy of the model's content.
func (m *Model) Spec() ModelSpec { return m.spec.clone() }

// NumFeatures is the length of the feature vectors the model scores.
func (m *Model) NumFeatures() int { return len(m.spec.Borders) }

// NumTrees is the number of trees.
func (m *Model) NumTrees() int { return len(m.spec.Trees) }

// nanHigh reports whether a NaN value of feature f goes right.
func (m *Model) nanHigh(f int) bool { return m.spec.NaNAsTrue != nil && m.spec.NaNAsTrue[f] }

// Predict scores one feature vector: Scale·Σ_t leaf_t(x) + Bias, the trees
// summed in order (as CatBoost does). It allocates nothing. A vector of the
// wrong length scores NaN (PredictBatch reports it as an error).
func (m *Model) Predict(x []float64) float64 {
	nf := len(m.spec.Borders)
	if len(x) != nf {
		return math.NaN()
	}
	if nf <= 256 {
		var buf [256]uint8
		m.binarise(x, buf[:nf])
		if m.fast.ok {
			return m.finish(m.fast.sumFast(&buf, m.leaves, nf))
		}
		return m.finish(m.sum(buf[:nf]))
	}
	p := m.pool.Get().(*[]uint8)
	m.binarise(x, *p)
	v := m.sum(*p)
	m.pool.Put(p)
	return m.finish(v)
}

// PredictBatch scores X[i] into out[i]. It allocates nothing for models over
// at most 256 features.
func (m *Model) PredictBatch(X [][]float64, out []float64) error {
	if len(out) != len(X) {
		return fmt.Errorf("gbdt: PredictBatch: out has %d slots for %d rows", len(out), len(X))
	}
	nf := len(m.spec.Borders)
	for i, x := range X {
		if len(x) != nf {
			return fmt.Errorf("gbdt: PredictBatch: X[%d] has %d features, the model %d", i, len(x), nf)
		}
	}
	for i, x := range X {
		out[i] = m.Predict(x)
	}
	return nil
}

// binarise writes each feature's bin into bins (len = features).
func (m *Model) binarise(x []float64, bins []uint8) {
	for f, k := range m.keys {
		v := float32(x[f])
		if v != v {
			bins[f] = 0
			if m.nanHigh(f) {
				bins[f] = uint8(len(m.spec.Borders[f]))
			}
			continue
		}
		bins[f] = k.bin(orderKey(v))
	}
}

// sum returns the sum of the leaves the bins select, trees in order (the
// general path; see fast.go for the common ones). The split bit is the sign
// bit of threshold - bin - 1, negative exactly when bin >= threshold, so
// there is no branch on the data.
func (m *Model) sum(bins []uint8) float64 {
	sum := 0.0
	k, off := 0, 0
	split, leaves := m.split, m.leaves
	for _, d := range m.depth {
		idx := uint32(0)
		for j := range uint32(d) {
			s := split[k]
			k++
			idx |= (s&0xff - uint32(bins[s>>8]) - 1) >> 31 << j
		}
		sum += leaves[off+int(idx)]
		off += 1 << d
	}
	return sum
}

// finish applies scale and bias to the trees' sum. The explicit conversion
// rounds the product, so no fused multiply-add changes the result (the
// exports do the same).
func (m *Model) finish(sum float64) float64 {
	return float64(m.spec.Scale*sum) + m.spec.Bias
}

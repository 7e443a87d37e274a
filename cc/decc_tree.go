package cc

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/ml/gbdt"
)

// DECCTreeDefaults are `decc`'s parameters: DECCDefaults with the
// distilled oblivious trees (decc.md §1.9) as the policy; an empty model is
// the embedded one (deccmodel.ShippedTrees). decision_ns is 0 as decc-nn's;
// Table 3's 1.53 µs is the named reading the experiments run
// (docs/algorithms/decc.md §5).
func DECCTreeDefaults() *DECCParams {
	p := DECCDefaults()
	p.kind = deccTrees
	return p
}

// SetTrees sets decc's trees directly (tests and the distillation stage
// holding them in memory), in place of Model; m must read History ×
// DECCFeatures features.
func (p *DECCParams) SetTrees(m *gbdt.Model, name string) {
	p.trees, p.Model, p.modelFrom, p.loaded = m, name, name, true
}

// Trees returns the trees Validate loaded (nil before, and for decc-nn and
// decc-binary).
func (p *DECCParams) Trees() *gbdt.Model { return p.trees }

// loadTrees loads decc's trees and checks their width against history.
func (p *DECCParams) loadTrees() error {
	var m *gbdt.Model
	var err error
	if p.Model == "" {
		m, err = deccmodel.ShippedTrees()
	} else {
		m, err = deccmodel.LoadTreesFile(p.Model)
	}
	if err != nil {
		return fmt.Errorf("model: %v", err)
	}
	if want := p.History * DECCFeatures; m.NumFeatures() != want {
		return fmt.Errorf("history = %d: the trees read %d features, %d MTPs × %d (set history to %d)",
			p.History, m.NumFeatures(), m.NumFeatures()/DECCFeatures, DECCFeatures, m.NumFeatures()/DECCFeatures)
	}
	p.trees, p.modelFrom, p.loaded = m, p.Model, true
	return nil
}

// DECCNearest maps the trees' scalar action to the index of the nearest of
// the 11 action levels (docs/algorithms/decc.md I21): round(10·a) + 5,
// clamped to [0, 10], halves away from zero; NaN gives the no-op index.
func DECCNearest(a float64) int {
	if a != a {
		return deccmodel.Actions / 2
	}
	k := math.Round(a*10) + deccmodel.Actions/2
	return int(min(max(k, 0), deccmodel.Actions-1))
}

// deccTreePolicy is decc's policy: the trees' prediction on the flattened
// window, mapped to the nearest action level (tree_output levels) or used
// as it is, clamped to [−0.5, 0.5] (tree_output value).
type deccTreePolicy struct {
	m     *gbdt.Model
	value bool
}

// NewDECCTreePolicy returns the policy of trees m (shared, read only;
// gbdt.Model.Predict allocates nothing for up to 256 features) that maps
// the prediction to the nearest of the 11 levels (tree_output levels).
func NewDECCTreePolicy(m *gbdt.Model) DECCPolicy { return deccTreePolicy{m: m} }

// NewDECCTreeValuePolicy returns the policy of trees m that applies the
// prediction itself, clamped to [−0.5, 0.5] (tree_output value: trees
// distilled from a continuous teacher).
func NewDECCTreeValuePolicy(m *gbdt.Model) DECCPolicy { return deccTreePolicy{m: m, value: true} }

// Act predicts the scalar action of the window and returns its nearest
// level or the clamped value (a window of the wrong width predicts NaN:
// the no-op 0).
func (t deccTreePolicy) Act(window []float64, steps int) float64 {
	a := t.m.Predict(window)
	if !t.value {
		return deccmodel.ActionValue(DECCNearest(a))
	}
	if a != a {
		return 0
	}
	return min(max(a, -0.5), 0.5)
}

func init() {
	Register(&Spec{
		Name: "decc",
		Summary: "DECC (paper 000) as deployed: oblivious trees distilled from the teacher (RMSE boosting, rate 0.02; docs/gbdt.md) over 5 MTPs of " +
			"(thr, lat, loss, in-flight, rate), their scalar action rounded to the nearest of 11 levels, decc-nn's MTP loop; " +
			"the shipped trees (ccsim train decc)",
		Defaults: func() Params { return DECCTreeDefaults() },
		New:      deccNew,
	})
}

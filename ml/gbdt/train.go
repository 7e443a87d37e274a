package gbdt

import (
	"errors"
	"fmt"
	"math"
)

// Result describes a training run.
type Result struct {
	// Trees is the number of trees grown before training ended (all of
	// Params.Iterations unless early stopping ended it).
	Trees int
	// BestIteration is the number of trees the returned model keeps: with a
	// validation set the count with the lowest validation RMSE (the first
	// such count), without one all the trees grown.
	BestIteration int
	// TrainRMSE[t] and ValidRMSE[t] are the RMSEs with t+1 trees (ValidRMSE
	// nil without a validation set). TrainRMSE is the trainer's own running
	// prediction; ValidRMSE is what the returned model predicts.
	TrainRMSE, ValidRMSE []float64
}

// Train fits a model to train by RMSE boosting (docs/gbdt.md §2). valid,
// when not nil, is scored after every tree; training stops once
// p.EarlyStoppingRounds trees in a row have not lowered its RMSE, and the
// model keeps the trees up to the best validation RMSE.
func Train(p Params, train Data, valid *Data) (*Model, Result, error) {
	if err := p.Validate(); err != nil {
		return nil, Result{}, err
	}
	nf, err := train.check("train", -1)
	if err != nil {
		return nil, Result{}, err
	}
	if valid != nil {
		if _, err := valid.check("valid", nf); err != nil {
			return nil, Result{}, err
		}
	} else if p.EarlyStoppingRounds > 0 {
		return nil, Result{}, fmt.Errorf("gbdt: EarlyStoppingRounds = %d needs a validation set (valid is nil)", p.EarlyStoppingRounds)
	}
	tr := newTrainer(p, train)
	if tr.candidates == 0 {
		return nil, Result{}, errors.New("gbdt: train.X: every feature is constant, so no split exists")
	}
	var vs *validState
	if valid != nil {
		vs = newValidState(tr.borders, *valid, tr.bias)
	}
	var res Result
	var trees []Tree
	for it := 0; it < p.Iterations; it++ {
		t := tr.growTree()
		trees = append(trees, t)
		res.TrainRMSE = append(res.TrainRMSE, tr.rmse())
		if vs == nil {
			continue
		}
		r := vs.add(t)
		res.ValidRMSE = append(res.ValidRMSE, r)
		if best := res.BestIteration; best == 0 || r < res.ValidRMSE[best-1] {
			res.BestIteration = it + 1
		}
		if p.EarlyStoppingRounds > 0 && it+1-res.BestIteration >= p.EarlyStoppingRounds {
			break
		}
	}
	res.Trees = len(trees)
	if vs == nil {
		res.BestIteration = len(trees)
	}
	m, err := NewModel(ModelSpec{Borders: tr.borders, Trees: trees[:res.BestIteration], Scale: 1, Bias: tr.bias})
	if err != nil {
		return nil, Result{}, fmt.Errorf("gbdt: internal error: %w", err)
	}
	m.params = &p
	return m, res, nil
}

// validState keeps the running prediction of the validation rows.
type validState struct {
	bins []uint8 // row-major: bins[i*nf+f]
	nf   int
	y    []float64
	sum  []float64 // Σ leaves so far, per row
	bias float64
}

// newValidState binarises v with the training borders.
func newValidState(borders [][]float32, v Data, bias float64) *validState {
	nf := len(borders)
	s := &validState{bins: make([]uint8, len(v.X)*nf), nf: nf, y: v.Y, sum: make([]float64, len(v.X)), bias: bias}
	for i, x := range v.X {
		for f, b := range borders {
			s.bins[i*nf+f] = binOf(float32(x[f]), b)
		}
	}
	return s
}

// add adds tree t's leaves to the running sums and returns the RMSE of
// Σ leaves + bias, computed as Model.Predict computes it (scale 1, the trees
// summed in order), so the best iteration is judged on the model's own
// predictions.
func (s *validState) add(t Tree) float64 {
	sse := 0.0
	for i := range s.sum {
		row := s.bins[i*s.nf : (i+1)*s.nf]
		idx := 0
		for j, sp := range t.Splits {
			if int(row[sp.Feature]) > sp.Border {
				idx |= 1 << j
			}
		}
		s.sum[i] += t.Leaves[idx]
		e := s.sum[i] + s.bias - s.y[i]
		sse += e * e
	}
	return math.Sqrt(sse / float64(len(s.sum)))
}

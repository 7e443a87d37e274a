package compress

import (
	"errors"
	"fmt"

	"github.com/ccsim/ccsim/ml/nn"
)

// steOptimizer is the straight-through estimator as an nn.Optimizer over
// the quantised model's parameters (decc.md §1.8, Algorithm 2 step 5:
// quantisation-aware fine-tuning, masks and quantisers fixed). The trainer
// computes the gradients through the quantised weights; Step copies them to
// the float shadow weights (dQ(w)/dw taken as 1; pruned weights get 0, so
// Adam never moves them), takes an Adam step on the shadow weights, and
// recomputes the quantised weights from them.
type steOptimizer struct {
	c    *Model
	adam *nn.Adam
	q, s []*nn.Param // quantised and shadow parameters, same order
	mask [][]bool    // per parameter: the matrix mask, or nil (a bias)
}

func newSTE(c *Model, cfg nn.AdamConfig) (*steOptimizer, error) {
	o := &steOptimizer{c: c, q: c.Quant.Params(), s: c.Shadow.Params()}
	adam, err := nn.NewAdam(o.s, cfg)
	if err != nil {
		return nil, err
	}
	o.adam = adam
	ql := c.Quant.Layers()
	for li := range ql {
		mp := matrixParam(ql[li])
		for _, p := range ql[li].Params() {
			var m []bool
			if p == mp {
				m = c.matrixOf(li).Mask
			}
			o.mask = append(o.mask, m)
		}
	}
	return o, nil
}

// Params returns the quantised model's parameters (those the trainer
// computes gradients for).
func (o *steOptimizer) Params() []*nn.Param { return o.q }

// Step passes the gradients straight through, updates the shadow weights
// and requantises.
func (o *steOptimizer) Step() {
	for k, qp := range o.q {
		g := o.s[k].G
		if m := o.mask[k]; m != nil {
			for i, v := range qp.G {
				if m[i] {
					g[i] = v
				} else {
					g[i] = 0
				}
			}
		} else {
			copy(g, qp.G)
		}
	}
	o.adam.Step()
	o.c.Requantize()
}

// FineTuneConfig holds the fine-tuning parameters (decc.md §1.8: N_b = 192,
// N_e = 20; Adam as the training of §1.7).
type FineTuneConfig struct {
	Epochs int // N_e, ≥ 1
	Batch  int // N_b, ≥ 1
	Adam   nn.AdamConfig
	Loss   nn.Loss // distillation loss against the teacher's outputs
	Seed   uint64  // shuffling
}

// DefaultFineTune returns 20 epochs, batch 192, Adam at its defaults
// (α = 0.001), MSE loss, seed 1.
func DefaultFineTune() FineTuneConfig {
	return FineTuneConfig{Epochs: 20, Batch: 192, Adam: nn.DefaultAdam(), Loss: nn.MSE, Seed: 1}
}

// Validate checks every field's range.
func (f FineTuneConfig) Validate() error {
	if f.Epochs < 1 {
		return fmt.Errorf("compress: fine-tune: epochs = %d, want ≥ 1", f.Epochs)
	}
	if f.Batch < 1 {
		return fmt.Errorf("compress: fine-tune: batch = %d, want ≥ 1", f.Batch)
	}
	if f.Loss != nn.MAE && f.Loss != nn.MSE {
		return fmt.Errorf("compress: fine-tune: loss = %d, want mae (1) or mse (2)", uint8(f.Loss))
	}
	return f.Adam.Validate()
}

// Distill returns the dataset (x, teacher(x)) for the inputs xs of steps
// steps each.
func Distill(teacher *nn.Sequential, xs [][]float64, steps int) (nn.Dataset, error) {
	if teacher == nil {
		return nn.Dataset{}, errors.New("compress: distill: teacher is nil")
	}
	if len(xs) == 0 {
		return nn.Dataset{}, errors.New("compress: distill: no inputs")
	}
	ws := teacher.NewWorkspace(steps)
	d := nn.Dataset{X: xs, Y: make([][]float64, len(xs)), Steps: steps}
	for i, x := range xs {
		y, err := teacher.Forward(ws, x, steps)
		if err != nil {
			return nn.Dataset{}, fmt.Errorf("compress: distill: input %d: %w", i, err)
		}
		d.Y[i] = append([]float64(nil), y...)
	}
	return d, nil
}

// FineTune trains c by distillation from teacher (the uncompressed model,
// normally the one c was compressed from) on the inputs xs (steps steps
// each): the targets are the teacher's outputs, the loss is taken on the
// quantised model's outputs, and the gradients reach the shadow weights
// straight through the quantiser. Masks and steps stay fixed; after every
// batch Quant is recomputed. It returns each epoch's mean training loss.
func FineTune(c *Model, teacher *nn.Sequential, xs [][]float64, steps int, cfg FineTuneConfig) ([]float64, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d, err := Distill(teacher, xs, steps)
	if err != nil {
		return nil, err
	}
	if err := d.Check(c.Quant); err != nil {
		return nil, fmt.Errorf("compress: fine-tune: %w", err)
	}
	opt, err := newSTE(c, cfg.Adam)
	if err != nil {
		return nil, fmt.Errorf("compress: fine-tune: %w", err)
	}
	tr, err := nn.NewTrainer(c.Quant, opt, cfg.Loss, cfg.Batch, nn.NewRand(cfg.Seed))
	if err != nil {
		return nil, fmt.Errorf("compress: fine-tune: %w", err)
	}
	var losses []float64
	err = tr.Fit(d, cfg.Epochs, func(_ int, l float64) error {
		losses = append(losses, l)
		return nil
	})
	return losses, err
}

package compress

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ccsim/ccsim/ml/nn"
)

// Scope selects how the pruning threshold is shared between layers.
type Scope uint8

const (
	// Global is decc.md §1.8.1 as derived: one threshold β = √λ for every
	// weight matrix, solving eq. (18) so that the whole model's fitted
	// pruned mass is p*; the layers' own ratios p_i differ.
	Global Scope = 1
	// PerLayer prunes every weight matrix to p* with its own threshold
	// (eq. 18 solved for that matrix alone): uniform sparsity per layer.
	PerLayer Scope = 2
)

func (s Scope) String() string {
	switch s {
	case Global:
		return "global"
	case PerLayer:
		return "per-layer"
	}
	return fmt.Sprintf("scope(%d)", uint8(s))
}

// Config holds the compression parameters (decc.md §1.11: p* 0.65, B 4).
type Config struct {
	// Sparsity is the target pruning ratio p*, in [0, 1).
	Sparsity float64
	// Bits is the quantiser bit width B, in [2, 8].
	Bits int
	// Scope is Global (the paper) or PerLayer.
	Scope Scope
	// Step is the objective of the per-layer step (StepError or StepCover).
	Step StepObjective
	// Tolerance is the largest |achieved − target| sparsity (absolute) at
	// which the Laplace threshold is used; beyond it the empirical |w|
	// quantile replaces it (docs/compress.md "threshold"). In (0, 1).
	Tolerance float64
}

// DefaultConfig returns p* = 0.65, B = 4, Global, StepError, tolerance
// 0.005 (the "sparsity within 0.5 % of target", read as 0.5
// percentage points).
func DefaultConfig() Config {
	return Config{Sparsity: 0.65, Bits: 4, Scope: Global, Step: StepError, Tolerance: 0.005}
}

// Validate checks every field's range.
func (c Config) Validate() error {
	if !(c.Sparsity >= 0 && c.Sparsity < 1) {
		return fmt.Errorf("compress: sparsity = %v, want [0, 1)", c.Sparsity)
	}
	if err := checkBits(c.Bits); err != nil {
		return err
	}
	if c.Scope != Global && c.Scope != PerLayer {
		return fmt.Errorf("compress: scope = %d, want global (1) or per-layer (2)", uint8(c.Scope))
	}
	if c.Step != StepError && c.Step != StepCover {
		return fmt.Errorf("compress: step = %d, want error (1) or cover (2)", uint8(c.Step))
	}
	if !(c.Tolerance > 0 && c.Tolerance < 1) {
		return fmt.Errorf("compress: tolerance = %v, want (0, 1)", c.Tolerance)
	}
	return nil
}

// Matrix is one pruned and quantised weight matrix of a model.
type Matrix struct {
	// Layer is the index of the layer in the model; Name describes it.
	Layer int
	Name  string
	// Mask[i] is true where weight i is kept (M_i of decc.md §1.8).
	Mask []bool
	// Step is the quantiser step Δ_i (a float32 value).
	Step float64
}

// Model is a compressed model: masks and steps fixed at compression, float
// shadow weights that fine-tuning trains, and the quantised model they map
// to.
type Model struct {
	// Bits is the quantiser width B.
	Bits int
	// Shadow is the float model: pruned weights are 0, kept ones are the
	// float shadow weights (the original ones until fine-tuning).
	Shadow *nn.Sequential
	// Quant is the dequantised model M∘(Δ·round(W/Δ)) of Shadow with its
	// biases rounded to float32: what Pack stores and PackedModel computes.
	Quant *nn.Sequential
	// Matrices lists the weight matrices in layer order.
	Matrices []Matrix
}

// matrixParam returns the weight matrix of layer l (Dense W or LSTM W), or
// nil for a layer without one.
func matrixParam(l nn.Layer) *nn.Param {
	switch l := l.(type) {
	case *nn.Dense:
		return &l.W
	case *nn.LSTM:
		return &l.W
	}
	return nil
}

// checkModel names the first non-finite parameter of m.
func checkModel(m *nn.Sequential) error {
	if m == nil {
		return errors.New("compress: model is nil")
	}
	for li, l := range m.Layers() {
		for _, p := range l.Params() {
			for i, w := range p.W {
				if math.IsNaN(w) || math.IsInf(w, 0) {
					return fmt.Errorf("compress: layer %d (%v) %s[%d] = %v, want finite", li, l, p.Name, i, w)
				}
			}
		}
	}
	return nil
}

// Compress prunes and quantises a copy of m (Algorithm 2 steps 1–2, then
// step 7 on the unfine-tuned weights) and reports how the thresholds and
// steps were chosen. m is not changed.
func Compress(m *nn.Sequential, cfg Config) (*Model, *Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	if err := checkModel(m); err != nil {
		return nil, nil, err
	}
	c := &Model{Bits: cfg.Bits, Shadow: m.Clone()}
	var ws [][]float64
	for li, l := range c.Shadow.Layers() {
		if p := matrixParam(l); p != nil {
			c.Matrices = append(c.Matrices, Matrix{Layer: li, Name: fmt.Sprintf("layer %d %v", li, l)})
			ws = append(ws, p.W)
		}
	}
	if len(ws) == 0 {
		return nil, nil, errors.New("compress: the model has no weight matrix (dense or lstm layer)")
	}
	rep, masks := prune(ws, cfg)
	L := MaxLevel(cfg.Bits)
	for k := range c.Matrices {
		mt := &c.Matrices[k]
		mt.Mask = masks[k]
		var abs []float64
		for i, w := range ws[k] {
			if mt.Mask[i] {
				abs = append(abs, math.Abs(w))
			} else {
				ws[k][i] = 0
			}
		}
		step, err := layerStep(abs, L, cfg.Step)
		if err != nil {
			return nil, nil, fmt.Errorf("compress: %s: %w", mt.Name, err)
		}
		mt.Step = step
		rep.Matrices[k].Name, rep.Matrices[k].Step = mt.Name, step
	}
	c.Quant = c.Shadow.Clone()
	c.Requantize()
	for k, mt := range c.Matrices {
		rep.Matrices[k].Levels = distinctLevels(c.Quant.Layers()[mt.Layer])
	}
	return c, rep, nil
}

// layerStep returns the step of one layer's kept magnitudes abs for the
// objective, refusing one that float32 cannot hold.
func layerStep(abs []float64, maxLevel int, obj StepObjective) (float64, error) {
	var step float64
	var err error
	if obj == StepCover {
		step, _, err = StepBisect(slices.Max(append(abs, 0)), maxLevel)
	} else {
		step, _, err = StepErrorBisect(abs, maxLevel)
	}
	if err == nil && (math.IsInf(step, 0) || step == 0) {
		err = fmt.Errorf("step %v does not fit a positive float32", step)
	}
	return step, err
}

// distinctLevels counts the distinct values of a quantised weight matrix.
func distinctLevels(l nn.Layer) int {
	seen := map[float64]bool{}
	for _, w := range matrixParam(l).W {
		seen[w] = true
	}
	return len(seen)
}

// Requantize recomputes Quant from Shadow: every kept weight w becomes
// Δ·Code(w, Δ, L), every pruned one 0, every bias float32(b). Fine-tuning
// calls it after each step. The model must pass Check (one made by
// Compress does).
func (c *Model) Requantize() {
	L := MaxLevel(c.Bits)
	ql, sl := c.Quant.Layers(), c.Shadow.Layers()
	for li := range ql {
		mp := matrixParam(ql[li])
		qp, sp := ql[li].Params(), sl[li].Params()
		for pi := range qp {
			dst, src := qp[pi].W, sp[pi].W
			if qp[pi] != mp {
				for i, w := range src {
					dst[i] = float64(float32(w))
				}
				continue
			}
			mt := c.matrixOf(li)
			for i, w := range src {
				if mt.Mask[i] {
					dst[i] = Quantize(w, mt.Step, L)
				} else {
					dst[i] = 0
				}
			}
		}
	}
}

// Check reports the first inconsistency of a Model (one built by hand
// rather than by Compress): bits out of range, missing models, Shadow and
// Quant of different shapes, a weight matrix without its Matrix entry or
// the reverse, a mask of the wrong length, a step that is not a positive
// finite float32.
func (c *Model) Check() error {
	if c == nil || c.Shadow == nil || c.Quant == nil {
		return errors.New("compress: model: nil model, Shadow or Quant")
	}
	if err := checkBits(c.Bits); err != nil {
		return err
	}
	ql, sl := c.Quant.Layers(), c.Shadow.Layers()
	if len(ql) != len(sl) || c.Quant.NumParams() != c.Shadow.NumParams() {
		return errors.New("compress: model: Shadow and Quant differ in shape")
	}
	k := 0
	for li, l := range ql {
		if l.String() != sl[li].String() {
			return fmt.Errorf("compress: model: layer %d is %v in Quant but %v in Shadow", li, l, sl[li])
		}
		p := matrixParam(l)
		if p == nil {
			continue
		}
		if k >= len(c.Matrices) || c.Matrices[k].Layer != li {
			return fmt.Errorf("compress: model: layer %d (%v) has no Matrices entry (in layer order)", li, l)
		}
		mt := &c.Matrices[k]
		if len(mt.Mask) != len(p.W) {
			return fmt.Errorf("compress: model: layer %d mask has %d entries, want %d", li, len(mt.Mask), len(p.W))
		}
		if !(mt.Step > 0) || math.IsInf(mt.Step, 0) || float64(float32(mt.Step)) != mt.Step {
			return fmt.Errorf("compress: model: layer %d step = %v, want a positive finite float32 value", li, mt.Step)
		}
		k++
	}
	if k != len(c.Matrices) {
		return fmt.Errorf("compress: model: %d Matrices entries for %d weight matrices", len(c.Matrices), k)
	}
	return nil
}

// matrixOf returns the matrix of layer li (which has one: Check).
func (c *Model) matrixOf(li int) *Matrix {
	for k := range c.Matrices {
		if c.Matrices[k].Layer == li {
			return &c.Matrices[k]
		}
	}
	panic(fmt.Sprintf("compress: layer %d has no matrix", li)) // excluded by Check
}

package compress

import (
	"cmp"
	"math"
	"slices"
)

// Method names how a matrix's pruning threshold was chosen.
type Method string

// The threshold methods.
const (
	// MethodLaplace: the Newton–Raphson threshold of the Laplace fit (the paper's).
	MethodLaplace Method = "laplace"
	// MethodQuantile: the empirical |w| quantile, used when the Laplace threshold
	// misses the target by more than the tolerance or the fit failed.
	MethodQuantile Method = "quantile"
)

// MatrixReport describes the compression of one weight matrix.
type MatrixReport struct {
	Name string
	N    int // weights
	// Fit is the Laplace fit (zero if FitError is set).
	Fit      Laplace
	FitError string
	// LaplaceThreshold is the fitted threshold β (global or own, per the
	// scope) and LaplaceSparsity the fraction of this matrix's weights with
	// |w| ≤ β; QuantileThreshold is the empirical threshold (the largest
	// pruned |w| of the quantile selection, 0 if none is pruned).
	LaplaceThreshold, LaplaceSparsity float64
	QuantileThreshold                 float64
	// Method is the threshold used; Sparsity the achieved pruned fraction.
	Method   Method
	Sparsity float64
	// Step is the quantiser step Δ; Levels the number of distinct values
	// of the quantised matrix (0 included).
	Step   float64
	Levels int
}

// Report describes a compression.
type Report struct {
	Scope  Scope
	Target float64
	// LaplaceSparsity is the whole model's pruned fraction with the Laplace
	// thresholds; Sparsity the achieved one; Method the global method
	// (Global scope) or "laplace" only if every matrix used the fit.
	LaplaceSparsity, Sparsity float64
	Method                    Method
	// NewtonIters is the number of Newton–Raphson iterations (Global scope).
	NewtonIters int
	Matrices    []MatrixReport
}

// ranked is one weight in the quantile selection's order.
type ranked struct {
	abs    float64
	matrix int
	index  int
}

// quantileMasks prunes exactly round(p·n) of the weights of the matrices
// listed, the smallest |w| first, ties broken by matrix then index (so the
// achieved sparsity is within 1/(2n) of p whatever the ties), and returns
// the largest pruned |w|.
func quantileMasks(ws [][]float64, which []int, p float64, masks [][]bool) float64 {
	var all []ranked
	for _, k := range which {
		for i, w := range ws[k] {
			all = append(all, ranked{math.Abs(w), k, i})
		}
	}
	slices.SortFunc(all, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.abs, b.abs), cmp.Compare(a.matrix, b.matrix), cmp.Compare(a.index, b.index))
	})
	n := int(math.Round(p * float64(len(all))))
	for _, r := range all[n:] {
		masks[r.matrix][r.index] = true
	}
	if n == 0 {
		return 0
	}
	return all[n-1].abs
}

// thresholdMask sets mask[i] = |w_i| > beta and returns the pruned fraction.
func thresholdMask(w []float64, beta float64, mask []bool) float64 {
	pruned := 0
	for i, v := range w {
		mask[i] = math.Abs(v) > beta
		if !mask[i] {
			pruned++
		}
	}
	return float64(pruned) / float64(len(w))
}

// prune computes the masks of the weight matrices ws (decc.md §1.8.1): a
// Laplace fit per matrix, the Newton–Raphson threshold (one for all in
// Global scope, one per matrix in PerLayer scope), the empirical quantile
// alongside, and the choice between them.
func prune(ws [][]float64, cfg Config) (*Report, [][]bool) {
	rep := &Report{Scope: cfg.Scope, Target: cfg.Sparsity, Matrices: make([]MatrixReport, len(ws))}
	lap, qnt := make([][]bool, len(ws)), make([][]bool, len(ws))
	groups := make([]ThresholdGroup, len(ws))
	fitted := true
	total := 0
	for k, w := range ws {
		lap[k], qnt[k] = make([]bool, len(w)), make([]bool, len(w))
		mr := &rep.Matrices[k]
		mr.N = len(w)
		total += len(w)
		f, err := FitLaplace(w)
		if err != nil {
			mr.FitError, fitted = err.Error(), false
		}
		mr.Fit, groups[k] = f, ThresholdGroup{Fit: f, N: len(w)}
	}
	// the Laplace thresholds
	if cfg.Scope == Global && fitted {
		beta, iters, err := SolveThreshold(groups, cfg.Sparsity)
		if err != nil {
			fitted = false
		}
		rep.NewtonIters = iters
		for k := range ws {
			rep.Matrices[k].LaplaceThreshold = beta
		}
	}
	for k, w := range ws {
		mr := &rep.Matrices[k]
		if cfg.Scope == PerLayer && mr.FitError == "" {
			mr.LaplaceThreshold, _, _ = SolveThreshold(groups[k:k+1], cfg.Sparsity)
		}
		mr.LaplaceSparsity = thresholdMask(w, mr.LaplaceThreshold, lap[k])
		rep.LaplaceSparsity += mr.LaplaceSparsity * float64(len(w)) / float64(total)
	}
	// the empirical quantiles and the choice
	if cfg.Scope == Global {
		all := make([]int, len(ws))
		for k := range all {
			all[k] = k
		}
		q := quantileMasks(ws, all, cfg.Sparsity, qnt)
		m := MethodQuantile
		if fitted && math.Abs(rep.LaplaceSparsity-cfg.Sparsity) <= cfg.Tolerance {
			m = MethodLaplace
		}
		for k := range ws {
			rep.Matrices[k].QuantileThreshold, rep.Matrices[k].Method = q, m
		}
	} else {
		for k := range ws {
			mr := &rep.Matrices[k]
			mr.QuantileThreshold = quantileMasks(ws, []int{k}, cfg.Sparsity, qnt)
			m := MethodQuantile
			if mr.FitError == "" && math.Abs(mr.LaplaceSparsity-cfg.Sparsity) <= cfg.Tolerance {
				m = MethodLaplace
			}
			mr.Method = m
		}
	}
	masks := make([][]bool, len(ws))
	rep.Method = MethodLaplace
	allPruned := 0
	for k, w := range ws {
		mr := &rep.Matrices[k]
		masks[k] = lap[k]
		if mr.Method == MethodQuantile {
			masks[k] = qnt[k]
			rep.Method = MethodQuantile
		}
		pruned := 0
		for _, keep := range masks[k] {
			if !keep {
				pruned++
			}
		}
		mr.Sparsity = float64(pruned) / float64(len(w))
		allPruned += pruned
	}
	rep.Sparsity = float64(allPruned) / float64(total)
	return rep, masks
}

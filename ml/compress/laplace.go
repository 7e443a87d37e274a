package compress

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ccsim/ccsim/ml/nn"
)

// Laplace is a fitted Laplace distribution with location Mu and scale B:
// density f(x) = e^{−|x−μ|/b}/(2b), the weight model of decc.md §1.8.1
// (the paper's τ_i is b; its printed density lacks the /τ_i, decc.md §1.12
// item 7).
type Laplace struct {
	Mu, B float64
}

// CDF returns F(x) = ½e^{(x−μ)/b} for x < μ and 1 − ½e^{−(x−μ)/b} otherwise.
func (l Laplace) CDF(x float64) float64 {
	z := (x - l.Mu) / l.B
	if z < 0 {
		return 0.5 * nn.DetExp(z)
	}
	return 1 - 0.5*nn.DetExp(-z)
}

// PDF returns the density f(x).
func (l Laplace) PDF(x float64) float64 {
	return nn.DetExp(-math.Abs(x-l.Mu)/l.B) / (2 * l.B)
}

// Mass returns the probability of [−β, β], F(β) − F(−β): the fraction of
// weights a magnitude threshold β prunes (eq. 12).
func (l Laplace) Mass(beta float64) float64 {
	return l.CDF(beta) - l.CDF(-beta)
}

// lmPoints is the number of points of the empirical CDF the fit uses (the
// whole CDF when the layer has fewer weights).
const lmPoints = 512

// FitLaplace fits a Laplace distribution to the values w by least squares
// on the empirical CDF with Levenberg–Marquardt (decc.md §1.8.1: "fit τ_i to
// the empirical CDF with Levenberg–Marquardt"). The residuals are
// F(x_(k); μ, b) − (k+½)/n at up to 512 order statistics x_(k) evenly spread
// over the ranks; the start is the maximum-likelihood estimate (median, mean
// absolute deviation from it). It needs at least two distinct finite values.
func FitLaplace(w []float64) (Laplace, error) {
	n := len(w)
	if n < 2 {
		return Laplace{}, fmt.Errorf("compress: laplace fit: %d values, want ≥ 2", n)
	}
	s := slices.Clone(w)
	for i, v := range s {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Laplace{}, fmt.Errorf("compress: laplace fit: value %d is %v, want finite", i, v)
		}
	}
	slices.Sort(s)
	if s[0] == s[n-1] {
		return Laplace{}, errors.New("compress: laplace fit: all values are equal (scale 0)")
	}
	m := min(n, lmPoints)
	xs, ys := make([]float64, m), make([]float64, m)
	for j := range m {
		k := int((float64(j) + 0.5) * float64(n) / float64(m))
		xs[j], ys[j] = s[k], (float64(k)+0.5)/float64(n)
	}
	med := s[n/2]
	if n%2 == 0 {
		med = 0.5 * (s[n/2-1] + s[n/2])
	}
	mad := 0.0
	for _, v := range s {
		mad += math.Abs(v - med)
	}
	mad /= float64(n)
	return levenbergMarquardt(xs, ys, Laplace{Mu: med, B: mad}), nil
}

// cdfResiduals returns the sum of squared residuals of l at (xs, ys) and,
// if jtj and jtr are non-nil, the Gauss–Newton normal equations JᵀJ and Jᵀr
// with the analytic Jacobian: ∂F/∂μ = −½e^{−|z|}/b, ∂F/∂b = −½e^{−|z|}·z/b,
// z = (x−μ)/b.
func cdfResiduals(xs, ys []float64, l Laplace, jtj *[2][2]float64, jtr *[2]float64) float64 {
	if jtj != nil {
		*jtj = [2][2]float64{}
		*jtr = [2]float64{}
	}
	ss := 0.0
	for i, x := range xs {
		z := (x - l.Mu) / l.B
		e := 0.5 * nn.DetExp(-math.Abs(z))
		f := e
		if z >= 0 {
			f = 1 - e
		}
		r := f - ys[i]
		ss += r * r
		if jtj != nil {
			j0, j1 := -e/l.B, -e*z/l.B
			jtj[0][0] += j0 * j0
			jtj[0][1] += j0 * j1
			jtj[1][1] += j1 * j1
			jtr[0] += j0 * r
			jtr[1] += j1 * r
		}
	}
	if jtj != nil {
		jtj[1][0] = jtj[0][1]
	}
	return ss
}

// levenbergMarquardt minimises the CDF residuals from start with Marquardt's
// scaled damping (JᵀJ + λ·diag(JᵀJ))δ = −Jᵀr: λ shrinks ×10 after an
// accepted step and grows ×10 after a rejected one (or one that makes b ≤ 0).
// It stops when a step changes both parameters by less than 1e-12 relative,
// or after 200 iterations.
func levenbergMarquardt(xs, ys []float64, l Laplace) Laplace {
	var jtj [2][2]float64
	var jtr [2]float64
	lambda := 1e-3
	ss := cdfResiduals(xs, ys, l, &jtj, &jtr)
	for range 200 {
		a00, a11, a01 := jtj[0][0]*(1+lambda), jtj[1][1]*(1+lambda), jtj[0][1]
		det := a00*a11 - a01*a01
		if det == 0 || math.IsNaN(det) {
			break
		}
		d0 := -(a11*jtr[0] - a01*jtr[1]) / det
		d1 := -(a00*jtr[1] - a01*jtr[0]) / det
		cand := Laplace{Mu: l.Mu + d0, B: l.B + d1}
		if cand.B > 0 {
			if css := cdfResiduals(xs, ys, cand, nil, nil); css <= ss {
				small := math.Abs(d0) <= 1e-12*(math.Abs(l.Mu)+l.B) && math.Abs(d1) <= 1e-12*l.B
				l, ss = cand, css
				cdfResiduals(xs, ys, l, &jtj, &jtr)
				lambda = max(lambda/10, 1e-12)
				if small {
					break
				}
				continue
			}
		}
		lambda *= 10
		if lambda > 1e12 {
			break
		}
	}
	return l
}

// ThresholdGroup is one weight matrix as seen by the threshold solver: its
// Laplace fit and its number of weights N_i.
type ThresholdGroup struct {
	Fit Laplace
	N   int
}

// SolveThreshold returns the magnitude threshold β whose fitted pruned mass
// equals the target sparsity p:
//
//	h(β) = (1/N)·Σ_i N_i·(F_i(β) − F_i(−β)) − p = 0,   N = Σ_i N_i,
//
// decc.md eq. (18) (there β = √λ, one threshold for all layers; with one
// group it is that group's own threshold). It runs Newton–Raphson with
// h'(β) = (1/N)·Σ_i N_i·(f_i(β) + f_i(−β)), safeguarded by a bracket: a
// step that leaves the bracket, or a zero derivative, is replaced by
// bisection. h rises from −p at 0 to 1−p, so the root exists and is unique
// for p in [0, 1). For a zero-mean Laplace with scale b the root is
// b·ln(1/(1−p)). It also returns the number of Newton iterations.
func SolveThreshold(groups []ThresholdGroup, p float64) (beta float64, iters int, err error) {
	if !(p >= 0 && p < 1) {
		return 0, 0, fmt.Errorf("compress: threshold: sparsity = %v, want [0, 1)", p)
	}
	if len(groups) == 0 {
		return 0, 0, errors.New("compress: threshold: no groups")
	}
	total, guess := 0.0, 0.0
	for i, g := range groups {
		if g.N < 1 || !(g.Fit.B > 0) || math.IsInf(g.Fit.B, 0) || math.IsNaN(g.Fit.Mu) || math.IsInf(g.Fit.Mu, 0) {
			return 0, 0, fmt.Errorf("compress: threshold: group %d has n = %d, b = %v, μ = %v; want n ≥ 1, b > 0 finite, μ finite", i, g.N, g.Fit.B, g.Fit.Mu)
		}
		total += float64(g.N)
		guess += float64(g.N) * (g.Fit.B*math.Log(1/(1-p)) + math.Abs(g.Fit.Mu))
	}
	if p == 0 {
		return 0, 0, nil
	}
	h := func(b float64) (v, d float64) {
		for _, g := range groups {
			w := float64(g.N) / total
			v += w * g.Fit.Mass(b)
			d += w * (g.Fit.PDF(b) + g.Fit.PDF(-b))
		}
		return v - p, d
	}
	lo, hi := 0.0, guess/total
	for v, _ := h(hi); v < 0; v, _ = h(hi) {
		lo, hi = hi, 2*hi
	}
	beta = guess / total
	for iters = 1; iters <= 200; iters++ {
		v, d := h(beta)
		if v == 0 {
			break
		}
		if v < 0 {
			lo = beta
		} else {
			hi = beta
		}
		next := beta - v/d
		if d == 0 || !(next > lo && next < hi) {
			next = 0.5 * (lo + hi)
		}
		if math.Abs(next-beta) <= 1e-15*beta {
			beta = next
			break
		}
		beta = next
	}
	return beta, iters, nil
}

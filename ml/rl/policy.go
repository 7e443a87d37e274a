package rl

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ccsim/ccsim/ml/nn"
)

// Policy heads: functions from a network's raw outputs to actions, their log
// probabilities and the gradients of those with respect to the raw outputs
// (which a caller hands to nn.Sequential.Backward). docs/rl.md §4.
//
// They are inner-loop kernels, like nn.Dot: they do not check their
// arguments. Every slice passed with another has its length (one value per
// class or action component) and a class index k is in [0, len(z)); the
// learners of this package guarantee both, a direct caller must.

// log2Pi is log(2π).
var log2Pi = detLog(2 * math.Pi)

// halfLog2Pi is ½log(2π), halfLog2PiE ½log(2πe) (rounded once, so that no
// product is fused into the sums that use them).
var halfLog2Pi, halfLog2PiE = 0.5 * log2Pi, 0.5 * (log2Pi + 1)

// LogSumExp returns log Σ_j exp(z_j), computed as m + log Σ_j exp(z_j − m)
// with m = max_j z_j so that no exponential overflows.
func LogSumExp(z []float64) float64 {
	m, ls := lseParts(z)
	return m + ls
}

// lseParts returns m = max_j z_j and log Σ_j exp(z_j − m); log p_j is then
// (z_j − m) − ls, which keeps its precision when the logits are large.
func lseParts(z []float64) (m, ls float64) {
	m = math.Inf(-1)
	for _, v := range z {
		m = max(m, v)
	}
	if math.IsInf(m, 0) {
		return m, 0
	}
	s := 0.0
	for _, v := range z {
		s += nn.DetExp(v - m)
	}
	return m, detLog(s)
}

// Softmax writes p_j = exp(z_j − LogSumExp(z)) into p (len(p) = len(z)).
func Softmax(z, p []float64) {
	m, ls := lseParts(z)
	for j, v := range z {
		p[j] = nn.DetExp((v - m) - ls)
	}
}

// CategoricalLogProb returns log p_k = z_k − LogSumExp(z).
func CategoricalLogProb(z []float64, k int) float64 {
	m, ls := lseParts(z)
	return (z[k] - m) - ls
}

// CategoricalEntropy returns H = −Σ_j p_j log p_j (classes with z_j = −∞
// contribute 0).
func CategoricalEntropy(z []float64) float64 {
	m, ls := lseParts(z)
	h := 0.0
	for _, v := range z {
		if lp := (v - m) - ls; !math.IsInf(lp, -1) {
			h -= float64(nn.DetExp(lp) * lp)
		}
	}
	return h
}

// CategoricalSample draws k with probability p_k from one r.Float64()
// (inverse CDF). It allocates nothing.
func CategoricalSample(r *rand.Rand, z []float64) int {
	m, ls := lseParts(z)
	u := r.Float64()
	c := 0.0
	last := 0
	for j, v := range z {
		p := nn.DetExp((v - m) - ls)
		if p > 0 {
			last = j
		}
		c += p
		if u < c {
			return j
		}
	}
	return last // u beyond the rounded total: the last class with p > 0
}

// CategoricalMean returns Σ_k p_k·values[k]: the expected action of a
// categorical policy over the action values (DECC's teacher action for
// distillation, decc.md §1.5).
func CategoricalMean(z, values []float64) float64 {
	m, ls := lseParts(z)
	s := 0.0
	for j, v := range z {
		s += float64(nn.DetExp((v-m)-ls) * values[j])
	}
	return s
}

// CategoricalGrad adds to dz the gradient with respect to the logits of
// cLogp·log p_k + cEnt·H:
//
//	∂log p_k/∂z_j = [j = k] − p_j,   ∂H/∂z_j = −p_j·(log p_j + H).
func CategoricalGrad(z []float64, k int, cLogp, cEnt float64, dz []float64) {
	m, ls := lseParts(z)
	h := 0.0
	if cEnt != 0 {
		h = CategoricalEntropy(z)
	}
	for j, v := range z {
		lp := (v - m) - ls
		p := nn.DetExp(lp)
		g := -float64(cLogp * p)
		if j == k {
			g += cLogp
		}
		if cEnt != 0 && p > 0 {
			g -= float64(cEnt * float64(p*(lp+h)))
		}
		dz[j] += g
	}
}

// Squash maps a raw output u to an action in [Lo, Hi] through tanh:
// a = mid + half·tanh(u), mid = (Lo+Hi)/2, half = (Hi−Lo)/2. DECC's
// continuous head 0.5·tanh(·) is Squash{−0.5, 0.5} (decc.md §1.5).
type Squash struct{ Lo, Hi float64 }

// Validate checks Lo < Hi, both finite.
func (s Squash) Validate() error {
	if math.IsNaN(s.Lo) || math.IsNaN(s.Hi) || math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) || !(s.Lo < s.Hi) {
		return fmt.Errorf("rl: action range [%v, %v]: want lo < hi, both finite", s.Lo, s.Hi)
	}
	return nil
}

func (s Squash) mid() float64  { return (s.Lo + s.Hi) / 2 }
func (s Squash) half() float64 { return (s.Hi - s.Lo) / 2 }

// Action returns mid + half·tanh(u).
func (s Squash) Action(u float64) float64 { return s.mid() + float64(s.half()*nn.DetTanh(u)) }

// Deriv returns da/du = half·(1 − tanh²(u)).
func (s Squash) Deriv(u float64) float64 {
	t := nn.DetTanh(u)
	return s.half() * (1 - float64(t*t))
}

// Clip returns a clamped to [Lo, Hi].
func (s Squash) Clip(a float64) float64 { return min(s.Hi, max(s.Lo, a)) }

// TanhGaussian is a squashed Gaussian actor (as in SAC): with the network's
// mean μ and log standard deviation ℓ and a standard normal draw n, the
// pre-squash value is u = μ + e^ℓ·n (reparameterised: u is a differentiable
// function of μ and ℓ for fixed n) and the action a = Squash.Action(u). Its
// log density per dimension is
//
//	log N(u; μ, σ) − log(1 − tanh²(u) + Eps) − log(half)
//
// where the middle term is the tanh Jacobian with Eps keeping it finite when
// tanh saturates, and the last the affine scale to [Lo, Hi].
type TanhGaussian struct {
	Squash Squash
	Eps    float64 // Jacobian guard; SAC's 1e-6
}

// Sample writes the actions for mean mu, log std logStd and standard
// normal noise into a and returns the log density of a (the sum over
// dimensions). All slices have the action's length.
func (g TanhGaussian) Sample(mu, logStd, noise, a []float64) float64 {
	lp := 0.0
	lh := detLog(g.Squash.half())
	for i := range mu {
		u := mu[i] + float64(nn.DetExp(logStd[i])*noise[i])
		t := nn.DetTanh(u)
		a[i] = g.Squash.mid() + float64(g.Squash.half()*t)
		lp += -float64(0.5*float64(noise[i]*noise[i])) - logStd[i] - halfLog2Pi -
			detLog(1-float64(t*t)+g.Eps) - lh
	}
	return lp
}

// Backward adds to dMu and dLogStd the gradient, for the same mu, logStd
// and noise as Sample, of Σ_i dA_i·a_i + dLogp·log π(a), through the
// reparameterisation (n fixed):
//
//	∂a/∂μ = half·(1−t²),  ∂a/∂ℓ = ∂a/∂μ·σn,
//	∂log π/∂μ = 2t(1−t²)/(1−t²+Eps),  ∂log π/∂ℓ = −1 + ∂log π/∂μ·σn.
func (g TanhGaussian) Backward(mu, logStd, noise, dA []float64, dLogp float64, dMu, dLogStd []float64) {
	half := g.Squash.half()
	for i := range mu {
		sn := float64(nn.DetExp(logStd[i]) * noise[i])
		t := nn.DetTanh(mu[i] + sn)
		d := 1 - float64(t*t)
		du := float64(dA[i]*float64(half*d)) + float64(dLogp*(2*float64(t*d)/(d+g.Eps)))
		dMu[i] += du
		dLogStd[i] += float64(du*sn) - dLogp
	}
}

// GaussianLogProb returns Σ_i log N(x_i; μ_i, e^{ℓ_i}) =
// Σ_i −½((x_i−μ_i)/σ_i)² − ℓ_i − ½log 2π.
func GaussianLogProb(mu, logStd, x []float64) float64 {
	lp := 0.0
	for i := range mu {
		z := (x[i] - mu[i]) / nn.DetExp(logStd[i])
		lp += -float64(0.5*float64(z*z)) - logStd[i] - halfLog2Pi
	}
	return lp
}

// GaussianLogProbGrad adds to dMu and dLogStd c times the gradient of
// GaussianLogProb with respect to μ and ℓ (x fixed):
// ∂/∂μ_i = (x_i−μ_i)/σ_i², ∂/∂ℓ_i = ((x_i−μ_i)/σ_i)² − 1.
func GaussianLogProbGrad(mu, logStd, x []float64, c float64, dMu, dLogStd []float64) {
	for i := range mu {
		s := nn.DetExp(logStd[i])
		z := (x[i] - mu[i]) / s
		dMu[i] += c * z / s
		dLogStd[i] += float64(c * (float64(z*z) - 1))
	}
}

// GaussianEntropy returns Σ_i ℓ_i + ½log(2πe); its gradient is 1 per ℓ_i.
func GaussianEntropy(logStd []float64) float64 {
	h := 0.0
	for _, l := range logStd {
		h += l + halfLog2PiE
	}
	return h
}

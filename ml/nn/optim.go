package nn

import (
	"errors"
	"fmt"
	"math"
)

// Optimizer updates a fixed list of parameters from their gradients.
type Optimizer interface {
	// Step clips the gradients (if configured) and updates the weights. It
	// does not zero the gradients.
	Step()
	// Params returns the parameters the optimiser was built for.
	Params() []*Param
}

// Clip configures gradient clipping before an optimiser step; zero fields
// are off. Value is applied first, then Norm.
type Clip struct {
	// Value clamps every gradient component to [−Value, Value].
	Value float64
	// Norm rescales all gradients together so that their global L2 norm is
	// at most Norm (PyTorch clip_grad_norm_: factor Norm/(‖g‖+1e-6) when < 1).
	Norm float64
}

func (c Clip) validate(who string) error {
	if !(c.Value >= 0) || math.IsInf(c.Value, 0) {
		return fmt.Errorf("nn: %s: clip value = %v, want ≥ 0 and finite (0 = off)", who, c.Value)
	}
	if !(c.Norm >= 0) || math.IsInf(c.Norm, 0) {
		return fmt.Errorf("nn: %s: clip norm = %v, want ≥ 0 and finite (0 = off)", who, c.Norm)
	}
	return nil
}

func (c Clip) apply(ps []*Param) {
	if c.Value > 0 {
		ClipGradValue(ps, c.Value)
	}
	if c.Norm > 0 {
		ClipGradNorm(ps, c.Norm)
	}
}

// ClipGradValue clamps every gradient component of ps to [−v, v].
func ClipGradValue(ps []*Param, v float64) {
	for _, p := range ps {
		for i, g := range p.G {
			p.G[i] = min(v, max(-v, g))
		}
	}
}

// GradNorm returns the global L2 norm of the gradients of ps.
func GradNorm(ps []*Param) float64 {
	s := 0.0
	for _, p := range ps {
		for _, g := range p.G {
			s += float64(g * g)
		}
	}
	return math.Sqrt(s)
}

// ClipGradNorm scales the gradients of ps by maxNorm/(‖g‖+1e-6) when that
// factor is below 1 (as PyTorch's clip_grad_norm_) and returns ‖g‖ before
// clipping.
func ClipGradNorm(ps []*Param, maxNorm float64) float64 {
	n := GradNorm(ps)
	if f := maxNorm / (n + 1e-6); f < 1 {
		for _, p := range ps {
			for i := range p.G {
				p.G[i] *= f
			}
		}
	}
	return n
}

func checkParams(who string, ps []*Param) error {
	if len(ps) == 0 {
		return fmt.Errorf("nn: %s: no parameters", who)
	}
	for i, p := range ps {
		if p == nil || len(p.W) != len(p.G) {
			return fmt.Errorf("nn: %s: parameter %d is nil or has len(W) ≠ len(G)", who, i)
		}
	}
	return nil
}

func checkLR(who string, lr float64) error {
	if !(lr > 0) || math.IsInf(lr, 0) {
		return fmt.Errorf("nn: %s: lr = %v, want > 0 and finite", who, lr)
	}
	return nil
}

// AdamConfig holds Adam's hyper-parameters (Kingma & Ba, 2015).
type AdamConfig struct {
	LR    float64 // learning rate α; > 0
	Beta1 float64 // decay of the first moment; [0, 1)
	Beta2 float64 // decay of the second moment; [0, 1)
	Eps   float64 // ε added to √v̂; > 0
	Clip  Clip
}

// DefaultAdam returns the usual defaults (also PyTorch's): α = 0.001,
// β1 = 0.9, β2 = 0.999, ε = 1e-8, no clipping.
func DefaultAdam() AdamConfig { return AdamConfig{LR: 0.001, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8} }

// Validate checks every field's range.
func (c AdamConfig) Validate() error {
	if err := checkLR("adam", c.LR); err != nil {
		return err
	}
	if !(c.Beta1 >= 0 && c.Beta1 < 1) {
		return fmt.Errorf("nn: adam: beta1 = %v, want [0, 1)", c.Beta1)
	}
	if !(c.Beta2 >= 0 && c.Beta2 < 1) {
		return fmt.Errorf("nn: adam: beta2 = %v, want [0, 1)", c.Beta2)
	}
	if !(c.Eps > 0) || math.IsInf(c.Eps, 0) {
		return fmt.Errorf("nn: adam: eps = %v, want > 0 and finite", c.Eps)
	}
	return c.Clip.validate("adam")
}

// Adam is the Adam optimiser. At step t (from 1), per component with
// gradient g:
//
//	m ← β1·m + (1−β1)·g;  v ← β2·v + (1−β2)·g²
//	w ← w − α·(m/(1−β1ᵗ)) / (√(v/(1−β2ᵗ)) + ε)
type Adam struct {
	cfg    AdamConfig
	params []*Param
	m, v   [][]float64
	t      int
	b1t    float64 // β1ᵗ
	b2t    float64 // β2ᵗ
}

// NewAdam returns an Adam optimiser for ps.
func NewAdam(ps []*Param, cfg AdamConfig) (*Adam, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkParams("adam", ps); err != nil {
		return nil, err
	}
	a := &Adam{cfg: cfg, params: ps, b1t: 1, b2t: 1}
	for _, p := range ps {
		a.m = append(a.m, make([]float64, len(p.W)))
		a.v = append(a.v, make([]float64, len(p.W)))
	}
	return a, nil
}

func (a *Adam) Params() []*Param { return a.params }

// Steps is the number of steps taken.
func (a *Adam) Steps() int { return a.t }

// Config returns the configuration in use.
func (a *Adam) Config() AdamConfig { return a.cfg }

// SetLR changes the learning rate (for schedules).
func (a *Adam) SetLR(lr float64) error {
	if err := checkLR("adam", lr); err != nil {
		return err
	}
	a.cfg.LR = lr
	return nil
}

func (a *Adam) Step() {
	a.cfg.Clip.apply(a.params)
	a.t++
	a.b1t = float64(a.b1t * a.cfg.Beta1)
	a.b2t = float64(a.b2t * a.cfg.Beta2)
	b1, b2, eps, lr := a.cfg.Beta1, a.cfg.Beta2, a.cfg.Eps, a.cfg.LR
	c1, c2 := 1-a.b1t, 1-a.b2t
	for k, p := range a.params {
		m, v := a.m[k], a.v[k]
		for i, g := range p.G {
			m[i] = float64(b1*m[i]) + float64((1-b1)*g)
			v[i] = float64(b2*v[i]) + float64((1-b2)*g*g)
			p.W[i] -= float64(lr * (m[i] / c1) / (math.Sqrt(v[i]/c2) + eps))
		}
	}
}

// SGDConfig holds plain SGD's hyper-parameters.
type SGDConfig struct {
	LR       float64 // learning rate; > 0
	Momentum float64 // μ; [0, 1); 0 = plain SGD
	Clip     Clip
}

// Validate checks every field's range.
func (c SGDConfig) Validate() error {
	if err := checkLR("sgd", c.LR); err != nil {
		return err
	}
	if !(c.Momentum >= 0 && c.Momentum < 1) {
		return fmt.Errorf("nn: sgd: momentum = %v, want [0, 1)", c.Momentum)
	}
	return c.Clip.validate("sgd")
}

// SGD is stochastic gradient descent, with optional momentum in PyTorch's
// form: b ← μ·b + g (b = g at the first step), w ← w − lr·b; without
// momentum w ← w − lr·g.
type SGD struct {
	cfg    SGDConfig
	params []*Param
	buf    [][]float64
	t      int
}

// NewSGD returns an SGD optimiser for ps.
func NewSGD(ps []*Param, cfg SGDConfig) (*SGD, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkParams("sgd", ps); err != nil {
		return nil, err
	}
	s := &SGD{cfg: cfg, params: ps}
	if cfg.Momentum > 0 {
		for _, p := range ps {
			s.buf = append(s.buf, make([]float64, len(p.W)))
		}
	}
	return s, nil
}

func (s *SGD) Params() []*Param { return s.params }

// Steps is the number of steps taken.
func (s *SGD) Steps() int { return s.t }

// SetLR changes the learning rate (for schedules such as paper 001's
// μ(t) = 0.01/√(t+1)).
func (s *SGD) SetLR(lr float64) error {
	if err := checkLR("sgd", lr); err != nil {
		return err
	}
	s.cfg.LR = lr
	return nil
}

func (s *SGD) Step() {
	s.cfg.Clip.apply(s.params)
	lr, mu := s.cfg.LR, s.cfg.Momentum
	for k, p := range s.params {
		if mu == 0 {
			for i, g := range p.G {
				p.W[i] -= float64(lr * g)
			}
			continue
		}
		b := s.buf[k]
		for i, g := range p.G {
			if s.t == 0 {
				b[i] = g
			} else {
				b[i] = float64(mu*b[i]) + g
			}
			p.W[i] -= float64(lr * b[i])
		}
	}
	s.t++
}

var errOtherParams = errors.New("the optimiser was built for other parameters than the model's")

package nn

import (
	"fmt"
	"math/rand/v2"
)

// Act names an element-wise activation function.
type Act uint8

// The activation functions. The numeric values are stored in model files
// (docs/ml.md §5) and must not change.
const (
	Identity Act = 1 // y = x
	Sigmoid  Act = 2 // y = 1/(1+e^−x)
	Tanh     Act = 3 // y = tanh(x)
	ReLU     Act = 4 // y = max(0, x); dy/dx taken as 0 at x = 0
)

var actNames = [...]string{Identity: "identity", Sigmoid: "sigmoid", Tanh: "tanh", ReLU: "relu"}

func (a Act) valid() bool { return a >= Identity && a <= ReLU }

func (a Act) String() string {
	if a.valid() {
		return actNames[a]
	}
	return fmt.Sprintf("act(%d)", uint8(a))
}

// ParseAct returns the activation named s (identity, sigmoid, tanh, relu).
func ParseAct(s string) (Act, error) {
	for a := Identity; a <= ReLU; a++ {
		if actNames[a] == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("nn: unknown activation %q (want identity, sigmoid, tanh or relu)", s)
}

// sigmoid is the logistic function 1/(1+e^−x). It needs no branch on the
// sign: for x ≪ 0, e^−x overflows to +Inf and the result is the correct 0;
// the relative error is a few ulps everywhere.
func sigmoid(x float64) float64 {
	return 1 / (1 + DetExp(-x))
}

// Apply returns the activation of x.
func (a Act) Apply(x float64) float64 {
	switch a {
	case Sigmoid:
		return sigmoid(x)
	case Tanh:
		return DetTanh(x)
	case ReLU:
		if x > 0 {
			return x
		}
		return 0
	}
	return x
}

// DerivFromOutput returns dy/dx expressed through the output y = a(x):
// σ' = y(1−y), tanh' = 1−y², ReLU' = [y > 0], identity' = 1.
func (a Act) DerivFromOutput(y float64) float64 {
	switch a {
	case Sigmoid:
		return y * (1 - y)
	case Tanh:
		return 1 - float64(y*y)
	case ReLU:
		if y > 0 {
			return 1
		}
		return 0
	}
	return 1
}

// Activation is a layer applying an element-wise function to vectors of
// width Size, at every step. It has no parameters.
type Activation struct {
	Fn   Act
	Size int
}

// NewActivation returns an activation layer of width size.
func NewActivation(fn Act, size int) (*Activation, error) {
	if !fn.valid() {
		return nil, fmt.Errorf("nn: activation: fn = %d, want identity (1), sigmoid (2), tanh (3) or relu (4)", uint8(fn))
	}
	if err := checkSize("activation: size", size); err != nil {
		return nil, err
	}
	return &Activation{Fn: fn, Size: size}, nil
}

type actState struct {
	steps int
	y     []float64 // steps×Size outputs (kept for the derivative)
	dx    []float64
}

func (a *Activation) Kind() Kind              { return KindActivation }
func (a *Activation) InSize() int             { return a.Size }
func (a *Activation) OutSize() int            { return a.Size }
func (a *Activation) OutSteps(steps int) int  { return steps }
func (a *Activation) Params() []*Param        { return nil }
func (a *Activation) String() string          { return fmt.Sprintf("%v(%d)", a.Fn, a.Size) }
func (a *Activation) initParams(_ *rand.Rand) {}
func (a *Activation) clone() Layer            { c := *a; return &c }
func (a *Activation) spec() layerSpec {
	return layerSpec{kind: KindActivation, opt: uint8(a.Fn), a: a.Size, b: a.Size}
}

func (a *Activation) newState(maxSteps int) any {
	return &actState{y: make([]float64, maxSteps*a.Size), dx: make([]float64, maxSteps*a.Size)}
}

func (a *Activation) forward(s any, x []float64, steps int) []float64 {
	st := s.(*actState)
	n := steps * a.Size
	st.steps = steps
	st.y = grow(st.y, n)
	y := st.y[:n]
	x = x[:n]
	switch a.Fn {
	case Sigmoid:
		for i, v := range x {
			y[i] = sigmoid(v)
		}
	case Tanh:
		for i, v := range x {
			y[i] = DetTanh(v)
		}
	case ReLU:
		for i, v := range x {
			if v > 0 {
				y[i] = v
			} else {
				y[i] = 0
			}
		}
	default:
		copy(y, x)
	}
	return y
}

func (a *Activation) backward(s any, dy []float64) []float64 {
	st := s.(*actState)
	n := st.steps * a.Size
	st.dx = grow(st.dx, n)
	dx := st.dx[:n]
	y := st.y[:n]
	dy = dy[:n]
	switch a.Fn {
	case Sigmoid:
		for i, v := range y {
			dx[i] = dy[i] * v * (1 - v)
		}
	case Tanh:
		for i, v := range y {
			dx[i] = dy[i] * (1 - float64(v*v))
		}
	case ReLU:
		for i, v := range y {
			if v > 0 {
				dx[i] = dy[i]
			} else {
				dx[i] = 0
			}
		}
	default:
		copy(dx, dy)
	}
	return dx
}

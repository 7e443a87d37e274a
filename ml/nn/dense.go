package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// DenseInit names the initialisation scheme of a dense layer (docs/ml.md §3).
type DenseInit uint8

// Dense initialisation schemes (fan_in = In, fan_out = Out).
const (
	// XavierUniform (Glorot): W ~ U(−a, a), a = √(6/(fan_in+fan_out)); b = 0.
	// For layers followed by tanh, sigmoid or nothing.
	XavierUniform DenseInit = 1
	// KaimingUniform (He, ReLU gain √2): W ~ U(−a, a), a = √(6/fan_in); b = 0.
	// For layers followed by ReLU.
	KaimingUniform DenseInit = 2
	// TorchDefault is PyTorch's nn.Linear default: W and b ~ U(−1/√fan_in, 1/√fan_in).
	TorchDefault DenseInit = 3
)

func (d DenseInit) String() string {
	switch d {
	case XavierUniform:
		return "xavier_uniform"
	case KaimingUniform:
		return "kaiming_uniform"
	case TorchDefault:
		return "torch_default"
	}
	return fmt.Sprintf("init(%d)", uint8(d))
}

// Dense is a fully connected layer y = W·x + b applied to every step, with W
// of shape Out×In (row-major) and b of length Out.
type Dense struct {
	In, Out int
	Init    DenseInit
	W, B    Param
	params  []*Param
}

// NewDense returns a dense layer in → out with zero weights; Sequential.Init
// (or Dense.InitParams) draws them with scheme init.
func NewDense(in, out int, init DenseInit) (*Dense, error) {
	if err := checkSize("dense: in", in); err != nil {
		return nil, err
	}
	if err := checkSize("dense: out", out); err != nil {
		return nil, err
	}
	if init < XavierUniform || init > TorchDefault {
		return nil, fmt.Errorf("nn: dense: init = %d, want xavier_uniform (1), kaiming_uniform (2) or torch_default (3)", uint8(init))
	}
	d := &Dense{In: in, Out: out, Init: init, W: newParam("W", out*in), B: newParam("b", out)}
	d.params = []*Param{&d.W, &d.B}
	return d, nil
}

func (d *Dense) Kind() Kind             { return KindDense }
func (d *Dense) InSize() int            { return d.In }
func (d *Dense) OutSize() int           { return d.Out }
func (d *Dense) OutSteps(steps int) int { return steps }
func (d *Dense) Params() []*Param       { return d.params }
func (d *Dense) String() string         { return fmt.Sprintf("dense(%d→%d)", d.In, d.Out) }
func (d *Dense) spec() layerSpec        { return layerSpec{kind: KindDense, a: d.In, b: d.Out} }

func (d *Dense) clone() Layer {
	c := &Dense{In: d.In, Out: d.Out, Init: d.Init,
		W: Param{Name: d.W.Name, W: append([]float64(nil), d.W.W...), G: append([]float64(nil), d.W.G...)},
		B: Param{Name: d.B.Name, W: append([]float64(nil), d.B.W...), G: append([]float64(nil), d.B.G...)}}
	c.params = []*Param{&c.W, &c.B}
	return c
}

// InitParams draws W then b (row-major) from r with the layer's scheme.
func (d *Dense) InitParams(r *rand.Rand) { d.initParams(r) }

func (d *Dense) initParams(r *rand.Rand) {
	var a, ab float64
	switch d.Init {
	case XavierUniform:
		a = math.Sqrt(6 / float64(d.In+d.Out))
	case KaimingUniform:
		a = math.Sqrt(6 / float64(d.In))
	default:
		a = 1 / math.Sqrt(float64(d.In))
		ab = a
	}
	uniform(r, d.W.W, a)
	uniform(r, d.B.W, ab) // ab = 0 gives zero biases without drawing
}

// uniform fills w with draws from U(−a, a): (2u − 1)·a, u = r.Float64().
// With a = 0 it sets zeros and draws nothing.
func uniform(r *rand.Rand, w []float64, a float64) {
	if a == 0 {
		clear(w)
		return
	}
	for i := range w {
		w[i] = (float64(2*r.Float64()) - 1) * a
	}
}

type denseState struct {
	steps int
	x     []float64 // the input of the last forward (not a copy)
	y, dx []float64
}

func (d *Dense) newState(maxSteps int) any {
	return &denseState{y: make([]float64, maxSteps*d.Out), dx: make([]float64, maxSteps*d.In)}
}

func (d *Dense) forward(s any, x []float64, steps int) []float64 {
	st := s.(*denseState)
	st.steps, st.x = steps, x
	st.y = grow(st.y, steps*d.Out)
	in, out, w, b := d.In, d.Out, d.W.W, d.B.W
	for t := range steps {
		xt := x[t*in : (t+1)*in]
		yt := st.y[t*out : (t+1)*out]
		for o := range yt {
			yt[o] = b[o] + dot(w[o*in:(o+1)*in], xt)
		}
	}
	return st.y[:steps*out]
}

func (d *Dense) backward(s any, dy []float64) []float64 {
	st := s.(*denseState)
	in, out, w, gw, gb := d.In, d.Out, d.W.W, d.W.G, d.B.G
	st.dx = grow(st.dx, st.steps*in)
	dx := st.dx[:st.steps*in]
	clear(dx)
	for t := range st.steps {
		xt := st.x[t*in : (t+1)*in]
		dxt := dx[t*in : (t+1)*in]
		dyt := dy[t*out : (t+1)*out]
		for o, g := range dyt {
			gb[o] += g
			row := w[o*in : (o+1)*in]
			gr := gw[o*in : (o+1)*in]
			for i, v := range row {
				gr[i] += float64(g * xt[i])
				dxt[i] += float64(g * v)
			}
		}
	}
	return dx
}

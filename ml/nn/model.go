package nn

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Kind is a layer kind. The numeric values are stored in model files
// (docs/ml.md §5) and must not change.
type Kind uint8

// The layer kinds.
const (
	KindDense      Kind = 1
	KindLSTM       Kind = 2
	KindActivation Kind = 3
)

func (k Kind) String() string {
	switch k {
	case KindDense:
		return "dense"
	case KindLSTM:
		return "lstm"
	case KindActivation:
		return "activation"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// MaxSize bounds every layer width (inputs, outputs, hidden units): large
// enough for any controller, small enough that a corrupt file cannot make
// Load allocate without bound.
const MaxSize = 1 << 16

// Param is one trainable tensor: its values W and the gradient G that
// Backward accumulates (same length, flat, row-major).
type Param struct {
	Name string
	W    []float64
	G    []float64
}

func newParam(name string, n int) Param {
	return Param{Name: name, W: make([]float64, n), G: make([]float64, n)}
}

// Layer is a differentiable layer of a Sequential model. The set of layers is
// closed (Dense, LSTM, Activation) so that every model can be saved.
type Layer interface {
	Kind() Kind
	// InSize and OutSize are the widths of one step of input and output.
	InSize() int
	OutSize() int
	// OutSteps is the number of output steps for steps input steps.
	OutSteps(steps int) int
	// Params returns the trainable tensors in a fixed order (the file order).
	Params() []*Param
	String() string

	spec() layerSpec
	initParams(r *rand.Rand)
	clone() Layer
	newState(maxSteps int) any
	// forward reads steps×InSize values of x (kept until backward) and
	// returns OutSteps(steps)×OutSize values owned by the state.
	forward(st any, x []float64, steps int) []float64
	// backward takes dLoss/doutput, adds dLoss/dparams to the Params' G and
	// returns dLoss/dinput owned by the state.
	backward(st any, dy []float64) []float64
}

// layerSpec is a layer's architecture as stored in a file: kind, an option
// byte (activation function, LSTM sequences flag) and two sizes.
type layerSpec struct {
	kind Kind
	opt  uint8
	a, b int
}

func (s layerSpec) String() string {
	switch s.kind {
	case KindDense:
		return fmt.Sprintf("dense(in %d, out %d)", s.a, s.b)
	case KindLSTM:
		mode := "last"
		if s.opt == 1 {
			mode = "sequences"
		}
		return fmt.Sprintf("lstm(in %d, hidden %d, %s)", s.a, s.b, mode)
	case KindActivation:
		return fmt.Sprintf("%v(%d)", Act(s.opt), s.a)
	}
	return fmt.Sprintf("%v(opt %d, %d, %d)", s.kind, s.opt, s.a, s.b)
}

func checkSize(field string, n int) error {
	if n < 1 || n > MaxSize {
		return fmt.Errorf("nn: %s = %d, want 1..%d", field, n, MaxSize)
	}
	return nil
}

// grow returns s with length at least n, reallocating only when its
// capacity is short.
func grow(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:cap(s)]
	}
	return make([]float64, n)
}

// Sequential chains layers: the output of each is the input of the next.
type Sequential struct {
	layers []Layer
	params []*Param
}

// NewSequential returns the model layers[0] → layers[1] → …; each layer's
// OutSize must equal the next one's InSize.
func NewSequential(layers ...Layer) (*Sequential, error) {
	if len(layers) == 0 {
		return nil, errors.New("nn: sequential: no layers")
	}
	m := &Sequential{layers: layers}
	for i, l := range layers {
		if l == nil {
			return nil, fmt.Errorf("nn: sequential: layer %d is nil", i)
		}
		for j := range i {
			if layers[j] == l {
				return nil, fmt.Errorf("nn: sequential: layer %d is layer %d again (use Clone for a copy)", i, j)
			}
		}
		if i > 0 && layers[i-1].OutSize() != l.InSize() {
			return nil, fmt.Errorf("nn: sequential: layer %d (%v) outputs %d values per step but layer %d (%v) takes %d",
				i-1, layers[i-1], layers[i-1].OutSize(), i, l, l.InSize())
		}
		m.params = append(m.params, l.Params()...)
	}
	return m, nil
}

// Layers returns the model's layers (not a copy).
func (m *Sequential) Layers() []Layer { return m.layers }

// Params returns every trainable tensor, layer by layer.
func (m *Sequential) Params() []*Param { return m.params }

// InSize is the width of one input step; OutSize of one output step.
func (m *Sequential) InSize() int  { return m.layers[0].InSize() }
func (m *Sequential) OutSize() int { return m.layers[len(m.layers)-1].OutSize() }

// OutSteps is the number of output steps for steps input steps.
func (m *Sequential) OutSteps(steps int) int {
	for _, l := range m.layers {
		steps = l.OutSteps(steps)
	}
	return steps
}

// NumParams is the number of trainable scalars.
func (m *Sequential) NumParams() int {
	n := 0
	for _, p := range m.params {
		n += len(p.W)
	}
	return n
}

func (m *Sequential) String() string {
	parts := make([]string, len(m.layers))
	for i, l := range m.layers {
		parts[i] = l.String()
	}
	return strings.Join(parts, " → ")
}

// Init draws every parameter from its layer's initialisation scheme
// (docs/ml.md §3), layer by layer, each tensor in row-major order, from r.
func (m *Sequential) Init(r *rand.Rand) {
	for _, l := range m.layers {
		l.initParams(r)
	}
}

// ZeroGrad sets every gradient to zero.
func (m *Sequential) ZeroGrad() {
	for _, p := range m.params {
		clear(p.G)
	}
}

// Clone returns a deep copy of the model (weights and gradients).
func (m *Sequential) Clone() *Sequential {
	ls := make([]Layer, len(m.layers))
	for i, l := range m.layers {
		ls[i] = l.clone()
	}
	c, _ := NewSequential(ls...) // same shapes as m: cannot fail
	return c
}

// CopyFrom copies src's weights into m; both must have the same architecture.
func (m *Sequential) CopyFrom(src *Sequential) error {
	if err := sameArch(m.specs(), src.specs()); err != nil {
		return fmt.Errorf("nn: copy: %w", err)
	}
	for i, p := range m.params {
		copy(p.W, src.params[i].W)
	}
	return nil
}

func (m *Sequential) specs() []layerSpec {
	s := make([]layerSpec, len(m.layers))
	for i, l := range m.layers {
		s[i] = l.spec()
	}
	return s
}

// sameArch reports the first difference between two architectures.
func sameArch(dst, src []layerSpec) error {
	if len(dst) != len(src) {
		return fmt.Errorf("architecture mismatch: source has %d layers, model has %d", len(src), len(dst))
	}
	for i := range dst {
		if dst[i] != src[i] {
			return fmt.Errorf("architecture mismatch at layer %d: source has %v, model has %v", i, src[i], dst[i])
		}
	}
	return nil
}

// Workspace holds the scratch memory of one forward/backward pass of one
// model: the layers' cached activations, outputs and input gradients.
type Workspace struct {
	model  *Sequential
	states []any
	steps  int // input steps of the last Forward (0: none yet)
}

// NewWorkspace returns a workspace for m sized for sequences of up to
// maxSteps steps (a capacity hint: longer sequences grow it once).
func (m *Sequential) NewWorkspace(maxSteps int) *Workspace {
	maxSteps = max(maxSteps, 1)
	ws := &Workspace{model: m, states: make([]any, len(m.layers))}
	steps := maxSteps
	for i, l := range m.layers {
		ws.states[i] = l.newState(steps)
		steps = l.OutSteps(steps)
	}
	return ws
}

// LSTMState returns the state of layer i of the workspace's model, which must
// be an LSTM: its initial state (H0, C0, zero unless set), its gradients after
// Backward (DH0, DC0) and its final state after Forward.
func (ws *Workspace) LSTMState(i int) (*LSTMState, error) {
	if i < 0 || i >= len(ws.states) {
		return nil, fmt.Errorf("nn: workspace: layer %d out of range 0..%d", i, len(ws.states)-1)
	}
	st, ok := ws.states[i].(*LSTMState)
	if !ok {
		return nil, fmt.Errorf("nn: workspace: layer %d is %v, not an LSTM", i, ws.model.layers[i])
	}
	return st, nil
}

// Forward runs the model on one sample x of steps steps (len(x) =
// steps·InSize) and returns its output, OutSteps(steps)·OutSize values owned
// by ws and valid until its next Forward. x must not change until Backward.
// It allocates nothing once ws has seen steps.
func (m *Sequential) Forward(ws *Workspace, x []float64, steps int) ([]float64, error) {
	if ws == nil || ws.model != m {
		return nil, errors.New("nn: forward: workspace was not made by this model's NewWorkspace")
	}
	if steps < 1 {
		return nil, fmt.Errorf("nn: forward: steps = %d, want ≥ 1", steps)
	}
	if len(x) != steps*m.InSize() {
		return nil, fmt.Errorf("nn: forward: len(x) = %d, want steps·InSize = %d·%d = %d", len(x), steps, m.InSize(), steps*m.InSize())
	}
	ws.steps = steps
	for i, l := range m.layers {
		n := l.OutSteps(steps)
		x = l.forward(ws.states[i], x, steps)
		steps = n
	}
	return x, nil
}

// Backward back-propagates dy = dLoss/doutput of the last Forward on ws
// through the model, adds the parameter gradients to the Params' G, and
// returns dLoss/dx (owned by ws). It allocates nothing.
func (m *Sequential) Backward(ws *Workspace, dy []float64) ([]float64, error) {
	if ws == nil || ws.model != m {
		return nil, errors.New("nn: backward: workspace was not made by this model's NewWorkspace")
	}
	if ws.steps == 0 {
		return nil, errors.New("nn: backward: no Forward on this workspace yet")
	}
	if want := m.OutSteps(ws.steps) * m.OutSize(); len(dy) != want {
		return nil, fmt.Errorf("nn: backward: len(dy) = %d, want %d (the output length)", len(dy), want)
	}
	for i := len(m.layers) - 1; i >= 0; i-- {
		dy = m.layers[i].backward(ws.states[i], dy)
	}
	return dy, nil
}

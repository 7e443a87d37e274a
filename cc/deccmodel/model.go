// Package deccmodel holds the shapes of DECC's networks (paper 000, "DPU
// empowered intelligent congestion control", decc.md §1.7) and the decoding
// of their model files (the ml/nn format, docs/ml.md §5) with shape checks.
// The `decc-nn` sender of package cc runs the teacher actor built here
// (docs/algorithms/decc.md); the shipped models, trained and distilled by
// `ccsim train decc`, are embedded: the teacher (shipped.go: Shipped), the
// compressed network and the trees (binary.go, trees.go).
package deccmodel

import (
	"fmt"
	"os"

	"github.com/ccsim/ccsim/ml/nn"
)

// The teacher actor's shape (decc.md §1.7, issue 18 §1): per step the
// Features local-state values (decc.md §1.4), dense 128, 64, 32 with ReLU,
// an LSTM of 32 units returning its last hidden state, dense 16 with ReLU
// and a linear layer of Actions logits. The paper prints the third dense
// layer as "64 → 132": 132 is a typo for 32 (the LSTM's input is 32;
// decc.md §1.7, §1.12 item 1).
const (
	Features = 5 // thr, lat, loss, pkt_flight, P_rate (decc.md §1.4)
	History  = 5 // w: MTPs the actor is stepped over (Table 5)
	Hidden1  = 128
	Hidden2  = 64
	Hidden3  = 32
	LSTM     = 32 // LSTM hidden units (input Hidden3)
	Hidden4  = 16
	Actions  = 11 // the categorical head over ActionValue(0..10) (decc.md §1.5)
)

// ActionValue is the action of logit k (0 ≤ k < Actions): −0.5 + k/10, the
// 11 evenly spaced values {−0.5, −0.4, …, 0.5} of decc.md §1.5, computed as
// (k − 5)/10 so that each is the float64 nearest to its decimal value
// (ActionValue(6) == 0.1).
func ActionValue(k int) float64 { return float64(k-Actions/2) / 10 }

// NewActor returns the teacher actor with zero weights (Sequential.Init
// draws them: Kaiming-uniform for the dense layers followed by ReLU,
// Xavier-uniform for the output layer, PyTorch's default for the LSTM).
// It reads a sequence of steps × Features values, step-major, oldest MTP
// first, and returns Actions logits (the LSTM returns its last step only).
func NewActor() *nn.Sequential { return newActor(Actions) }

// NewContinuousActor returns the continuous actor of issue 18 §1's
// `actor: continuous` option (decc.md §1.5's alternative head): the teacher's
// stack with one raw output u instead of the 11 logits; the action is
// ContinuousAction(u) = 0.5·tanh(u), trained by the deterministic policy
// gradient (train/decc, TD3-style; docs/algorithms/decc.md §10.5).
func NewContinuousActor() *nn.Sequential { return newActor(1) }

// ContinuousAction is the continuous actor's action from its raw output u:
// 0.5·tanh(u) in (−0.5, 0.5) (eq. 2's range), with nn.DetTanh so that the
// same bits come out on every machine.
func ContinuousAction(u float64) float64 { return 0.5 * nn.DetTanh(u) }

// IsContinuous tells a continuous actor (one output) from the categorical
// one (Actions logits).
func IsContinuous(m *nn.Sequential) bool { return m.OutSize() == 1 }

func newActor(outputs int) *nn.Sequential {
	var ls []nn.Layer
	add := func(l nn.Layer, err error) {
		if err != nil {
			panic(err) // constant shapes: cannot fail
		}
		ls = append(ls, l)
	}
	dense := func(in, out int, init nn.DenseInit) { add(nn.NewDense(in, out, init)) }
	relu := func(n int) { add(nn.NewActivation(nn.ReLU, n)) }
	dense(Features, Hidden1, nn.KaimingUniform)
	relu(Hidden1)
	dense(Hidden1, Hidden2, nn.KaimingUniform)
	relu(Hidden2)
	dense(Hidden2, Hidden3, nn.KaimingUniform)
	relu(Hidden3)
	add(nn.NewLSTM(Hidden3, LSTM, false))
	dense(LSTM, Hidden4, nn.KaimingUniform)
	relu(Hidden4)
	dense(Hidden4, outputs, nn.XavierUniform)
	m, err := nn.NewSequential(ls...)
	if err != nil {
		panic(err)
	}
	return m
}

// ActorShape is the teacher actor's architecture in words (error messages):
// the categorical head, or the continuous one (ContinuousShape).
const ActorShape = "dense(5 → 128) relu → dense(128 → 64) relu → dense(64 → 32) relu → lstm(32 → 32, last step) → dense(32 → 16) relu → dense(16 → 11)"

// ContinuousShape is the continuous actor's architecture in words.
const ContinuousShape = "dense(5 → 128) relu → dense(128 → 64) relu → dense(64 → 32) relu → lstm(32 → 32, last step) → dense(32 → 16) relu → dense(16 → 1), action 0.5·tanh"

// DecodeActor returns the teacher actor stored in the model file b and its
// meta text: the categorical actor (NewActor) or the continuous one
// (NewContinuousActor), told apart by the file's last layer; a file of
// another architecture is an error naming the difference and the expected
// shapes.
func DecodeActor(b []byte) (*nn.Sequential, string, error) {
	m := NewActor()
	meta, err := nn.DecodeInto(b, m)
	if err == nil {
		return m, meta, nil
	}
	mc := NewContinuousActor()
	if meta, errc := nn.DecodeInto(b, mc); errc == nil {
		return mc, meta, nil
	}
	return nil, "", fmt.Errorf("DECC actor: %w (want %s; or the continuous head: %s)", err, ActorShape, ContinuousShape)
}

// LoadActorFile reads a teacher actor model file; errors name the path.
func LoadActorFile(path string) (*nn.Sequential, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	m, meta, err := DecodeActor(b)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return m, meta, nil
}

// Package adpgmodel holds the trained policy of the `adpg` controller (the
// RL-CC of Tessler et al., NVlabs/RLCC; docs/algorithms/adpg.md): the
// network file of the ml/nn format (docs/ml.md §5), embedded in the binary
// so that a fresh clone runs `adpg` without training, and its loader.
// `ccsim train adpg` writes these files; with the default seed it
// reproduces the shipped ones byte for byte.
package adpgmodel

import (
	_ "embed"
	"fmt"
	"os"
	"sync"

	"github.com/ccsim/ccsim/ml/nn"
)

// File names of a model directory (what `ccsim train adpg` writes).
const (
	ModelFile = "adpg.bin"   // the policy network (nn model file)
	LogFile   = "train.json" // the training log (configuration, reward per round)
)

// The authors' network (NVlabs/RLCC config/rlcc.yaml: env.history_length
// 2, agent.agent_features [action, adpg_reward], adpg.architecture
// [12, 12], activation_function relu, adpg.bias False; models/mlp.py).
const (
	History  = 2  // monitoring intervals in the observation
	Features = 2  // per interval: the action's rate multiplier and the reward
	Hidden   = 12 // units of each of the two hidden layers
)

//go:embed adpg.bin
var modelBin []byte

//go:embed train.json
var trainLog []byte

// ShippedBytes returns a copy of the embedded model file.
func ShippedBytes() []byte { return append([]byte(nil), modelBin...) }

// ShippedLog returns a copy of the embedded training log.
func ShippedLog() []byte { return append([]byte(nil), trainLog...) }

// NewModel returns the policy's architecture for a history of h intervals,
// with zero weights: dense(2h → 12) · relu · dense(12 → 12) · relu ·
// dense(12 → 1); the action is tanh of the output (agents/adpg.py
// _policy). The dense layers' biases exist (nn.Dense always has them) but
// stay 0: the authors' layers have none (docs/algorithms/adpg.md I4).
func NewModel(h int) (*nn.Sequential, error) {
	if h < 1 || h > 64 {
		return nil, fmt.Errorf("history = %d out of range [1, 64]", h)
	}
	var ls []nn.Layer
	in := Features * h
	for range 2 {
		d, err := nn.NewDense(in, Hidden, nn.KaimingUniform)
		if err != nil {
			return nil, err
		}
		a, err := nn.NewActivation(nn.ReLU, Hidden)
		if err != nil {
			return nil, err
		}
		ls = append(ls, d, a)
		in = Hidden
	}
	d, err := nn.NewDense(in, 1, nn.XavierUniform)
	if err != nil {
		return nil, err
	}
	return nn.NewSequential(append(ls, d)...)
}

// Decode returns the policy stored in model file b, its history length and
// its meta text. The file must hold NewModel's architecture for some
// history (its input width, even) with every bias 0.
func Decode(b []byte) (*nn.Sequential, int, string, error) {
	m, meta, err := nn.Decode(b)
	if err != nil {
		return nil, 0, "", err
	}
	in := m.InSize()
	if in%Features != 0 {
		return nil, 0, "", fmt.Errorf("the network takes %d inputs, want %d per interval of history", in, Features)
	}
	h := in / Features
	want, err := NewModel(h)
	if err != nil {
		return nil, 0, "", err
	}
	if _, err := nn.DecodeInto(b, want); err != nil {
		return nil, 0, "", fmt.Errorf("%w (want dense(%d → %d) relu dense(%d → %d) relu dense(%d → 1))", err, in, Hidden, Hidden, Hidden, Hidden)
	}
	for _, l := range want.Layers() {
		if d, ok := l.(*nn.Dense); ok {
			for _, v := range d.B.W {
				if v != 0 {
					return nil, 0, "", fmt.Errorf("a bias is %v, want 0 (the authors' layers have no bias)", v)
				}
			}
		}
	}
	return want, h, meta, nil
}

// LoadFile reads a model file; errors name the path.
func LoadFile(path string) (*nn.Sequential, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	m, h, _, err := Decode(b)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return m, h, nil
}

var shipped struct {
	once sync.Once
	m    *nn.Sequential
	h    int
	err  error
}

// Shipped returns the embedded policy and its history length, decoded
// once. The network is shared: callers clone it (a network's workspace is
// per caller, its weights read-only).
func Shipped() (*nn.Sequential, int, error) {
	s := &shipped
	s.once.Do(func() {
		s.m, s.h, _, s.err = Decode(modelBin)
		if s.err != nil {
			s.err = fmt.Errorf("the shipped ADPG model (cc/adpgmodel) is unusable: %w; regenerate it with `ccsim train adpg --out cc/adpgmodel`", s.err)
		}
	})
	return s.m, s.h, s.err
}

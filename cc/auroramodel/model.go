// Package auroramodel holds the trained policy of Aurora (Jay et al., ICML
// 2019; PCCproject/PCC-RL), the `aurora` controller of package cc
// (docs/algorithms/aurora.md): the mean network of the PPO policy as a model
// file of the ml/nn format (docs/ml.md §5), embedded in the binary so that a
// fresh clone runs `aurora` without training. `ccsim train aurora` writes
// these files; with the default seed it reproduces the shipped ones byte for
// byte.
package auroramodel

import (
	_ "embed"
	"fmt"
	"os"
	"sync"

	"github.com/ccsim/ccsim/ml/nn"
)

// File names of a model directory (what `ccsim train aurora` writes).
const (
	PolicyFile = "policy.bin" // the policy's mean network (nn model file)
	LogFile    = "train.json" // the training log (configuration, reward per iteration, evaluation)
)

// The policy's shape (PCC-RL src/gym/stable_solve.py: `--arch 32,16`,
// stable-baselines' MlpPolicy with tanh; src/gym/network_sim.py: history 10
// of 3 features): History × Features inputs, two tanh layers, a linear
// output, the mean of the Gaussian action.
const (
	History  = 10
	Features = 3
	ObsDim   = History * Features
	Hidden1  = 32
	Hidden2  = 16
)

//go:embed policy.bin
var policyBin []byte

//go:embed train.json
var trainLog []byte

// ShippedPolicyBytes and ShippedLog return copies of the embedded files.
func ShippedPolicyBytes() []byte { return append([]byte(nil), policyBin...) }
func ShippedLog() []byte         { return append([]byte(nil), trainLog...) }

// NewPolicy returns the policy network with zero weights: dense 30 → 32,
// tanh, dense 32 → 16, tanh, dense 16 → 1 (Xavier-uniform initialisation
// when Init is called).
func NewPolicy() *nn.Sequential { return newMLP(1) }

// NewValue returns the value network of the same shape (stable-baselines'
// separate "vf" branch of net_arch [{"pi": [32, 16], "vf": [32, 16]}]);
// it is used in training only.
func NewValue() *nn.Sequential { return newMLP(1) }

func newMLP(out int) *nn.Sequential {
	d1, err1 := nn.NewDense(ObsDim, Hidden1, nn.XavierUniform)
	a1, err2 := nn.NewActivation(nn.Tanh, Hidden1)
	d2, err3 := nn.NewDense(Hidden1, Hidden2, nn.XavierUniform)
	a2, err4 := nn.NewActivation(nn.Tanh, Hidden2)
	d3, err5 := nn.NewDense(Hidden2, out, nn.XavierUniform)
	for _, err := range []error{err1, err2, err3, err4, err5} {
		if err != nil {
			panic(err) // constant shapes
		}
	}
	m, err := nn.NewSequential(d1, a1, d2, a2, d3)
	if err != nil {
		panic(err)
	}
	return m
}

// DecodePolicy returns the policy stored in the model file b and its meta
// text; a file of another architecture is an error naming the difference.
func DecodePolicy(b []byte) (*nn.Sequential, string, error) {
	m := NewPolicy()
	meta, err := nn.DecodeInto(b, m)
	if err != nil {
		return nil, "", fmt.Errorf("policy: %w (want Aurora's dense(%d → %d) tanh → dense(%d → %d) tanh → dense(%d → 1))",
			err, ObsDim, Hidden1, Hidden1, Hidden2, Hidden2)
	}
	return m, meta, nil
}

// LoadPolicyFile reads a policy model file; errors name the path.
func LoadPolicyFile(path string) (*nn.Sequential, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	m, meta, err := DecodePolicy(b)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return m, meta, nil
}

var shipped struct {
	once sync.Once
	pol  *nn.Sequential
	err  error
}

// Shipped returns the embedded policy, decoded once. It is shared: callers
// must only read it (Forward on their own workspace), never train it.
func Shipped() (*nn.Sequential, error) {
	s := &shipped
	s.once.Do(func() {
		s.pol, _, s.err = DecodePolicy(policyBin)
		if s.err != nil {
			s.err = fmt.Errorf("the shipped Aurora policy (cc/auroramodel) is unusable: %w; regenerate it with `ccsim train aurora --out cc/auroramodel`", s.err)
		}
	})
	return s.pol, s.err
}

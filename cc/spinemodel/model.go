// Package spinemodel holds SPINE's trained agent (docs/algorithms/spine.md
// §5): the actor network as a model file of the ml/nn format (docs/ml.md
// §5), embedded in the binary so that a fresh clone runs `spine` without
// training, and its loader. `ccsim train spine` writes these files; with the
// default seed it reproduces the shipped ones byte for byte.
package spinemodel

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"sync"

	"github.com/ccsim/ccsim/ml/nn"
)

// File names of a model directory (what `ccsim train spine` writes).
const (
	ActorFile = "actor.bin"  // the actor (nn model file)
	LogFile   = "train.json" // the training log
)

// The actor's shape (docs/algorithms/spine.md §5, I2): a flattened window of
// History observations of ObsDim values → Hidden → Hidden (ReLU) → ActDim
// raw outputs, squashed by tanh into [−1, 1] when used.
const (
	History = 4
	ObsDim  = 14 // cc.SpineObsDim (cc imports this package, not the reverse)
	ActDim  = 5  // cc.SpineActDim
	Hidden  = 64
)

//go:embed actor.bin
var actorBin []byte

//go:embed train.json
var trainLog []byte

// ShippedActorBytes and ShippedLog return copies of the embedded files.
func ShippedActorBytes() []byte { return append([]byte(nil), actorBin...) }

// ShippedLog returns a copy of the embedded training log.
func ShippedLog() []byte { return append([]byte(nil), trainLog...) }

// NewActor returns the actor's architecture with zero weights
// (nn.Sequential.Init draws them).
func NewActor() *nn.Sequential {
	d1, _ := nn.NewDense(History*ObsDim, Hidden, nn.KaimingUniform)
	a1, _ := nn.NewActivation(nn.ReLU, Hidden)
	d2, _ := nn.NewDense(Hidden, Hidden, nn.KaimingUniform)
	a2, _ := nn.NewActivation(nn.ReLU, Hidden)
	d3, _ := nn.NewDense(Hidden, ActDim, nn.XavierUniform)
	m, err := nn.NewSequential(d1, a1, d2, a2, d3)
	if err != nil {
		panic("spinemodel: " + err.Error()) // the shapes above are constants
	}
	return m
}

// Decode parses an actor model file and checks its shape.
func Decode(b []byte) (*nn.Sequential, string, error) {
	m, meta, err := nn.Load(bytes.NewReader(b))
	if err != nil {
		return nil, "", err
	}
	if m.InSize() != History*ObsDim || m.OutSize() != ActDim || m.OutSteps(1) != 1 {
		return nil, "", fmt.Errorf("spinemodel: the model maps %d inputs to %d outputs, want %d (history %d × %d) and %d",
			m.InSize(), m.OutSize(), History*ObsDim, History, ObsDim, ActDim)
	}
	return m, meta, nil
}

// LoadFile reads an actor model file written by `ccsim train spine`.
func LoadFile(path string) (*nn.Sequential, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	m, meta, err := Decode(b)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return m, meta, nil
}

var shipped struct {
	once sync.Once
	m    *nn.Sequential
	meta string
	err  error
}

// Shipped returns the embedded actor, parsed once. The network is shared:
// callers clone it (nn.Sequential.Clone) or give each user its own
// workspace, never train it.
func Shipped() (*nn.Sequential, string, error) {
	shipped.once.Do(func() { shipped.m, shipped.meta, shipped.err = Decode(actorBin) })
	return shipped.m, shipped.meta, shipped.err
}

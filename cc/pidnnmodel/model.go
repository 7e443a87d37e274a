// Package pidnnmodel holds the trained parameters of paper 001's PIDNN
// controller (docs/algorithms/pidnn.md §10): the LSTM RTT predictor and the
// frozen PID gains, as model files of the ml/nn format (docs/ml.md §5), and
// the shipped files themselves, embedded in the binary so that a fresh clone
// runs `pidnn` without training. `ccsim train pidnn` writes these files; with
// the default seed it reproduces the shipped ones byte for byte.
package pidnnmodel

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"

	"github.com/ccsim/ccsim/ml/nn"
)

// File names of a model directory (what `ccsim train pidnn` writes).
const (
	PredictorFile = "predictor.bin" // the LSTM predictor (nn model file)
	GainsFile     = "gains.bin"     // the PID gains (nn model file of one neuron)
	LogFile       = "train.json"    // the training log (dataset, MAPE per epoch, gains per run)
)

// The predictor's shape (paper 001 §3.4.1): an LSTM over Steps steps of one
// input (K), Hidden units, read after the last step by a linear head
// Hidden → 1 whose output is the predicted L_t.
const (
	Steps  = 3
	Hidden = 16
)

//go:embed predictor.bin
var predictorBin []byte

//go:embed gains.bin
var gainsBin []byte

//go:embed train.json
var trainLog []byte

//go:embed train-seed2.json
var trainLogSeed2 []byte

//go:embed train-seed3.json
var trainLogSeed3 []byte

// ShippedLog returns a copy of the embedded training log (train.json) of the
// shipped files: dataset sizes, MAE/MAPE per epoch, gains per run.
func ShippedLog() []byte { return append([]byte(nil), trainLog...) }

// SeedLogFile is the name of the shipped training log of seed n ≠ 1
// (train-seed2.json: `ccsim train pidnn --seed 2`'s train.json).
func SeedLogFile(n uint64) string { return fmt.Sprintf("train-seed%d.json", n) }

// LogSeeds are the seeds whose training logs are shipped: the shipped
// model's (1) and two more, whose predictor training differs only in its
// random initialisation and draws (the simulations are deterministic), so
// that the predictor's MAPE is known over seeds (paper 001 Table 1).
var LogSeeds = []uint64{1, 2, 3}

// ShippedSeedLog returns a copy of the shipped training log of a seed of
// LogSeeds (seed 1: train.json), nil for another seed.
func ShippedSeedLog(seed uint64) []byte {
	switch seed {
	case 1:
		return ShippedLog()
	case 2:
		return append([]byte(nil), trainLogSeed2...)
	case 3:
		return append([]byte(nil), trainLogSeed3...)
	}
	return nil
}

// ShippedPredictorBytes and ShippedGainsBytes return copies of the embedded
// files.
func ShippedPredictorBytes() []byte { return append([]byte(nil), predictorBin...) }
func ShippedGainsBytes() []byte     { return append([]byte(nil), gainsBin...) }

// NewPredictor returns the predictor's architecture with zero weights:
// LSTM(in 1, hidden 16, last step) → Dense(16 → 1) with PyTorch's default
// initialisation (the paper trained in PyTorch; docs/ml.md §3).
func NewPredictor() *nn.Sequential {
	l, err := nn.NewLSTM(1, Hidden, false)
	if err != nil {
		panic(err) // constant shape
	}
	d, err := nn.NewDense(Hidden, 1, nn.TorchDefault)
	if err != nil {
		panic(err)
	}
	m, err := nn.NewSequential(l, d)
	if err != nil {
		panic(err)
	}
	return m
}

// Gains are the PID controller's gains [K_p, K_i, K_d] (paper 001 eq. 15).
type Gains struct {
	Kp float64 `json:"kp"`
	Ki float64 `json:"ki"`
	Kd float64 `json:"kd"`
}

// The paper's gains (paper 001 §3.5.3): the initial values of the online
// training and the learned values it used in every evaluation.
var (
	PaperInitialGains = Gains{Kp: -0.2, Ki: -0.05, Kd: 0.1}
	PaperLearnedGains = Gains{Kp: -0.358, Ki: -0.060, Kd: 0.040}
)

// NewGainsModel returns the gains' model: one linear neuron Dense(3 → 1)
// whose weights are [K_p, K_i, K_d] and whose bias is 0, so that its output
// on [e, I, D] is eq. (15)'s ∂(t) — the "PID neural network" of the paper.
func NewGainsModel(g Gains) *nn.Sequential {
	d, err := nn.NewDense(3, 1, nn.XavierUniform)
	if err != nil {
		panic(err)
	}
	copy(d.W.W, []float64{g.Kp, g.Ki, g.Kd})
	m, err := nn.NewSequential(d)
	if err != nil {
		panic(err)
	}
	return m
}

// EncodeGains returns the gains' model file.
func EncodeGains(g Gains, meta string) ([]byte, error) {
	return nn.Encode(NewGainsModel(g), meta)
}

// DecodePredictor returns the predictor stored in the model file b and its
// meta text; a file of another architecture is an error naming the first
// difference.
func DecodePredictor(b []byte) (*nn.Sequential, string, error) {
	m := NewPredictor()
	meta, err := nn.DecodeInto(b, m)
	if err != nil {
		return nil, "", fmt.Errorf("predictor: %w (want paper 001's LSTM(in 1, hidden %d) → dense(%d → 1))", err, Hidden, Hidden)
	}
	if err := CheckPredictor(m); err != nil {
		return nil, "", fmt.Errorf("predictor: %w", err)
	}
	return m, meta, nil
}

// ProbeInputs are the values of K (the normalised RTT feature, docs/
// algorithms/pidnn.md §4) on which CheckPredictor evaluates a predictor:
// every sequence of Steps of them, from an idle path to a queue of 50 base
// RTTs and beyond what a run produces.
var ProbeInputs = []float64{-1, 0, 0.5, 1, 2, 5, 50, 1e4}

// CheckPredictor refuses a predictor whose weights or outputs are not
// finite: a NaN prediction passes every clamp of the controller and stalls
// each flow at its floor (issue 19 §3.3), so it is found at load, on the
// probe inputs, rather than in a run.
func CheckPredictor(m *nn.Sequential) error {
	for i, p := range m.Params() {
		for j, w := range p.W {
			if math.IsNaN(w) || math.IsInf(w, 0) {
				return fmt.Errorf("parameter %d, weight %d is %v: want finite weights", i, j, w)
			}
		}
	}
	ws := m.NewWorkspace(Steps)
	x := make([]float64, Steps)
	n := len(ProbeInputs)
	for k := range int(math.Pow(float64(n), Steps)) {
		for s, r := 0, k; s < Steps; s, r = s+1, r/n {
			x[s] = ProbeInputs[r%n]
		}
		y, err := m.Forward(ws, x, Steps)
		if err != nil {
			return err
		}
		if math.IsNaN(y[0]) || math.IsInf(y[0], 0) {
			return fmt.Errorf("output %v for inputs K = %v: want a finite prediction", y[0], x)
		}
	}
	return nil
}

// DecodeGains returns the gains stored in the model file b and its meta
// text. The file must hold one dense layer 3 → 1 with bias 0.
func DecodeGains(b []byte) (Gains, string, error) {
	m := NewGainsModel(Gains{})
	meta, err := nn.DecodeInto(b, m)
	if err != nil {
		return Gains{}, "", fmt.Errorf("gains: %w (want one dense(3 → 1) layer: the weights are [K_p, K_i, K_d])", err)
	}
	d := m.Layers()[0].(*nn.Dense)
	if d.B.W[0] != 0 {
		return Gains{}, "", fmt.Errorf("gains: the neuron's bias is %v, want 0 (∂ = K_p·e + K_i·I + K_d·D has no constant term)", d.B.W[0])
	}
	return Gains{Kp: d.W.W[0], Ki: d.W.W[1], Kd: d.W.W[2]}, meta, nil
}

// Check reports a gain that is not finite or outside [−MaxGain, MaxGain].
func (g Gains) Check() error {
	for _, v := range []struct {
		name string
		v    float64
	}{{"K_p", g.Kp}, {"K_i", g.Ki}, {"K_d", g.Kd}} {
		if !(math.Abs(v.v) <= MaxGain) {
			return fmt.Errorf("%s = %v out of range [−%d, %d]", v.name, v.v, MaxGain, MaxGain)
		}
	}
	return nil
}

// MaxGain bounds the magnitude of a gain (a sanity range: the paper's are
// below 0.4).
const MaxGain = 100

// LoadPredictorFile reads a predictor model file; errors name the path.
func LoadPredictorFile(path string) (*nn.Sequential, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	m, meta, err := DecodePredictor(b)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return m, meta, nil
}

// LoadGainsFile reads a gains model file; errors name the path.
func LoadGainsFile(path string) (Gains, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Gains{}, "", err
	}
	g, meta, err := DecodeGains(b)
	if err == nil {
		err = g.Check()
	}
	if err != nil {
		return Gains{}, "", fmt.Errorf("%s: %w", path, err)
	}
	return g, meta, nil
}

var shipped struct {
	once  sync.Once
	pred  *nn.Sequential
	gains Gains
	err   error
}

// Shipped returns the embedded predictor and gains, decoded once. The
// predictor is shared: callers must only read it (Forward on their own
// workspace), never train it.
func Shipped() (*nn.Sequential, Gains, error) {
	s := &shipped
	s.once.Do(func() {
		var err1, err2 error
		s.pred, _, err1 = DecodePredictor(predictorBin)
		s.gains, _, err2 = DecodeGains(gainsBin)
		if err2 == nil {
			err2 = s.gains.Check()
		}
		if err := errors.Join(err1, err2); err != nil {
			s.err = fmt.Errorf("the shipped PIDNN model files (cc/pidnnmodel) are unusable: %w; regenerate them with `ccsim train pidnn --out cc/pidnnmodel`", err)
		}
	})
	return s.pred, s.gains, s.err
}

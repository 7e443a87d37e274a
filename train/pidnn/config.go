package pidnn

import (
	"fmt"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/pidnnmodel"
)

// Config is what a training run depends on.
type Config struct {
	Seed       uint64  // LSTM initialisation, dataset draws, shuffles, and the simulations' seed
	Epochs     int     // predictor epochs (19)
	TrainPairs int     // training pairs drawn per epoch (800)
	TestPairs  int     // test pairs drawn per epoch (200)
	BatchSize  int     // Adam mini-batch (1: one step per pair; unspecified by the paper, I18)
	LR         float64 // Adam learning rate (0.001)
	MaxPairs   int     // size of the balanced dataset at most (the paper's 19,058, I17)
	Sigma      float64 // EWMA σ of the features (0.2)
	// GainRuns bounds the online gain training runs (PID alone, each flow
	// its own controller, continuing its state from run to run); training
	// stops earlier when no flow's gain moves by more than GainTol over a
	// run (I13).
	GainRuns     int
	GainTol      float64
	Training     cc.PIDNNTraining // μ scale, clip, β
	InitialGains pidnnmodel.Gains // [−0.2, −0.05, 0.1]
	RTTTargetUs  float64          // rtt_target of the PID runs (5 µs)
	Workers      int              // 1: the TIMELY collection and the gain training one after the other; otherwise in parallel
	// ScenarioYAML is the incast the runs simulate; nil = the built-in
	// default scenario (the 20:1 incast of paper 001). It must not have cc:
	// or params: sections (the pipeline sets them).
	ScenarioYAML []byte
}

// DefaultConfig returns the paper's training set-up (docs/algorithms/pidnn.md §9).
func DefaultConfig() Config {
	return Config{
		Seed: 1, Epochs: 19, TrainPairs: 800, TestPairs: 200, BatchSize: 1, LR: 0.001,
		MaxPairs: 19058, Sigma: 0.2, GainRuns: 1, GainTol: 1e-4,
		Training: cc.DefaultPIDNNTraining(), InitialGains: pidnnmodel.PaperInitialGains,
		RTTTargetUs: 5,
	}
}

// Validate checks every field's range.
func (c *Config) Validate() error {
	switch {
	case c.Epochs < 1 || c.Epochs > 10000:
		return fmt.Errorf("epochs = %d out of range [1, 10000]", c.Epochs)
	case c.TrainPairs < 1 || c.TrainPairs > 1e7:
		return fmt.Errorf("train pairs = %d out of range [1, 1e7]", c.TrainPairs)
	case c.TestPairs < 1 || c.TestPairs > 1e7:
		return fmt.Errorf("test pairs = %d out of range [1, 1e7]", c.TestPairs)
	case c.BatchSize < 1 || c.BatchSize > c.TrainPairs:
		return fmt.Errorf("batch size = %d out of range [1, train pairs = %d]", c.BatchSize, c.TrainPairs)
	case !(c.LR > 0 && c.LR <= 1):
		return fmt.Errorf("learning rate = %v out of range (0, 1]", c.LR)
	case c.MaxPairs < c.TrainPairs+c.TestPairs || c.MaxPairs > 1e8:
		return fmt.Errorf("max pairs = %d out of range [train + test pairs = %d, 1e8]", c.MaxPairs, c.TrainPairs+c.TestPairs)
	case !(c.Sigma > 0 && c.Sigma <= 1):
		return fmt.Errorf("sigma = %v out of range (0, 1]", c.Sigma)
	case c.GainRuns < 1 || c.GainRuns > 1000:
		return fmt.Errorf("gain runs = %d out of range [1, 1000]", c.GainRuns)
	case !(c.GainTol >= 0 && c.GainTol <= 1):
		return fmt.Errorf("gain tolerance = %v out of range [0, 1]", c.GainTol)
	case !(c.Training.Mu0 > 0 && c.Training.Mu0 <= 1):
		return fmt.Errorf("mu0 = %v out of range (0, 1]", c.Training.Mu0)
	case !(c.Training.Clip > 0 && c.Training.Clip <= 1e6):
		return fmt.Errorf("gradient clip = %v out of range (0, 1e6]", c.Training.Clip)
	case !(c.Training.Beta > 0 && c.Training.Beta <= 1e6):
		return fmt.Errorf("beta = %v out of range (0, 1e6]", c.Training.Beta)
	case !(c.RTTTargetUs > 0 && c.RTTTargetUs <= 1e6):
		return fmt.Errorf("rtt_target_us = %v out of range (0, 1e6]", c.RTTTargetUs)
	case c.Workers < 0 || c.Workers > 1024:
		return fmt.Errorf("workers = %d out of range [0, 1024]", c.Workers)
	}
	if err := c.InitialGains.Check(); err != nil {
		return fmt.Errorf("initial gains: %v", err)
	}
	return nil
}

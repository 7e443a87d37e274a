// Package deccpost turns DECC's teacher actor into its two deployable
// students (paper 000, decc.md §1.8–§1.9; docs/algorithms/decc.md §11): it
// records the teacher's history windows on small lossy many-to-one and
// many-to-many runs as `decc-nn`, compresses the teacher (ml/compress:
// pruning to p*, 4-bit quantisation, fine-tuning by distillation) into
// `decc-binary`'s packed network, and distils the compressed network into
// oblivious trees (ml/gbdt, RMSE boosting) for `decc`. Run is the stage
// `ccsim train decc` calls after training; the same teacher and Config
// give the same files byte for byte.
package deccpost

import (
	"fmt"
)

// Config is what the stage depends on (docs/algorithms/decc.md §11.1).
// The json names are those of the report's "config".
type Config struct {
	Seed uint64 `json:"seed"` // episodes, the data split, fine-tuning batches

	// The recording runs (decc.md §2.1's fabric, small): Episodes episodes
	// of EpisodeUs µs on a star of Hosts hosts at Gbps with 1 µs links and
	// 1,024-B payloads, PFC off, a shared buffer drawn per episode from
	// BuffersMB; even episodes many-to-one, odd many-to-many, with 2 to
	// MaxFlows flows.
	Episodes  int       `json:"episodes"`
	EpisodeUs float64   `json:"episode_us"`
	Hosts     int       `json:"hosts"`
	Gbps      float64   `json:"gbps"`
	MaxFlows  int       `json:"max_flows"`
	BuffersMB []float64 `json:"buffers_mb"`
	// Windows is the most windows kept (an even random subset when the runs
	// record more); TestFrac of them are held out for the figures,
	// ValidFrac of the rest for the trees' early stopping.
	Windows   int     `json:"windows"`
	TestFrac  float64 `json:"test_frac"`
	ValidFrac float64 `json:"valid_frac"`

	// Compression (decc.md §1.8, Table 5): Sparsity p*, Bits B, then
	// Epochs epochs of batch Batch at Adam rate LR (N_e, N_b unstated).
	Sparsity float64 `json:"sparsity"`
	Bits     int     `json:"bits"`
	Epochs   int     `json:"epochs"`
	Batch    int     `json:"batch"`
	LR       float64 `json:"lr"`

	// Distillation (decc.md §1.9): Label "greedy" (the compressed
	// network's greedy action value, I20) or "expected" (Σ p_k a_k under
	// its softmax); at most Trees trees of depth Depth at rate TreeRate
	// (the paper's 0.02), L2 leaf regularisation L2, Borders borders per
	// feature, stopping after EarlyStop trees without a better validation
	// RMSE (I22).
	Label     string  `json:"label"`
	Trees     int     `json:"trees"`
	Depth     int     `json:"depth"`
	TreeRate  float64 `json:"tree_rate"`
	L2        float64 `json:"l2"`
	Borders   int     `json:"borders"`
	EarlyStop int     `json:"early_stop"`

	// Progress, if set, is called as the stage advances with its phase
	// ("record", "fine-tune", "trees") and (done, total) in that phase.
	Progress func(phase string, done, total int) `json:"-"`
}

// DefaultConfig is the shipped students' set-up (about 3 min on one core;
// docs/algorithms/decc.md §11.1).
func DefaultConfig() Config {
	return Config{Seed: 1, Episodes: 64, EpisodeUs: 300, Hosts: 8, Gbps: 400, MaxFlows: 12,
		BuffersMB: []float64{0.25, 0.5, 1, 4}, Windows: 24000, TestFrac: 0.1, ValidFrac: 0.1,
		Sparsity: 0.65, Bits: 4, Epochs: 20, Batch: 192, LR: 0.001,
		Label: "greedy", Trees: 500, Depth: 6, TreeRate: 0.02, L2: 3, Borders: 64, EarlyStop: 100}
}

// QuickConfig is a short run for tests and `--quick` (a few seconds).
func QuickConfig() Config {
	c := DefaultConfig()
	c.Episodes, c.EpisodeUs, c.Windows, c.Epochs, c.Trees, c.EarlyStop = 4, 100, 1500, 2, 200, 50
	return c
}

// Validate checks every field's range; the error names the field.
func (c *Config) Validate() error {
	switch {
	case c.Episodes < 1 || c.Episodes > 1e5:
		return fmt.Errorf("episodes = %d out of range [1, 1e5]", c.Episodes)
	case !(c.EpisodeUs >= 10 && c.EpisodeUs <= 1e5):
		return fmt.Errorf("episode_us = %v out of range [10, 1e5]", c.EpisodeUs)
	case c.Hosts < 3 || c.Hosts > 256:
		return fmt.Errorf("hosts = %d out of range [3, 256]", c.Hosts)
	case !(c.Gbps >= 1 && c.Gbps <= 1e4):
		return fmt.Errorf("gbps = %v out of range [1, 1e4]", c.Gbps)
	case c.MaxFlows < 2 || c.MaxFlows > 4096:
		return fmt.Errorf("max_flows = %d out of range [2, 4096]", c.MaxFlows)
	case len(c.BuffersMB) == 0:
		return fmt.Errorf("buffers_mb is empty, want at least one shared buffer size in [0.065536, 1e4] MB")
	case c.Windows < 100 || c.Windows > 1e7:
		return fmt.Errorf("windows = %d out of range [100, 1e7]", c.Windows)
	case !(c.TestFrac >= 0.01 && c.TestFrac <= 0.5):
		return fmt.Errorf("test_frac = %v out of range [0.01, 0.5]", c.TestFrac)
	case !(c.ValidFrac >= 0.01 && c.ValidFrac <= 0.5):
		return fmt.Errorf("valid_frac = %v out of range [0.01, 0.5]", c.ValidFrac)
	case !(c.Sparsity >= 0 && c.Sparsity < 1):
		return fmt.Errorf("sparsity = %v out of range [0, 1)", c.Sparsity)
	case c.Bits < 2 || c.Bits > 8:
		return fmt.Errorf("bits = %d out of range [2, 8]", c.Bits)
	case c.Epochs < 1 || c.Epochs > 1e4:
		return fmt.Errorf("epochs = %d out of range [1, 1e4]", c.Epochs)
	case c.Batch < 1 || c.Batch > 65536:
		return fmt.Errorf("batch = %d out of range [1, 65536]", c.Batch)
	case !(c.LR > 0 && c.LR <= 1):
		return fmt.Errorf("lr = %v out of range (0, 1]", c.LR)
	case c.Label != "greedy" && c.Label != "expected":
		return fmt.Errorf("label = %q: allowed values greedy, expected", c.Label)
	case c.Trees < 1 || c.Trees > 1e5:
		return fmt.Errorf("trees = %d out of range [1, 1e5]", c.Trees)
	case c.Depth < 1 || c.Depth > 10:
		return fmt.Errorf("depth = %d out of range [1, 10]", c.Depth)
	case !(c.TreeRate > 0 && c.TreeRate <= 1):
		return fmt.Errorf("tree_rate = %v out of range (0, 1]", c.TreeRate)
	case !(c.L2 >= 0 && c.L2 <= 1e6):
		return fmt.Errorf("l2 = %v out of range [0, 1e6]", c.L2)
	case c.Borders < 1 || c.Borders > 254:
		return fmt.Errorf("borders = %d out of range [1, 254]", c.Borders)
	case c.EarlyStop < 0 || c.EarlyStop > c.Trees:
		return fmt.Errorf("early_stop = %d out of range [0, trees = %d]", c.EarlyStop, c.Trees)
	}
	for i, b := range c.BuffersMB {
		if !(b >= 0.065536 && b <= 1e4) {
			return fmt.Errorf("buffers_mb[%d] = %v out of range [0.065536, 1e4]", i, b)
		}
	}
	return nil
}

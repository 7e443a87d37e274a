package adpg

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/adpgmodel"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/ml/rl"
	"github.com/ccsim/ccsim/sim"
)

// Round is one policy update's entry of the training log.
type Round struct {
	Update  int  `json:"update"`
	Warmup  bool `json:"warmup"`
	Steps   int  `json:"steps"`  // decisions taken in the round, all environments
	Agents  int  `json:"agents"` // rollouts of the update
	Rewards int  `json:"rewards"`
	// MeanReward and MeanAbsReward are over the round's rewards (the
	// authors' adpg_reward: 0 is the attractor, docs/algorithms/adpg.md §3).
	MeanReward    float64 `json:"mean_reward"`
	MeanAbsReward float64 `json:"mean_abs_reward"`
	RewardLoss    float64 `json:"reward_loss"`
	ActionLoss    float64 `json:"action_loss"`
}

// Eval is a greedy run of each scenario (EvalUs) with a policy.
type Eval struct {
	Scenario      string  `json:"scenario"`
	Rewards       int     `json:"rewards"`
	MeanReward    float64 `json:"mean_reward"`
	MeanAbsReward float64 `json:"mean_abs_reward"`
}

// Log is train.json.
type Log struct {
	Seed          uint64   `json:"seed"`
	Scenarios     []string `json:"scenarios"`
	Updates       int      `json:"updates"`
	RolloutLength int      `json:"rollout_length"`
	WarmupUpdates int      `json:"warmup_updates"`
	WarmupLength  int      `json:"warmup_length"`
	History       int      `json:"history"`
	LossScale     float64  `json:"loss_scale"`
	ActionCoef    float64  `json:"action_loss_coeff"`
	Gamma         float64  `json:"discount"`
	EpisodeUs     float64  `json:"episode_us"`
	Before        []Eval   `json:"eval_untrained"`
	After         []Eval   `json:"eval_trained"`
	Rounds        []Round  `json:"rounds"`
}

// Result is a finished training run.
type Result struct {
	Model      *nn.Sequential
	ModelBytes []byte // adpgmodel.ModelFile
	Log        Log
	LogBytes   []byte // adpgmodel.LogFile
}

// WriteDir writes the model file and the log into dir (created if needed).
func (r *Result) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, adpgmodel.ModelFile), r.ModelBytes, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, adpgmodel.LogFile), r.LogBytes, 0o644)
}

// noBias is Adam over the whole network whose bias gradients are cleared
// before each step, so that the biases stay exactly 0 (Adam's moments of a
// zero gradient stay 0): the authors' layers have no bias (adpg.bias
// False; docs/rl.md §7; docs/algorithms/adpg.md I4).
type noBias struct {
	*nn.Adam
	biases []*nn.Param
}

func (o *noBias) Step() {
	for _, b := range o.biases {
		clear(b.G)
	}
	o.Adam.Step()
}

// NewPolicy returns the untrained policy for seed: NewModel's layers with
// orthogonal weights of gain √2 and zero biases, as the authors' MLP
// (models/mlp.py: nn.init.orthogonal_ with gain √2, bias False).
func NewPolicy(history int, seed uint64) (*nn.Sequential, error) {
	m, err := adpgmodel.NewModel(history)
	if err != nil {
		return nil, err
	}
	r := nn.NewRand(seed)
	for _, l := range m.Layers() {
		if d, ok := l.(*nn.Dense); ok {
			Orthogonal(r, d.W.W, d.Out, d.In, math.Sqrt2)
			clear(d.B.W)
		}
	}
	return m, nil
}

// Orthogonal fills w (rows × cols, row-major) with a random matrix whose
// rows (rows ≤ cols) or columns (rows > cols) are orthonormal, times gain:
// PyTorch's orthogonal_ (QR of a standard normal matrix, signs fixed by
// R's diagonal), here by modified Gram–Schmidt, which gives the same Q.
func Orthogonal(r *rand.Rand, w []float64, rows, cols int, gain float64) {
	// work on the "tall" shape n × m (n ≥ m): columns orthonormal
	n, m, tr := rows, cols, false
	if rows < cols {
		n, m, tr = cols, rows, true
	}
	a := make([]float64, n*m) // a[i*m+j]: row i, column j
	for i := range a {
		a[i] = r.NormFloat64()
	}
	for j := range m {
		for k := range j {
			dot := 0.0
			for i := range n {
				dot += a[i*m+j] * a[i*m+k]
			}
			for i := range n {
				a[i*m+j] -= dot * a[i*m+k]
			}
		}
		norm := 0.0
		for i := range n {
			norm += a[i*m+j] * a[i*m+j]
		}
		norm = math.Sqrt(norm)
		for i := range n {
			a[i*m+j] /= norm
		}
	}
	for i := range n {
		for j := range m {
			if tr {
				w[j*cols+i] = gain * a[i*m+j]
			} else {
				w[i*cols+j] = gain * a[i*m+j]
			}
		}
	}
}

// parallel runs f(0..n−1) on workers goroutines.
func parallel(n, workers int, f func(i int)) {
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	ch := make(chan int)
	for range min(workers, n) {
		wg.Go(func() {
			for i := range ch {
				f(i)
			}
		})
	}
	for i := range n {
		ch <- i
	}
	close(ch)
	wg.Wait()
}

// evaluate runs every scenario once for EvalUs with policy net (no
// learning) and returns the statistics of the rewards of its second half.
func evaluate(cfg *Config, p *cc.ADPGParams, net *nn.Sequential) ([]Eval, error) {
	envs := make([]*envRun, len(cfg.Scenarios))
	for i, sc := range cfg.Scenarios {
		envs[i] = newEnvRun(i, cfg, p, sc, net)
		envs[i].eval = true
		envs[i].evalFrom = sim.Time(cfg.EvalUs / 2 * float64(sim.Microsecond))
	}
	parallel(len(envs), cfg.Workers, func(i int) { envs[i].resume(false) })
	out := make([]Eval, len(envs))
	for i, e := range envs {
		e.close()
		if e.err != nil {
			return nil, e.err
		}
		out[i] = Eval{Scenario: e.sc.Name, Rewards: e.nR, MeanReward: e.sumR / float64(max(1, e.nR)), MeanAbsReward: e.sumAbsR / float64(max(1, e.nR))}
	}
	return out, nil
}

// MeanAbs is the evaluation's mean |reward| over all rewards of all
// scenarios (lower is better: the reward's attractor is 0).
func MeanAbs(ev []Eval) float64 {
	s, n := 0.0, 0
	for _, e := range ev {
		s += e.MeanAbsReward * float64(e.Rewards)
		n += e.Rewards
	}
	return s / float64(max(1, n))
}

// Run trains a policy with cfg and writes a line of progress every 50
// updates to logw (nil: none).
func Run(cfg Config, logw io.Writer) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if logw == nil {
		logw = io.Discard
	}
	p := cfg.Params
	if p == nil {
		p = cc.ADPGDefaults()
	}
	net, err := NewPolicy(cfg.History, cfg.Seed)
	if err != nil {
		return nil, err
	}
	adam := rl.DefaultADPGAdam()
	adam.LR, adam.Clip.Value = cfg.LR, cfg.Clip
	opt, err := nn.NewAdam(net.Params(), adam)
	if err != nil {
		return nil, err
	}
	nb := &noBias{Adam: opt}
	for _, l := range net.Layers() {
		if d, ok := l.(*nn.Dense); ok {
			nb.biases = append(nb.biases, &d.B)
		}
	}
	learner, err := rl.NewADPG(cfg.Loss, net, nb)
	if err != nil {
		return nil, err
	}
	lg := Log{Seed: cfg.Seed, Updates: cfg.Updates, RolloutLength: cfg.RolloutLength, WarmupUpdates: cfg.WarmupUpdates,
		WarmupLength: cfg.WarmupLength, History: cfg.History, LossScale: cfg.Loss.LossScale, ActionCoef: cfg.Loss.ActionCoef,
		Gamma: cfg.Loss.Gamma, EpisodeUs: cfg.EpisodeUs}
	for _, s := range cfg.Scenarios {
		lg.Scenarios = append(lg.Scenarios, s.Name)
	}
	if lg.Before, err = evaluate(&cfg, p, net); err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "untrained: mean |reward| %.4f\n", MeanAbs(lg.Before))
	if err := train(&cfg, p, net, learner, &lg, logw); err != nil {
		return nil, err
	}
	if lg.After, err = evaluate(&cfg, p, net); err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "trained: mean |reward| %.4f\n", MeanAbs(lg.After))
	res := &Result{Model: net, Log: lg}
	meta := fmt.Sprintf("adpg policy (cc/adpg.go, docs/algorithms/adpg.md): ccsim train adpg, seed %d, %d updates, scenarios %v", cfg.Seed, cfg.Updates, lg.Scenarios)
	if res.ModelBytes, err = nn.Encode(net, meta); err != nil {
		return nil, err
	}
	if res.LogBytes, err = json.MarshalIndent(lg, "", " "); err != nil {
		return nil, err
	}
	res.LogBytes = append(res.LogBytes, '\n')
	return res, nil
}

// train runs the rounds: every environment to the end of its round with
// the frozen policy (in parallel), the rollouts merged in environment
// order, one learner step, the new weights copied to every environment.
func train(cfg *Config, p *cc.ADPGParams, net *nn.Sequential, learner *rl.ADPG, lg *Log, logw io.Writer) error {
	var envs []*envRun
	for i, sc := range cfg.Scenarios {
		for j := range cfg.EnvsPerScenario {
			envs = append(envs, newEnvRun(i*cfg.EnvsPerScenario+j, cfg, p, sc, net))
		}
	}
	defer func() {
		for _, e := range envs {
			e.close()
		}
	}()
	var rolls []rl.ADPGRollout
	for u := 1; u <= cfg.Updates; u++ {
		warm := u <= cfg.WarmupUpdates
		parallel(len(envs), cfg.Workers, func(i int) { envs[i].resume(warm) })
		rd := Round{Update: u, Warmup: warm}
		rolls = rolls[:0]
		for _, e := range envs {
			if e.err != nil {
				return e.err
			}
			rolls = e.harvest(rolls)
			rd.Steps += e.steps
			rd.Rewards += e.nR
			rd.MeanReward += e.sumR
			rd.MeanAbsReward += e.sumAbsR
		}
		rd.Agents = len(rolls)
		rd.MeanReward /= float64(max(1, rd.Rewards))
		rd.MeanAbsReward /= float64(max(1, rd.Rewards))
		if len(rolls) > 0 {
			var err error
			if rd.RewardLoss, rd.ActionLoss, err = learner.Step(rolls); err != nil {
				return err
			}
		}
		for _, e := range envs {
			e.clearRound()
			if err := e.net.CopyFrom(net); err != nil {
				return err
			}
		}
		lg.Rounds = append(lg.Rounds, rd)
		if u%50 == 0 || u == cfg.Updates {
			fmt.Fprintf(logw, "update %d/%d: %d agents, mean reward %.4f, mean |reward| %.4f, loss %.5f + %.5f\n",
				u, cfg.Updates, rd.Agents, rd.MeanReward, rd.MeanAbsReward, rd.RewardLoss, rd.ActionLoss)
		}
		if cfg.Progress != nil {
			cfg.Progress(u, cfg.Updates)
		}
	}
	return nil
}

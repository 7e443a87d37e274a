package aurora

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"

	"github.com/ccsim/ccsim/cc/auroramodel"
	"github.com/ccsim/ccsim/ml/nn"
)

// Iteration is one PPO iteration's line of the log.
type Iteration struct {
	Iter       int     `json:"iter"`
	Steps      int     `json:"steps"`       // transitions in the rollout
	MeanReward float64 `json:"mean_reward"` // per step, the stochastic policy's
	Stats
}

// Log is train.json.
type Log struct {
	Config     Config      `json:"config"`
	Iterations []Iteration `json:"iterations"`
	// EvalBefore and EvalAfter are the deterministic policy's mean reward
	// per step on the EvalEpisodes fixed episodes, untrained and trained.
	EvalBefore float64 `json:"eval_before"`
	EvalAfter  float64 `json:"eval_after"`
	TotalSteps int     `json:"total_steps"`
}

// Result is a finished training: the policy (the Gaussian's mean network)
// and the log.
type Result struct {
	Policy *nn.Sequential
	LogStd float64
	Log    Log
}

// streams of the seed: independent sources for each use, so that changing
// one knob (e.g. the number of evaluation episodes) does not shift others.
const (
	streamInit     = 1
	streamScenario = 2
	streamNoise    = 3
	streamEval     = 4
)

func stream(seed uint64, s, i, k uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed*0x9e3779b97f4a7c15+s, i<<20|k))
}

// Run trains with cfg, writing one line per iteration to logw (nil: none).
func Run(cfg Config, logw io.Writer) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if logw == nil {
		logw = io.Discard
	}
	l, err := newLearner(cfg, stream(cfg.Seed, streamInit, 0, 0))
	if err != nil {
		return nil, err
	}
	res := &Result{Log: Log{Config: cfg}}
	if res.Log.EvalBefore, err = Evaluate(cfg, l.pi); err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "aurora: untrained policy: mean reward %.4f per step on %d evaluation episodes\n", res.Log.EvalBefore, cfg.EvalEpisodes)
	for it := range cfg.Iterations {
		eps, err := collect(cfg, l.pi, nn.DetExp(l.logStd.W[0]), it)
		if err != nil {
			return nil, err
		}
		if err := l.load(eps); err != nil {
			return nil, err
		}
		mean := 0.0
		for _, r := range l.rew {
			mean += r
		}
		mean /= float64(max(1, len(l.rew)))
		st, err := l.update()
		if err != nil {
			return nil, err
		}
		res.Log.Iterations = append(res.Log.Iterations, Iteration{Iter: it + 1, Steps: len(l.u), MeanReward: mean, Stats: st})
		res.Log.TotalSteps += len(l.u)
		fmt.Fprintf(logw, "iter %d: %d steps, mean reward %.4f, policy loss %.4f, value loss %.4f, clip %.3f, log std %.3f\n",
			it+1, len(l.u), mean, st.PolicyLoss, st.ValueLoss, st.ClipFraction, st.LogStd)
		if cfg.Progress != nil {
			cfg.Progress(it+1, cfg.Iterations)
		}
	}
	if res.Log.EvalAfter, err = Evaluate(cfg, l.pi); err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "aurora: trained policy: mean reward %.4f per step (untrained %.4f)\n", res.Log.EvalAfter, res.Log.EvalBefore)
	res.Policy, res.LogStd = l.pi, l.logStd.W[0]
	return res, nil
}

// collect runs iteration it's Envs episodes on cfg.Workers goroutines, each
// with its own copy of the policy and its own noise source, and returns
// them in environment order (the same for any worker count).
func collect(cfg Config, pi *nn.Sequential, sigma float64, it int) ([]*episode, error) {
	eps := make([]*episode, cfg.Envs)
	errs := make([]error, cfg.Envs)
	run := func(k int) {
		st := cfg.Draw(stream(cfg.Seed, streamScenario, uint64(it), uint64(k)))
		eps[k], errs[k] = runEpisode(st, pi.Clone(), sigma, stream(cfg.Seed, streamNoise, uint64(it), uint64(k)), cfg.Reward)
	}
	parallel(cfg.Envs, cfg.Workers, run)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return eps, nil
}

// parallel runs f(0..n−1) on workers goroutines (0 or 1: in order here).
func parallel(n, workers int, f func(k int)) {
	if workers <= 1 {
		for k := range n {
			f(k)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				f(k)
			}
		}()
	}
	for k := range n {
		next <- k
	}
	close(next)
	wg.Wait()
}

// Evaluate is the mean reward per step of policy pi's mean action over
// cfg.EvalEpisodes fixed episodes (drawn from the seed's evaluation stream,
// the same for every call): the training reward of the deterministic
// policy.
func Evaluate(cfg Config, pi *nn.Sequential) (float64, error) {
	eps := make([]*episode, cfg.EvalEpisodes)
	errs := make([]error, cfg.EvalEpisodes)
	parallel(cfg.EvalEpisodes, cfg.Workers, func(k int) {
		st := cfg.Draw(stream(cfg.Seed, streamEval, 0, uint64(k)))
		eps[k], errs[k] = runEpisode(st, pi.Clone(), 0, nil, cfg.Reward)
	})
	sum, n := 0.0, 0
	for k, e := range eps {
		if errs[k] != nil {
			return 0, errs[k]
		}
		sum += e.sumRew
		n += e.nRew
	}
	return sum / float64(max(1, n)), nil
}

// Meta is the text stored in the policy file's header.
func (r *Result) Meta() string {
	return fmt.Sprintf("aurora policy (PCC-RL, docs/algorithms/aurora.md): seed %d, %d iterations, %d steps, log_std %.6g",
		r.Log.Config.Seed, len(r.Log.Iterations), r.Log.TotalSteps, r.LogStd)
}

// Files returns the model files' contents: policy.bin and train.json.
func (r *Result) Files() (policy, log []byte, err error) {
	if policy, err = nn.Encode(r.Policy, r.Meta()); err != nil {
		return nil, nil, err
	}
	if log, err = json.MarshalIndent(r.Log, "", " "); err != nil {
		return nil, nil, err
	}
	return policy, append(log, '\n'), nil
}

// WriteDir writes policy.bin and train.json into dir (created if needed).
func (r *Result) WriteDir(dir string) error {
	p, l, err := r.Files()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, auroramodel.PolicyFile), p, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, auroramodel.LogFile), l, 0o644)
}

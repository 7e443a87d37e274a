package spine

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/spinemodel"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/ml/rl"
)

// ObsDim is the learner's observation: the deployed controller's window of
// spinemodel.History steps (cc.Spine.Window), flattened (I2).
const ObsDim = spinemodel.History * cc.SpineObsDim

// RoundLog is one round of the training log.
type RoundLog struct {
	Round       int     `json:"round"`
	Transitions int     `json:"transitions"`
	MeanReward  float64 `json:"mean_reward"` // per transition, exploring policy
	FiredFrac   float64 `json:"fired_fraction"`
	Sigma       float64 `json:"sigma"` // exploration noise (−1: random actions)
	CriticLoss  float64 `json:"critic_loss"`
	MeanQ       float64 `json:"mean_q"`
}

// EvalLog is the greedy policy's mean reward per transition on the
// training scenarios (one episode per incast size and arrival gap).
type EvalLog struct {
	Flows      []int     `json:"flows"`
	StaggerUs  []float64 `json:"stagger_us"`
	MeanReward []float64 `json:"mean_reward"`
	FiredFrac  []float64 `json:"fired_fraction"`
	Overall    float64   `json:"overall"` // over all their transitions
}

// Log is train.json.
type Log struct {
	Config  logConfig  `json:"config"`
	Initial EvalLog    `json:"initial"` // the untrained actor
	Final   EvalLog    `json:"final"`   // the trained actor
	Rounds  []RoundLog `json:"rounds"`
}

type logConfig struct {
	Seed                          uint64
	Rounds, Envs                  int
	FlowCounts                    []int
	Hosts                         int
	Gbps, EpisodeUs               float64
	StaggersUs                    []float64
	WarmupRounds                  int
	NoiseStart, NoiseEnd          float64
	StepsPerRound, BatchSize      int
	ActorLR, CriticLR, Tau, Gamma float64
	ReplayCap                     int
	Trigger                       bool
	K                             int
}

// Result is a training run's outcome.
type Result struct {
	Actor *nn.Sequential
	Log   Log
}

// Run trains SPINE's agent; progress lines go to logw (nil: none).
func Run(cfg Config, logw io.Writer) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if logw == nil {
		logw = io.Discard
	}
	rng := nn.NewRand(cfg.Seed)
	tc := rl.DefaultTD3()
	tc.Gamma, tc.Tau, tc.BatchSize, tc.History, tc.PadHistory = cfg.Gamma, cfg.Tau, cfg.BatchSize, 1, false
	tc.Actor.LR, tc.Critic.LR, tc.StepsPerRound = cfg.ActorLR, cfg.CriticLR, cfg.StepsPerRound
	tc.Action = rl.Squash{Lo: -1, Hi: 1}
	learner, err := rl.NewTD3(tc, ObsDim, cc.SpineActDim, spinemodel.NewActor(), newCritic(), rng)
	if err != nil {
		return nil, err
	}
	buf, err := rl.NewReplay(learner.ReplayConfig(cfg.ReplayCap))
	if err != nil {
		return nil, err
	}
	res := &Result{Log: Log{Config: logConfig{cfg.Seed, cfg.Rounds, cfg.Envs, cfg.FlowCounts, cfg.Hosts, cfg.Gbps,
		cfg.EpisodeUs, cfg.StaggersUs, cfg.WarmupRounds, cfg.NoiseStart, cfg.NoiseEnd, cfg.StepsPerRound,
		cfg.BatchSize, cfg.ActorLR, cfg.CriticLR, cfg.Tau, cfg.Gamma, cfg.ReplayCap, cfg.Trigger, cfg.K}}}
	if res.Log.Initial, err = Evaluate(&cfg, learner.Actor(0)); err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "spine: untrained actor: mean reward %.5f\n", res.Log.Initial.Overall)
	for round := range cfg.Rounds {
		lg, err := trainRound(&cfg, round, learner, buf)
		if err != nil {
			return nil, err
		}
		res.Log.Rounds = append(res.Log.Rounds, lg)
		if round%20 == 0 || round == cfg.Rounds-1 {
			fmt.Fprintf(logw, "spine: round %d/%d: %d transitions, mean reward %.5f, fired %.2f, σ %.3f, critic loss %.3g\n",
				round+1, cfg.Rounds, lg.Transitions, lg.MeanReward, lg.FiredFrac, lg.Sigma, lg.CriticLoss)
		}
		if cfg.Progress != nil {
			cfg.Progress(round+1, cfg.Rounds)
		}
	}
	res.Actor = learner.Actor(0).Clone()
	if res.Log.Final, err = Evaluate(&cfg, res.Actor); err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "spine: trained actor: mean reward %.5f (untrained %.5f)\n", res.Log.Final.Overall, res.Log.Initial.Overall)
	return res, nil
}

// newCritic is the critic's architecture: (window, action) → 64 → 64 (ReLU)
// → Q.
func newCritic() *nn.Sequential {
	h := spinemodel.Hidden
	d1, _ := nn.NewDense(ObsDim+cc.SpineActDim, h, nn.KaimingUniform)
	a1, _ := nn.NewActivation(nn.ReLU, h)
	d2, _ := nn.NewDense(h, h, nn.KaimingUniform)
	a2, _ := nn.NewActivation(nn.ReLU, h)
	d3, _ := nn.NewDense(h, 1, nn.XavierUniform)
	m, _ := nn.NewSequential(d1, a1, d2, a2, d3)
	return m
}

// sigma is the exploration noise of a round after the warm-up.
func (c *Config) sigma(round int) float64 {
	span := max(1, c.Rounds-c.WarmupRounds-1)
	f := float64(round-c.WarmupRounds) / float64(span)
	return c.NoiseStart + (c.NoiseEnd-c.NoiseStart)*min(1, max(0, f))
}

// trainRound collects one round with the frozen actor and updates the
// learner.
func trainRound(cfg *Config, round int, learner *rl.MADDPG, buf *rl.Replay) (RoundLog, error) {
	frozen := learner.Actor(0).Clone()
	warm := round < cfg.WarmupRounds
	sig := cfg.sigma(round)
	outs, err := runRound(cfg, round, func(k int) *policy {
		a := frozen.Clone()
		return &policy{actor: a, ws: a.NewWorkspace(1), noise: nn.NewRand(cfg.Seed*7919 + uint64(round*cfg.Envs+k) + 1),
			sigma: sig, random: warm}
	})
	if err != nil {
		return RoundLog{}, err
	}
	lg := RoundLog{Round: round, Sigma: sig}
	if warm {
		lg.Sigma = -1
	}
	var dec, fired int64
	sum := 0.0
	for _, o := range outs {
		for _, t := range o.T {
			if err := buf.Add(t); err != nil {
				return lg, err
			}
		}
		lg.Transitions += len(o.T)
		sum += o.RewardSum
		dec += o.Decisions
		fired += o.Fired
	}
	if lg.Transitions > 0 {
		lg.MeanReward = sum / float64(lg.Transitions)
	}
	if dec > 0 {
		lg.FiredFrac = float64(fired) / float64(dec)
	}
	if !warm && buf.Len() >= cfg.BatchSize {
		st, err := learner.Round(buf)
		if err != nil {
			return lg, err
		}
		lg.CriticLoss, lg.MeanQ = st.CriticLoss, st.MeanQ
	}
	return lg, nil
}

// Evaluate runs the greedy actor on one episode of every training incast
// size with every arrival gap (fixed seeds) and returns its mean reward per transition: the
// training reward of the deployed policy.
func Evaluate(cfg *Config, actor *nn.Sequential) (EvalLog, error) {
	var ev EvalLog
	sum, n := 0.0, 0
	for i := range len(cfg.FlowCounts) * len(cfg.StaggersUs) {
		flows, gap := cfg.episodeScenario(i)
		a := actor.Clone()
		o, err := runEpisode(cfg, 0, flows, gap, cfg.Seed*1000003+1<<40+uint64(i), &policy{actor: a, ws: a.NewWorkspace(1)})
		if err != nil {
			return ev, err
		}
		m, f := 0.0, 0.0
		if len(o.T) > 0 {
			m = o.RewardSum / float64(len(o.T))
		}
		if o.Decisions > 0 {
			f = float64(o.Fired) / float64(o.Decisions)
		}
		ev.Flows, ev.StaggerUs = append(ev.Flows, flows), append(ev.StaggerUs, gap)
		ev.MeanReward, ev.FiredFrac = append(ev.MeanReward, m), append(ev.FiredFrac, f)
		sum += o.RewardSum
		n += len(o.T)
	}
	if n > 0 {
		ev.Overall = sum / float64(n)
	}
	return ev, nil
}

// Files returns the model files' contents: the actor and train.json.
func (r *Result) Files() (actor, log []byte, err error) {
	if actor, err = nn.Encode(r.Actor, fmt.Sprintf("spine actor: history %d × %d observations → %d actions (tanh); seed %d, %d rounds",
		spinemodel.History, cc.SpineObsDim, cc.SpineActDim, r.Log.Config.Seed, r.Log.Config.Rounds)); err != nil {
		return nil, nil, err
	}
	if log, err = json.MarshalIndent(r.Log, "", " "); err != nil {
		return nil, nil, err
	}
	return actor, append(log, '\n'), nil
}

// WriteDir writes actor.bin and train.json into dir (created if needed).
func (r *Result) WriteDir(dir string) error {
	a, l, err := r.Files()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, spinemodel.ActorFile), a, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, spinemodel.LogFile), l, 0o644)
}

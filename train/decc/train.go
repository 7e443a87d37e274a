package decc

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/train/env"
)

// Version names the training code in the teacher's meta text; change it
// when a change of this package changes the trained bytes.
const Version = "decc-train/1"

// RoundLog is one round of the training log (one CSV row).
type RoundLog struct {
	Round       int
	Transitions int
	MeanReward  float64 // per transition, sampling policy
	CriticLoss  float64 // mean over the round's gradient steps
	ActorLoss   float64
	Entropy     float64 // mean policy entropy (nats) over the round's decisions
	Thr         float64 // mean per-MTP goodput / line rate of the round's transitions
	Lat         float64 // mean per-MTP RTT / base RTT
	Loss        float64 // mean per-MTP retransmitted fraction
	// Eval is the greedy actor's evaluation after the round (Evaluate),
	// when EvalEvery falls on it (Evaluated).
	Eval      float64
	Evaluated bool
}

// csvHeader is the training log's header line.
const csvHeader = "round,transitions,mean_reward,critic_loss,actor_loss,entropy,goodput,latency,loss,eval\n"

func (r RoundLog) csv() string {
	ev := ""
	if r.Evaluated {
		ev = fmt.Sprintf("%.6g", r.Eval)
	}
	return fmt.Sprintf("%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n", r.Round, r.Transitions, r.MeanReward,
		r.CriticLoss, r.ActorLoss, r.Entropy, r.Thr, r.Lat, r.Loss, ev)
}

// Result is a training run's outcome.
type Result struct {
	Actor  *nn.Sequential
	Rounds []RoundLog
	// Initial and Final are the greedy actor's mean reward per transition
	// on the evaluation episodes (one per training case, fixed seeds)
	// before training and of the actor kept (Actor, from round BestRound;
	// −1: the untrained one).
	Initial, Final float64
	BestRound      int
	Config         Config
}

// Run trains the teacher; progress lines go to logw (nil: none).
func Run(cfg Config, logw io.Writer) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if logw == nil {
		logw = io.Discard
	}
	l, err := newLearner(&cfg)
	if err != nil {
		return nil, err
	}
	res := &Result{Config: cfg}
	var counts [deccmodel.Actions]int
	if res.Initial, counts, err = evaluate(&cfg, l.Net()); err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "decc: untrained actor: mean reward %.6f, greedy actions %v\n", res.Initial, counts)
	buf := NewReplay(cfg.ReplayCap)
	res.Actor, res.Final, res.BestRound = l.Net().Clone(), res.Initial, -1
	for round := range cfg.Rounds {
		lg, err := trainRound(&cfg, round, l, buf)
		if err != nil {
			return nil, err
		}
		last := round == cfg.Rounds-1
		if (cfg.EvalEvery > 0 && (round+1)%cfg.EvalEvery == 0) || (cfg.EvalEvery == 0 && last) {
			if lg.Eval, err = Evaluate(&cfg, l.Net()); err != nil {
				return nil, err
			}
			lg.Evaluated = true
			if lg.Eval > res.Final || cfg.EvalEvery == 0 {
				res.Actor, res.Final, res.BestRound = l.Net().Clone(), lg.Eval, round
			}
		}
		res.Rounds = append(res.Rounds, lg)
		if lg.Evaluated || round == 0 || last {
			fmt.Fprintf(logw, "decc: round %d/%d: %d transitions, reward %.5f, critic %.3g, entropy %.3f, goodput %.3f, latency %.2f, loss %.4f, eval %.5f\n",
				round+1, cfg.Rounds, lg.Transitions, lg.MeanReward, lg.CriticLoss, lg.Entropy, lg.Thr, lg.Lat, lg.Loss, lg.Eval)
		}
		if cfg.Progress != nil {
			cfg.Progress(round+1, cfg.Rounds)
		}
	}
	if res.Final, counts, err = evaluate(&cfg, res.Actor); err != nil {
		return nil, err
	}
	kept := fmt.Sprintf("the actor of round %d", res.BestRound+1)
	if res.BestRound < 0 {
		kept = "the untrained actor (no evaluation beat it)"
	}
	fmt.Fprintf(logw, "decc: kept %s: mean reward %.6f (untrained %.6f), greedy actions %v\n", kept, res.Final, res.Initial, counts)
	return res, nil
}

// learner is a teacher's learner: Learner (actor categorical) or
// TD3Learner (actor continuous).
type learner interface {
	Step(buf *Replay, criticOnly bool) (StepStats, error)
	Net() *nn.Sequential
}

// newLearner returns cfg's learner, its networks drawn from the seed.
func newLearner(cfg *Config) (learner, error) {
	if cfg.Actor == "continuous" {
		return NewTD3Learner(cfg, nn.NewRand(cfg.Seed))
	}
	return NewLearner(cfg, nn.NewRand(cfg.Seed))
}

// episodeSeed is the simulation seed of episode e of round r (training)
// or of evaluation case e (r = −1).
func (c *Config) episodeSeed(r, e int) uint64 {
	return c.Seed*1_000_003 + uint64((r+1)*c.Envs+e)*7919
}

// runEpisode runs case s with seed under pol.
func runEpisode(cfg *Config, s Scenario, seed uint64, pol *Policy) (*env.Episode, error) {
	sc, err := cfg.Parse(s, seed)
	if err != nil {
		return nil, err
	}
	e, err := env.New(env.Config{Scenario: sc, Seed: seed, History: cfg.History, Global: true, Reward: env.DECCReward()})
	if err != nil {
		return nil, err
	}
	return e.Episode(0, pol)
}

// parallel runs f(0..n−1) on cfg.Workers goroutines; f writes its own
// slot, so the outcome does not depend on the worker count.
func parallel(workers, n int, f func(i int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(max(1, workers), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// trainRound collects cfg.Envs episodes with the frozen sampling actor,
// adds their transitions to buf in episode order and takes cfg.Steps
// gradient steps.
func trainRound(cfg *Config, round int, l learner, buf *Replay) (RoundLog, error) {
	frozen := l.Net().Clone()
	pols := make([]*Policy, cfg.Envs)
	for i := range pols {
		pols[i] = NewPolicy(frozen.Clone(), nn.NewRand(cfg.Seed*7919+uint64(round*cfg.Envs+i)+1), cfg.Explore)
		pols[i].SetNoise(cfg.ExploreNoise * (actionSquash.Hi - actionSquash.Lo) / 2)
		pols[i].Record = true
	}
	err := parallel(cfg.Workers, cfg.Envs, func(i int) error {
		_, err := runEpisode(cfg, cfg.episodeScenario(round*cfg.Envs+i), cfg.episodeSeed(round, i), pols[i])
		return err
	})
	if err != nil {
		return RoundLog{}, err
	}
	lg := RoundLog{Round: round}
	dec := 0
	for _, p := range pols {
		buf.Add(&p.S)
		lg.Entropy += p.Entropy
		dec += p.Decisions
		for i := range p.S.Len() {
			lg.MeanReward += p.S.Rew[i]
			g := p.S.NextGS[i*CriticDim+env.NumGlobal:]
			lg.Thr, lg.Lat, lg.Loss = lg.Thr+g[0], lg.Lat+g[1], lg.Loss+g[2]
		}
		lg.Transitions += p.S.Len()
	}
	if n := float64(lg.Transitions); n > 0 {
		lg.MeanReward, lg.Thr, lg.Lat, lg.Loss = lg.MeanReward/n, lg.Thr/n, lg.Lat/n, lg.Loss/n
	}
	if dec > 0 {
		lg.Entropy /= float64(dec)
	}
	if buf.Len() < cfg.Batch {
		return lg, nil
	}
	for range cfg.Steps {
		st, err := l.Step(buf, round < cfg.Warmup)
		if err != nil {
			return lg, err
		}
		lg.CriticLoss += st.CriticLoss / float64(cfg.Steps)
		lg.ActorLoss += st.ActorLoss / float64(cfg.Steps)
	}
	return lg, nil
}

// EvalCases are the evaluation episodes of a configuration: every
// many-to-one and many-to-many case once.
func (c *Config) EvalCases() []Scenario {
	var s []Scenario
	for _, n := range c.ManyToOne {
		s = append(s, Scenario{N: n})
	}
	for _, n := range c.ManyToMany {
		s = append(s, Scenario{ManyToMany: true, N: n})
	}
	return s
}

// Evaluate runs the greedy actor on every evaluation case (fixed seeds)
// and returns its mean reward per transition.
func Evaluate(cfg *Config, actor *nn.Sequential) (float64, error) {
	v, _, err := evaluate(cfg, actor)
	return v, err
}

// evaluate is Evaluate with the greedy action counts.
func evaluate(cfg *Config, actor *nn.Sequential) (float64, [deccmodel.Actions]int, error) {
	cases := cfg.EvalCases()
	sums, ns := make([]float64, len(cases)), make([]int, len(cases))
	pols := make([]*Policy, len(cases))
	var counts [deccmodel.Actions]int
	err := parallel(cfg.Workers, len(cases), func(i int) error {
		pols[i] = NewPolicy(actor.Clone(), nil, 0)
		ep, err := runEpisode(cfg, cases[i], cfg.episodeSeed(-1, i)^1<<40, pols[i])
		if err != nil {
			return err
		}
		for _, r := range ep.T.Rew {
			sums[i] += r
		}
		ns[i] = ep.T.Len()
		return nil
	})
	if err != nil {
		return 0, counts, err
	}
	s, n := 0.0, 0
	for i := range sums {
		s, n = s+sums[i], n+ns[i]
		for k, c := range pols[i].Counts {
			counts[k] += c
		}
	}
	if n == 0 {
		return 0, counts, nil
	}
	return s / float64(n), counts, nil
}

// Meta is the teacher file's meta text: the shape, the version, the seed
// and the configuration's essentials.
func (r *Result) Meta() string {
	c := &r.Config
	shape, td3 := deccmodel.ActorShape, ""
	if c.Actor == "continuous" {
		shape = deccmodel.ContinuousShape
		td3 = fmt.Sprintf("; continuous actor trained TD3-style: policy delay %d, policy noise %g clipped at %g, exploration noise %g",
			c.PolicyDelay, c.PolicyNoise, c.NoiseClip, c.ExploreNoise)
	}
	return fmt.Sprintf("DECC teacher actor (%s); %s; seed %d; %d rounds × %d episodes of %g µs, many-to-one %v, many-to-many %v per host, "+
		"%d hosts at %g Gb/s, buffer %g MB, PFC off; actor lr %g, critic lr %g, batch %d, γ %g, %d steps/round, entropy %g, explore %g, eval every %d; "+
		"kept round %d; mean reward untrained %.6f, trained %.6f%s",
		shape, Version, c.Seed, c.Rounds, c.Envs, c.EpisodeUs, c.ManyToOne, c.ManyToMany, c.Hosts, c.Gbps,
		c.BufferMB, c.ActorLR, c.CriticLR, c.Batch, c.Gamma, c.Steps, c.Entropy, c.Explore, c.EvalEvery, r.BestRound+1, r.Initial, r.Final, td3)
}

// Teacher returns the teacher's model file (ml/nn format, docs/ml.md §5).
func (r *Result) Teacher() ([]byte, error) { return nn.Encode(r.Actor, r.Meta()) }

// LogCSV returns the training log: one row per round (csvHeader).
func (r *Result) LogCSV() []byte {
	var b bytes.Buffer
	b.WriteString(csvHeader)
	for _, lg := range r.Rounds {
		b.WriteString(lg.csv())
	}
	return b.Bytes()
}

package rl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ccsim/ccsim/ml/nn"
)

// PPOConfig holds PPO's hyper-parameters. The defaults are Aurora's
// (PCCproject/PCC-RL src/gym/stable_solve.py: stable-baselines PPO1 with
// timesteps_per_actorbatch 8192, optim_batchsize 2048, γ 0.99, a constant
// schedule, and PPO1's defaults for the rest); docs/rl.md §6.
type PPOConfig struct {
	Gamma     float64 // discount; [0, 1]; 0.99
	Lambda    float64 // GAE λ; [0, 1]; 0.95
	ClipEps   float64 // ε of the clipped ratio; (0, 1); 0.2
	EntCoef   float64 // entropy bonus coefficient; [0, 10]; 0.01
	ValueCoef float64 // value loss coefficient; [0, 100]; 1 (PPO1 adds the value loss as is)
	Epochs    int     // passes over each rollout; 1..1000; 4
	MiniBatch int     // samples per gradient step; 1..Horizon; 2048
	Horizon   int     // environment steps per rollout; 1..1<<24; 8192
	// NormAdv standardises the advantages of each rollout (PPO1 does).
	NormAdv bool
	// InitLogStd is the initial log standard deviation of the Gaussian
	// policy (state-independent, learned); [−20, 2]; 0 (stable-baselines).
	InitLogStd float64
	// Action is the range actions are clipped to before the environment
	// sees them (the log-probability is that of the unclipped sample, as in
	// stable-baselines).
	Action Squash
	// Opt is the optimiser of all parameters (policy, log std, value):
	// Adam, learning rate 0.001, ε 1e-5 (PPO1's optim_stepsize, adam_epsilon).
	Opt nn.AdamConfig
}

// DefaultPPO returns Aurora's set-up (above) with actions in [−1, 1].
func DefaultPPO() PPOConfig {
	opt := nn.DefaultAdam()
	opt.Eps = 1e-5
	return PPOConfig{Gamma: 0.99, Lambda: 0.95, ClipEps: 0.2, EntCoef: 0.01, ValueCoef: 1,
		Epochs: 4, MiniBatch: 2048, Horizon: 8192, NormAdv: true, InitLogStd: 0,
		Action: Squash{Lo: -1, Hi: 1}, Opt: opt}
}

// Validate checks every field's range; the error names the field.
func (c PPOConfig) Validate() error {
	for _, f := range [...]struct {
		name   string
		v      float64
		lo, hi float64
	}{{"gamma", c.Gamma, 0, 1}, {"lambda", c.Lambda, 0, 1}, {"ent_coef", c.EntCoef, 0, 10},
		{"value_coef", c.ValueCoef, 0, 100}, {"init_log_std", c.InitLogStd, -20, 2}} {
		if !(f.v >= f.lo && f.v <= f.hi) {
			return fmt.Errorf("rl: ppo: %s = %v, want [%v, %v]", f.name, f.v, f.lo, f.hi)
		}
	}
	if !(c.ClipEps > 0 && c.ClipEps < 1) {
		return fmt.Errorf("rl: ppo: clip_eps = %v, want (0, 1)", c.ClipEps)
	}
	if c.Epochs < 1 || c.Epochs > 1000 {
		return fmt.Errorf("rl: ppo: epochs = %d, want 1..1000", c.Epochs)
	}
	if c.Horizon < 1 || c.Horizon > 1<<24 {
		return fmt.Errorf("rl: ppo: horizon = %d, want 1..%d", c.Horizon, 1<<24)
	}
	if c.MiniBatch < 1 || c.MiniBatch > c.Horizon {
		return fmt.Errorf("rl: ppo: mini_batch = %d, want 1..horizon (%d)", c.MiniBatch, c.Horizon)
	}
	if err := c.Action.Validate(); err != nil {
		return fmt.Errorf("rl: ppo: %w", err)
	}
	if err := c.Opt.Validate(); err != nil {
		return fmt.Errorf("rl: ppo: optimiser: %w", err)
	}
	return nil
}

// PPO is proximal policy optimisation with the clipped surrogate, GAE, a
// value loss and an entropy bonus, over a Gaussian policy whose mean is a
// network's output and whose log standard deviation is a learned vector
// independent of the state (Aurora's learner, docs/rl.md §6).
type PPO struct {
	cfg            PPOConfig
	obsDim, actDim int
	pi, vf         *nn.Sequential
	logStd         nn.Param
	opt            *nn.Adam
	wsPi, wsVf     *nn.Workspace
	wsAct          *nn.Workspace
	rng            *rand.Rand

	// the rollout
	obs, u                  []float64
	logp, rew, val, nextVal []float64
	done, end               []bool
	adv, ret                []float64
	idx                     []int
	// the environment's state between Collect calls
	cur     []float64
	started bool
	steps   int
	epRet   float64
	Returns []float64 // the return of every finished episode

	mu, a, dMu, dv []float64
}

// PPOStats reports one Update (means over its gradient steps' samples).
type PPOStats struct {
	PolicyLoss, ValueLoss, Entropy float64
	ClipFraction                   float64 // fraction of samples whose ratio was clipped
	ApproxKL                       float64 // mean of logp_old − logp_new
}

// NewPPO returns a PPO learner. pi maps one observation (obsDim values, one
// step) to the actDim action means; vf maps it to one value. Both are
// initialised from r, which then draws the minibatch shuffles.
func NewPPO(cfg PPOConfig, obsDim, actDim int, pi, vf *nn.Sequential, r *rand.Rand) (*PPO, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if pi == nil || vf == nil || r == nil {
		return nil, errors.New("rl: ppo: nil network or random source")
	}
	if pi.InSize() != obsDim || pi.OutSize() != actDim || pi.OutSteps(1) != 1 {
		return nil, fmt.Errorf("rl: ppo: policy maps %d inputs to %d outputs, want obs_dim = %d and act_dim = %d", pi.InSize(), pi.OutSize(), obsDim, actDim)
	}
	if vf.InSize() != obsDim || vf.OutSize() != 1 || vf.OutSteps(1) != 1 {
		return nil, fmt.Errorf("rl: ppo: value network maps %d inputs to %d outputs, want obs_dim = %d and 1", vf.InSize(), vf.OutSize(), obsDim)
	}
	pi.Init(r)
	vf.Init(r)
	p := &PPO{cfg: cfg, obsDim: obsDim, actDim: actDim, pi: pi, vf: vf, rng: r,
		logStd: nn.Param{Name: "log_std", W: make([]float64, actDim), G: make([]float64, actDim)},
		wsPi:   pi.NewWorkspace(1), wsVf: vf.NewWorkspace(1), wsAct: pi.NewWorkspace(1)}
	for i := range p.logStd.W {
		p.logStd.W[i] = cfg.InitLogStd
	}
	ps := append(append(append([]*nn.Param(nil), pi.Params()...), &p.logStd), vf.Params()...)
	var err error
	if p.opt, err = nn.NewAdam(ps, cfg.Opt); err != nil {
		return nil, err
	}
	h := cfg.Horizon
	p.obs, p.u = make([]float64, h*obsDim), make([]float64, h*actDim)
	p.logp, p.rew, p.val, p.nextVal = make([]float64, h), make([]float64, h), make([]float64, h), make([]float64, h)
	p.done, p.end = make([]bool, h), make([]bool, h)
	p.adv, p.ret, p.idx = make([]float64, h), make([]float64, h), make([]int, h)
	p.cur = make([]float64, obsDim)
	p.mu, p.a, p.dMu, p.dv = make([]float64, actDim), make([]float64, actDim), make([]float64, actDim), make([]float64, 1)
	return p, nil
}

// Policy returns the mean network; LogStd the learned log standard
// deviations (not copies).
func (p *PPO) Policy() *nn.Sequential { return p.pi }

// LogStd returns the policy's log standard deviations (not a copy).
func (p *PPO) LogStd() []float64 { return p.logStd.W }

// Value returns the value network.
func (p *PPO) Value() *nn.Sequential { return p.vf }

// Act writes the action for one observation into out: the mean clipped to
// the action range, or with noise a Gaussian sample clipped. The agent
// index is ignored (one policy); it implements Actor with windows of 1.
func (p *PPO) Act(_ int, obs []float64, noise *rand.Rand, out []float64) error {
	if len(obs) != p.obsDim || len(out) != p.actDim {
		return fmt.Errorf("rl: ppo: act: len(obs) = %d, len(out) = %d, want %d and %d", len(obs), len(out), p.obsDim, p.actDim)
	}
	mu, err := p.pi.Forward(p.wsAct, obs, 1)
	if err != nil {
		return err
	}
	for d, m := range mu {
		if noise != nil {
			m += float64(nn.DetExp(p.logStd.W[d]) * noise.NormFloat64())
		}
		out[d] = p.cfg.Action.Clip(m)
	}
	return nil
}

// Collect runs Horizon steps of env with the current policy (Gaussian
// samples drawn from r, which also draws initial states) and stores the
// rollout. Episodes end at a terminal state or after maxSteps steps; an
// episode cut by the rollout's end goes on at the next Collect.
func (p *PPO) Collect(env Env, maxSteps int, r *rand.Rand) error {
	if env == nil || r == nil {
		return errors.New("rl: ppo: nil environment or random source")
	}
	if env.ObsDim() != p.obsDim || env.ActDim() != p.actDim {
		return fmt.Errorf("rl: ppo: environment has obs %d, act %d; learner %d, %d", env.ObsDim(), env.ActDim(), p.obsDim, p.actDim)
	}
	if maxSteps < 1 {
		return fmt.Errorf("rl: ppo: max_steps = %d, want ≥ 1", maxSteps)
	}
	o, ad, h := p.obsDim, p.actDim, p.cfg.Horizon
	for t := range h {
		if !p.started {
			if err := env.Reset(r, p.cur); err != nil {
				return err
			}
			p.started, p.steps, p.epRet = true, 0, 0
		}
		x := p.obs[t*o : (t+1)*o]
		copy(x, p.cur)
		v, err := p.vf.Forward(p.wsVf, x, 1)
		if err != nil {
			return err
		}
		p.val[t] = v[0]
		mu, err := p.pi.Forward(p.wsPi, x, 1)
		if err != nil {
			return err
		}
		u := p.u[t*ad : (t+1)*ad]
		for d, m := range mu {
			u[d] = m + float64(nn.DetExp(p.logStd.W[d])*r.NormFloat64())
			p.a[d] = p.cfg.Action.Clip(u[d])
		}
		p.logp[t] = GaussianLogProb(mu, p.logStd.W, u)
		rw, done, err := env.Step(p.a, p.cur)
		if err != nil {
			return err
		}
		p.steps++
		p.epRet += rw
		p.rew[t], p.done[t] = rw, done
		p.end[t] = done || p.steps >= maxSteps || t == h-1
		p.nextVal[t] = 0
		if p.end[t] && !done { // bootstrap from the state the episode was cut at
			nv, err := p.vf.Forward(p.wsVf, p.cur, 1)
			if err != nil {
				return err
			}
			p.nextVal[t] = nv[0]
		}
		if done || p.steps >= maxSteps {
			p.Returns = append(p.Returns, p.epRet)
			p.started = false
		}
	}
	for t := range h - 1 {
		if !p.end[t] {
			p.nextVal[t] = p.val[t+1]
		}
	}
	return nil
}

// Update computes the advantages of the stored rollout and takes Epochs
// passes of minibatch steps over it.
func (p *PPO) Update() (PPOStats, error) {
	c := p.cfg
	if err := GAE(p.rew, p.val, p.nextVal, p.done, p.end, c.Gamma, c.Lambda, p.adv, p.ret); err != nil {
		return PPOStats{}, err
	}
	if c.NormAdv {
		standardise(p.adv)
	}
	for i := range p.idx {
		p.idx[i] = i
	}
	var st PPOStats
	n := 0
	for range c.Epochs {
		nn.Shuffle(p.rng, p.idx)
		for lo := 0; lo < len(p.idx); lo += c.MiniBatch {
			mb := p.idx[lo:min(lo+c.MiniBatch, len(p.idx))]
			for _, q := range p.opt.Params() {
				clear(q.G)
			}
			s, err := p.grad(mb)
			if err != nil {
				return st, err
			}
			p.opt.Step()
			w := float64(len(mb))
			st.PolicyLoss += float64(s.PolicyLoss * w)
			st.ValueLoss += float64(s.ValueLoss * w)
			st.ClipFraction += float64(s.ClipFraction * w)
			st.ApproxKL += float64(s.ApproxKL * w)
			n += len(mb)
		}
	}
	st.PolicyLoss /= float64(n)
	st.ValueLoss /= float64(n)
	st.ClipFraction /= float64(n)
	st.ApproxKL /= float64(n)
	st.Entropy = GaussianEntropy(p.logStd.W)
	if !finite(st.PolicyLoss) || !finite(st.ValueLoss) {
		return st, fmt.Errorf("rl: ppo: the loss diverged (policy %v, value %v); lower the learning rate", st.PolicyLoss, st.ValueLoss)
	}
	return st, nil
}

// grad adds to every parameter's G the gradient of the minibatch loss
//
//	mean_k PPOClipLoss_k − EntCoef·H(π) + ValueCoef·mean_k (V(s_k) − ret_k)²
//
// and returns its parts (ValueLoss without the coefficient).
func (p *PPO) grad(mb []int) (PPOStats, error) {
	c := p.cfg
	o, ad := p.obsDim, p.actDim
	inv := 1 / float64(len(mb))
	var st PPOStats
	for _, k := range mb {
		x := p.obs[k*o : (k+1)*o]
		u := p.u[k*ad : (k+1)*ad]
		mu, err := p.pi.Forward(p.wsPi, x, 1)
		if err != nil {
			return st, err
		}
		lp := GaussianLogProb(mu, p.logStd.W, u)
		l, dl := PPOClipLoss(lp, p.logp[k], p.adv[k], c.ClipEps)
		st.PolicyLoss += float64(l * inv)
		st.ApproxKL += float64((p.logp[k] - lp) * inv)
		if rho := nn.DetExp(lp - p.logp[k]); rho < 1-c.ClipEps || rho > 1+c.ClipEps {
			st.ClipFraction += inv
		}
		clear(p.dMu)
		GaussianLogProbGrad(mu, p.logStd.W, u, dl*inv, p.dMu, p.logStd.G)
		if _, err := p.pi.Backward(p.wsPi, p.dMu); err != nil {
			return st, err
		}
		v, err := p.vf.Forward(p.wsVf, x, 1)
		if err != nil {
			return st, err
		}
		d := v[0] - p.ret[k]
		st.ValueLoss += float64(float64(d*d) * inv)
		p.dv[0] = float64(2 * c.ValueCoef * d * inv)
		if _, err := p.vf.Backward(p.wsVf, p.dv); err != nil {
			return st, err
		}
	}
	for d := range p.logStd.G { // −EntCoef·H: ∂H/∂ℓ_d = 1
		p.logStd.G[d] -= c.EntCoef
	}
	st.Entropy = GaussianEntropy(p.logStd.W)
	return st, nil
}

// lossValue returns the minibatch loss grad differentiates (for the tests).
func (p *PPO) lossValue(mb []int) float64 {
	st, _ := p.grad(mb) // the gradients it adds are discarded by the caller
	return st.PolicyLoss - float64(p.cfg.EntCoef*st.Entropy) + float64(p.cfg.ValueCoef*st.ValueLoss)
}

// standardise rescales v to mean 0 and standard deviation 1 (unchanged if
// its deviation is 0).
func standardise(v []float64) {
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	s := 0.0
	for _, x := range v {
		s += float64((x - m) * (x - m))
	}
	sd := math.Sqrt(s / float64(len(v)))
	for i, x := range v {
		v[i] = x - m
		if sd > 0 {
			v[i] /= sd
		}
	}
}

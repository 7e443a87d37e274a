package aurora

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ccsim/ccsim/cc/auroramodel"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/ml/rl"
)

// learner is PPO over the merged trajectories of K episodes (docs/rl.md §6
// for the loss; rl.PPO's own Collect steps one synchronous environment,
// while here the rollout comes from parallel asynchronous episodes, so the
// update is run here with rl's GAE, PPOClipLoss and Gaussian functions).
type learner struct {
	cfg        Config
	pi, vf     *nn.Sequential
	logStd     nn.Param
	opt        *nn.Adam
	wsPi, wsVf *nn.Workspace
	rng        *rand.Rand // minibatch shuffles

	// the rollout, flat: T steps
	obs, u, rew, val, nextVal, logp, adv, ret []float64
	done, end                                 []bool
	idx                                       []int
	mu, dMu, dv                               []float64
}

// newLearner initialises the policy and value networks from r (Xavier,
// then the policy's output layer scaled by 0.01 as stable-baselines'
// Gaussian head, init_scale 0.01, so that the untrained mean is near 0).
func newLearner(cfg Config, r *rand.Rand) (*learner, error) {
	l := &learner{cfg: cfg, pi: auroramodel.NewPolicy(), vf: auroramodel.NewValue(), rng: r,
		logStd: nn.Param{Name: "log_std", W: []float64{cfg.InitLogStd}, G: make([]float64, 1)},
		mu:     make([]float64, 1), dMu: make([]float64, 1), dv: make([]float64, 1)}
	l.pi.Init(r)
	l.vf.Init(r)
	out := l.pi.Params()
	for _, p := range out[len(out)-2:] { // the last dense layer's W and b
		for i := range p.W {
			p.W[i] *= 0.01
		}
	}
	l.wsPi, l.wsVf = l.pi.NewWorkspace(1), l.vf.NewWorkspace(1)
	ps := append(append(append([]*nn.Param(nil), l.pi.Params()...), &l.logStd), l.vf.Params()...)
	opt := nn.DefaultAdam()
	opt.LR, opt.Eps = cfg.LR, cfg.AdamEps
	var err error
	l.opt, err = nn.NewAdam(ps, opt)
	return l, err
}

// load fills the rollout from the episodes' trajectories, in episode then
// flow order, and computes the old log-probabilities and values.
func (l *learner) load(eps []*episode) error {
	const o = auroramodel.ObsDim
	l.obs, l.u, l.rew = l.obs[:0], l.u[:0], l.rew[:0]
	l.end, l.nextVal = l.end[:0], l.nextVal[:0]
	for _, e := range eps {
		for i := range e.flows {
			tr := &e.flows[i]
			n := len(tr.u)
			if n == 0 {
				continue
			}
			l.obs = append(l.obs, tr.obs...)
			l.u = append(l.u, tr.u...)
			l.rew = append(l.rew, tr.rew[:n]...)
			for k := range n {
				l.end = append(l.end, k == n-1)
				l.nextVal = append(l.nextVal, 0)
			}
			v, err := l.vf.Forward(l.wsVf, tr.next[:], 1) // a time cut: bootstrap (docs/rl.md §6.4 item 1)
			if err != nil {
				return err
			}
			l.nextVal[len(l.nextVal)-1] = v[0]
		}
	}
	t := len(l.u)
	l.val, l.logp = resize(l.val, t), resize(l.logp, t)
	l.adv, l.ret = resize(l.adv, t), resize(l.ret, t)
	l.done = make([]bool, t)
	l.idx = make([]int, t)
	for k := range t {
		x := l.obs[k*o : (k+1)*o]
		v, err := l.vf.Forward(l.wsVf, x, 1)
		if err != nil {
			return err
		}
		l.val[k] = v[0]
		mu, err := l.pi.Forward(l.wsPi, x, 1)
		if err != nil {
			return err
		}
		l.logp[k] = rl.GaussianLogProb(mu, l.logStd.W, l.u[k:k+1])
		if k+1 < t && !l.end[k] {
			l.nextVal[k] = 0 // filled below from val[k+1]
		}
	}
	for k := range t - 1 {
		if !l.end[k] {
			l.nextVal[k] = l.val[k+1]
		}
	}
	return nil
}

func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// Stats reports one update.
type Stats struct {
	PolicyLoss   float64 `json:"policy_loss"`
	ValueLoss    float64 `json:"value_loss"`
	ClipFraction float64 `json:"clip_fraction"`
	LogStd       float64 `json:"log_std"`
}

// update runs GAE, standardises the advantages and takes Epochs passes of
// MiniBatches Adam steps on PPO1's loss (docs/rl.md §6).
func (l *learner) update() (Stats, error) {
	c := l.cfg
	t := len(l.u)
	if t == 0 {
		return Stats{}, fmt.Errorf("aurora: empty rollout")
	}
	if err := rl.GAE(l.rew, l.val, l.nextVal, l.done, l.end, c.Gamma, c.Lambda, l.adv, l.ret); err != nil {
		return Stats{}, err
	}
	standardise(l.adv)
	for i := range l.idx {
		l.idx[i] = i
	}
	size := (t + c.MiniBatches - 1) / c.MiniBatches
	var st Stats
	n := 0
	for range c.Epochs {
		nn.Shuffle(l.rng, l.idx)
		for lo := 0; lo < t; lo += size {
			mb := l.idx[lo:min(lo+size, t)]
			for _, q := range l.opt.Params() {
				clear(q.G)
			}
			pl, vl, cf, err := l.grad(mb)
			if err != nil {
				return st, err
			}
			l.opt.Step()
			w := float64(len(mb))
			st.PolicyLoss += pl * w
			st.ValueLoss += vl * w
			st.ClipFraction += cf * w
			n += len(mb)
		}
	}
	st.PolicyLoss /= float64(n)
	st.ValueLoss /= float64(n)
	st.ClipFraction /= float64(n)
	st.LogStd = l.logStd.W[0]
	if math.IsNaN(st.PolicyLoss) || math.IsNaN(st.ValueLoss) || math.IsInf(st.ValueLoss, 0) {
		return st, fmt.Errorf("aurora: the loss diverged (policy %v, value %v); lower lr", st.PolicyLoss, st.ValueLoss)
	}
	return st, nil
}

// grad adds the gradient of mean_k PPOClipLoss_k − EntCoef·H + mean_k
// (V(s_k) − R_k)² over minibatch mb (PPO1 adds the value loss unweighted).
func (l *learner) grad(mb []int) (pl, vl, cf float64, err error) {
	c := l.cfg
	const o = auroramodel.ObsDim
	inv := 1 / float64(len(mb))
	for _, k := range mb {
		x := l.obs[k*o : (k+1)*o]
		u := l.u[k : k+1]
		mu, err := l.pi.Forward(l.wsPi, x, 1)
		if err != nil {
			return 0, 0, 0, err
		}
		lp := rl.GaussianLogProb(mu, l.logStd.W, u)
		loss, dl := rl.PPOClipLoss(lp, l.logp[k], l.adv[k], c.ClipEps)
		pl += loss * inv
		if rho := nn.DetExp(lp - l.logp[k]); rho < 1-c.ClipEps || rho > 1+c.ClipEps {
			cf += inv
		}
		l.dMu[0] = 0
		rl.GaussianLogProbGrad(mu, l.logStd.W, u, dl*inv, l.dMu, l.logStd.G)
		if _, err := l.pi.Backward(l.wsPi, l.dMu); err != nil {
			return 0, 0, 0, err
		}
		v, err := l.vf.Forward(l.wsVf, x, 1)
		if err != nil {
			return 0, 0, 0, err
		}
		d := v[0] - l.ret[k]
		vl += d * d * inv
		l.dv[0] = 2 * d * inv
		if _, err := l.vf.Backward(l.wsVf, l.dv); err != nil {
			return 0, 0, 0, err
		}
	}
	l.logStd.G[0] -= c.EntCoef // −EntCoef·H, ∂H/∂ℓ = 1
	return pl, vl, cf, nil
}

// standardise rescales v to mean 0 and (population) standard deviation 1,
// as PPO1 does with each rollout's advantages (docs/rl.md §6.4 item 4).
func standardise(v []float64) {
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	sd := math.Sqrt(s / float64(len(v)))
	for i, x := range v {
		v[i] = x - m
		if sd > 0 {
			v[i] /= sd
		}
	}
}

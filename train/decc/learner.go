package decc

import (
	"math"
	"math/rand/v2"

	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/ml/rl"
)

// Replay is the experience pool (decc.md §1.7, Algorithm 1 line 3): a
// ring of the latest Cap samples, filled in episode order.
type Replay struct {
	S    Samples
	cap  int
	next int // slot the next sample overwrites once full
}

// NewReplay returns an empty pool of capacity samples.
func NewReplay(capacity int) *Replay { return &Replay{cap: capacity} }

// Len is the number of samples held.
func (r *Replay) Len() int { return r.S.Len() }

// Add appends every sample of s, overwriting the oldest once full.
func (r *Replay) Add(s *Samples) {
	for i := range s.Len() {
		if r.S.Len() < r.cap {
			r.S.Win = append(r.S.Win, s.Win[i*WinDim:(i+1)*WinDim]...)
			r.S.NextWin = append(r.S.NextWin, s.NextWin[i*WinDim:(i+1)*WinDim]...)
			r.S.GS = append(r.S.GS, s.GS[i*CriticDim:(i+1)*CriticDim]...)
			r.S.NextGS = append(r.S.NextGS, s.NextGS[i*CriticDim:(i+1)*CriticDim]...)
			r.S.Act, r.S.Rew, r.S.Done = append(r.S.Act, s.Act[i]), append(r.S.Rew, s.Rew[i]), append(r.S.Done, s.Done[i])
			continue
		}
		j := r.next
		copy(r.S.Win[j*WinDim:(j+1)*WinDim], s.Win[i*WinDim:(i+1)*WinDim])
		copy(r.S.NextWin[j*WinDim:(j+1)*WinDim], s.NextWin[i*WinDim:(i+1)*WinDim])
		copy(r.S.GS[j*CriticDim:(j+1)*CriticDim], s.GS[i*CriticDim:(i+1)*CriticDim])
		copy(r.S.NextGS[j*CriticDim:(j+1)*CriticDim], s.NextGS[i*CriticDim:(i+1)*CriticDim])
		r.S.Act[j], r.S.Rew[j], r.S.Done[j] = s.Act[i], s.Rew[i], s.Done[i]
		r.next = (j + 1) % r.cap
	}
}

// NewCritic is the centralised critic (I14): the 12 global values and
// the agent's five local features → 128 → 64 (ReLU) → one Q value per
// action (Q(g, s, a) is output a: the 11-way one-hot action input of
// decc.md §1.7 folded into the head, so one pass values every action).
func NewCritic() *nn.Sequential { return critic(CriticDim, deccmodel.Actions) }

// critic is a critic's stack: in → 128 → 64 (ReLU) → out.
func critic(in, out int) *nn.Sequential {
	d1, _ := nn.NewDense(in, 128, nn.KaimingUniform)
	a1, _ := nn.NewActivation(nn.ReLU, 128)
	d2, _ := nn.NewDense(128, 64, nn.KaimingUniform)
	a2, _ := nn.NewActivation(nn.ReLU, 64)
	d3, _ := nn.NewDense(64, out, nn.XavierUniform)
	m, err := nn.NewSequential(d1, a1, d2, a2, d3)
	if err != nil {
		panic(err) // constant shapes
	}
	return m
}

// Learner is the multi-agent actor-critic of decc.md §1.7 (Algorithm 1):
// one actor shared by every agent, a centralised critic and its Polyak
// target, Adam for both (docs/algorithms/decc.md §10.2).
type Learner struct {
	cfg                   *Config
	Actor, Critic, Target *nn.Sequential
	aopt, copt            *nn.Adam
	rng                   *rand.Rand
	aws                   []*nn.Workspace // one per batch sample (forward kept for backward)
	cws, tws, nws         *nn.Workspace
	idx                   []int
	z                     [][]float64 // logits per batch sample
	adv, p, dz, dq        []float64
}

// StepStats are one gradient step's figures (batch means).
type StepStats struct {
	CriticLoss, ActorLoss, Entropy, MeanQ float64
}

// NewLearner returns a learner with networks drawn from rng (actor first,
// then the critic; the target starts as the critic).
func NewLearner(cfg *Config, rng *rand.Rand) (*Learner, error) {
	l := &Learner{cfg: cfg, Actor: deccmodel.NewActor(), Critic: NewCritic(), rng: rng}
	l.Actor.Init(rng)
	l.Critic.Init(rng)
	l.Target = l.Critic.Clone()
	var err error
	ac, cc := nn.DefaultAdam(), nn.DefaultAdam()
	ac.LR, cc.LR = cfg.ActorLR, cfg.CriticLR
	ac.Clip, cc.Clip = nn.Clip{Norm: 1}, nn.Clip{Norm: 10}
	if l.aopt, err = nn.NewAdam(l.Actor.Params(), ac); err != nil {
		return nil, err
	}
	if l.copt, err = nn.NewAdam(l.Critic.Params(), cc); err != nil {
		return nil, err
	}
	for range cfg.Batch {
		l.aws = append(l.aws, l.Actor.NewWorkspace(deccmodel.History))
		l.z = append(l.z, make([]float64, deccmodel.Actions))
	}
	l.cws, l.tws, l.nws = l.Critic.NewWorkspace(1), l.Target.NewWorkspace(1), l.Actor.NewWorkspace(deccmodel.History)
	l.idx, l.adv = make([]int, cfg.Batch), make([]float64, cfg.Batch)
	l.p, l.dz, l.dq = make([]float64, deccmodel.Actions), make([]float64, deccmodel.Actions), make([]float64, deccmodel.Actions)
	return l, nil
}

// Net is the actor being trained.
func (l *Learner) Net() *nn.Sequential { return l.Actor }

// Step is one gradient step on a batch drawn uniformly from buf: the
// critic's TD step (eq. 11 with its sign corrected and an expected-SARSA
// target over the actor's next distribution, I14), then, unless
// criticOnly, the actor's eq. 10 step with the advantage Q(g,s,a) − Σπ·Q
// standardised over the batch and an entropy bonus (I15).
func (l *Learner) Step(buf *Replay, criticOnly bool) (StepStats, error) {
	var st StepStats
	n := buf.Len()
	for b := range l.idx {
		l.idx[b] = l.rng.IntN(n)
	}
	if err := l.criticStep(&buf.S, &st); err != nil {
		return st, err
	}
	rl.Polyak(l.Target, l.Critic, l.cfg.Tau)
	if criticOnly {
		return st, nil
	}
	return st, l.actorStep(&buf.S, &st)
}

// criticStep takes one Adam step of the critic on the batch l.idx.
func (l *Learner) criticStep(s *Samples, st *StepStats) error {
	B := float64(len(l.idx))
	l.Critic.ZeroGrad()
	for _, i := range l.idx {
		y := s.Rew[i]
		if !s.Done[i] {
			z, err := l.Actor.Forward(l.nws, s.NextWin[i*WinDim:(i+1)*WinDim], deccmodel.History)
			if err != nil {
				return err
			}
			rl.Softmax(z, l.p)
			qt, err := l.Target.Forward(l.tws, s.NextGS[i*CriticDim:(i+1)*CriticDim], 1)
			if err != nil {
				return err
			}
			y += l.cfg.Gamma * nn.Dot(l.p, qt)
		}
		q, err := l.Critic.Forward(l.cws, s.GS[i*CriticDim:(i+1)*CriticDim], 1)
		if err != nil {
			return err
		}
		a := s.level(i)
		d := q[a] - y
		st.CriticLoss += d * d / B
		st.MeanQ += q[a] / B
		clear(l.dq)
		l.dq[a] = 2 * d / B
		if _, err := l.Critic.Backward(l.cws, l.dq); err != nil {
			return err
		}
	}
	l.copt.Step()
	return nil
}

// actorStep takes one Adam step of the actor on the batch l.idx (eq. 10
// with a baseline).
func (l *Learner) actorStep(s *Samples, st *StepStats) error {
	B := float64(len(l.idx))
	mean := 0.0
	for b, i := range l.idx {
		z, err := l.Actor.Forward(l.aws[b], s.Win[i*WinDim:(i+1)*WinDim], deccmodel.History)
		if err != nil {
			return err
		}
		copy(l.z[b], z)
		q, err := l.Critic.Forward(l.cws, s.GS[i*CriticDim:(i+1)*CriticDim], 1)
		if err != nil {
			return err
		}
		rl.Softmax(z, l.p)
		l.adv[b] = q[s.level(i)] - nn.Dot(l.p, q)
		mean += l.adv[b] / B
	}
	sd := 0.0
	for _, a := range l.adv {
		sd += (a - mean) * (a - mean) / B
	}
	sd = math.Sqrt(sd) + 1e-8
	l.Actor.ZeroGrad()
	for b, i := range l.idx {
		a := (l.adv[b] - mean) / sd
		k := s.level(i)
		h := rl.CategoricalEntropy(l.z[b])
		st.Entropy += h / B
		st.ActorLoss -= (a*rl.CategoricalLogProb(l.z[b], k) + l.cfg.Entropy*h) / B
		clear(l.dz)
		// minimise −(A·log π(a|s) + β·H)/B
		rl.CategoricalGrad(l.z[b], k, -a/B, -l.cfg.Entropy/B, l.dz)
		if _, err := l.Actor.Backward(l.aws[b], l.dz); err != nil {
			return err
		}
	}
	l.aopt.Step()
	return nil
}

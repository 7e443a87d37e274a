package rl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ccsim/ccsim/ml/nn"
)

// MADDPG is multi-agent deep deterministic policy gradient (Lowe et al.,
// 2017) with TD3's twin critics, target policy smoothing and delayed policy
// updates (Fujimoto et al., 2018), as in Astraea, whose set-up DECC copies
// (decc.md §1.7; docs/rl.md §5). Agent i has a deterministic actor
// π_i(o_i) = Squash(net_i(o_i)) over its own observation window and two
// centralised critics Q_i1, Q_i2 over all agents' observation windows and
// actions; each network has a Polyak-averaged target. With one agent it is
// TD3.
//
// A joint transition in the replay buffer holds the agents' observations and
// actions concatenated agent after agent (ObsDim = n·obs, ActDim = n·act)
// and one reward per agent (RewDim = n).
type MADDPG struct {
	cfg               TD3Config
	n, obsDim, actDim int
	actObs            int // the leading values of each step's observation the actor sees
	actorSteps        int // steps an actor input is fed as (History, or 1 for a flattened window)
	critInW           int // width of a critic's observation part: History·n·obs
	actors, actorsT   []*nn.Sequential
	critics, critsT   [][2]*nn.Sequential
	optA              []*nn.Adam
	optC              [][2]*nn.Adam
	wsA, wsAT, wsAct  []*nn.Workspace
	wsC, wsCT         [][2]*nn.Workspace
	rng               *rand.Rand
	batch             *SeqBatch
	updates           int

	win, xc, aNext, aJoint, y, dU []float64
	dq                            [1]float64
}

// NewMADDPG returns a learner for n agents with obsDim observation values
// and actDim action components each. The actors see the first a =
// cfg.ActorObs values of each step's observation (all obsDim if 0); the
// critics see all of them. actor is the architecture of every actor: input
// width a (fed the History steps as a sequence, e.g. through an LSTM) or
// History·a (fed one flattened window), one output step of actDim raw
// values (squashed by cfg.Action). critic is the
// architecture of every critic: input History·n·obsDim + n·actDim, output
// one value, one step. Every network (the n actors, 2n critics and their
// targets) is a copy of these, initialised from r, which then draws the
// batches and the smoothing noise.
func NewMADDPG(cfg TD3Config, n, obsDim, actDim int, actor, critic *nn.Sequential, r *rand.Rand) (*MADDPG, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if n < 1 || n > 1024 {
		return nil, fmt.Errorf("rl: maddpg: agents = %d, want 1..1024", n)
	}
	if obsDim < 1 || actDim < 1 {
		return nil, fmt.Errorf("rl: maddpg: obs_dim = %d, act_dim = %d, want ≥ 1", obsDim, actDim)
	}
	if actor == nil || critic == nil || r == nil {
		return nil, errors.New("rl: maddpg: nil actor, critic or random source")
	}
	h := cfg.History
	m := &MADDPG{cfg: cfg, n: n, obsDim: obsDim, actDim: actDim, rng: r, critInW: h * n * obsDim, actObs: obsDim}
	if cfg.ActorObs > obsDim {
		return nil, fmt.Errorf("rl: maddpg: actor_obs = %d, want 0..obs_dim (%d)", cfg.ActorObs, obsDim)
	}
	if cfg.ActorObs > 0 {
		m.actObs = cfg.ActorObs
	}
	switch a := m.actObs; actor.InSize() {
	case a:
		m.actorSteps = h
	case h * a:
		m.actorSteps = 1
	default:
		return nil, fmt.Errorf("rl: maddpg: actor input width %d, want the actor's observation width %d (a sequence of %d steps) or history × that = %d (a flattened window)", actor.InSize(), a, h, h*a)
	}
	if actor.OutSize() != actDim || actor.OutSteps(m.actorSteps) != 1 {
		return nil, fmt.Errorf("rl: maddpg: actor outputs %d steps of %d values, want 1 step of act_dim = %d (an LSTM before the head must return its last step only)", actor.OutSteps(m.actorSteps), actor.OutSize(), actDim)
	}
	if want := m.critInW + n*actDim; critic.InSize() != want || critic.OutSize() != 1 || critic.OutSteps(1) != 1 {
		return nil, fmt.Errorf("rl: maddpg: critic maps %d inputs to %d outputs, want history·agents·obs_dim + agents·act_dim = %d inputs and 1 output", critic.InSize(), critic.OutSize(), want)
	}
	for i := range n {
		if i == 0 || !cfg.SharedActor {
			a := actor.Clone()
			a.Init(r)
			opt, err := nn.NewAdam(a.Params(), cfg.Actor)
			if err != nil {
				return nil, err
			}
			m.actors, m.actorsT, m.optA = append(m.actors, a), append(m.actorsT, a.Clone()), append(m.optA, opt)
		} else { // one network for all: agent i's entries point to agent 0's
			m.actors, m.actorsT, m.optA = append(m.actors, m.actors[0]), append(m.actorsT, m.actorsT[0]), append(m.optA, m.optA[0])
		}
		a := m.actors[i]
		var err error
		m.wsA = append(m.wsA, a.NewWorkspace(m.actorSteps))
		m.wsAT = append(m.wsAT, m.actorsT[i].NewWorkspace(m.actorSteps))
		m.wsAct = append(m.wsAct, a.NewWorkspace(m.actorSteps))
		var cs, ct [2]*nn.Sequential
		var oc [2]*nn.Adam
		var wc, wct [2]*nn.Workspace
		for k := range 2 {
			cs[k] = critic.Clone()
			cs[k].Init(r)
			ct[k] = cs[k].Clone()
			if oc[k], err = nn.NewAdam(cs[k].Params(), cfg.Critic); err != nil {
				return nil, err
			}
			wc[k], wct[k] = cs[k].NewWorkspace(1), ct[k].NewWorkspace(1)
		}
		m.critics, m.critsT, m.optC = append(m.critics, cs), append(m.critsT, ct), append(m.optC, oc)
		m.wsC, m.wsCT = append(m.wsC, wc), append(m.wsCT, wct)
	}
	b := cfg.BatchSize
	m.win = make([]float64, h*m.actObs)
	m.xc = make([]float64, critic.InSize())
	m.aNext = make([]float64, b*n*actDim)
	m.aJoint = make([]float64, n*actDim)
	m.y = make([]float64, b)
	m.dU = make([]float64, actDim)
	return m, nil
}

// Config returns the configuration.
func (m *MADDPG) Config() TD3Config { return m.cfg }

// Agents returns the number of agents.
func (m *MADDPG) Agents() int { return m.n }

// Actor returns agent i's actor (not a copy): its raw outputs, squashed by
// Config().Action, are the deterministic policy.
func (m *MADDPG) Actor(i int) *nn.Sequential { return m.actors[i] }

// Critic returns agent i's critic k (0 or 1).
func (m *MADDPG) Critic(i, k int) *nn.Sequential { return m.critics[i][k] }

// Updates is the number of gradient steps taken.
func (m *MADDPG) Updates() int { return m.updates }

// ReplayConfig returns the replay layout this learner reads (joint
// transitions) for a buffer of the given capacity.
func (m *MADDPG) ReplayConfig(capacity int) ReplayConfig {
	return ReplayConfig{Capacity: capacity, ObsDim: m.n * m.obsDim, ActDim: m.n * m.actDim, RewDim: m.n}
}

// Act writes agent i's action for its observation window (History·obsDim
// values, oldest first: whole observations, of which the actor reads its
// ActorObs leading values per step) into out (actDim values): the squashed actor
// output, plus Gaussian exploration noise of ExploreNoise·half-range drawn
// from noise when noise is not nil, clipped to the action range.
func (m *MADDPG) Act(i int, window []float64, noise *rand.Rand, out []float64) error {
	if i < 0 || i >= m.n {
		return fmt.Errorf("rl: maddpg: act: agent %d, want 0..%d", i, m.n-1)
	}
	if len(window) != m.cfg.History*m.obsDim || len(out) != m.actDim {
		return fmt.Errorf("rl: maddpg: act: len(window) = %d, len(out) = %d, want %d and %d", len(window), len(out), m.cfg.History*m.obsDim, m.actDim)
	}
	u, err := m.actors[i].Forward(m.wsAct[i], m.actorWindow(window, 0, 1), m.actorSteps)
	if err != nil {
		return err
	}
	sq := m.cfg.Action
	sd := m.cfg.ExploreNoise * sq.half()
	for d, v := range u {
		a := sq.Action(v)
		if noise != nil {
			a = sq.Clip(a + float64(sd*noise.NormFloat64()))
		}
		out[d] = a
	}
	return nil
}

// agentWindow copies the actor's part of agent i's window out of a joint
// window (History steps of n·obsDim values) into m.win.
func (m *MADDPG) agentWindow(joint []float64, i int) []float64 {
	return m.actorWindow(joint, i, m.n)
}

// actorWindow copies the first actObs values of agent i's observation at
// each step of a window of n agents' observations into m.win.
func (m *MADDPG) actorWindow(w []float64, i, n int) []float64 {
	o, a := m.obsDim, m.actObs
	for s := range m.cfg.History {
		base := s*n*o + i*o
		copy(m.win[s*a:(s+1)*a], w[base:base+a])
	}
	return m.win
}

// criticIn fills m.xc with a joint window and a joint action.
func (m *MADDPG) criticIn(joint, act []float64) []float64 {
	copy(m.xc, joint)
	copy(m.xc[m.critInW:], act)
	return m.xc
}

// Round runs StepsPerRound gradient steps (decc.md §1.1: 20 per 5 s of
// simulated time) and returns the stats of the last one.
func (m *MADDPG) Round(buf *Replay) (UpdateStats, error) {
	var st UpdateStats
	var err error
	for range m.cfg.StepsPerRound {
		if st, err = m.Update(buf); err != nil {
			return st, err
		}
	}
	return st, nil
}

// Update takes one gradient step on a batch drawn from buf: every agent's
// twin critics toward the smoothed, clipped double-Q target; every
// PolicyDelay-th step also every actor (deterministic policy gradient
// through its first critic, the other agents' actions from the batch) and
// the Polyak update of all targets.
func (m *MADDPG) Update(buf *Replay) (UpdateStats, error) {
	if buf == nil {
		return UpdateStats{}, errors.New("rl: maddpg: nil replay buffer")
	}
	if want := m.ReplayConfig(buf.Config().Capacity); buf.Config() != want {
		return UpdateStats{}, fmt.Errorf("rl: maddpg: replay holds obs %d, act %d, rew %d per transition; this learner needs %d, %d, %d",
			buf.Config().ObsDim, buf.Config().ActDim, buf.Config().RewDim, want.ObsDim, want.ActDim, want.RewDim)
	}
	if m.batch == nil {
		var err error
		if m.batch, err = buf.NewSeqBatch(m.cfg.BatchSize, m.cfg.History, m.cfg.PadHistory); err != nil {
			return UpdateStats{}, err
		}
	}
	if err := buf.SampleSeq(m.rng, m.batch); err != nil {
		return UpdateStats{}, err
	}
	if err := m.targetActions(); err != nil {
		return UpdateStats{}, err
	}
	st := UpdateStats{ActorLoss: math.NaN()}
	for i := range m.n {
		l, q, err := m.updateCritics(i)
		if err != nil {
			return st, err
		}
		st.CriticLoss += l / float64(m.n)
		if i == 0 {
			st.MeanQ = q
		}
	}
	m.updates++
	if !finite(st.CriticLoss) {
		return st, fmt.Errorf("rl: maddpg: the critic loss diverged (%v); lower the critic learning rate", st.CriticLoss)
	}
	if m.updates%m.cfg.PolicyDelay != 0 {
		return st, nil
	}
	var err error
	if st.ActorLoss, err = m.updateActors(); err != nil {
		return st, err
	}
	st.ActorStep = true
	for i := range m.n {
		if i == 0 || !m.cfg.SharedActor {
			if err := Polyak(m.actorsT[i], m.actors[i], m.cfg.Tau); err != nil {
				return st, err
			}
		}
		for k := range 2 {
			if err := Polyak(m.critsT[i][k], m.critics[i][k], m.cfg.Tau); err != nil {
				return st, err
			}
		}
	}
	if !finite(st.ActorLoss) {
		return st, fmt.Errorf("rl: maddpg: the actor loss diverged (%v); lower the learning rates", st.ActorLoss)
	}
	return st, nil
}

// targetActions fills m.aNext with every agent's smoothed target action
// for every sample's next window: clip(π'_j(o'_j) + clip(ε, −c, c)), ε ~
// N(0, PolicyNoise·half).
func (m *MADDPG) targetActions() error {
	b, sq := m.batch, m.cfg.Action
	hw := m.cfg.History * m.n * m.obsDim
	sd, c := m.cfg.PolicyNoise*sq.half(), m.cfg.NoiseClip*sq.half()
	na := m.n * m.actDim
	for k := range b.N {
		next := b.Next[k*hw : (k+1)*hw]
		for j := range m.n {
			u, err := m.actorsT[j].Forward(m.wsAT[j], m.agentWindow(next, j), m.actorSteps)
			if err != nil {
				return err
			}
			for d, v := range u {
				eps := min(c, max(-c, float64(sd*m.rng.NormFloat64())))
				m.aNext[k*na+j*m.actDim+d] = sq.Clip(sq.Action(v) + eps)
			}
		}
	}
	return nil
}

// updateCritics takes one optimiser step of agent i's twin critics on the
// mean squared TD error against y = r_i + γ(1−done)·min(Q'_i1, Q'_i2) and
// returns the mean loss over the twins and the mean Q_i1.
func (m *MADDPG) updateCritics(i int) (loss, meanQ float64, err error) {
	if err := m.criticTargets(i); err != nil {
		return 0, 0, err
	}
	for t := range 2 {
		m.critics[i][t].ZeroGrad()
		l, q, err := m.criticGrad(i, t)
		if err != nil {
			return 0, 0, err
		}
		m.optC[i][t].Step()
		loss += l / 2
		if t == 0 {
			meanQ = q
		}
	}
	return loss, meanQ, nil
}

// criticTargets fills m.y with agent i's TD targets for the batch.
func (m *MADDPG) criticTargets(i int) error {
	b := m.batch
	hw, na := m.critInW, m.n*m.actDim
	for k := range b.N {
		x := m.criticIn(b.Next[k*hw:(k+1)*hw], m.aNext[k*na:(k+1)*na])
		q1, err := m.critsT[i][0].Forward(m.wsCT[i][0], x, 1)
		if err != nil {
			return err
		}
		q2, err := m.critsT[i][1].Forward(m.wsCT[i][1], x, 1)
		if err != nil {
			return err
		}
		y := b.Rew[k*m.n+i]
		if !b.Done[k] {
			y += float64(m.cfg.Gamma * min(q1[0], q2[0]))
		}
		m.y[k] = y
	}
	return nil
}

// criticGrad adds to critic t of agent i the gradient of its loss
// (1/N)·Σ_k (Q(o_k, a_k) − y_k)² and returns the loss and the mean Q.
func (m *MADDPG) criticGrad(i, t int) (loss, meanQ float64, err error) {
	b := m.batch
	hw, na := m.critInW, m.n*m.actDim
	c := m.critics[i][t]
	scale := 2 / float64(b.N)
	for k := range b.N {
		x := m.criticIn(b.Obs[k*hw:(k+1)*hw], b.Act[k*na:(k+1)*na])
		q, err := c.Forward(m.wsC[i][t], x, 1)
		if err != nil {
			return 0, 0, err
		}
		d := q[0] - m.y[k]
		loss += float64(d*d) / float64(b.N)
		meanQ += q[0] / float64(b.N)
		m.dq[0] = float64(scale * d)
		if _, err := c.Backward(m.wsC[i][t], m.dq[:]); err != nil {
			return 0, 0, err
		}
	}
	return loss, meanQ, nil
}

// updateActors takes one optimiser step of every actor (of the shared
// actor, on the mean of the agents' losses) and returns the mean loss over
// the agents.
func (m *MADDPG) updateActors() (float64, error) {
	inv := 1 / float64(m.batch.N)
	if m.cfg.SharedActor {
		m.actors[0].ZeroGrad()
		loss := 0.0
		for i := range m.n {
			l, err := m.actorGrad(i, inv/float64(m.n))
			if err != nil {
				return 0, err
			}
			loss += l
		}
		m.optA[0].Step()
		return loss, nil
	}
	loss := 0.0
	for i := range m.n {
		m.actors[i].ZeroGrad()
		l, err := m.actorGrad(i, inv)
		if err != nil {
			return 0, err
		}
		m.optA[i].Step()
		loss += l / float64(m.n)
	}
	return loss, nil
}

// actorGrad adds to agent i's actor the gradient of its loss
// −scale·Σ_k Q_i1(o_k, a_k with a_i = π_i(o_ik)) (the other agents' actions
// from the batch; scale 1/N for the batch mean) and returns the loss: dQ/da_i
// comes from the critic's input gradient and goes through the squash's
// derivative into the actor. It leaves gradients in the critic, which its
// next update zeroes.
func (m *MADDPG) actorGrad(i int, scale float64) (float64, error) {
	b, sq := m.batch, m.cfg.Action
	hw, na, ad := m.critInW, m.n*m.actDim, m.actDim
	a, c := m.actors[i], m.critics[i][0]
	loss := 0.0
	for k := range b.N {
		obs := b.Obs[k*hw : (k+1)*hw]
		u, err := a.Forward(m.wsA[i], m.agentWindow(obs, i), m.actorSteps)
		if err != nil {
			return 0, err
		}
		copy(m.aJoint, b.Act[k*na:(k+1)*na])
		for d, v := range u {
			m.aJoint[i*ad+d] = sq.Action(v)
		}
		q, err := c.Forward(m.wsC[i][0], m.criticIn(obs, m.aJoint), 1)
		if err != nil {
			return 0, err
		}
		loss -= float64(scale * q[0])
		m.dq[0] = -scale
		dx, err := c.Backward(m.wsC[i][0], m.dq[:])
		if err != nil {
			return 0, err
		}
		for d, v := range u {
			m.dU[d] = float64(dx[hw+i*ad+d] * sq.Deriv(v))
		}
		if _, err := a.Backward(m.wsA[i], m.dU); err != nil {
			return 0, err
		}
	}
	return loss, nil
}

package env

import (
	"fmt"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/rl"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// Env is a validated environment configuration; Episode runs it.
type Env struct {
	cfg    Config
	p      *cc.AgentParams
	obsDim int
	hist   int
	reward Reward
}

// New validates cfg and returns its environment.
func New(cfg Config) (*Env, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p, _ := cfg.agentParams()
	e := &Env{cfg: cfg, p: p, obsDim: cfg.ObsDim(), hist: max(1, cfg.History), reward: cfg.Reward}
	if e.reward == nil {
		e.reward = ThrLat{Delta: 1}
	}
	return e, nil
}

// ObsDim is the length of one observation.
func (e *Env) ObsDim() int { return e.obsDim }

// History is the number of observations in a policy window.
func (e *Env) History() int { return e.hist }

// Episode is the outcome of one run.
type Episode struct {
	T     Transitions
	Flows int      // flows (agents) of the scenario
	First sim.Time // the first flow's start
	End   sim.Time // time of the last event
	// Hosts reports every sending host's decision processor, by host id.
	Hosts []HostBusy
	// Decisions and Skipped total the hosts'.
	Decisions, Skipped int64
	// Net is the episode's network after the run, for inspection (flows'
	// completion times and counters in Net.QPs, Net.Stats).
	Net *fabric.Network
}

// flowRun is the controller's state of one flow.
type flowRun struct {
	agent   *cc.Agent
	hist    *rl.History
	obs     []float64 // the pending observation (its action not yet rewarded)
	act     float64   // the pending action
	skipped bool      // the pending observation's decision was skipped
	pending bool
	last    int // index of the flow's last transition (−1: none)
}

// runner is the cc.AgentController of one episode.
type runner struct {
	e        *Env
	envIdx   int32
	pol      Policy
	rec      Recorder // pol as a Recorder, or nil
	net      *fabric.Network
	flows    []flowRun
	view     View
	hosts    []*cores // by node id, nil for hosts without agents
	ep       *Episode
	next     []float64 // scratch: the observation being built
	act      []float64
	bufBytes int64
	cost     sim.Time
	ncores   int
	skip     bool
	err      error
}

// Episode builds the scenario with seed cfg.Seed + k and runs it to its
// stop time (or until every flow completed) with pol deciding for every
// flow; k is the environment's index, recorded in the transitions.
func (e *Env) Episode(k int, pol Policy) (*Episode, error) {
	if pol == nil {
		return nil, fmt.Errorf("env: nil policy")
	}
	b, err := assemble.Build(e.cfg.Scenario, "agent", assemble.Options{Seed: e.cfg.Seed + uint64(k), SeedSet: true})
	if err != nil {
		return nil, err
	}
	n := len(b.Net.QPs)
	r := &runner{e: e, envIdx: int32(k), pol: pol, net: b.Net, flows: make([]flowRun, n),
		view: View{Flows: make([]FlowState, n)}, hosts: make([]*cores, len(b.Net.Nodes)),
		ep: &Episode{Flows: n, T: Transitions{ObsDim: e.obsDim}, Net: b.Net}, next: make([]float64, e.obsDim),
		act: make([]float64, ActDim), bufBytes: assemble.FabricConfig(e.cfg.Scenario).BufferBytes,
		cost: e.cfg.Latency.Cost, ncores: max(1, e.cfg.Latency.Cores), skip: e.cfg.Latency.Queue == "skip"}
	r.rec, _ = pol.(Recorder)
	b.Net.SetAlgorithm(r.newAgent)
	r.ep.First = sim.Never
	for _, f := range b.Flows {
		if !f.HasAfter {
			r.ep.First = min(r.ep.First, f.Start)
		}
	}
	r.ep.End = b.Net.Run()
	if r.err != nil {
		return nil, r.err
	}
	r.finish()
	return r.ep, nil
}

// newAgent creates flow q's agent at its start and its controller state.
func (r *runner) newAgent(q *fabric.QP) fabric.Algorithm {
	i := int(q.ID)
	a := cc.NewAgent(r.e.p, i, r)
	h, _ := rl.NewHistory(r.e.hist, r.e.obsDim) // sizes validated by New
	fr := &r.flows[i]
	*fr = flowRun{agent: a, hist: h, obs: make([]float64, r.e.obsDim), last: -1}
	st := &r.view.Flows[i]
	*st = FlowState{Active: true, Src: q.Src, LineBps: q.LineRateBps, BaseRTT: q.PathBaseRTT, Payload: q.PayloadBytes()}
	if r.hosts[q.Src] == nil {
		r.hosts[q.Src] = &cores{DECCCores: *cc.NewDECCCores(r.ncores)}
	}
	return a
}

// AgentBoundary implements cc.AgentController: observe, reward the
// pending transition, decide.
func (r *runner) AgentBoundary(a *cc.Agent, q *fabric.QP, now sim.Time) {
	r.observe(a, q, now)
	r.emit(a.Flow, now, false)
	r.decide(a, q, now)
}

// AgentFinish implements cc.AgentController: the flow's last, partial
// interval ends its stream with a terminal transition.
func (r *runner) AgentFinish(a *cc.Agent, q *fabric.QP, now sim.Time) {
	r.observe(a, q, now)
	r.emit(a.Flow, now, true)
	r.view.Flows[a.Flow].Active = false
}

// observe builds flow a.Flow's observation of the interval ending now in
// r.next and updates its state.
func (r *runner) observe(a *cc.Agent, q *fabric.QP, now sim.Time) {
	fr := &r.flows[a.Flow]
	st := &r.view.Flows[a.Flow]
	if st.Intervals == 0 {
		initialObs(fr.obs, float64(q.RateBps)/float64(q.LineRateBps))
	}
	observe(st, a, q, now, r.next, fr.obs)
	if r.e.cfg.Global {
		globalState(r.view.Flows, st, r.bufBytes, r.next[NumLocal:])
	}
}

// emit records the pending transition of flow f, rewarded from the
// interval that just ended, with next observation r.next.
func (r *runner) emit(f int, now sim.Time, done bool) {
	fr := &r.flows[f]
	if !fr.pending {
		return
	}
	rew := r.e.reward.Reward(&r.view, f)
	t := &r.ep.T
	fr.last = t.Len()
	t.add(r.envIdx, int32(f), fr.obs, fr.act, rew, r.next, now, done, fr.skipped)
	fr.pending = false
	if r.rec != nil {
		r.rec.Recorded(t, fr.last)
	}
}

// decide pushes the new observation, asks the policy (unless the host's
// cores make it skip) and applies the action at once or when the decision
// completes (docs/env.md §5).
func (r *runner) decide(a *cc.Agent, q *fabric.QP, now sim.Time) {
	fr := &r.flows[a.Flow]
	copy(fr.obs, r.next)
	fr.hist.Push(fr.obs)
	fr.pending, fr.skipped = true, false
	at, ok := now, true
	if r.cost > 0 {
		at, ok = r.hosts[q.Src].decide(now, r.cost, r.skip)
	} else {
		r.hosts[q.Src].decisions++
	}
	if !ok || r.err != nil {
		fr.skipped = true
		fr.act = r.noop(q)
		return
	}
	if err := r.pol.Act(a.Flow, fr.hist.Window(), r.act); err != nil {
		r.err = fmt.Errorf("env: policy, flow %d at %v: %w", a.Flow, now, err)
		fr.act = r.noop(q)
		return
	}
	fr.act = r.act[0]
	if at == now {
		a.Apply(q, fr.act)
	} else {
		a.Schedule(q, at, fr.act)
	}
}

// noop is the action that leaves the rate unchanged.
func (r *runner) noop(q *fabric.QP) float64 {
	if r.e.p.Mode == "rate" {
		return float64(q.RateBps) / float64(q.LineRateBps)
	}
	return 0
}

// finish marks every flow's last transition before the stop time as the
// end of its stream and fills the hosts' report.
func (r *runner) finish() {
	t := &r.ep.T
	for i := range r.flows {
		if fr := &r.flows[i]; fr.last >= 0 && !t.Done[fr.last] {
			t.End[fr.last] = true
		}
	}
	for h, c := range r.hosts {
		if c == nil {
			continue
		}
		r.ep.Hosts = append(r.ep.Hosts, HostBusy{Host: h, Decisions: c.decisions, Skipped: c.skipped,
			Busy: c.busyFraction(r.ep.First, r.ep.End)})
		r.ep.Decisions += c.decisions
		r.ep.Skipped += c.skipped
	}
}

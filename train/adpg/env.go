package adpg

import (
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/ml/rl"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// The training fabric: the 16-host star at 400 Gb/s with 1 µs links (path
// base RTT ≈ 4 µs), the network of the scenario tests (issue 17 §5).
const (
	Hosts       = 16
	LinkGbps    = 400
	LinkDelayNs = 1000
	// FlowBytes makes every training flow outlast its episode.
	FlowBytes = 1_000_000_000_000
)

// ScenarioYAML is the scenario of one episode: sc's flows on the star,
// starting at the given times (ns), stopped after stopUs.
func ScenarioYAML(sc Scenario, startNs []float64, stopUs float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: adpg-%s\nseed: 1\nstop_ms: %g\ncc: [agent]\n", sc.Name, stopUs/1000)
	fmt.Fprintf(&b, "topology: {kind: star, hosts: %d, link_gbps: %d, link_delay_ns: %d}\n", Hosts, LinkGbps, LinkDelayNs)
	b.WriteString("workload:\n  flows:\n")
	for i := range sc.Src {
		fmt.Fprintf(&b, "    - {src: %d, dst: %d, size_bytes: %d, start_ns: %g}\n", sc.Src[i], sc.Dst[i], int64(FlowBytes), startNs[i])
	}
	return b.String()
}

// roll is one agent's rollout of the current round: the states it acted
// in (flat, in values each) and the rewards that followed.
type roll struct {
	states, rewards []float64
}

// envRun is one environment: its simulations run in a coroutine that
// yields at the end of each round (agents/adpg.py train's inner loop).
type envRun struct {
	k    int
	cfg  *Config
	p    *cc.ADPGParams
	sc   Scenario
	net  *nn.Sequential // the frozen policy of the round (a copy)
	ws   *nn.Workspace
	in   int
	eval bool // no rounds: one episode of EvalUs
	// evalFrom: an evaluation counts the rewards from this time on (the
	// second half: the steady state the long training episodes mostly see)
	evalFrom sim.Time
	warm     bool // the round is a warm-up round
	agents   []roll
	done     []roll // rollouts of episodes that ended during the round
	steps    int
	yield    func(struct{}) bool
	next     func() (struct{}, bool)
	stop     func()
	halted   bool
	err      error
	last     *fabric.Network // the last episode's network (tests)
	starts   []float64       // and its flows' start times, ns
	// statistics of the round (or of the evaluation)
	sumR, sumAbsR float64
	nR            int
}

func newEnvRun(k int, cfg *Config, p *cc.ADPGParams, sc Scenario, net *nn.Sequential) *envRun {
	e := &envRun{k: k, cfg: cfg, p: p, sc: sc, net: net.Clone(), in: net.InSize()}
	e.ws = e.net.NewWorkspace(1)
	return e
}

// History implements cc.ADPGPolicy.
func (e *envRun) History() int { return e.cfg.History }

// Act implements cc.ADPGPolicy: record the reward of the agent's last
// action, end the round if it is complete (yield to the learner), then
// act with the frozen policy and record the state.
func (e *envRun) Act(flow int, obs []float64, reward float64, first bool, now sim.Time) float64 {
	if e.halted {
		return -1 // training is over: slow down, so the episode's rest costs little
	}
	ag := &e.agents[flow]
	if !first && len(ag.states) > len(ag.rewards)*e.in {
		ag.rewards = append(ag.rewards, reward)
		if !e.eval || now >= e.evalFrom {
			e.sumR += reward
			e.sumAbsR += math.Abs(reward)
			e.nR++
		}
	}
	e.steps++
	if !e.eval && e.roundDone() {
		if !e.yield(struct{}{}) {
			e.halted = true
			return -1
		}
	}
	a := cc.ADPGAct(e.net, e.ws, obs)
	ag.states = append(ag.states, obs...)
	return a
}

// roundDone: a warm-up round ends after WarmupLength decisions; another
// when every agent that acted in it has RolloutLength rewards; any after
// MaxSteps decisions (agents/adpg.py train).
func (e *envRun) roundDone() bool {
	if e.steps >= e.cfg.MaxSteps {
		return true
	}
	if e.warm {
		return e.steps >= e.cfg.WarmupLength
	}
	m, any := math.MaxInt, false
	for i := range e.agents {
		if a := &e.agents[i]; len(a.states) > 0 {
			m, any = min(m, len(a.rewards)), true
		}
	}
	return any && m >= e.cfg.RolloutLength
}

// start creates the environment's coroutine: episodes back to back (seed
// Seed + k + ep·Envs), each built on the star and driven by e.
func (e *envRun) start() {
	e.next, e.stop = iter.Pull(func(yield func(struct{}) bool) {
		e.yield = yield
		for ep := 0; !e.halted; ep++ {
			if err := e.episode(ep); err != nil {
				e.err, e.halted = err, true
				return
			}
			if e.eval {
				return
			}
		}
	})
}

// episode runs episode ep to its stop time.
func (e *envRun) episode(ep int) error {
	seed := e.cfg.Seed + uint64(e.k) + uint64(ep)*uint64(e.cfg.Envs())
	r := rand.New(rand.NewPCG(seed, 0x61647067)) // "adpg"
	starts := make([]float64, len(e.sc.Src))
	for i := range starts {
		starts[i] = math.Floor(r.Float64() * e.cfg.StartSpreadUs * 1000)
	}
	stop := e.cfg.EpisodeUs
	if e.eval {
		stop = e.cfg.EvalUs
	}
	s, err := scenario.Parse([]byte(ScenarioYAML(e.sc, starts, stop)))
	if err != nil {
		return fmt.Errorf("adpg: scenario %s: %w", e.sc.Name, err)
	}
	b, err := assemble.Build(s, "agent", assemble.Options{Seed: seed, SeedSet: true})
	if err != nil {
		return fmt.Errorf("adpg: scenario %s: %w", e.sc.Name, err)
	}
	e.agents = make([]roll, len(b.Net.QPs))
	b.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm {
		_, a := cc.NewADPG(e.p, q, e)
		return a
	})
	b.Net.Run()
	e.last, e.starts = b.Net, starts
	e.done = append(e.done, e.agents...)
	e.agents = nil
	return nil
}

// resume runs the environment to the end of its next round (or of its
// evaluation episode).
func (e *envRun) resume(warm bool) {
	e.warm = warm
	if e.next == nil {
		e.start()
	}
	e.next()
}

// harvest appends the round's rollouts (ended episodes first, then the
// current one's agents in flow order) with at least two rewards, each
// trimmed to the states that have their reward, and clears the round.
func (e *envRun) harvest(out []rl.ADPGRollout) []rl.ADPGRollout {
	add := func(a *roll) {
		if n := len(a.rewards); n >= 2 {
			out = append(out, rl.ADPGRollout{States: a.states[:n*e.in], Rewards: a.rewards})
		}
	}
	for i := range e.done {
		add(&e.done[i])
	}
	for i := range e.agents {
		add(&e.agents[i])
	}
	return out
}

// clearRound empties the rollouts after the learner used them: agents of
// the current episode start a new rollout (the state awaiting its reward
// is dropped, as the authors' rollout reset does).
func (e *envRun) clearRound() {
	e.done = e.done[:0]
	for i := range e.agents {
		e.agents[i] = roll{states: e.agents[i].states[:0], rewards: e.agents[i].rewards[:0]}
	}
	e.steps, e.sumR, e.sumAbsR, e.nR = 0, 0, 0, 0
}

// close ends the coroutine (the current episode runs to its stop time
// without decisions).
func (e *envRun) close() {
	if e.stop != nil {
		e.stop()
	}
}

package spine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/ml/rl"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// ScenarioYAML is training scenario n: an incast of n long flows (hosts 1 …
// n to host 0) on a star of hosts hosts at gbps with 1 µs links, flow i
// starting at i × staggerUs, stopped after episodeUs (docs/algorithms/
// spine.md §5.1).
func ScenarioYAML(hosts, n int, gbps, episodeUs, staggerUs float64, k int, trigger bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: spine-train-%d\nseed: 1\nstop_ms: %g\ncc: [spine]\n", n, episodeUs/1000)
	fmt.Fprintf(&b, "params:\n  spine: {k: %d, trigger: %t}\n", k, trigger)
	fmt.Fprintf(&b, "topology: {kind: star, hosts: %d, link_gbps: %g, link_delay_ns: 1000}\n", hosts, gbps)
	b.WriteString("workload:\n  flows:\n")
	for i := range n {
		fmt.Fprintf(&b, "    - {src: %d, dst: 0, size_bytes: 1000000000000, start_ns: %g}\n", i+1, float64(i)*staggerUs*1000)
	}
	return b.String()
}

// policy is how an episode acts: the frozen actor (greedy when sigma is 0),
// Gaussian noise of standard deviation sigma, or uniform random actions.
type policy struct {
	actor  *nn.Sequential // a clone owned by the episode
	ws     *nn.Workspace
	noise  *rand.Rand
	sigma  float64
	random bool
	fixed  []float64 // if set, this action always (a reference policy for tests)
}

func (p *policy) act(window, out []float64) error {
	if p.fixed != nil {
		copy(out, p.fixed)
		return nil
	}
	if p.random {
		for i := range out {
			out[i] = 2*p.noise.Float64() - 1
		}
		return nil
	}
	if err := cc.SpineNetAct(p.actor, p.ws, window, out); err != nil {
		return err
	}
	if p.sigma > 0 {
		for i, v := range out {
			out[i] = min(1, max(-1, v+p.sigma*p.noise.NormFloat64()))
		}
	}
	return nil
}

// flowRec is one flow's pending decision.
type flowRec struct {
	s        *cc.Spine
	obs, act []float64
	pending  bool
	fired    bool // the rewarded decision's gate fired
	done     bool
	last     int // index of its last transition, −1 if none
}

// episode runs one environment: it is the flows' cc.SpineAgent.
type episode struct {
	env      int
	flows    []flowRec
	pol      *policy
	capacity float64
	T        []rl.Transition
	// scratch of the reward
	thr, loss, rtt []float64
	err            error
}

// episodeOutcome sums an episode for the log.
type episodeOutcome struct {
	T                []rl.Transition
	RewardSum        float64
	Decisions, Fired int64
	Flows            []*cc.Spine // the flows' controllers at the episode's end
}

// episodeScenario is the incast size and arrival gap of episode ep of a
// run.
func (c *Config) episodeScenario(ep int) (n int, staggerUs float64) {
	nf := len(c.FlowCounts)
	return c.FlowCounts[ep%nf], c.StaggersUs[(ep/nf)%len(c.StaggersUs)]
}

// runEpisode simulates the incast of n flows arriving staggerUs apart with
// seed under policy pol.
func runEpisode(cfg *Config, envIdx, n int, staggerUs float64, seed uint64, pol *policy) (*episodeOutcome, error) {
	s, err := scenario.Parse([]byte(ScenarioYAML(cfg.Hosts, n, cfg.Gbps, cfg.EpisodeUs, staggerUs, cfg.K, cfg.Trigger)))
	if err != nil {
		return nil, err
	}
	b, err := assemble.Build(s, "spine", assemble.Options{Seed: seed, SeedSet: true})
	if err != nil {
		return nil, err
	}
	p := cc.SpineDefaults()
	p.K, p.Trigger = cfg.K, cfg.Trigger
	if err := p.Validate(); err != nil {
		return nil, err
	}
	e := &episode{env: envIdx, flows: make([]flowRec, len(b.Net.QPs)), pol: pol, capacity: cfg.Gbps * 1e9}
	b.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm {
		sp := cc.NewSpine(p, int(q.ID), e)
		e.flows[q.ID] = flowRec{s: sp, last: -1}
		return sp
	})
	b.Net.Run()
	if e.err != nil {
		return nil, e.err
	}
	out := &episodeOutcome{T: e.T}
	for i := range e.flows {
		f := &e.flows[i]
		if f.last >= 0 && !e.T[f.last].Done {
			e.T[f.last].End = true
		}
		out.Flows = append(out.Flows, f.s)
		if f.s != nil {
			out.Decisions += f.s.Decisions
			out.Fired += f.s.Fired
		}
	}
	for _, t := range e.T {
		out.RewardSum += t.Rew[0]
	}
	return out, nil
}

// reward is the reward of flow f's pending decision, over the active flows'
// latest periods.
func (e *episode) reward(f *flowRec, base sim.Time) float64 {
	e.thr, e.loss, e.rtt = e.thr[:0], e.loss[:0], e.rtt[:0]
	for i := range e.flows {
		g := &e.flows[i]
		if g.s == nil || g.done || g.s.Decisions == 0 {
			continue
		}
		m := &g.s.Meas
		e.thr, e.loss, e.rtt = append(e.thr, m.Thr), append(e.loss, m.Loss), append(e.rtt, float64(m.AvgRTT))
	}
	trig := 0.0
	if f.fired {
		trig = 1
	}
	return Reward(e.thr, e.loss, e.rtt, e.capacity, float64(base), trig)
}

// SpineDecide records the flow's previous decision with its reward and
// chooses the next action.
func (e *episode) SpineDecide(s *cc.Spine, q *fabric.QP, now sim.Time, act []float64) error {
	f := &e.flows[s.Flow]
	win := s.Window()
	if f.pending {
		f.fired = s.LastFired // the gate of the pending decision (drawn after it returned)
		r := e.reward(f, q.PathBaseRTT)
		f.last = len(e.T)
		e.T = append(e.T, rl.Transition{Obs: f.obs, Act: f.act, Rew: []float64{r},
			NextObs: append([]float64(nil), win...), Stream: e.env*len(e.flows) + s.Flow})
	}
	if err := e.pol.act(win, act); err != nil {
		e.err = err
		return err
	}
	f.obs, f.act, f.pending = append([]float64(nil), win...), append([]float64(nil), act...), true
	return nil
}

// SpineFinish drops the flow's pending decision (training flows are long:
// they do not finish within an episode).
func (e *episode) SpineFinish(s *cc.Spine, q *fabric.QP, now sim.Time) {
	f := &e.flows[s.Flow]
	f.pending, f.done = false, true
}

// runRound runs cfg.Envs episodes on cfg.Workers goroutines: environment k
// of round r is episode number r·Envs + k of the run (its scenario and
// seed follow from that number), with its own policy built before any
// episode starts. The outcomes are returned in environment order, so the
// result does not depend on the worker count.
func runRound(cfg *Config, round int, newPolicy func(k int) *policy) ([]*episodeOutcome, error) {
	k := cfg.Envs
	pols := make([]*policy, k)
	for i := range pols {
		pols[i] = newPolicy(i)
	}
	outs := make([]*episodeOutcome, k)
	errs := make([]error, k)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(max(1, cfg.Workers), k) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ep := round*k + i
				n, gap := cfg.episodeScenario(ep)
				outs[i], errs[i] = runEpisode(cfg, i, n, gap, cfg.Seed*1000003+uint64(ep), pols[i])
			}
		}()
	}
	for i := range k {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("spine: round %d, environment %d: %w", round, i, err)
		}
	}
	return outs, nil
}

package aurora

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/auroramodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// Setting is one episode's network, drawn by Draw (docs/algorithms/aurora.md
// §5.2): the authors' randomised link (network_sim.py
// create_new_links_and_senders) scaled to RDMA, with several senders.
type Setting struct {
	Flows    int       `json:"flows"`     // senders, hosts 0..Flows−1, all into host Flows
	Gbps     float64   `json:"gbps"`      // the senders' links' rate
	BnGbps   float64   `json:"bn_gbps"`   // the receiver's link's rate (the bottleneck)
	DelayNs  float64   `json:"delay_ns"`  // every link's one-way delay
	BufferMB float64   `json:"buffer_mb"` // the switch's buffer (drop-tail)
	InitRate []float64 `json:"init_rate"` // per flow, fraction of line rate
	StartNs  []float64 `json:"start_ns"`  // per flow
	StopNs   float64   `json:"stop_ns"`
	Seed     uint64    `json:"seed"` // the scenario's seed
}

// Draw draws a setting from r: Flows uniform in 1..MaxFlows, the senders'
// rate and the delay uniform in their ranges, the receiver's link (the
// bottleneck) at U(BnMin, 1) of the senders' rate (the authors' sender may
// exceed its link: its rate is capped at 1000 packets/s on links of 100–500),
// a drop-tail switch (PFC off, as the authors'
// lossy links) whose buffer is the authors' queue, 1 + e^U(0, 8) packets
// (network_sim.py create_new_links_and_senders), in full packets of 1048
// B and at least the scenario's minimum 0.065536 MB (62 packets), initial
// rates U(0.3, 1.5) × the bottleneck (the authors' U(0.3, 1.5) ×
// bandwidth), capped at line rate, the first flow at 0 and the others at U(0, ½) of
// the episode. The episode lasts EpisodeMIs intervals of half the path's
// base RTT (estimated as 4 link delays plus the serialisation of two data
// packets and two ACKs).
func (c Config) Draw(r *rand.Rand) Setting {
	s := Setting{Flows: 1 + r.IntN(c.MaxFlows)}
	s.Gbps = c.GbpsMin + (c.GbpsMax-c.GbpsMin)*r.Float64()
	s.BnGbps = s.Gbps * (c.BnMin + (1-c.BnMin)*r.Float64())
	s.DelayNs = c.DelayNsMin + (c.DelayNsMax-c.DelayNsMin)*r.Float64()
	pkts := 1 + math.Floor(nn.DetExp(8*r.Float64()))
	s.BufferMB = max(0.065536, pkts*1048/1e6)
	rtt := 4*s.DelayNs + (1048+64)*8/s.Gbps + (1048+64)*8/s.BnGbps
	s.StopNs = float64(c.EpisodeMIs) * 0.5 * rtt
	s.InitRate, s.StartNs = make([]float64, s.Flows), make([]float64, s.Flows)
	for i := range s.Flows {
		s.InitRate[i] = min(1, (0.3+1.2*r.Float64())*s.BnGbps/s.Gbps)
		if i > 0 {
			s.StartNs[i] = 0.5 * s.StopNs * r.Float64()
		}
	}
	s.Seed = r.Uint64()
	return s
}

// YAML is the setting's scenario file.
func (s Setting) YAML() string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: aurora-train\nseed: %d\nstop_ms: %.6f\ncc: [aurora]\n", s.Seed%1_000_000_007, s.StopNs/1e6)
	fmt.Fprintf(&b, "topology: {kind: star, hosts: %d, link_gbps: %.4f, link_delay_ns: %.1f, host_links: [{hosts: [%d], gbps: %.4f}]}\n",
		s.Flows+1, s.Gbps, s.DelayNs, s.Flows, s.BnGbps)
	fmt.Fprintf(&b, "switch: {buffer_mb: %.6f, pfc: off}\n", s.BufferMB)
	b.WriteString("workload:\n  flows:\n")
	for i := range s.Flows {
		fmt.Fprintf(&b, "    - {src: %d, dst: %d, size_bytes: 1000000000000, start_ns: %.1f}\n", i, s.Flows, s.StartNs[i])
	}
	return b.String()
}

// trajectory is one flow's steps in an episode: observations, the sampled
// actions u (unclipped), the rewards of the intervals that followed, and the
// observation after the last step (for the bootstrap).
type trajectory struct {
	obs  []float64
	u    []float64
	rew  []float64
	next [auroramodel.ObsDim]float64
}

// sampler is the training decider of one flow: it rewards the flow's
// previous action with the interval that just ended (cc.AuroraReward) and
// samples the next one from the Gaussian policy N(net(obs), e^logStd).
type sampler struct {
	ep      *episode
	tr      *trajectory
	pending bool
}

// episode is one episode's run state: a frozen copy of the policy, its
// noise source, the reward scale and every flow's trajectory.
type episode struct {
	net    *nn.Sequential
	ws     *nn.Workspace
	sigma  float64 // e^logStd; 0 = the mean (evaluation)
	noise  *rand.Rand
	reward cc.AuroraRewardScale
	flows  []trajectory
	sumRew float64
	nRew   int
}

// AuroraDecide implements cc.AuroraDecider.
func (s *sampler) AuroraDecide(q *fabric.QP, m *cc.AuroraMI, obs []float64, now sim.Time) float64 {
	e, tr := s.ep, s.tr
	if s.pending {
		r := cc.AuroraReward(m, q.PathBps, q.PathBaseRTT, e.reward)
		tr.rew = append(tr.rew, r)
		e.sumRew += r
		e.nRew++
	}
	y, err := e.net.Forward(e.ws, obs, 1)
	if err != nil {
		panic(err) // constant shapes
	}
	u := y[0]
	if e.sigma > 0 {
		u += e.sigma * e.noise.NormFloat64()
	}
	tr.obs = append(tr.obs, obs...)
	tr.u = append(tr.u, u)
	copy(tr.next[:], obs)
	s.pending = true
	return u
}

// runEpisode runs setting st with policy net (read only) and standard
// deviation sigma (0: the mean action), noise drawn from noise. It returns
// every flow's trajectory, each cut to its rewarded steps.
func runEpisode(st Setting, net *nn.Sequential, sigma float64, noise *rand.Rand, rs cc.AuroraRewardScale) (*episode, error) {
	s, err := scenario.Parse([]byte(st.YAML()))
	if err != nil {
		return nil, fmt.Errorf("aurora: episode scenario: %w", err)
	}
	b, err := assemble.Build(s, "aurora", assemble.Options{})
	if err != nil {
		return nil, fmt.Errorf("aurora: episode: %w", err)
	}
	p := cc.AuroraDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	e := &episode{net: net, ws: net.NewWorkspace(1), sigma: sigma, noise: noise, reward: rs,
		flows: make([]trajectory, len(b.Net.QPs))}
	b.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm {
		fp := *p
		fp.InitRate = st.InitRate[q.ID]
		return cc.NewAurora(&fp, &sampler{ep: e, tr: &e.flows[q.ID]})
	})
	b.Net.Run()
	for i := range e.flows {
		tr := &e.flows[i]
		n := len(tr.rew) // the last action has no reward: drop it; its observation is the bootstrap's
		if n < len(tr.u) {
			copy(tr.next[:], tr.obs[n*auroramodel.ObsDim:(n+1)*auroramodel.ObsDim])
		}
		tr.obs, tr.u = tr.obs[:n*auroramodel.ObsDim], tr.u[:n]
	}
	return e, nil
}

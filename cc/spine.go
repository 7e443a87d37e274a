package cc

import (
	"fmt"
	"math/rand/v2"

	"github.com/ccsim/ccsim/cc/spinemodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/sim"
)

// SpineParams are the parameters of `spine`, SPINE (Tian et al., IEEE/ACM
// ToN 2024; sys-netai/spine-open-source): a per-ACK window executor with
// four parameters α, β, γ, δ (the authors' kernel module tcp_vanilla.c)
// tuned every K monitoring intervals by a learned agent
// (docs/algorithms/spine.md).
type SpineParams struct {
	Alpha          int     `yaml:"alpha" doc:"executor's initial α: window increase per ACK in 1/1024 packet while the RTT inflation is within γ (tcp_vanilla.c vanilla_reset: 50)"`
	Beta           int     `yaml:"beta" doc:"executor's initial β: window decrease per ACK in 1/1024 packet beyond γ (200)"`
	Gamma          int     `yaml:"gamma" doc:"executor's initial γ: tolerated RTT inflation srtt/min_rtt − 1, in 1/1024 (200)"`
	Delta          int     `yaml:"delta" doc:"executor's initial δ: window kept on a loss, in 1/1024 (717)"`
	IntervalRTTs   float64 `yaml:"interval_rtts" doc:"monitoring interval in path base RTTs"`
	K              int     `yaml:"k" doc:"the agent decides every k monitoring intervals (I4)"`
	Trigger        bool    `yaml:"trigger" doc:"trigger gate: apply the agent's parameters only when its fifth output fires, with probability clamp((x+1)/2, 0.05, 0.95) (the authors' default: on)"`
	InitWindowBDPs float64 `yaml:"init_window_bdps" doc:"window at flow start in path BDPs (I6)"`
	MaxWindowBDPs  float64 `yaml:"max_window_bdps" doc:"window cap in path BDPs (the kernel's snd_cwnd_clamp, I6)"`
	MinCwnd        int     `yaml:"min_cwnd" doc:"window floor in packets (vanilla_set_cwnd: 10)"`
	Model          string  `yaml:"model" doc:"actor model file written by ccsim train spine (empty: the shipped model)"`
	DecisionNs     float64 `yaml:"decision_ns" doc:"decision latency in ns: the agent's parameters take effect this long after its decision (decc.md §1.10)"`

	model     *nn.Sequential
	modelFrom string
	loaded    bool
}

// SpineDefaults: the kernel's initial parameters (50, 200, 200, 717), a
// decision every 2 intervals of one base RTT, the gate on, a window of one
// BDP at start capped at 2 BDPs with the kernel's 10-packet floor, the
// shipped model, no decision latency.
func SpineDefaults() *SpineParams {
	return &SpineParams{Alpha: 50, Beta: 200, Gamma: 200, Delta: 717, IntervalRTTs: 1, K: 2,
		Trigger: true, InitWindowBDPs: 1, MaxWindowBDPs: 2, MinCwnd: 10}
}

// Validate checks every field's range and loads the model.
func (p *SpineParams) Validate() error {
	switch {
	case p.Alpha < 1 || p.Alpha > 1024:
		return rangeErr("alpha", p.Alpha, "1", "1024")
	case p.Beta < 1 || p.Beta > 1024:
		return rangeErr("beta", p.Beta, "1", "1024")
	case p.Gamma < 1 || p.Gamma > 2048:
		return rangeErr("gamma", p.Gamma, "1", "2048")
	case p.Delta < 1 || p.Delta > 1024:
		return rangeErr("delta", p.Delta, "1", "1024")
	case !(p.IntervalRTTs > 0 && p.IntervalRTTs <= 1e4):
		return rangeErr("interval_rtts", p.IntervalRTTs, "0 (exclusive)", "1e4")
	case p.K < 1 || p.K > 1e6:
		return rangeErr("k", p.K, "1", "1e6")
	case !(p.InitWindowBDPs > 0 && p.InitWindowBDPs <= 1e3):
		return rangeErr("init_window_bdps", p.InitWindowBDPs, "0 (exclusive)", "1e3")
	case !(p.MaxWindowBDPs >= p.InitWindowBDPs && p.MaxWindowBDPs <= 1e3):
		return rangeErr("max_window_bdps", p.MaxWindowBDPs, "init_window_bdps", "1e3")
	case p.MinCwnd < 1 || p.MinCwnd > 1e6:
		return rangeErr("min_cwnd", p.MinCwnd, "1", "1e6")
	case !(p.DecisionNs >= 0 && p.DecisionNs <= 1e9):
		return rangeErr("decision_ns", p.DecisionNs, "0", "1e9")
	}
	return p.load()
}

// load reads the model the parameters name, once per file name.
func (p *SpineParams) load() error {
	if p.loaded && p.modelFrom == p.Model {
		return nil
	}
	var m *nn.Sequential
	var err error
	if p.Model == "" {
		m, _, err = spinemodel.Shipped()
	} else {
		m, _, err = spinemodel.LoadFile(p.Model)
	}
	if err != nil {
		return fmt.Errorf("model: %v", err)
	}
	p.model, p.modelFrom, p.loaded = m, p.Model, true
	return nil
}

// Actor returns the loaded actor (after Validate): shared and read-only.
func (p *SpineParams) Actor() *nn.Sequential { return p.model }

// SpineAgent chooses SPINE's actions: the shipped network when deployed,
// the trainer's exploring policy in training (train/spine).
type SpineAgent interface {
	// SpineDecide is called at the end of each decision period of s, once
	// s.Meas and the observation window (s.Window) hold that period; it
	// writes SpineActDim values in [−1, 1] into act. It runs inside the
	// fabric's event (the simulation waits for it).
	SpineDecide(s *Spine, q *fabric.QP, now sim.Time, act []float64) error
	// SpineFinish is called once, when the flow's last byte is
	// acknowledged.
	SpineFinish(s *Spine, q *fabric.QP, now sim.Time)
}

// Timer slots of a SPINE flow: the monitoring boundary and the next
// delayed parameter update.
const (
	spineTimerBoundary = 0
	spineTimerApply    = 1
)

// Spine is one flow's SPINE controller: the executor's state, the
// measurements of the current decision period and the agent's window.
type Spine struct {
	P     *SpineParams // validated parameters, shared by the flows of a run
	Flow  int          // the flow (QP) index
	Agent SpineAgent   // chooses the actions (the deployed network or a trainer)
	Exec  SpineExec    // the parameters in force
	Cwnd  int64        // window, packets
	cnt   int64        // accumulated change, 1/1024 packet (tcp_vanilla.c ca->cnt)
	SRTT  sim.Time     // smoothed RTT (0 before the first sample)
	Min   sim.Time     // smallest RTT sample (0 before the first)
	Meas  SpineMeasure
	// Decisions counts the agent's decisions; Fired those whose gate fired.
	Decisions, Fired int64
	// LastFired reports whether the last decision's gate fired.
	LastFired bool
	// Err is the first error of the agent (the flow keeps its parameters).
	Err error

	minCwnd, maxCwnd int64
	lastCut          sim.Time
	intervals        int
	finished         bool
	// the current decision period
	start           sim.Time
	acked, retx0    int64
	rttSum          sim.Time
	rttN            int64
	cur             [SpineParamNum]float64 // actions in force (observed)
	obs, win, act   []float64
	winFull         bool
	pendAt          []sim.Time
	pendEx          []SpineExec
	pendHead, pendN int
	rng             *rand.Rand // the gate's draws
}

// NewSpine returns the controller of flow for parameters p (validated),
// driven by agent.
func NewSpine(p *SpineParams, flow int, agent SpineAgent) *Spine {
	return &Spine{P: p, Flow: flow, Agent: agent,
		Exec: SpineExec{Alpha: p.Alpha, Beta: p.Beta, Gamma: p.Gamma, Delta: p.Delta},
		obs:  make([]float64, SpineObsDim), win: make([]float64, spinemodel.History*SpineObsDim),
		act: make([]float64, SpineActDim), pendAt: make([]sim.Time, 4), pendEx: make([]SpineExec, 4),
		rng: rand.New(rand.NewPCG(SpineGateSeed, uint64(flow)))}
}

// SpineGateSeed seeds the gate's draws: flow i draws from
// PCG(SpineGateSeed, i), so a scenario's draws repeat from run to run, in
// training as deployed.
const SpineGateSeed = 0x5350494e45

// Window is the agent's input: the last spinemodel.History observations,
// oldest first (the first one repeated until there are enough).
func (s *Spine) Window() []float64 { return s.win }

// Current returns the four actions in force (the observation's last part).
func (s *Spine) Current() []float64 { return s.cur[:] }

// Start sets the initial window and pacing and the first interval.
func (s *Spine) Start(q *fabric.QP, now sim.Time) {
	pay := q.PayloadBytes()
	bdp := float64(q.LineRateBps) / 8 * q.PathBaseRTT.Seconds() / float64(pay)
	s.minCwnd = int64(s.P.MinCwnd)
	s.maxCwnd = max(s.minCwnd, int64(s.P.MaxWindowBDPs*bdp))
	s.Cwnd = min(max(int64(s.P.InitWindowBDPs*bdp+0.5), s.minCwnd), s.maxCwnd)
	s.lastCut = longAgo
	s.apply(q)
	s.restart(q, now)
	q.ArmTimer(spineTimerBoundary, now+s.interval(q))
}

// interval is the monitoring interval: interval_rtts × path base RTT.
func (s *Spine) interval(q *fabric.QP) sim.Time {
	return max(sim.Time(s.P.IntervalRTTs*float64(q.PathBaseRTT)+0.5), 1)
}

// restart begins a decision period at now.
func (s *Spine) restart(q *fabric.QP, now sim.Time) {
	s.start, s.acked, s.retx0, s.rttSum, s.rttN = now, 0, q.RetxBytes, 0, 0
}

// srtt is the smoothed RTT, the path base RTT before the first sample.
func (s *Spine) srtt(q *fabric.QP) sim.Time {
	if s.SRTT > 0 {
		return s.SRTT
	}
	return q.PathBaseRTT
}

// apply sets the window (packets → payload bytes) and the pacing rate.
func (s *Spine) apply(q *fabric.QP) {
	q.SetWindow(s.Cwnd * q.PayloadBytes())
	q.SetRate(spinePacing(q, s.Cwnd, s.srtt(q)))
}

// OnAck is the executor (tcp_vanilla.c vanilla_cong_control): RTT
// estimates, then the window law of spineWindow, or on a NACK the loss
// cut of spineCut at most once per smoothed RTT (Linux enters recovery
// once per loss event). Arithmetic only, no allocation.
func (s *Spine) OnAck(q *fabric.QP, k *fabric.AckInfo, now sim.Time) {
	s.acked += k.NewlyAcked
	if r := k.RTT; r > 0 {
		s.rttSum += r
		s.rttN++
		if s.Min == 0 || r < s.Min {
			s.Min = r
		}
		if s.SRTT == 0 {
			s.SRTT = r
		} else {
			s.SRTT += (r - s.SRTT) / 8
		}
	}
	if k.Nack {
		s.lossCut(now)
	} else if s.Min > 0 {
		s.Cwnd, s.cnt = spineWindow(s.Exec, s.SRTT, s.Min, s.Cwnd, s.cnt, s.minCwnd, s.maxCwnd)
	}
	s.apply(q)
	if !s.finished && q.SndUna >= q.SizeBytes {
		s.finished = true
		q.CancelTimer(spineTimerBoundary)
		if s.Agent != nil {
			s.Agent.SpineFinish(s, q, now)
		}
	}
}

// lossCut applies spineCut once per smoothed RTT.
func (s *Spine) lossCut(now sim.Time) {
	if now-s.lastCut >= s.SRTT {
		s.Cwnd = spineCut(s.Exec, s.Cwnd, s.maxCwnd)
		s.cnt, s.lastCut = 0, now
	}
}

// OnTimeout treats a retransmission timeout as a loss (vanilla_ssthresh).
func (s *Spine) OnTimeout(q *fabric.QP, now sim.Time) {
	s.lossCut(now)
	s.apply(q)
}

// OnNotice is not used.
func (s *Spine) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {}

// OnSend is not used.
func (s *Spine) OnSend(q *fabric.QP, size int, now sim.Time) {}

// OnTimer closes a monitoring interval (every K-th is a decision) or
// applies the delayed parameters that are due.
func (s *Spine) OnTimer(q *fabric.QP, id int, now sim.Time) {
	if id == spineTimerApply {
		s.applyDue(q, now)
		return
	}
	if s.finished {
		return
	}
	s.intervals++
	if s.intervals%s.P.K == 0 {
		s.decide(q, now)
	}
	q.ArmTimer(spineTimerBoundary, now+s.interval(q))
}

// measure fills s.Meas from the decision period [s.start, now).
func (s *Spine) measure(q *fabric.QP, now sim.Time) {
	m := &s.Meas
	sec := (now - s.start).Seconds()
	pay := float64(q.PayloadBytes())
	retx := float64(q.RetxBytes - s.retx0)
	m.Thr = float64(s.acked) * 8 / sec
	m.MaxThr = max(m.MaxThr, m.Thr)
	m.AvgRTT = 0
	if s.rttN > 0 {
		m.AvgRTT = s.rttSum / sim.Time(s.rttN)
	}
	m.MinRTT, m.SRTT = s.Min, s.SRTT
	m.Loss = retx * 8 / sec
	m.Cwnd = float64(s.Cwnd)
	m.InFlight = float64(q.InFlight()) / pay
	m.Pacing = float64(q.RateBps)
	m.Retrans = retx / pay
	m.LineBps, m.PayloadB = float64(q.LineRateBps), pay
}

// decide closes a decision period: the measurement, the observation
// window, the agent's action, and through the gate the new parameters,
// at once or after decision_ns.
func (s *Spine) decide(q *fabric.QP, now sim.Time) {
	s.measure(q, now)
	SpineObservation(&s.Meas, s.cur[:], s.obs)
	if !s.winFull { // the first observation fills the window (padding)
		for i := 0; i < len(s.win); i += SpineObsDim {
			copy(s.win[i:], s.obs)
		}
		s.winFull = true
	} else {
		copy(s.win, s.win[SpineObsDim:])
		copy(s.win[len(s.win)-SpineObsDim:], s.obs)
	}
	s.restart(q, now)
	s.Decisions++
	if s.Agent == nil {
		return
	}
	if err := s.Agent.SpineDecide(s, q, now, s.act); err != nil {
		if s.Err == nil {
			s.Err = err
		}
		return
	}
	if s.P.Trigger && !SpineTrigger(s.act[SpineParamNum], s.rng.Float64()) {
		s.LastFired = false
		return
	}
	s.LastFired = true
	s.Fired++
	copy(s.cur[:], s.act[:SpineParamNum])
	e := SpineMapAction(s.act)
	if s.P.DecisionNs <= 0 {
		s.Exec = e
		return
	}
	s.schedule(q, now+sim.Time(s.P.DecisionNs*float64(sim.Nanosecond)+0.5), e)
}

// schedule queues parameters e for time at (FIFO: decisions take effect in
// the order they were taken).
func (s *Spine) schedule(q *fabric.QP, at sim.Time, e SpineExec) {
	if s.pendN == len(s.pendAt) { // grow (rare: decisions faster than the latency)
		m := 2 * len(s.pendAt)
		at2, ex2 := make([]sim.Time, m), make([]SpineExec, m)
		for k := range s.pendN {
			j := (s.pendHead + k) % len(s.pendAt)
			at2[k], ex2[k] = s.pendAt[j], s.pendEx[j]
		}
		s.pendAt, s.pendEx, s.pendHead = at2, ex2, 0
	}
	i := (s.pendHead + s.pendN) % len(s.pendAt)
	s.pendAt[i], s.pendEx[i] = at, e
	s.pendN++
	if s.pendN == 1 {
		q.ArmTimer(spineTimerApply, at)
	}
}

// applyDue puts into force every queued parameter set due by now.
func (s *Spine) applyDue(q *fabric.QP, now sim.Time) {
	for s.pendN > 0 && s.pendAt[s.pendHead] <= now {
		s.Exec = s.pendEx[s.pendHead]
		s.pendHead = (s.pendHead + 1) % len(s.pendAt)
		s.pendN--
	}
	if s.pendN > 0 {
		q.ArmTimer(spineTimerApply, s.pendAt[s.pendHead])
	}
}

// SpineNetAct runs actor m (workspace ws) on an observation window and
// writes its SpineActDim actions tanh(output) into act: the deployed
// agent's arithmetic, which the trainer's greedy policy shares
// (rl.Squash{−1, 1}.Action is the same tanh).
func SpineNetAct(m *nn.Sequential, ws *nn.Workspace, window, act []float64) error {
	u, err := m.Forward(ws, window, 1)
	if err != nil {
		return err
	}
	for i, v := range u {
		act[i] = nn.DetTanh(v)
	}
	return nil
}

// NewSpineNetAgent returns the deployed agent over actor m (not modified;
// shared by all flows, each with its own workspace).
func NewSpineNetAgent(m *nn.Sequential) SpineAgent {
	return &spineNetAgent{m: m, ws: m.NewWorkspace(1)}
}

// spineNetAgent is the deployed agent: the shared, read-only actor and
// this flow's workspace.
type spineNetAgent struct {
	m  *nn.Sequential
	ws *nn.Workspace
}

func (n *spineNetAgent) SpineDecide(s *Spine, _ *fabric.QP, _ sim.Time, act []float64) error {
	return SpineNetAct(n.m, n.ws, s.Window(), act)
}

func (n *spineNetAgent) SpineFinish(*Spine, *fabric.QP, sim.Time) {}

func init() {
	Register(&Spec{
		Name:     "spine",
		Summary:  "SPINE: per-ACK window executor (α, β, γ, δ) tuned by a learned agent every k intervals (docs/algorithms/spine.md)",
		Defaults: func() Params { return SpineDefaults() },
		New: func(p Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			sp := p.(*SpineParams)
			return func(q *fabric.QP) fabric.Algorithm {
				return NewSpine(sp, int(q.ID), NewSpineNetAgent(sp.model))
			}, fabric.Requirements{}
		},
	})
}

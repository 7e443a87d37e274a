package cc

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/cc/pidnnmodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/sim"
)

// PIDNN is the sender of paper 001 ("a neural-network congestion control
// algorithm for datacenter networks using RTT"; docs/algorithms/pidnn.md,
// whose section numbers and interpretation ids I1–I22 the comments below
// cite). Per flow, on every RTT sample (one per round trip, §2):
//
//	S_t = σ·R_t + (1−σ)·S_{t−1}           K_t = (R_t − S_t)/S_t         eqs. (2), (3)
//	RTT_pred = (1 + LSTM(K_{t−2}, K_{t−1}, K_t))·S_t                   eq. (12)
//	e = (RTT_pred − rtt_target)/rtt_target                              eq. (14)
//	∂ = clamp(K_p·e + K_i·mean(e) + K_d·(e − e_prev), dmin, dmax)       eqs. (15)–(20)
//	rate ← clamp(rate·(1 + ∂), 1 Gb/s, 100 Gb/s)                        eq. (19)
//
// `pid` skips the predictor (RTT_pred = R_t), `pidnn+rttch` moves the target
// to the mean sampled RTT after more than rttch_num samples on one side of
// it (§6), and `pidnn+rttch+win` adds the generic variable window (§7).

// PIDNNParams are the parameters of PIDNN (paper 001 §3; names and defaults
// of its parameter table, docs/algorithms/pidnn.md §8).
type PIDNNParams struct {
	Predictor    string  `yaml:"predictor" doc:"lstm: RTT_pred = (1 + out)·S_t from the LSTM (eq. 12); none: PID only, RTT_pred = R_t (paper §4.2.3)"`
	ModelFile    string  `yaml:"model_file" doc:"LSTM predictor model file (docs/ml.md §5), with predictor: lstm; empty = the shipped model (cc/pidnnmodel)"`
	Gains        string  `yaml:"gains" doc:"trained: frozen gains of gains_file (empty = the shipped ones, from ccsim train pidnn); paper: the paper's learned [−0.358, −0.060, 0.040]; initial: the paper's initial [−0.2, −0.05, 0.1]; explicit: kp, ki, kd"`
	GainsFile    string  `yaml:"gains_file" doc:"gains model file, with gains: trained; empty = the shipped one"`
	Kp           float64 `yaml:"kp" doc:"K_p with gains: explicit (default: the paper's learned value)"`
	Ki           float64 `yaml:"ki" doc:"K_i with gains: explicit"`
	Kd           float64 `yaml:"kd" doc:"K_d with gains: explicit"`
	RTTTargetUs  float64 `yaml:"rtt_target_us" unit:"us" doc:"rtt_target (eq. 14)"`
	Sigma        float64 `yaml:"sigma" doc:"σ: EWMA weight of the newest RTT sample (eq. 2)"`
	DMin         float64 `yaml:"dmin" doc:"lower clamp of ∂ (eq. 20)"`
	DMax         float64 `yaml:"dmax" doc:"upper clamp of ∂ (eq. 20; the paper's Table 3 has 0.6)"`
	RateMinGbps  float64 `yaml:"rate_min_gbps" unit:"Gb/s" doc:"rate floor (eq. 19)"`
	RateMaxGbps  float64 `yaml:"rate_max_gbps" unit:"Gb/s" doc:"rate ceiling (eq. 19; at most the NIC's line rate)"`
	RateInitGbps float64 `yaml:"rate_init_gbps" unit:"Gb/s" doc:"initial rate"`
	RTTch        bool    `yaml:"rttch" doc:"RTTch: move rtt_target to the mean sampled RTT when the RTT stays on one side of it (paper §3.5.4)"`
	RTTchNum     int     `yaml:"rttch_num" doc:"RTTch_num: the target moves after more than this many consecutive samples on one side"`
	RTTchCounter string  `yaml:"rttch_counter" doc:"signed: a run counter for either side (I10); literal: the paper's Table 2 counter, which counts only runs above the target"`
	RTTchFloor   string  `yaml:"rttch_floor" doc:"lowest target RTTch may set: base (the path's base RTT) or target (the configured rtt_target_us; I10)"`

	// loaded by Validate from the files named above (or the shipped ones)
	model      *nn.Sequential
	modelFrom  string
	gains      pidnnmodel.Gains
	gainsFrom  string
	gainsReady bool
}

// PIDNN gain sources (PIDNNParams.Gains).
const (
	PIDNNGainsTrained  = "trained"
	PIDNNGainsPaper    = "paper"
	PIDNNGainsInitial  = "initial"
	PIDNNGainsExplicit = "explicit"
)

// PIDNNDefaults returns the paper's values (docs/algorithms/pidnn.md §8):
// the LSTM predictor, the shipped trained gains, rtt_target 5 µs, σ 0.2,
// ∂ ∈ [−0.6, 0.5], rate ∈ [1, 100] Gb/s starting at 10 Gb/s, RTTch off with
// RTTch_num 6.
func PIDNNDefaults() *PIDNNParams {
	g := pidnnmodel.PaperLearnedGains
	return &PIDNNParams{
		Predictor: "lstm", Gains: PIDNNGainsTrained, Kp: g.Kp, Ki: g.Ki, Kd: g.Kd,
		RTTTargetUs: 5, Sigma: 0.2, DMin: -0.6, DMax: 0.5,
		RateMinGbps: 1, RateMaxGbps: 100, RateInitGbps: 10, RTTchNum: 6,
		RTTchCounter: "signed", RTTchFloor: "base",
	}
}

// Validate checks every field's range and loads the predictor and the gains
// (a missing, corrupt or wrong-shape file is an error naming the field).
func (p *PIDNNParams) Validate() error {
	d := pidnnmodel.PaperLearnedGains
	switch {
	case p.Predictor != "lstm" && p.Predictor != "none":
		return rangeErrS("predictor", p.Predictor, "lstm, none")
	case p.ModelFile != "" && p.Predictor != "lstm":
		return fmt.Errorf("model_file = %q needs predictor: lstm (predictor is %q)", p.ModelFile, p.Predictor)
	case p.Gains != PIDNNGainsTrained && p.Gains != PIDNNGainsPaper && p.Gains != PIDNNGainsInitial && p.Gains != PIDNNGainsExplicit:
		return rangeErrS("gains", p.Gains, "trained, paper, initial, explicit")
	case p.GainsFile != "" && p.Gains != PIDNNGainsTrained:
		return fmt.Errorf("gains_file = %q needs gains: trained (gains is %q)", p.GainsFile, p.Gains)
	case !(math.Abs(p.Kp) <= pidnnmodel.MaxGain):
		return rangeErr("kp", p.Kp, "-100", "100")
	case !(math.Abs(p.Ki) <= pidnnmodel.MaxGain):
		return rangeErr("ki", p.Ki, "-100", "100")
	case !(math.Abs(p.Kd) <= pidnnmodel.MaxGain):
		return rangeErr("kd", p.Kd, "-100", "100")
	case p.Gains != PIDNNGainsExplicit && (p.Kp != d.Kp || p.Ki != d.Ki || p.Kd != d.Kd):
		return fmt.Errorf("kp, ki, kd = %v, %v, %v are used only with gains: explicit (gains is %q)", p.Kp, p.Ki, p.Kd, p.Gains)
	case !(p.RTTTargetUs > 0 && p.RTTTargetUs <= 1e6):
		return rangeErr("rtt_target_us", p.RTTTargetUs, "0 (exclusive)", "1e6")
	case !(p.Sigma > 0 && p.Sigma <= 1):
		return rangeErr("sigma", p.Sigma, "0 (exclusive)", "1")
	case !(p.DMin > -1 && p.DMin <= 0):
		return rangeErr("dmin", p.DMin, "-1 (exclusive)", "0")
	case !(p.DMax >= 0 && p.DMax <= 10):
		return rangeErr("dmax", p.DMax, "0", "10")
	case !(p.RateMaxGbps > 0 && p.RateMaxGbps <= 1e4):
		return rangeErr("rate_max_gbps", p.RateMaxGbps, "0 (exclusive)", "1e4")
	case !(p.RateMinGbps >= 0.001 && p.RateMinGbps <= p.RateMaxGbps):
		return rangeErr("rate_min_gbps", p.RateMinGbps, "0.001", fmt.Sprint("rate_max_gbps = ", p.RateMaxGbps))
	case !(p.RateInitGbps >= p.RateMinGbps && p.RateInitGbps <= p.RateMaxGbps):
		return rangeErr("rate_init_gbps", p.RateInitGbps, fmt.Sprint("rate_min_gbps = ", p.RateMinGbps), fmt.Sprint("rate_max_gbps = ", p.RateMaxGbps))
	case p.RTTchNum < 1 || p.RTTchNum > 1_000_000:
		return rangeErr("rttch_num", p.RTTchNum, "1", "1000000")
	case p.RTTchCounter != "signed" && p.RTTchCounter != "literal":
		return rangeErrS("rttch_counter", p.RTTchCounter, "signed, literal")
	case p.RTTchFloor != "base" && p.RTTchFloor != "target":
		return rangeErrS("rttch_floor", p.RTTchFloor, "base, target")
	}
	return p.load()
}

// load reads the predictor and the gains the parameters name, once per
// file name (Validate may run more than once on the same parameters).
func (p *PIDNNParams) load() error {
	if p.Predictor == "lstm" && (p.model == nil || p.modelFrom != p.ModelFile) {
		var m *nn.Sequential
		var err error
		if p.ModelFile == "" {
			m, _, err = pidnnmodel.Shipped()
		} else {
			m, _, err = pidnnmodel.LoadPredictorFile(p.ModelFile)
		}
		if err != nil {
			return fmt.Errorf("model_file: %v", err)
		}
		p.model, p.modelFrom = m, p.ModelFile
	}
	switch p.Gains {
	case PIDNNGainsPaper:
		p.gains = pidnnmodel.PaperLearnedGains
	case PIDNNGainsInitial:
		p.gains = pidnnmodel.PaperInitialGains
	case PIDNNGainsExplicit:
		p.gains = pidnnmodel.Gains{Kp: p.Kp, Ki: p.Ki, Kd: p.Kd}
	case PIDNNGainsTrained:
		if !p.gainsReady || p.gainsFrom != p.GainsFile {
			var g pidnnmodel.Gains
			var err error
			if p.GainsFile == "" {
				_, g, err = pidnnmodel.Shipped()
			} else {
				g, _, err = pidnnmodel.LoadGainsFile(p.GainsFile)
			}
			if err != nil {
				return fmt.Errorf("gains_file: %v", err)
			}
			p.gainsFrom, p.gainsReady = p.GainsFile, true
			p.gains = g
			return nil
		}
	}
	return nil
}

// PIDNNTraining configures the online training of the gains (paper 001
// §3.5.2–3.5.3; docs/algorithms/pidnn.md §5.2, I12). Each flow trains its
// own controller: after every sample except the flow's first, its
// W ← W − μ(n)·clip(∂J/∂W) with μ(n) = Mu0/√(n+1), n the number of the
// flow's updates so far (t of eq. 26 is the order in the flow's series,
// §3.3).
type PIDNNTraining struct {
	Mu0  float64 // μ's scale (0.01)
	Clip float64 // each gradient component is clipped to [−Clip, Clip] (0.1)
	Beta float64 // the constant that replaces ∂rtt/∂rate (1.0)
	// Start is each flow's state at the start of the run, by QP id (its
	// gains and its updates in earlier runs), so that a flow continues its
	// own training over several runs; a flow without an entry starts from
	// the run's gains with no update.
	Start map[int32]PIDNNFlowState
}

// PIDNNFlowState is one flow's gain-training state: its gains and the
// number of updates it has made.
type PIDNNFlowState struct {
	Gains   pidnnmodel.Gains
	Updates int64
}

// DefaultPIDNNTraining returns the paper's training constants.
func DefaultPIDNNTraining() PIDNNTraining { return PIDNNTraining{Mu0: 0.01, Clip: 0.1, Beta: 1} }

// PIDNNRun is the state the PIDNN senders of one simulation run share: the
// constants, the predictor (one inference kernel per run: a run is
// single-threaded) and the gains every sender starts from. Each sender
// controls with its own copy of the gains (frozen, or trained online per
// flow: I12).
type PIDNNRun struct {
	p                PIDNNParams
	pred             *lstmPredictor
	gains            pidnnmodel.Gains
	training         bool
	tr               PIDNNTraining
	record           bool
	rmin, rmax, rini float64 // b/s
	senders          []*PIDNN
	jSum             float64 // Σ J of this run's gain updates
	updates          int64   // this run's gain updates, all flows
	kpPos            int64   // of which with ∂J/∂K_p > 0
}

// NewPIDNNRun returns the shared state of one run with the given (validated)
// parameters, predictor (nil for predictor: none) and gains. The registered
// algorithms use the predictor and gains Validate loaded; `ccsim train`
// supplies its own.
func NewPIDNNRun(p *PIDNNParams, predictor *nn.Sequential, g pidnnmodel.Gains) (*PIDNNRun, error) {
	r := &PIDNNRun{p: *p, gains: g, rmin: p.RateMinGbps * 1e9, rmax: p.RateMaxGbps * 1e9, rini: p.RateInitGbps * 1e9}
	r.p.model = nil
	if err := g.Check(); err != nil {
		return nil, fmt.Errorf("pidnn: gains: %v", err)
	}
	switch {
	case p.Predictor == "lstm" && predictor == nil:
		return nil, fmt.Errorf("pidnn: predictor: lstm needs a predictor model")
	case p.Predictor == "lstm":
		k, err := newLSTMPredictor(predictor)
		if err != nil {
			return nil, err
		}
		r.pred = k
	}
	return r, nil
}

// Train makes every sender of the run train its own gains online (from
// t.Start's state, else from the gains the run was made with); the senders'
// Gains and Updates report the result. It must be called before the run's
// senders are made (New).
func (r *PIDNNRun) Train(t PIDNNTraining) { r.training, r.tr = true, t }

// Record makes every sender keep its RTT samples (PIDNN.Samples) and, when
// training, its gains after each update (PIDNN.GainTrace).
func (r *PIDNNRun) Record() { r.record = true }

// Gains returns the gains the run was made with (every sender's gains when
// frozen; the starting point of a flow without a Start state when
// training).
func (r *PIDNNRun) Gains() pidnnmodel.Gains { return r.gains }

// Updates returns the number of gain updates in this run, over all flows.
func (r *PIDNNRun) Updates() int64 { return r.updates }

// KpGradPositive returns how many of this run's gain updates had
// ∂J/∂K_p > 0 (an update that lowers K_p; docs/algorithms/pidnn.md §11.2).
func (r *PIDNNRun) KpGradPositive() int64 { return r.kpPos }

// MeanJ is the mean of J = ½(R − rtt_target)² (µs²) over this run's gain
// updates (eq. 21; 0 without training).
func (r *PIDNNRun) MeanJ() float64 {
	if r.updates == 0 {
		return 0
	}
	return r.jSum / float64(r.updates)
}

// Senders returns the senders made so far (with Record or Train).
func (r *PIDNNRun) Senders() []*PIDNN { return r.senders }

// New returns the sender of QP q, with the run's gains or, when training,
// its flow's Start state.
func (r *PIDNNRun) New(q *fabric.QP) fabric.Algorithm {
	c := &PIDNN{run: r, Flow: q.ID, gains: r.gains}
	if r.training {
		if st, ok := r.tr.Start[q.ID]; ok {
			c.gains, c.updates = st.Gains, st.Updates
		}
	}
	if r.record || r.training {
		r.senders = append(r.senders, c)
	}
	return c
}

// RTTSampler takes one RTT sample per round trip, the rule of paper 001
// §3.2.1 (Fig. 6; docs/algorithms/pidnn.md §2): the first packet transmitted
// after the previous sample's ACK (the flow's first packet at the start) is
// timed; packets sent while it is outstanding are not; the ACK that first
// covers it gives RTT = now − its send time. The sender keeps the send time
// itself (no timestamp header, I1). A NACK or a retransmission timeout
// abandons the outstanding sample (its packet may be lost or discarded) and
// the next transmitted packet is timed instead (I2). The send hook is
// requested only while the next sample's packet is awaited, so it costs one
// call per RTT, not per packet.
type RTTSampler struct {
	sampling bool     // a timed packet is outstanding
	seq      int64    // its first byte
	sentAt   sim.Time // its send time
}

// Start arms the sampler on QP q: its first packet will be timed.
func (s *RTTSampler) Start(q *fabric.QP) {
	s.sampling = false
	q.WantSendHook = true
}

// OnSend is the algorithm's OnSend: the packet about to be sent (its first
// byte is q.SndNxt) is timed if none is outstanding.
func (s *RTTSampler) OnSend(q *fabric.QP, now sim.Time) {
	if !s.sampling {
		s.sampling, s.seq, s.sentAt = true, q.SndNxt, now
		q.WantSendHook = false
	}
}

// OnAck returns the RTT sample an ACK completes (ok false if none).
func (s *RTTSampler) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) (rtt sim.Time, ok bool) {
	if a.Nack {
		s.Abandon(q)
		return 0, false
	}
	if !s.sampling || a.Seq <= s.seq {
		return 0, false
	}
	s.sampling = false
	q.WantSendHook = true
	return now - s.sentAt, true
}

// Abandon drops the outstanding sample; the next transmitted packet is
// timed.
func (s *RTTSampler) Abandon(q *fabric.QP) {
	s.sampling = false
	q.WantSendHook = true
}

// PIDNN is one QP's sender.
type PIDNN struct {
	run  *PIDNNRun
	smp  RTTSampler
	Flow int32 // the QP's id (flow index)

	// N is the number of RTT samples so far (t of the paper is N−1 after
	// a step); S the EWMA S_t; K the features [K_{t−2}, K_{t−1}, K_t] (µs
	// units for RTTs).
	N    int64
	S    float64
	K    [3]float64
	Pred float64 // RTT_pred of the last step (µs)

	// Target is rtt_target (µs; RTTch moves it); Rate the controller's rate
	// (b/s, the pacer runs at ⌊Rate⌋); rmin and rmax its bounds for this QP.
	Target     float64
	Rate       float64
	rmin, rmax float64
	floor      float64 // µs: RTTch's lowest target (the path's base RTT or rtt_target)
	literal    bool    // RTTch: the paper's literal counter

	// PID state: E the last error, I its running mean over nI samples, D the
	// last difference, Delta the last (clamped) ∂.
	E, I, D, Delta float64
	nI             int64

	// the flow's controller gains (frozen, or trained online: I12), its
	// gain updates so far (earlier runs included) and this run's updates
	// with ∂J/∂K_p > 0
	gains   pidnnmodel.Gains
	updates int64
	kpPos   int64
	// gain training: the previous step's [e, I, D] and the rate before its
	// multiplication (rate(t−1) of eq. 24)
	prevOut  [3]float64
	prevRate float64

	// RTTch: signed run counter, deviations since the last move, moves
	count   int
	devSum  float64
	devN    int64
	Adjusts int

	// Samples holds every RTT sample in µs when the run records; GainTrace
	// the gains after each of this run's updates when it records and
	// trains.
	Samples   []float64
	GainTrace []pidnnmodel.Gains
}

// Gains returns the flow's gains (after its updates so far when training).
func (c *PIDNN) Gains() pidnnmodel.Gains { return c.gains }

// Updates returns the flow's gain updates so far, earlier runs included.
func (c *PIDNN) Updates() int64 { return c.updates }

// KpGradPositive returns how many of the flow's updates in this run had
// ∂J/∂K_p > 0.
func (c *PIDNN) KpGradPositive() int64 { return c.kpPos }

// Start sets the initial rate (10 Gb/s, capped by the line rate) and arms
// the RTT sampler.
func (c *PIDNN) Start(q *fabric.QP, now sim.Time) {
	r := c.run
	line := float64(q.LineRateBps)
	c.rmax = min(r.rmax, line)
	c.rmin = min(r.rmin, c.rmax)
	c.Rate = min(r.rini, c.rmax)
	c.Target = r.p.RTTTargetUs
	c.floor = float64(q.PathBaseRTT) / float64(sim.Microsecond)
	if r.p.RTTchFloor == "target" {
		c.floor = r.p.RTTTargetUs
	}
	c.literal = r.p.RTTchCounter == "literal"
	// the initial rate is not a decrease: set the field rather than
	// SetRate (which would count a rate cut from the line rate)
	q.RateBps = max(int64(c.Rate), 1)
	c.smp.Start(q)
}

// OnSend times the packet about to leave if the sampler waits for one.
func (c *PIDNN) OnSend(q *fabric.QP, size int, now sim.Time) { c.smp.OnSend(q, now) }

// OnAck runs the control step on the ACK that completes an RTT sample.
func (c *PIDNN) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {
	rtt, ok := c.smp.OnAck(q, a, now)
	if !ok {
		return
	}
	c.Step(q, float64(rtt)/float64(sim.Microsecond))
}

// OnTimeout abandons the outstanding sample (I2).
func (c *PIDNN) OnTimeout(q *fabric.QP, now sim.Time) { c.smp.Abandon(q) }

// OnNotice is unused.
func (c *PIDNN) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {}

// OnTimer is unused.
func (c *PIDNN) OnTimer(q *fabric.QP, id int, now sim.Time) {}

// Step is the per-sample algorithm (paper Table 3; docs/algorithms/pidnn.md
// §5.3) for the RTT sample R in µs; it sets q's rate (q may be nil in
// tests).
func (c *PIDNN) Step(q *fabric.QP, R float64) {
	r := c.run
	p := &r.p
	// preprocessing, eqs. (2), (3); the incremental EWMA gives the values
	// of the paper's sliding window [S_{t−3}, R_{t−2}, R_{t−1}, R_t] (I3)
	if c.N == 0 {
		c.S = R
	} else {
		c.S = float64(p.Sigma*R) + float64((1-p.Sigma)*c.S)
	}
	c.K[0], c.K[1], c.K[2] = c.K[1], c.K[2], (R-c.S)/c.S
	if r.record {
		c.Samples = append(c.Samples, R)
	}
	// online gain training with the measured sample that followed the
	// previous step (eqs. 21–26, I12)
	if r.training && c.N >= 1 {
		c.updateGains(R)
	}
	c.N++
	// prediction, eq. (12); the first two samples (t < 2) have no three
	// features yet and control on the measured RTT (I4)
	pred := R
	if r.pred != nil && c.N >= 3 {
		out := r.pred.predict(c.K[0], c.K[1], c.K[2])
		pred = float64((1 + out) * c.S)
	}
	c.Pred = pred
	// PID, eqs. (14)–(18): normalised error (I8), running mean (I5),
	// difference with e(−1) = e(0) (I6)
	e := (pred - c.Target) / c.Target
	c.nI++
	c.I += (e - c.I) / float64(c.nI)
	if c.N == 1 {
		c.E = e
	}
	c.D = e - c.E
	c.E = e
	g := c.gains
	d := float64(g.Kp*e) + float64(g.Ki*c.I) + float64(g.Kd*c.D)
	if math.IsNaN(d) {
		// a NaN passes min and max; the models are checked finite at
		// load (pidnnmodel.CheckPredictor, Gains.Check), so only an
		// overflow of the online gain training gets here: hold the rate
		d = 0
	}
	d = min(max(d, p.DMin), p.DMax) // eq. (20), I7
	c.Delta = d
	c.prevOut = [3]float64{e, c.I, c.D}
	c.prevRate = c.Rate
	// eq. (19) with the platform limits (I9)
	c.Rate = min(max(c.Rate*(1+d), c.rmin), c.rmax)
	if q != nil {
		q.SetRate(max(int64(c.Rate), 1))
	}
	if p.RTTch {
		c.rttch(R)
	}
}

// updateGains is one step of the flow's online gain training for the
// sample R (µs) that followed its previous control step: with the previous
// step's outputs [e, I, D] and the rate before it, rate(t−1) (I12),
//
//	∂J/∂W = (R − rtt_target)·β·rate(t−1)·[e, I, D]    (µs, Gb/s)
//	W ← W − μ(n)·clip(∂J/∂W, ±Clip),  μ(n) = Mu0/√(n+1),
//
// W the flow's gains and n the flow's updates so far.
func (c *PIDNN) updateGains(R float64) {
	r := c.run
	t := &r.tr
	scale := float64(float64((R-c.Target)*t.Beta) * (c.prevRate / 1e9))
	mu := t.Mu0 / math.Sqrt(float64(c.updates+1))
	if float64(scale*c.prevOut[0]) > 0 {
		c.kpPos++
		r.kpPos++
	}
	w := [3]*float64{&c.gains.Kp, &c.gains.Ki, &c.gains.Kd}
	for k, o := range c.prevOut {
		gk := min(max(float64(scale*o), -t.Clip), t.Clip)
		*w[k] -= float64(mu * gk)
	}
	c.updates++
	r.updates++
	r.jSum += 0.5 * float64((R-c.Target)*(R-c.Target))
	if r.record {
		c.GainTrace = append(c.GainTrace, c.gains)
	}
}

// rttch is the RTT-target adjustment (paper §3.5.4, Table 2, eqs. 27–28)
// with the signed run counter of I10: a run of samples on one side of the
// target longer than rttch_num moves the target by the mean deviation of the
// samples since the last move (so to their mean), floored at the path's
// base RTT; the counter, the deviation sum and the PID's running mean
// restart.
func (c *PIDNN) rttch(R float64) {
	b := -1
	if R-c.Target > 0 {
		b = 1
	}
	switch {
	case c.literal: // Table 2 as printed
		if c.count*b >= 0 {
			c.count++
		} else {
			c.count = 0
		}
	case c.count == 0 || (c.count > 0) == (b > 0):
		c.count += b
	default:
		c.count = b
	}
	c.devSum += R - c.Target
	c.devN++
	if c.count > c.run.p.RTTchNum || -c.count > c.run.p.RTTchNum {
		c.Target += c.devSum / float64(c.devN)
		c.Target = max(c.Target, c.floor)
		c.count, c.devSum, c.devN = 0, 0, 0
		c.I, c.nI = 0, 0
		c.Adjusts++
	}
}

// pidnnNew is the registry's constructor: one PIDNNRun per simulation run,
// with the predictor and gains Validate loaded.
func pidnnNew(pp Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
	p := pp.(*PIDNNParams)
	if err := p.load(); err != nil {
		// unreachable after Validate, which every scenario runs first
		panic("pidnn: parameters used without Validate: " + err.Error())
	}
	run, err := NewPIDNNRun(p, p.model, p.gains)
	if err != nil {
		panic("pidnn: parameters used without Validate: " + err.Error())
	}
	// ACKs in the NIC's high-priority class like TIMELY's preset (the RTT
	// should not include the receiver's data queue); no timestamp header:
	// the sender keeps the send time of its one timed packet (I1, I15)
	return run.New, fabric.Requirements{AckPrio: 1}
}

func init() {
	Register(&Spec{
		Name:     "pidnn",
		Summary:  "PIDNN (paper 001): one RTT sample per RTT, EWMA σ 0.2, LSTM RTT prediction, PID with frozen learned gains, rtt_target 5 µs, ∂ ∈ [−0.6, 0.5], rate ∈ [1, 100] Gb/s from 10 Gb/s",
		Defaults: func() Params { return PIDNNDefaults() },
		New:      pidnnNew,
	})
	Register(&Spec{
		Name:     "pid",
		Summary:  "PIDNN without the predictor (paper 001 §4.2.3, PID only): RTT_pred = R_t",
		Defaults: func() Params { p := PIDNNDefaults(); p.Predictor = "none"; return p },
		New:      pidnnNew,
	})
	Register(&Spec{
		Name:     "pidnn+rttch",
		Summary:  "PIDNN with RTTch (paper 001 §3.5.4): rtt_target moves to the mean RTT after more than 6 samples on one side; pidnn+rttch+win adds the variable window",
		Defaults: func() Params { p := PIDNNDefaults(); p.RTTch = true; return p },
		New:      pidnnNew,
	})
}

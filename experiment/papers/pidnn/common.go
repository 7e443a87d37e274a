package pidnn

// Shared by E1b–E1f: the 20:1 incast (paper 001 §4.2–4.3;
// scenarios/papers/pidnn/incast.yaml), its runs and readings, the paper's
// metrics read from them (unfinished flows censored at the run's end) and
// the paper's numbers compared in several experiments.

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
)

const incast = "incast.yaml"

// incastSizes are the 20 senders' bytes, 200, 200, 150 and 17 × 5 MB, divided
// by div.
func incastSizes(div int64) []any {
	out := []any{200_000_000 / div, 200_000_000 / div, 150_000_000 / div}
	for range 17 {
		out = append(out, 5_000_000/div)
	}
	return out
}

// quickDiv divides the incast's bytes at quick scale.
const quickDiv = 10

// nLarge are the incast's first senders, whose flows are far larger than
// the others' (paper §4.3.2: "前三个节点发送流大小远超过后 17 个节点").
const nLarge = 3

// e1Run is the incast run of algorithm c; target > 0 sets rtt_target_us
// (pidnn and pid only). Experiments that share a run build it here, so that
// it resolves to the same content hash and runs once. E1's runs are not
// declared with experiment.Sweep: their keys name the algorithm first
// ("cc=pidnn target=5") and the target goes into the algorithm's own
// parameters, so they are no grid of patches.
func e1Run(sc experiment.Scale, c string, target float64) experiment.RunSpec {
	patch := map[string]any{}
	key := "cc=" + c
	if target > 0 {
		patch["params"] = map[string]any{c: map[string]any{"rtt_target_us": target}}
		key += fmt.Sprintf(" target=%v", target)
	}
	if sc == experiment.ScaleQuick {
		patch["workload"] = map[string]any{"incast": map[string]any{"sizes_bytes": incastSizes(quickDiv)}}
	}
	return experiment.RunSpec{Key: key, Base: incast, CC: c, Patch: patch}
}

func keyOf(c string, target float64) string { return e1Run(experiment.ScalePaper, c, target).Key }

// The readings of E1's gains (paper §3.5.3, §4.2.3).
const (
	whyTrained    = `§3.5.3: the PID gains are learned online ("在仿真平台中部署还未训练的PIDNN … 多轮的训练后PIDNN参数收敛") and every evaluation uses the learned, then frozen, gains (§3.5.2: "之后的使用阶段是优化后的固定常数"); ccsim's LSTM is ccsim-trained too, so the pipeline is the paper's end to end. The gains are the long flow's from ccsim train pidnn (PID alone, one controller per flow, docs/algorithms/pidnn.md I12); the claims learned-kp/ki/kd of E1b compare them with the printed ones.`
	whyPaperGains = `§3.5.3 prints the learned gains [k_p k_i k_d] = [−0.358 −0.060 0.040] and §4.2.3 runs PID only with them ("使用上一章已经调整好的参数"): the paper's gains with ccsim's LSTM, which separates the controller from ccsim's gain training.`
)

// e1Readings are E1's readings: the gains of ccsim's training (primary) and
// the paper's printed gains. The patch names pid and pidnn only; the
// baselines' resolved runs are the same under both, so they run once.
func e1Readings() []experiment.Reading {
	return []experiment.Reading{
		{ID: "trained", Title: "the gains of ccsim's training (the long flow's, shipped in cc/pidnnmodel)", Why: whyTrained, Primary: true},
		{ID: "paper-gains", Title: "the paper's printed gains [−0.358, −0.060, 0.040]", Why: whyPaperGains,
			Patch: func(experiment.Scale) map[string]any {
				return map[string]any{"params": map[string]any{"pid": map[string]any{"gains": "paper"}, "pidnn": map[string]any{"gains": "paper"}}}
			}},
	}
}

// e1Result holds the paper's incast metrics (spec §2.4) of one run.
type e1Result struct {
	samples              int64
	rttMean, p99, rttMax float64 // µs, per-RTT samples of all senders
	rate                 float64 // RATE_mean, eq. (30): Σ sizes / Σ FCTs, Gb/s (an upper bound when censored > 0)
	fctMean, tFinish     float64 // ms: eq. (32), eq. (33) (lower bounds when censored > 0)
	lastFlow             int     // the flow with the largest FCT
	// maxLarge and maxSmall are the largest FCT (ms) of the first nLarge
	// flows and of the others; largeCens and smallCens say whether one of
	// them is censored (a lower bound)
	maxLarge, maxSmall   float64
	largeCens, smallCens bool
	censored             int // flows unfinished at the run's end, counted censored
}

// incastMetrics computes RATE_mean (eq. 30: Σ sizes / Σ FCTs over the
// flows, Gb/s), FCT_mean (eq. 32, ms) and T_finish (eq. 33: the largest
// FCT, ms; all flows start together), which flow finished last, and the
// largest FCT of the large and of the small flows. A flow unfinished at
// the run's end counts censored, FCT = end − start (a lower bound;
// docs/metrics.md §5): then FCT_mean and T_finish are lower bounds and
// RATE_mean an upper bound. A flow that never started is left out.
func incastMetrics(flows []metrics.FlowRecord, end sim.Time) (r e1Result) {
	var bytes, fctSum float64
	n := 0
	r.maxLarge, r.maxSmall = math.NaN(), math.NaN()
	for _, f := range flows {
		fct, cens := f.FCT(), false
		if !f.Done {
			if f.NotStarted || end == metrics.NoCensoring || f.Start >= end {
				continue
			}
			fct, cens = end-f.Start, true
			r.censored++
		}
		ms := fct.Seconds() * 1e3
		bytes += float64(f.SizeBytes)
		fctSum += fct.Seconds()
		n++
		if n == 1 || ms > r.tFinish {
			r.tFinish, r.lastFlow = ms, f.ID
		}
		if f.ID < nLarge {
			if math.IsNaN(r.maxLarge) || ms > r.maxLarge {
				r.maxLarge, r.largeCens = ms, cens
			}
		} else if math.IsNaN(r.maxSmall) || ms > r.maxSmall {
			r.maxSmall, r.smallCens = ms, cens
		}
	}
	r.rate, r.fctMean = math.NaN(), math.NaN()
	if n > 0 {
		r.rate = bytes * 8 / fctSum / 1e9
		r.fctMean = fctSum / float64(n) * 1e3
	}
	return r
}

// readE1 reads the incast metrics of the run keyed key.
func readE1(ctx *experiment.Context, key string) (*e1Result, error) {
	run, err := ctx.Run(key)
	if err != nil {
		return nil, err
	}
	fl, err := run.Flows()
	if err != nil {
		return nil, err
	}
	s, err := run.Summary()
	if err != nil {
		return nil, err
	}
	r := incastMetrics(fl, s.End())
	if s.RTTPerRTT == nil {
		return nil, fmt.Errorf("%s: summary.json has no rtt_per_rtt", run.Dir)
	}
	r.samples, r.rttMean, r.p99, r.rttMax = s.RTTPerRTT.Samples, s.RTTPerRTT.MeanUs, s.RTTPerRTT.P99Us, s.RTTPerRTT.MaxUs
	return &r, nil
}

// readPIDRuns reads PID only and LSTM+PID at every target (E1cd, E1e).
func readPIDRuns(ctx *experiment.Context) (pid *e1Result, nn map[float64]*e1Result, err error) {
	if pid, err = readE1(ctx, keyOf("pid", 5)); err != nil {
		return nil, nil, err
	}
	nn = map[float64]*e1Result{}
	for _, t := range targets {
		if nn[t], err = readE1(ctx, keyOf("pidnn", t)); err != nil {
			return nil, nil, err
		}
	}
	return pid, nn, nil
}

// paper's numbers (Tables 4, 5; §4.2.3)
type paperRow struct{ rttMean, rate, p99, rttMax, fctMean, tFinish float64 }

var (
	paperPID    = paperRow{4.9616, 14.7977, 7.462, 24.552, math.NaN(), math.NaN()}
	paperTarget = map[float64]paperRow{
		5: {5.0302, 21.1789, 6.276, 21.144, 11.9930, 53.7560},
		6: {6.0611, 15.7269, 10.253, 23.986, 16.1507, 53.6880},
		7: {7.1478, 11.2404, 12.906, 48.699, 22.5970, 53.5559},
	}
)

// metric is one of the paper's incast metrics: its id in claim ids, its
// name, unit, and how to read it from a result and a paper row.
type metric struct {
	id, name, unit string
	of             func(*e1Result) float64
	paper          func(paperRow) float64
	// bound is how censored flows bound the value: +1 a lower bound
	// (FCT_mean, T_finish), −1 an upper bound (RATE_mean), 0 exact
	bound int
}

var (
	mMean  = metric{"rtt-mean", "mean RTT", "µs", func(r *e1Result) float64 { return r.rttMean }, func(p paperRow) float64 { return p.rttMean }, 0}
	mRate  = metric{"rate", "RATE_mean", "Gb/s", func(r *e1Result) float64 { return r.rate }, func(p paperRow) float64 { return p.rate }, -1}
	mP99   = metric{"p99", "P99 RTT", "µs", func(r *e1Result) float64 { return r.p99 }, func(p paperRow) float64 { return p.p99 }, 0}
	mMax   = metric{"max", "max RTT", "µs", func(r *e1Result) float64 { return r.rttMax }, func(p paperRow) float64 { return p.rttMax }, 0}
	mFCT   = metric{"fct-mean", "FCT_mean", "ms", func(r *e1Result) float64 { return r.fctMean }, func(p paperRow) float64 { return p.fctMean }, 1}
	mTFin  = metric{"tfinish", "T_finish", "ms", func(r *e1Result) float64 { return r.tFinish }, func(p paperRow) float64 { return p.tFinish }, 1}
	rttRow = []metric{mMean, mRate, mP99, mMax}
)

// magnitude is the measure of a magnitude claim on metric m of run r: its
// value, a lower bound when censored flows bound it from below. A value
// that censored flows bound from above (RATE_mean) has no measure: the
// machinery marks lower bounds only, so the claim is left unmeasured (n/a,
// with the reason) rather than decided on a bound of the wrong side.
func magnitude(m metric, r *e1Result) (experiment.Measure, bool) {
	if r.censored > 0 && m.bound < 0 {
		return experiment.Measure{}, false
	}
	x := experiment.MagOf(m.of(r))
	if r.censored > 0 && m.bound > 0 {
		x.MagLower = []bool{true}
		x.Note = fmt.Sprintf("%d flows censored at the run's end: a lower bound", r.censored)
	}
	return x, true
}

// lowerIf marks the values of an order or direction over metric m that are
// lower bounds (censored flows, m.bound > 0); ok is false when a value is
// an upper bound (m.bound < 0 with censored flows), which the machinery
// cannot mark.
func lowerIf(m metric, rs ...*e1Result) (low []bool, ok bool) {
	low = make([]bool, len(rs))
	for i, r := range rs {
		switch {
		case r.censored == 0 || m.bound == 0:
		case m.bound > 0:
			low[i] = true
		default:
			return nil, false
		}
	}
	return low, true
}

// e1SetupAt is the incast's setup text at scale sc (the quick run's sizes
// at quick scale).
func e1SetupAt(sc experiment.Scale) string {
	sizes := "200 MB, 200 MB, 150 MB and 17 × 5 MB (MB = 10^6 B, 635 MB in all)"
	if sc == experiment.ScaleQuick {
		sizes = "20 MB, 20 MB, 15 MB and 17 × 0.5 MB (MB = 10^6 B, 63.5 MB in all: the quick scale divides the paper's 200, 200, 150 and 17 × 5 MB by 10, so the numbers are not comparable with the paper's)"
	}
	return `The 20:1 incast (scenarios/papers/pidnn/incast.yaml): 20 senders on one switch send ` + sizes + ` to one receiver, all starting at t = 0. Interpretations of what the paper leaves open: all links 100 Gb/s with 1 µs propagation (the paper's minimum RTT of about 4 µs is two links each way; the paper's 635 MB in 53.7 ms needs a bottleneck of at least 94.5 Gb/s: the checks), 1000-B payloads, a 32-MB shared buffer with dynamic PFC, ECN thresholds and ACK priority from each algorithm's reference preset (the paper used the reference simulator's settings). PIDNN and PID start at 10 Gb/s, the others at line rate (paper §4.1.2). PIDNN uses the shipped predictor (ccsim train pidnn, seed 1); its gains are the reading's (below).

Metrics (paper §4.1.3; docs/reproduce.md, "Paper 001 (PIDNN): metric definitions"): the RTT metrics are over one RTT sample per RTT per flow of all 20 senders (the first packet sent after the previous sample's ACK returned), taken by the host with the same rule for every algorithm (outputs.rtt_per_rtt): mean (eq. 29), P99 (the sample at index ⌊0.99·n⌋ of the sorted samples) and max (eq. 31, start-up included). RATE_mean (eq. 30) = Σ flow sizes / Σ FCTs over the 20 flows; FCT_mean (eq. 32) = mean FCT of the 20 flows; T_finish (eq. 33) = the largest FCT. A flow unfinished at the run's end would count censored (FCT = end − start, a lower bound; the tables say how many); the incast is deterministic (no random pairs, no ECMP, every flow at t = 0), so each run has one seed.`
}

func rowCells(r *e1Result) []string {
	cells := []string{experiment.G4Dash(r.rttMean), experiment.G4Dash(r.rate), experiment.G4Dash(r.p99), experiment.G4Dash(r.rttMax), experiment.G4Dash(r.fctMean), experiment.G4Dash(r.tFinish), fmt.Sprint(r.censored)}
	if r.censored > 0 {
		cells[1], cells[4], cells[5] = "≤"+cells[1], "≥"+cells[4], "≥"+cells[5]
	}
	return cells
}

func paperCells(p paperRow) []string {
	return []string{experiment.G4Dash(p.rttMean), experiment.G4Dash(p.rate), experiment.G4Dash(p.p99), experiment.G4Dash(p.rttMax), experiment.G4Dash(p.fctMean), experiment.G4Dash(p.tFinish), ""}
}

var e1Cols = []string{"mean RTT (µs)", "RATE_mean (Gb/s)", "P99 RTT (µs)", "max RTT (µs)", "FCT_mean (ms)", "T_finish (ms)", "censored flows"}

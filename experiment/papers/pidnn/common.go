package pidnn

// Shared by E1b–E1f: the 20:1 incast (paper 001 §4.2–4.3;
// scenarios/papers/pidnn/incast.yaml), its runs, the paper's metrics read
// from them and the paper's numbers compared in several experiments.

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
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

// e1Run is the incast run of algorithm c; target > 0 sets rtt_target_us
// (pidnn and pid only). Experiments that share a run build it here, so
// that it resolves to the same content hash and runs once.
func e1Run(sc experiment.Scale, c string, target float64) experiment.RunSpec {
	return e1RunGains(sc, c, target, "")
}

// e1RunGains is e1Run with PIDNN's gains parameter set (gains "paper": the
// paper's learned gains instead of the shipped trained ones). E1's runs
// are not declared with experiment.Sweep: their keys name the algorithm
// first ("cc=pidnn target=5 gains=paper"), and the target and the gains go
// into the algorithm's own parameters, so they are no grid of patches.
func e1RunGains(sc experiment.Scale, c string, target float64, gains string) experiment.RunSpec {
	patch := map[string]any{}
	key := "cc=" + c
	if target > 0 {
		p := map[string]any{"rtt_target_us": target}
		if gains != "" {
			p["gains"] = gains
		}
		patch["params"] = map[string]any{c: p}
		key += fmt.Sprintf(" target=%v", target)
		if gains != "" {
			key += " gains=" + gains
		}
	}
	if sc == experiment.ScaleQuick {
		patch["workload"] = map[string]any{"incast": map[string]any{"sizes_bytes": incastSizes(quickDiv)}}
	}
	return experiment.RunSpec{Key: key, Base: incast, CC: c, Patch: patch}
}

// e1Result holds the paper's incast metrics (spec §2.4) of one run.
type e1Result struct {
	samples              int64
	rttMean, p99, rttMax float64 // µs, per-RTT samples of all senders
	rate                 float64 // RATE_mean, eq. (30): Σ sizes / Σ FCTs, Gb/s
	fctMean, tFinish     float64 // ms: eq. (32), eq. (33)
	lastFlow             int     // the flow with the largest FCT
	lastSize             int64
	unfinished           int
}

// incastMetrics computes RATE_mean (eq. 30: Σ sizes / Σ FCTs over the
// flows, Gb/s), FCT_mean (eq. 32, ms) and T_finish (eq. 33: the largest
// FCT, ms; all flows start together) from finished flows, and which flow
// finished last.
func incastMetrics(flows []metrics.FlowRecord) (r e1Result) {
	var bytes, fctSum float64
	n := 0
	for _, f := range flows {
		if !f.Done {
			r.unfinished++
			continue
		}
		fct := f.FCT().Seconds()
		bytes += float64(f.SizeBytes)
		fctSum += fct
		n++
		if ms := fct * 1e3; n == 1 || ms > r.tFinish {
			r.tFinish, r.lastFlow, r.lastSize = ms, f.ID, f.SizeBytes
		}
	}
	r.rate, r.fctMean = math.NaN(), math.NaN()
	if n > 0 {
		r.rate = bytes * 8 / fctSum / 1e9
		r.fctMean = fctSum / float64(n) * 1e3
	}
	return r
}

func readE1(ctx *experiment.Context, key string) (*e1Result, error) {
	run, err := ctx.Run(key)
	if err != nil {
		return nil, err
	}
	fl, err := run.Flows()
	if err != nil {
		return nil, err
	}
	r := incastMetrics(fl)
	s, err := run.Summary()
	if err != nil {
		return nil, err
	}
	if s.RTTPerRTT == nil {
		return nil, fmt.Errorf("%s: summary.json has no rtt_per_rtt", run.Dir)
	}
	r.samples, r.rttMean, r.p99, r.rttMax = s.RTTPerRTT.Samples, s.RTTPerRTT.MeanUs, s.RTTPerRTT.P99Us, s.RTTPerRTT.MaxUs
	return &r, nil
}

func keyOf(c string, target float64) string { return e1Run(experiment.ScalePaper, c, target).Key }

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

const e1Setup = `The 20:1 incast (scenarios/papers/pidnn/incast.yaml): 20 senders on one switch send 200 MB, 200 MB, 150 MB and 17 × 5 MB (MB = 10^6 B, 635 MB in all) to one receiver, all starting at t = 0. Interpretations of what the paper leaves open: all links 100 Gb/s with 1 µs propagation (the paper's minimum RTT of about 4 µs is two links each way; 635 MB in 53.7 ms needs a 100-Gb/s bottleneck), 1000-B payloads, a 32-MB shared buffer with dynamic PFC, ECN thresholds and ACK priority from each algorithm's reference preset (the paper used the reference simulator's settings). PIDNN and PID start at 10 Gb/s, the others at line rate (paper §4.1.2). PIDNN uses the shipped model files (ccsim train pidnn, seed 1): its trained gains are [−0.573, −0.026, −0.005], not the paper's [−0.358, −0.060, 0.040] (docs/algorithms/pidnn.md §11.2).

Metrics (paper §4.1.3; docs/reproduce.md, "Paper 001 (PIDNN): metric definitions"): the RTT metrics are over one RTT sample per RTT per flow of all 20 senders (the first packet sent after the previous sample's ACK returned), taken by the host with the same rule for every algorithm (outputs.rtt_per_rtt): mean (eq. 29), P99 (the sample at index ⌊0.99·n⌋ of the sorted samples) and max (eq. 31, start-up included). RATE_mean (eq. 30) = Σ flow sizes / Σ FCTs over the 20 flows; FCT_mean (eq. 32) = mean FCT of the 20 flows; T_finish (eq. 33) = the largest FCT. At quick scale every flow is 10× smaller, so numbers are not comparable with the paper's.`

func rowCells(r *e1Result) []string {
	return []string{experiment.G4Dash(r.rttMean), experiment.G4Dash(r.rate), experiment.G4Dash(r.p99), experiment.G4Dash(r.rttMax), experiment.G4Dash(r.fctMean), experiment.G4Dash(r.tFinish)}
}

func paperCells(p paperRow) []string {
	return []string{experiment.G4Dash(p.rttMean), experiment.G4Dash(p.rate), experiment.G4Dash(p.p99), experiment.G4Dash(p.rttMax), experiment.G4Dash(p.fctMean), experiment.G4Dash(p.tFinish)}
}

var e1Cols = []string{"mean RTT (µs)", "RATE_mean (Gb/s)", "P99 RTT (µs)", "max RTT (µs)", "FCT_mean (ms)", "T_finish (ms)"}

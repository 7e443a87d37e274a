package dcon

// The testbed burst of E0 and E1 (scenarios/papers/dcon/testbed.yaml): its
// schedule and runs at each scale, the setup text, and the table and
// figures of both experiments. What is read from a run: burstread.go.

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/topo"
)

const testbed = "testbed.yaml"

// tb holds the testbed's nodes and the ports the paper samples.
var tb = topo.DCONTestbedNodes()

// burstTiming is the E0/E1 schedule at a scale: long flows from 0, the
// burst from start for dur (count flows per sender, evenly spread), the run
// until stop; the windows before and after the burst the analysis averages.
type burstTiming struct {
	startMs, durMs, stopMs float64
	count                  int
	longBytes              int64
}

func timing(sc experiment.Scale) burstTiming {
	if sc == experiment.ScaleQuick {
		return burstTiming{startMs: 2, durMs: 1, stopMs: 5, count: 5, longBytes: 50_000_000}
	}
	// DCQCN needs ~25 ms to climb back to 20 Gb/s after its first cut
	// (R_AI = 40 Mb/s per 55 µs): the burst starts at 40 ms, the run
	// ends 32 ms after it, and each long flow is big enough to last
	return burstTiming{startMs: 40, durMs: 8, stopMs: 80, count: 35, longBytes: 1_000_000_000}
}

// windows: before the burst [preFrom, start), during it [start, burstTo)
// (the burst and 1 ms of draining), after it [afterFrom, stop), in ms.
func (t burstTiming) preFrom() float64   { return max(0, t.startMs-5) }
func (t burstTiming) burstTo() float64   { return t.startMs + t.durMs + 1 }
func (t burstTiming) afterFrom() float64 { return max(t.burstTo(), t.stopMs-5) }

// burstRuns are the E0/E1 runs, one per algorithm and seed: f0 H0 → R0 and
// f1 H1 → R1 pinned through S1 (the paper's port names need them there),
// converged before the burst; H2–H15 each send count flows of 64 KB to R1
// over dur. DCQCN runs with the paper's parameters.
func burstRuns(sc experiment.Scale, ccs ...string) []experiment.RunSpec {
	t := timing(sc)
	patch := map[string]any{
		"stop_ms": t.stopMs,
		"workload": map[string]any{"long_short": map[string]any{
			"long_size_bytes": t.longBytes,
			"short_count":     t.count,
			"short_start_ns":  t.startMs * 1e6,
			"interval_us":     t.durMs * 1e3 / float64(t.count),
		}},
	}
	return experiment.Sweep{Base: testbed, Patch: patch, CC: ccs, CCPatch: ccPatch(), Seeds: experiment.Seeds(sc)}.Expand()
}

// burstSetup is the E0/E1 setup text at a scale.
func burstSetup(sc experiment.Scale) string {
	t := timing(sc)
	ms := func(x float64) string { return fmt.Sprintf("%g ms", x) }
	converged := "run alone for " + ms(t.startMs) + ` (interpretation of "already converged", §3.1: DCQCN with the DCQCN paper's R_AI of 40 Mb/s per 55 µs needs about 25 ms to climb back to 20 Gb/s after its first cut)`
	if sc == experiment.ScaleQuick {
		converged = "run alone for " + ms(t.startMs) + " only (quick scale: DCQCN has not converged when the burst starts, so the quick run does not meet the paper's premise; the paper-scale burst starts at 40 ms)"
	}
	return fmt.Sprintf(`The testbed (topology T4, kind dcon_testbed): leaves L0, L1, L2; spines S0, S1; senders H0–H7 on L0, H8–H15 on L1; receivers R0, R1 on L2; all links 40 Gb/s, 5 µs per link (base RTT 40 µs); 22 MB shared buffer per switch, PFC on every port with a static PAUSE threshold of 320 KB per ingress queue; ECN at 200 KB (DCQCN: step marking at dequeue, kmin = kmax = 200 KB; DCON: its own step at enqueue, Q_ECN = 200 KB, dynamic Q_CNM with M the number of egress queues holding an ingress's bytes, T = 3 RTT).

Two long flows f0: H0 → R0 and f1: H1 → R1 are pinned through spine S1 (interpretation: they must share the S1 → L2 link to converge to the paper's 20 Gb/s each; §3.1 and Fig. 2 name S1's P0, §3.2 and §6.1.1 write "S0": read as a typo), start at 0 and %s. The burst: H2–H15 each send %d flows of 64 KB (64,000 B) to R1, one every %s / %d = %.1f µs, from %s to %s (ordinary ECMP over S0 and S1, so half of it crosses S1: the only reading that gives both the PAUSE frames S1 → L1 of §3.1 and P1/L2's backlog); the run stops at %s. f1 and the burst flows are congested (they converge on P2/L2, L2's port to R1); f0 is not, but shares L2's ingress from S1 (P1/L2) with f1 and half of the burst. Seeds: %d (ECMP hashing of the burst flows).

DCQCN is the paper's baseline with the DCQCN paper's default parameters (docs/algorithms/dcqcn.md §4; α and increase timers 55 µs, byte counter 10 MB, F = 5, g = 1/256, R_AI 40 Mb/s), a CNP per flow at most every 50 µs. Measured as in Figs. 2 and 6: queue length at P2/L2 (L2 → R1), at P1/L2 (what L2 holds that came from S1: the ingress queue PFC watches) and at P0/S1 (S1 → L2), every 1 µs, max per 20 µs; PFC PAUSE frames on L2 → S1, S1 → L0, S1 → L1 per 100 µs, and the time each transmitter was paused (pfc.txt); throughput of f0 and f1 per 100 µs as the wire rate (payload goodput × 1048/1000: the paper's fair share of 20 Gb/s is a link rate). Windows: before the burst %s–%s, during it %s–%s (the burst and 1 ms of draining), after it %s–%s; the PFC period is from the first to the last moment L2 pauses S1 in the burst window (the burst window itself when L2 never pauses S1). "Near zero" (接近零, no number given) is read as below 10 %% of the rate before the burst, on the mean over the PFC period.`,
		converged, t.count, ms(t.durMs), t.count, t.durMs*1e3/float64(t.count), ms(t.startMs), ms(t.startMs+t.durMs), ms(t.stopMs), len(experiment.Seeds(sc)),
		ms(t.preFrom()), ms(t.startMs), ms(t.startMs), ms(t.burstTo()), ms(t.afterFrom()), ms(t.stopMs))
}

// links whose PAUSE frames the paper plots: from → to (pfc_bins.csv's
// sending port).
var pauseLinks = []struct {
	name             string
	fromNode, fromPt int
}{
	{"L2→S1", tb.L[2], tb.P1L2.Port},
	{"S1→L0", tb.S[1], tb.SpineDownlink(1, 0).Port},
	{"S1→L1", tb.S[1], tb.SpineDownlink(1, 1).Port},
}

// pausedPorts are the transmitters whose paused time the analysis reads
// (pfc.txt): f0's path H0 → L0 → S1 → L2, and L1's uplink to S1.
var pausedPorts = []struct {
	name string
	at   topo.NodePort
}{
	{"H0 (f0's NIC)", topo.NodePort{Node: tb.H[0], Port: 0}},
	{"L0 → S1", tb.LeafUplink(0, 1)},
	{"S1 → L2 (P0/S1)", tb.P0S1},
	{"L1 → S1", tb.LeafUplink(1, 1)},
}

// f0Path are the pausedPorts on f0's path.
var f0Path = []string{"H0 (f0's NIC)", "L0 → S1", "S1 → L2 (P0/S1)"}

// burstFigures draws the paper's panels for one algorithm's run: queues,
// PAUSE rate, throughput of f0 and f1.
func burstFigures(id, alg string, r *burstRun) []report.Figure {
	seed := fmt.Sprintf(" (seed %d)", r.seed)
	q := report.Figure{ID: id + "-queues", Title: alg + ": queue length (max per 20 µs)" + seed, XLabel: "time (ms)", YLabel: "KB", Step: true}
	for i, name := range queueNames {
		x := r.q[name]
		q.Series = append(q.Series, report.Series{Label: name, X: x[0], Y: x[1], Style: i + 1})
	}
	p := report.Figure{ID: id + "-pause", Title: alg + ": PFC PAUSE frames per ms" + seed, XLabel: "time (ms)", YLabel: "PAUSE frames / ms", Step: true}
	for i, l := range pauseLinks {
		x := r.pfc[l.name]
		p.Series = append(p.Series, report.Series{Label: l.name, X: x[0], Y: x[1], Points: true, Style: i + 1})
	}
	th := report.Figure{ID: id + "-throughput", Title: alg + ": throughput of f0 (H0 → R0) and f1 (H1 → R1)" + seed, XLabel: "time (ms)", YLabel: "Gb/s (wire rate)", Step: true}
	for k, name := range []string{"f0", "f1"} {
		th.Series = append(th.Series, report.Series{Label: name, X: r.rate[k][0], Y: r.rate[k][1], Style: k + 1})
	}
	return []report.Figure{th, q, p}
}

// burstTable is the E0/E1 table: each algorithm's metrics as the mean over
// its seeds (and their range).
func burstTable(title string, res map[string][]*burstRun, order []string) report.Table {
	t := report.Table{ID: "burst", Title: title + " (mean over the seeds, their range in brackets)", Columns: append([]string{"metric"}, order...)}
	row := func(name string, f func(r *burstRun) float64) {
		line := []string{name}
		for _, a := range order {
			line = append(line, sampleCell(over(res[a], f)))
		}
		t.Rows = append(t.Rows, line)
	}
	for k, f := range []string{"f0", "f1"} {
		row(f+" before the burst (Gb/s)", func(r *burstRun) float64 { return r.pre[k] })
		row(f+" mean during the burst (Gb/s)", func(r *burstRun) float64 { return r.mean[k] })
		row(f+" mean during the PFC period (Gb/s)", func(r *burstRun) float64 { return r.pfcMean[k] })
		row(f+" lowest 100 µs during the burst (Gb/s)", func(r *burstRun) float64 { return r.low[k] })
		row(f+" after the burst (Gb/s)", func(r *burstRun) float64 { return r.after[k] })
	}
	row("PFC period (L2 pauses S1), ms", func(r *burstRun) float64 { return r.pfcTo - r.pfcFrom })
	for _, name := range queueNames {
		row("max queue "+name+" (KB)", func(r *burstRun) float64 { return r.qMax[name] / 1e3 })
	}
	for _, l := range pauseLinks {
		row("PAUSE frames "+l.name, func(r *burstRun) float64 { return float64(r.frames[l.name]) })
	}
	for _, p := range pausedPorts {
		row("µs "+p.name+" paused during the burst", func(r *burstRun) float64 { return r.paused[p.name] })
	}
	row("PAUSE frames, all links", func(r *burstRun) float64 { return float64(r.pfcTotal) })
	row("short flows unfinished at the end", func(r *burstRun) float64 { return float64(r.unfinishedShort) })
	return t
}

// over is f of each run, one value per seed.
func over(runs []*burstRun, f func(*burstRun) float64) experiment.Sample {
	out := make(experiment.Sample, len(runs))
	for i, r := range runs {
		out[i] = f(r)
	}
	return out
}

// worst is the largest value of a sample, as a sample of one: a claim that
// something never happens holds only if it holds in every seed.
func worst(s experiment.Sample) experiment.Sample {
	w := math.Inf(-1)
	for _, x := range s {
		w = max(w, x)
	}
	return experiment.Sample{w}
}

// sampleCell is a table cell: the mean, and the range over several seeds.
func sampleCell(s experiment.Sample) string {
	if len(s) <= 1 {
		return experiment.G4DashNaN(s.Mean())
	}
	lo, hi := s.Span()
	return fmt.Sprintf("%s [%s … %s]", experiment.G4DashNaN(s.Mean()), experiment.G4DashNaN(lo), experiment.G4DashNaN(hi))
}

// seedsText lists a sample's values ("0, 3, 1").
func seedsText(s experiment.Sample) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += experiment.G4(x)
	}
	return out
}

// nearZero is the "near zero" band (接近零): below this fraction of the
// rate before the burst (interpretation; the text gives no number).
const nearZero = 0.1

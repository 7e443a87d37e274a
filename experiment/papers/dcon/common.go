package dcon

// Shared by several experiments: the testbed burst of E0 and E1 (its
// runs, what is read from them, the table and figures of both), and the
// leaf-spine of E3 and E4 (its size and patches at each scale, the point
// read from a run).

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// ---- The testbed burst (E0, E1): scenarios/papers/dcon/testbed.yaml

const testbed = "testbed.yaml"

// tb holds the testbed's nodes and the ports the paper samples.
var tb = topo.DCONTestbedNodes()

// burstTiming is the E0/E1 schedule at a scale: long flows from 0, the
// burst from start for dur (35 flows per sender, evenly spread), the run
// until stop.
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

// burstRuns are the E0/E1 runs, one per algorithm: f0 H0 → R0 and f1 H1
// → R1 pinned through S1 (the paper's port names need them there),
// converged before the burst; H2–H15 each send 35 flows of 64 KB to R1
// over 8 ms. DCQCN runs with the paper's parameters.
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
	return experiment.Sweep{Base: testbed, Patch: patch, CC: ccs, CCPatch: map[string]map[string]any{"dcqcn": dcqcnPaper()}}.Expand()
}

// burstResult is what E0/E1 read from a run.
type burstResult struct {
	pre, min, mean, after [2]float64 // f0, f1 (Gb/s): before, during (min over bins, mean), after the burst
	rate                  [2][2][]float64
	qMax                  map[string]float64 // bytes, by port name
	q                     map[string][2][]float64
	pauses                map[string]int64 // PAUSE frames by link
	pfc                   map[string][2][]float64
	pfcTotal              int64
	unfinishedShort       int
}

// links whose PAUSE frames the paper plots: from → to.
var pauseLinks = []struct {
	name             string
	fromNode, fromPt int
}{
	{"L2→S1", tb.L[2], tb.P1L2.Port},
	{"S1→L0", tb.S[1], tb.SpineDownlink(1, 0).Port},
	{"S1→L1", tb.S[1], tb.SpineDownlink(1, 1).Port},
}

// analyseBurst reads one run: f0's and f1's rates around the burst, the
// sampled queues and the PAUSE frames of the plotted links.
func analyseBurst(run *experiment.RunRef, t burstTiming) (*burstResult, error) {
	r := &burstResult{qMax: map[string]float64{}, q: map[string][2][]float64{}, pauses: map[string]int64{}, pfc: map[string][2][]float64{}}
	recs, err := run.Flows()
	if err != nil {
		return nil, err
	}
	ids := [2]int{-1, -1}
	for _, f := range recs {
		switch {
		case f.Src == tb.H[0] && f.Dst == tb.R[0] && ids[0] < 0:
			ids[0] = f.ID
		case f.Src == tb.H[1] && f.Dst == tb.R[1] && ids[1] < 0:
			ids[1] = f.ID
		case f.Src != tb.H[0] && f.Src != tb.H[1] && !f.Done:
			r.unfinishedShort++
		}
	}
	if ids[0] < 0 || ids[1] < 0 {
		return nil, fmt.Errorf("f0 (H0 → R0) or f1 (H1 → R1) missing from flows.csv")
	}
	if err := r.readRates(run, t, ids); err != nil {
		return nil, err
	}
	if err := r.readQueues(run); err != nil {
		return nil, err
	}
	if err := r.readPauses(run); err != nil {
		return nil, err
	}
	return r, nil
}

// ms converts ns to ms.
func ms(x float64) float64 { return x / 1e6 }

// readRates reads f0's and f1's rate per bin (flows ids[0], ids[1]) and
// their means before, during (and lowest) and after the burst.
func (r *burstResult) readRates(run *experiment.RunRef, t burstTiming, ids [2]int) error {
	fr, err := run.Table("flow_rate.csv")
	if err != nil {
		return err
	}
	v, err := fr.FloatCols("bin_start_ns", "bin_ns", "flow", "gbps")
	if err != nil {
		return err
	}
	s, e := t.startMs, t.startMs+t.durMs
	for k, id := range ids {
		var n, nb, na int
		r.min[k] = math.Inf(1)
		for i := range v[0] {
			if int(v[2][i]) != id || v[1][i] < 1000 {
				continue
			}
			at, g := ms(v[0][i]), v[3][i]
			r.rate[k][0] = append(r.rate[k][0], at)
			r.rate[k][1] = append(r.rate[k][1], g)
			switch {
			case at >= max(0, s-5) && at+ms(v[1][i]) <= s:
				r.pre[k] += g
				n++
			case at >= s && at < e+1:
				r.min[k] = math.Min(r.min[k], g)
				r.mean[k] += g
				nb++
			case at >= max(e+1, t.stopMs-5) && at+ms(v[1][i]) <= t.stopMs:
				r.after[k] += g
				na++
			}
		}
		r.pre[k] /= float64(max(n, 1))
		r.mean[k] /= float64(max(nb, 1))
		r.after[k] /= float64(max(na, 1))
	}
	return nil
}

// readQueues reads the three sampled queues (P2/L2, P0/S1, and P1/L2's
// ingress) and their maxima.
func (r *burstResult) readQueues(run *experiment.RunRef) error {
	qs, err := run.Table("queue_series.csv")
	if err != nil {
		return err
	}
	qv, err := qs.FloatCols("bin_start_ns", "node", "port", "max_bytes")
	if err != nil {
		return err
	}
	dir, err := qs.Col("dir")
	if err != nil {
		return err
	}
	for i := range qv[0] {
		node, port, d := int(qv[1][i]), int(qv[2][i]), qs.Rows[i][dir]
		name := ""
		switch {
		case node == tb.P2L2.Node && port == tb.P2L2.Port && d == "egress":
			name = "P2/L2"
		case node == tb.P0S1.Node && port == tb.P0S1.Port && d == "egress":
			name = "P0/S1"
		case node == tb.P1L2.Node && port == tb.P1L2.Port && d == "ingress":
			name = "P1/L2 (ingress from S1)"
		default:
			continue
		}
		x := r.q[name]
		x[0], x[1] = append(x[0], ms(qv[0][i])), append(x[1], qv[3][i]/1e3)
		r.q[name] = x
		r.qMax[name] = math.Max(r.qMax[name], qv[3][i])
	}
	return nil
}

// readPauses counts the PAUSE frames of every link and, per bin, those of
// the plotted links.
func (r *burstResult) readPauses(run *experiment.RunRef) error {
	pb, err := run.Table("pfc_bins.csv")
	if err != nil {
		return err
	}
	pv, err := pb.FloatCols("bin_start_ns", "bin_ns", "from_node", "from_port", "pause_frames")
	if err != nil {
		return err
	}
	for i := range pv[0] {
		r.pfcTotal += int64(pv[4][i])
		for _, l := range pauseLinks {
			if int(pv[2][i]) == l.fromNode && int(pv[3][i]) == l.fromPt {
				r.pauses[l.name] += int64(pv[4][i])
				x := r.pfc[l.name]
				// frames per ms over the bin
				x[0], x[1] = append(x[0], ms(pv[0][i])), append(x[1], pv[4][i]/(pv[1][i]/1e6))
				r.pfc[l.name] = x
			}
		}
	}
	return nil
}

// burstFigures draws the paper's panels for one algorithm: queues, PAUSE
// rate, throughput of f0 and f1.
func burstFigures(id, alg string, r *burstResult) []report.Figure {
	q := report.Figure{ID: id + "-queues", Title: alg + ": queue length (max per 20 µs)", XLabel: "time (ms)", YLabel: "KB", Step: true}
	for i, name := range []string{"P2/L2", "P1/L2 (ingress from S1)", "P0/S1"} {
		x := r.q[name]
		q.Series = append(q.Series, report.Series{Label: name, X: x[0], Y: x[1], Style: i + 1})
	}
	p := report.Figure{ID: id + "-pause", Title: alg + ": PFC PAUSE frames per ms", XLabel: "time (ms)", YLabel: "PAUSE frames / ms", Step: true}
	for i, l := range pauseLinks {
		x := r.pfc[l.name]
		p.Series = append(p.Series, report.Series{Label: l.name, X: x[0], Y: x[1], Points: true, Style: i + 1})
	}
	th := report.Figure{ID: id + "-throughput", Title: alg + ": throughput of f0 (H0 → R0) and f1 (H1 → R1)", XLabel: "time (ms)", YLabel: "Gb/s", Step: true}
	for k, name := range []string{"f0", "f1"} {
		th.Series = append(th.Series, report.Series{Label: name, X: r.rate[k][0], Y: r.rate[k][1], Style: k + 1})
	}
	return []report.Figure{th, q, p}
}

func burstTable(title string, res map[string]*burstResult, order []string) report.Table {
	t := report.Table{ID: "burst", Title: title, Columns: append([]string{"metric"}, order...)}
	row := func(name string, f func(r *burstResult) string) {
		line := []string{name}
		for _, a := range order {
			line = append(line, f(res[a]))
		}
		t.Rows = append(t.Rows, line)
	}
	for k, f := range []string{"f0", "f1"} {
		row(f+" before the burst (Gb/s)", func(r *burstResult) string { return experiment.G4DashNaN(r.pre[k]) })
		row(f+" lowest 100 µs during the burst (Gb/s)", func(r *burstResult) string { return experiment.G4DashNaN(r.min[k]) })
		row(f+" mean during the burst (Gb/s)", func(r *burstResult) string { return experiment.G4DashNaN(r.mean[k]) })
		row(f+" after the burst (Gb/s)", func(r *burstResult) string { return experiment.G4DashNaN(r.after[k]) })
	}
	for _, name := range []string{"P2/L2", "P1/L2 (ingress from S1)", "P0/S1"} {
		row("max queue "+name+" (KB)", func(r *burstResult) string { return experiment.G4DashNaN(r.qMax[name] / 1e3) })
	}
	for _, l := range pauseLinks {
		row("PAUSE frames "+l.name, func(r *burstResult) string { return fmt.Sprint(r.pauses[l.name]) })
	}
	row("PAUSE frames, all links", func(r *burstResult) string { return fmt.Sprint(r.pfcTotal) })
	row("short flows unfinished at the end", func(r *burstResult) string { return fmt.Sprint(r.unfinishedShort) })
	return t
}

// collapse: a long flow "falls to near zero" when its lowest 100 µs rate
// during the burst is below this fraction of its rate before the burst;
// "no HOL blocking" when it stays above noHOL of it.
const (
	collapse = 0.2
	noHOL    = 0.8
)

const burstSetup = `The testbed (topology T4, kind dcon_testbed): leaves L0, L1, L2; spines S0, S1; senders H0–H7 on L0, H8–H15 on L1; receivers R0, R1 on L2; all links 40 Gb/s, 5 µs per link (base RTT 40 µs); 22 MB shared buffer per switch, PFC on every port with a static PAUSE threshold of 320 KB per ingress queue; ECN at 200 KB (DCQCN: step marking at dequeue, kmin = kmax = 200 KB; DCON: its own step at enqueue, Q_ECN = 200 KB, dynamic Q_CNM).

Two long flows f0: H0 → R0 and f1: H1 → R1 are pinned through spine S1 (interpretation: they must share the S1 → L2 link to converge to the paper's 20 Gb/s each; the paper's "S0" is a typo for S1), start at 0 and run alone for 40 ms (interpretation: "already converged" — DCQCN with the DCQCN paper's R_AI of 40 Mb/s per 55 µs needs about 25 ms to climb back to 20 Gb/s after its first cut). The burst: H2–H15 each send 35 flows of 64 KB (64,000 B) to R1, one every 8 ms / 35 = 228.6 µs, from 40 ms to 48 ms (ordinary ECMP over S0 and S1); the run stops at 80 ms. f1 and the burst flows are congested (they converge on P2/L2, L2's port to R1); f0 is not, but shares L2's ingress from S1 (P1/L2) with f1 and half of the burst.

DCQCN is the paper's baseline with the DCQCN paper's default parameters (docs/algorithms/dcqcn.md §4; α and increase timers 55 µs, byte counter 10 MB, F = 5, g = 1/256, R_AI 40 Mb/s), a CNP per flow at most every 50 µs. Measured as in Figs. 2 and 6: queue length at P2/L2 (L2 → R1), at P1/L2 (what L2 holds that came from S1: the ingress queue PFC watches) and at P0/S1 (S1 → L2), every 1 µs, max per 20 µs; PFC PAUSE frames on L2 → S1, S1 → L0, S1 → L1 per 100 µs; throughput of f0 and f1 per 100 µs. A long flow "collapses" when its lowest 100 µs throughput during the burst (40–49 ms) is below 20 % of its mean over the 5 ms before it; it "suffers no HOL blocking" when that lowest value stays above 80 %; it "re-converges" when its mean over the last 5 ms is at least 80 % of its rate before the burst.`

// ---- The leaf-spine (E3, E4): scenarios/papers/dcon/leafspine.yaml

const leafspine = "leafspine.yaml"

// loads are the core-layer loads of E3 and E4 at paper scale.
var loads = []float64{0.4, 0.5, 0.6, 0.7, 0.8}

// minFlows is the number of flows each E3/E4 point needs (≥ 10,000).
const minFlows = 10_000

// lsScale is the leaf-spine and the flow target at a scale.
func lsScale(sc experiment.Scale) (p topo.LeafSpineParams, flows int, loadsAt []float64) {
	p = topo.LeafSpineParams{Spines: 8, Leaves: 10, HostsPerLeaf: 24, HostBps: 40e9, FabricBps: 40e9}
	if sc == experiment.ScaleQuick {
		return topo.LeafSpineParams{Spines: 2, Leaves: 3, HostsPerLeaf: 4, HostBps: 40e9, FabricBps: 40e9}, 150, []float64{0.4, 0.8}
	}
	return p, minFlows, loads
}

// durationMs is the Poisson arrival window that gives about flows flows
// (5 % margin) at a core load: λ = ρ_h · hosts · rate / (8 · mean size).
func durationMs(p topo.LeafSpineParams, cdf string, core float64, flows int) float64 {
	c, err := workload.BuiltinCDF(cdf)
	if err != nil {
		panic(err)
	}
	rho, err := p.HostLoadForCoreLoad(core)
	if err != nil {
		panic(err)
	}
	hosts := float64(p.Leaves * p.HostsPerLeaf)
	perS := rho * hosts * float64(p.HostBps) / (8 * c.Mean())
	return math.Ceil(1.05*float64(flows)/perS*1e3*10) / 10
}

// lsPatch is the patch of one point: topology size, workload, load,
// duration.
func lsPatch(sc experiment.Scale, cdf string, core float64) map[string]any {
	p, flows, _ := lsScale(sc)
	return map[string]any{
		"topology": map[string]any{"spines": p.Spines, "leaves": p.Leaves, "hosts_per_leaf": p.HostsPerLeaf},
		"workload": map[string]any{"poisson": map[string]any{"cdf": cdf, "core_load": core, "duration_ms": durationMs(p, cdf, core, flows)}},
	}
}

// loadAxis sweeps the core load at a scale with the workload cdf.
func loadAxis(sc experiment.Scale, cdf string) experiment.Axis {
	_, _, ls := lsScale(sc)
	ax := experiment.Axis{Name: "load"}
	for _, l := range ls {
		ax.Values = append(ax.Values, experiment.Value{Label: fmt.Sprint(l), Patch: lsPatch(sc, cdf, l)})
	}
	return ax
}

// e3DCON is DCON's setting on the leaf-spine: Q_ECN 100 KB (interpretation
// of the unspecified NS-3 settings, so that E4's 40 %/60 % of the 320 KB
// PFC threshold lie above it).
var e3DCON = map[string]any{"q_ecn_kb": 100}

// lsPoint is what E3 and E4 read from a run.
type lsPoint struct {
	avg, p99   float64 // FCT, µs (finished flows)
	pausePerMs float64 // network-wide PAUSE frames per ms of the run
	flows      int
	unfinished int
	wall       float64
	events     int64
}

func readPoint(ctx *experiment.Context, key string) (*lsPoint, error) {
	run, err := ctx.Run(key)
	if err != nil {
		return nil, err
	}
	s, err := run.Summary()
	if err != nil {
		return nil, err
	}
	span := (s.Summary.LastFinishNs - s.Summary.FirstStartNs) / 1e6
	if s.Summary.Unfinished > 0 {
		span = s.SimEndNs/1e6 - s.Summary.FirstStartNs/1e6
	}
	return &lsPoint{avg: s.Summary.All.FCTUs.Mean, p99: s.Summary.All.FCTUs.P99, pausePerMs: float64(s.PFC.PauseFrames) / span,
		flows: s.Summary.Flows, unfinished: s.Summary.Unfinished, wall: s.WallSeconds, events: s.Events}, nil
}

package dcon

// E0 and E1: the testbed burst under PFC, with DCQCN (Fig. 2) and with
// DCON (Fig. 6).

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

const testbed = "testbed.yaml"

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

// burstRun is the E0/E1 run of one algorithm: f0 H0 → R0 and f1 H1 → R1
// pinned through S1 (the paper's port names need them there), converged
// before the burst; H2–H15 each send 35 flows of 64 KB to R1 over 8 ms.
func burstRun(sc experiment.Scale, ccName string) experiment.RunSpec {
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
	if ccName == "dcqcn" {
		patch = experiment.Merge(patch, dcqcnPaper())
	}
	return experiment.RunSpec{Key: "cc=" + ccName, Base: testbed, Patch: patch, CC: ccName}
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
	fr, err := run.Table("flow_rate.csv")
	if err != nil {
		return nil, err
	}
	v, err := fr.FloatCols("bin_start_ns", "bin_ns", "flow", "gbps")
	if err != nil {
		return nil, err
	}
	ms := func(x float64) float64 { return x / 1e6 }
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
	qs, err := run.Table("queue_series.csv")
	if err != nil {
		return nil, err
	}
	qv, err := qs.FloatCols("bin_start_ns", "node", "port", "max_bytes")
	if err != nil {
		return nil, err
	}
	dir, err := qs.Col("dir")
	if err != nil {
		return nil, err
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
	pb, err := run.Table("pfc_bins.csv")
	if err != nil {
		return nil, err
	}
	pv, err := pb.FloatCols("bin_start_ns", "bin_ns", "from_node", "from_port", "pause_frames")
	if err != nil {
		return nil, err
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
	return r, nil
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
		row(f+" before the burst (Gb/s)", func(r *burstResult) string { return f3(r.pre[k]) })
		row(f+" lowest 100 µs during the burst (Gb/s)", func(r *burstResult) string { return f3(r.min[k]) })
		row(f+" mean during the burst (Gb/s)", func(r *burstResult) string { return f3(r.mean[k]) })
		row(f+" after the burst (Gb/s)", func(r *burstResult) string { return f3(r.after[k]) })
	}
	for _, name := range []string{"P2/L2", "P1/L2 (ingress from S1)", "P0/S1"} {
		row("max queue "+name+" (KB)", func(r *burstResult) string { return f3(r.qMax[name] / 1e3) })
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

func e0() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e0",
		Title: "Bursts under PFC with DCQCN (Fig. 2)",
		Setup: burstSetup,
		Claims: []experiment.Claim{
			{ID: "converged", Description: "f0 and f1 converge to the fair rate before the burst", PaperValue: "20 / 20", Unit: "Gb/s"},
			{ID: "collapse", Description: "f0 and f1 fall to near zero during the burst", PaperValue: "yes", Verdict: true},
			{ID: "pause-l2-s1", Description: "P1/L2 backs up to the PFC threshold and L2 pauses S1 (PAUSE frames on L2 → S1)", PaperValue: "yes", Verdict: true},
			{ID: "spread", Description: "congestion spreads to L0 and L1 (PAUSE frames on S1 → L0 and S1 → L1)", PaperValue: "yes", Verdict: true},
			{ID: "reconverge", Description: "after the burst f0 and f1 re-converge (≥ 80 % of their rate before it)", PaperValue: "yes", Verdict: true},
		},
		Runs: func(sc experiment.Scale) []experiment.RunSpec { return []experiment.RunSpec{burstRun(sc, "dcqcn")} },
		Analyze: func(ctx *experiment.Context) (*report.Section, error) {
			run, err := ctx.Run("cc=dcqcn")
			if err != nil {
				return nil, err
			}
			r, err := analyseBurst(run, timing(ctx.Scale))
			if err != nil {
				return nil, err
			}
			sec := &report.Section{Tables: []report.Table{burstTable("The burst with DCQCN", map[string]*burstResult{"DCQCN": r}, []string{"DCQCN"})},
				Figures: burstFigures("dcqcn", "DCQCN", r)}
			sec.Claims = ctx.Claims(map[string]report.Claim{
				"converged":   {CCSimValue: fmt.Sprintf("%.3g / %.3g", r.pre[0], r.pre[1])},
				"collapse":    report.Verdict(fmt.Sprintf("lowest %.3g / %.3g Gb/s (%.0f %% / %.0f %%)", r.min[0], r.min[1], 100*r.min[0]/r.pre[0], 100*r.min[1]/r.pre[1]), r.min[0] < collapse*r.pre[0] && r.min[1] < collapse*r.pre[1], ""),
				"pause-l2-s1": report.Verdict(fmt.Sprintf("%d frames; P1/L2 peak %.0f KB", r.pauses["L2→S1"], r.qMax["P1/L2 (ingress from S1)"]/1e3), r.pauses["L2→S1"] > 0, ""),
				"spread":      report.Verdict(fmt.Sprintf("%d / %d frames", r.pauses["S1→L0"], r.pauses["S1→L1"]), r.pauses["S1→L0"] > 0 && r.pauses["S1→L1"] > 0, ""),
				"reconverge":  report.Verdict(fmt.Sprintf("%.3g / %.3g Gb/s", r.after[0], r.after[1]), r.after[0] >= 0.8*r.pre[0] && r.after[1] >= 0.8*r.pre[1], ""),
			})
			return sec, nil
		},
	}
}

func e1() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e1",
		Title: "The same bursts with DCON (Fig. 6)",
		Setup: burstSetup,
		Claims: []experiment.Claim{
			{ID: "p1l2-below-pfc", Description: "with DCON, P1/L2 (L2's ingress from S1) stays below the PFC threshold: L2 does not pause S1", PaperValue: "yes (< 320 KB, no PAUSE)", Verdict: true},
			{ID: "no-hol", Description: "with DCON, f0 suffers no HOL blocking during the burst (lowest 100 µs ≥ 80 % of before)", PaperValue: "yes", Verdict: true},
			{ID: "f1-limited", Description: "with DCON, f1 is rate-limited in time (its rate during the burst below its rate before)", PaperValue: "yes", Verdict: true},
			{ID: "f0-vs-dcqcn", Description: "f0's lowest throughput during the burst is higher with DCON than with DCQCN", PaperValue: "yes", Verdict: true},
			{ID: "no-pause-plotted", Description: "with DCON no PAUSE frames cross L2 → S1, S1 → L0, S1 → L1 (the links of Figs. 2 and 6; DCQCN: some)", PaperValue: "yes", Verdict: true},
		},
		Runs: func(sc experiment.Scale) []experiment.RunSpec {
			return []experiment.RunSpec{burstRun(sc, "dcon"), burstRun(sc, "dcqcn")}
		},
		Analyze: func(ctx *experiment.Context) (*report.Section, error) {
			res := map[string]*burstResult{}
			for _, a := range []string{"dcon", "dcqcn"} {
				run, err := ctx.Run("cc=" + a)
				if err != nil {
					return nil, err
				}
				if res[nameOf(a)], err = analyseBurst(run, timing(ctx.Scale)); err != nil {
					return nil, err
				}
			}
			d, q := res["DCON"], res["DCQCN"]
			sec := &report.Section{Tables: []report.Table{burstTable("The burst with DCON beside DCQCN", res, []string{"DCON", "DCQCN"})},
				Figures: burstFigures("dcon", "DCON", d)}
			p1 := d.qMax["P1/L2 (ingress from S1)"]
			sec.Claims = ctx.Claims(map[string]report.Claim{
				"p1l2-below-pfc": report.Verdict(fmt.Sprintf("peak %.0f KB, %d PAUSE frames L2 → S1", p1/1e3, d.pauses["L2→S1"]), p1 < 320e3 && d.pauses["L2→S1"] == 0, ""),
				"no-hol": report.Verdict(fmt.Sprintf("lowest %.3g of %.3g Gb/s (%.0f %%)", d.min[0], d.pre[0], 100*d.min[0]/d.pre[0]), d.min[0] >= noHOL*d.pre[0],
					fmt.Sprintf("mean during the burst %.3g Gb/s (%.0f %% of before; DCQCN: %.3g Gb/s)", d.mean[0], 100*d.mean[0]/d.pre[0], q.mean[0])),
				"f1-limited":  report.Verdict(fmt.Sprintf("%.3g → %.3g Gb/s", d.pre[1], d.mean[1]), d.mean[1] < d.pre[1], ""),
				"f0-vs-dcqcn": report.Verdict(fmt.Sprintf("%.3g vs %.3g Gb/s", d.min[0], q.min[0]), d.min[0] > q.min[0], ""),
				"no-pause-plotted": report.Verdict(fmt.Sprintf("%d vs %d (all links: %d vs %d)", plotted(d), plotted(q), d.pfcTotal, q.pfcTotal), plotted(d) == 0 && plotted(q) > 0,
					"PAUSE frames on every link are in the table: DCON's land mostly on the burst senders' own host links, where only congested flows are paused"),
			})
			return sec, nil
		},
	}
}

// plotted is the number of PAUSE frames on the links Figs. 2 and 6 plot.
func plotted(r *burstResult) int64 {
	var n int64
	for _, l := range pauseLinks {
		n += r.pauses[l.name]
	}
	return n
}

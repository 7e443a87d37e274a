package wrcc

// E0: the motivation (Fig. 2) — cross-datacenter congestion 2 under DCQCN
// and HPCC (and, for comparison, WRCC and BiCC).

import (
	"fmt"
	"math"
	"slices"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/report"
)

const (
	motivation  = "motivation.yaml"  // congestion 2
	motivation1 = "motivation1.yaml" // congestion 1
)

// e0Algs are the algorithms of Fig. 2, then WRCC and BiCC for comparison.
var e0Algs = []string{"dcqcn", "hpcc", "wrcc", "bicc"}

// e0StopMs is the length of E0's runs at a scale.
func e0StopMs(sc experiment.Scale) float64 { return experiment.AtScale(sc, 4.0, 20.0) }

func e0Runs(sc experiment.Scale) []experiment.RunSpec {
	stop := map[string]any{"stop_ms": e0StopMs(sc)}
	runs := experiment.Sweep{Base: motivation, Patch: stop, CC: e0Algs}.Expand()
	// congestion 1: its keys carry the prefix "c1" (not an axis=value
	// pair)
	for _, r := range (experiment.Sweep{Base: motivation1, Patch: stop, CC: e0Algs}).Expand() {
		r.Key = "c1 " + r.Key
		runs = append(runs, r)
	}
	// sensitivity of congestion 2 to the intra-DC switches' buffer (the
	// paper's §2.2 gives none for this experiment)
	buf := experiment.Axis{Name: "buffer"}
	for _, mb := range e0Buffers[1:] {
		buf.Values = append(buf.Values, experiment.Value{Label: fmt.Sprint(mb), Patch: map[string]any{"switch": map[string]any{"buffer_mb": mb}}})
	}
	return append(runs, experiment.Sweep{Base: motivation, Patch: stop, Axes: []experiment.Axis{buf}, CC: e0Algs[:2]}.Expand()...)
}

// e0Buffers are the intra-DC buffer sizes (MB) of the sensitivity table;
// the first is the scenario's own.
var e0Buffers = []float64{16, 32, 64}

func e0BufKey(mb float64, c string) string {
	if mb == e0Buffers[0] {
		return "cc=" + c
	}
	return fmt.Sprintf("buffer=%v cc=%s", mb, c)
}

// convergedWithin is the share-gap bound of "converged": the two flows'
// rates differ by less than 10 % of their sum.
const convergedWithin = 0.1

// e0Result is what E0 reads from a run.
type e0Result struct {
	q          []float64    // SW2 → R1 queue samples, bytes (sorted)
	t          [2][]float64 // bin start (ms) per flow
	gbps       [2][]float64 // rate per flow and bin
	convergeMs float64      // first bin from which every later bin is within the bound; NaN: never
	lastGap    float64      // |r1 − r3| / (r1 + r3) over the last quarter of the run
}

func readE0(ctx *experiment.Context, c string) (*e0Result, error) {
	return readE0Key(ctx, "cc="+c)
}

func readE0Key(ctx *experiment.Context, key string) (*e0Result, error) {
	run, err := ctx.Run(key)
	if err != nil {
		return nil, err
	}
	r := &e0Result{convergeMs: math.NaN()}
	qt, err := run.Table("queue.csv")
	if err != nil {
		return nil, err
	}
	if r.q, err = qt.Floats("bytes"); err != nil {
		return nil, err
	}
	slices.Sort(r.q)
	if err := flowRates(run, r.t[:], r.gbps[:]); err != nil {
		return nil, err
	}
	n := min(len(r.gbps[0]), len(r.gbps[1]))
	if n == 0 {
		return r, fmt.Errorf("%s: no rate bins for the two flows", run.Dir)
	}
	gap := func(a, b float64) float64 {
		if a+b == 0 {
			return 1
		}
		return math.Abs(a-b) / (a + b)
	}
	// the last bin may be short: leave it out
	last := n - 1
	if last < 1 {
		last = n
	}
	for k := last - 1; k >= 0; k-- {
		if gap(r.gbps[0][k], r.gbps[1][k]) >= convergedWithin {
			if k+1 < last {
				r.convergeMs = r.t[0][k+1]
			}
			break
		}
		if k == 0 {
			r.convergeMs = r.t[0][0]
		}
	}
	var a, b float64
	for k := last * 3 / 4; k < last; k++ {
		a += r.gbps[0][k]
		b += r.gbps[1][k]
	}
	r.lastGap = gap(a, b)
	return r, nil
}

// flowRates reads flow_rate.csv into t (bin start, ms) and gbps per flow
// id, for the flows 0 … len(t) − 1.
func flowRates(run *experiment.RunRef, t, gbps [][]float64) error {
	ft, err := run.Table("flow_rate.csv")
	if err != nil {
		return err
	}
	cols, err := ft.FloatCols("bin_start_ns", "flow", "gbps")
	if err != nil {
		return err
	}
	for i := range cols[0] {
		f := int(cols[1][i])
		if f < 0 || f >= len(t) {
			continue
		}
		t[f] = append(t[f], cols[0][i]/1e6)
		gbps[f] = append(gbps[f], cols[2][i])
	}
	return nil
}

// above returns the fraction of sorted samples strictly above v.
func above(sorted []float64, v float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i, _ := slices.BinarySearch(sorted, math.Nextafter(v, math.Inf(1)))
	return float64(len(sorted)-i) / float64(len(sorted))
}

func e0() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e0",
		Title: "Motivation: cross-datacenter congestion 2 (Fig. 2) and congestion 1 (Fig. 1) under DCQCN and HPCC",
		Setup: `Topology T6 with the long-haul RTT of 2 ms (the E1–E3 fabric: two 4-pod fat-trees of 32 servers, 100 Gb/s, 1 µs per link; DCI switches joined by a 400-Gb/s, 1-ms long haul; 16-MB intra-DC switches with dynamic PFC, 250-MB DCI switches with static 100-MB PFC thresholds). Congestion 2: the cross-DC burst flow Flow1 (S1 = A.h0 in DC A → R1 = B.h0 in DC B) and the intra-DC burst flow Flow3 (S4 = B.h8, under another ToR of DC B → R1) collide at SW2, R1's ToR. Interpretation: both start together at line rate, 100 MB each, and the run lasts 20 ms (the paper gives neither). Metrics: each flow's delivered rate per 100 µs, and SW2's queue towards R1 sampled every 1 µs (its CDF). DCQCN and HPCC with the reference simulator's presets (dcqcn, hp at 100 Gb/s; paper 002 used that simulator); WRCC and BiCC are shown for comparison (not in the paper's figure). Congestion 1 (described in the paper's §2.2 and Fig. 1, not measured there): two cross-DC flows, Flow1 S1 = A.h0 → R1 = B.h0 and Flow2 S2 = A.h1 → R2 = B.h1, meet at SW1 = A.tor0, their ToR, and an intra-DC victim S3 = A.h2 → R3 = A.h4 (another ToR of the pod) shares their path; interpretation: the three flows are pinned through A.agg0, so SW1's uplink to it is offered 300 Gb/s, 100 MB each from line rate; measured: each flow's rate per 100 µs, the time each sender's NIC was paused by PFC, and the share of bins in which the victim gets less than a tenth of its fair share (C/3). A flow pair counts as converged from the first 100-µs bin after which their rates always differ by less than 10 % of their sum. Sensitivity: congestion 2 is also run with DCQCN and HPCC on 32- and 64-MB intra-DC switches (the paper gives no buffer size for this experiment; dynamic PFC thresholds grow with the buffer, and with them the queue PFC lets build).`,
		Claims: []experiment.Claim{
			{ID: "dcqcn-q70-1mb", Description: "DCQCN: 70 % of SW2's queue samples are above 1 MB", PaperValue: "70", Unit: "% of samples > 1 MB", Verdict: true},
			{ID: "hpcc-q70-1.8mb", Description: "HPCC: 70 % of SW2's queue samples are above 1.8 MB", PaperValue: "70", Unit: "% of samples > 1.8 MB", Verdict: true},
			{ID: "hpcc-qmax", Description: "HPCC: SW2's queue reaches 12 MB", PaperValue: "12", Unit: "MB", Verdict: true},
			{ID: "c1-victim-pfc", Description: "congestion 1: the intra-DC victim flow sharing the cross-DC flows' path suffers PFC pauses under DCQCN and HPCC", PaperValue: "yes", Verdict: true},
			{ID: "no-convergence", Description: "neither DCQCN nor HPCC makes Flow1 and Flow3 converge for a long time (ccsim: not within the run)", PaperValue: "yes", Verdict: true},
		},
		Runs:    e0Runs,
		Analyze: analyzeE0,
	}
}

func analyzeE0(ctx *experiment.Context) (*report.Section, error) {
	sec := &report.Section{}
	res := map[string]*e0Result{}
	var notes []string
	for _, c := range e0Algs {
		r, err := readE0(ctx, c)
		if err != nil {
			notes = append(notes, err.Error())
			continue
		}
		res[c] = r
	}
	t, cdf, rates := e0QueueTable(res)
	sec.Tables = append(sec.Tables, t)
	sec.Figures = append(append(sec.Figures, rates...), cdf)
	claims := e0Claims(res)
	bt, bufNote := e0BufferTable(ctx, &notes)
	sec.Tables = append(sec.Tables, bt)
	if cl, ok := claims["hpcc-qmax"]; ok {
		cl.Note += "; HPCC by intra-DC buffer: " + bufNote + "DCQCN's queue does not depend on it (RED keeps it under 1.2 MB)"
		claims["hpcc-qmax"] = cl
	}
	c1, c1notes := analyzeC1(ctx, sec)
	notes = append(notes, c1notes...)
	if d, h := c1["dcqcn"], c1["hpcc"]; d != nil && h != nil {
		claims["c1-victim-pfc"] = report.Verdict(fmt.Sprintf("DCQCN %.0f µs, HPCC %.0f µs", d.pausedUs[2], h.pausedUs[2]), d.pausedUs[2] > 0 && h.pausedUs[2] > 0,
			fmt.Sprintf("the victim's NIC paused by PFC; it gets under a tenth of its fair share in %.0f %% (DCQCN) and %.0f %% (HPCC) of the 100-µs bins, the cross-DC senders are paused %.0f µs (DCQCN) and %.0f µs (HPCC) each", d.starved, h.starved, d.pausedUs[0], h.pausedUs[0]))
	}
	sec.Claims = ctx.Claims(claims)
	sec.Notes = notes
	return sec, nil
}

// e0QueueTable is congestion 2's queue and convergence per algorithm, the
// queue's CDF, and each algorithm's two flow rates.
func e0QueueTable(res map[string]*e0Result) (report.Table, report.Figure, []report.Figure) {
	f := experiment.G4Dash
	t := report.Table{ID: "queue", Title: "SW2 → R1 queue (MB) and convergence of Flow1 and Flow3", Columns: []string{"algorithm", "samples", "p30", "p50", "p80", "max", "> 1 MB (%)", "> 1.8 MB (%)", "converged from (ms)", "rate gap, last quarter (%)"}}
	cdf := report.Figure{ID: "queue-cdf", Title: "CDF of SW2's queue towards R1", XLabel: "queue length (MB)", YLabel: "fraction of samples"}
	var rates []report.Figure
	for k, c := range e0Algs {
		r := res[c]
		if r == nil {
			continue
		}
		mb := func(p float64) string { return f(metrics.Percentile(r.q, p) / 1e6) }
		conv := "never"
		if !math.IsNaN(r.convergeMs) {
			conv = f(r.convergeMs)
		}
		t.Rows = append(t.Rows, []string{algs.Name(c), fmt.Sprint(len(r.q)), mb(0.3), mb(0.5), mb(0.8), f(r.q[len(r.q)-1] / 1e6),
			f(100 * above(r.q, 1e6)), f(100 * above(r.q, 1.8e6)), conv, f(100 * r.lastGap)})
		var x, y []float64
		for i := 0; i < 200; i++ {
			p := float64(i) / 199
			x = append(x, metrics.Percentile(r.q, p)/1e6)
			y = append(y, p)
		}
		cdf.Series = append(cdf.Series, report.Series{Label: algs.Name(c), X: x, Y: y, Style: k + 1})
		fig := report.Figure{ID: c + "-rates", Title: algs.Name(c) + ": Flow1 (cross-DC) and Flow3 (intra-DC) rates", XLabel: "time (ms)", YLabel: "delivered rate (Gb/s)"}
		fig.Series = append(fig.Series, report.Series{Label: "Flow1 S1 → R1 (cross-DC)", X: r.t[0], Y: r.gbps[0], Style: 1}, report.Series{Label: "Flow3 S4 → R1 (intra-DC)", X: r.t[1], Y: r.gbps[1], Style: 2})
		rates = append(rates, fig)
	}
	return t, cdf, rates
}

// e0Claims evaluates Fig. 2's claims on congestion 2.
func e0Claims(res map[string]*e0Result) map[string]report.Claim {
	claims := map[string]report.Claim{}
	if r := res["dcqcn"]; r != nil {
		f := 100 * above(r.q, 1e6)
		claims["dcqcn-q70-1mb"] = report.Verdict(experiment.G4Dash(f), f >= 70, fmt.Sprintf("median %.2f MB, max %.2f MB", metrics.Percentile(r.q, 0.5)/1e6, r.q[len(r.q)-1]/1e6))
	}
	if r := res["hpcc"]; r != nil {
		f := 100 * above(r.q, 1.8e6)
		claims["hpcc-q70-1.8mb"] = report.Verdict(experiment.G4Dash(f), f >= 70, fmt.Sprintf("median %.2f MB", metrics.Percentile(r.q, 0.5)/1e6))
		m := r.q[len(r.q)-1] / 1e6
		claims["hpcc-qmax"] = report.Verdict(experiment.G4Dash(m), m >= 12/1.5 && m <= 12*1.5, "holds within a factor of 1.5")
	}
	if res["dcqcn"] != nil && res["hpcc"] != nil {
		d, h := math.IsNaN(res["dcqcn"].convergeMs), math.IsNaN(res["hpcc"].convergeMs)
		val := fmt.Sprintf("DCQCN %s, HPCC %s", convText(res["dcqcn"]), convText(res["hpcc"]))
		claims["no-convergence"] = report.Verdict(val, d && h, fmt.Sprintf("rate gap over the last quarter of the run: DCQCN %.0f %%, HPCC %.0f %%", 100*res["dcqcn"].lastGap, 100*res["hpcc"].lastGap))
	}
	return claims
}

// e0BufferTable is congestion 2's queue by the intra-DC buffer size, with
// a note of HPCC's numbers for the hpcc-qmax claim.
func e0BufferTable(ctx *experiment.Context, notes *[]string) (report.Table, string) {
	f := experiment.G4Dash
	bt := report.Table{ID: "buffer", Title: "Congestion 2: SW2's queue towards R1 by the intra-DC switches' buffer size (dynamic PFC thresholds scale with it)", Columns: []string{"buffer (MB)", "algorithm", "p50 (MB)", "max (MB)", "> 1 MB (%)", "> 1.8 MB (%)"}}
	bufNote := ""
	for _, mb := range e0Buffers {
		for _, c := range e0Algs[:2] {
			r, err := readE0Key(ctx, e0BufKey(mb, c))
			if err != nil {
				*notes = append(*notes, err.Error())
				continue
			}
			mx := r.q[len(r.q)-1] / 1e6
			bt.Rows = append(bt.Rows, []string{fmt.Sprint(mb), algs.Name(c), f(metrics.Percentile(r.q, 0.5) / 1e6), f(mx), f(100 * above(r.q, 1e6)), f(100 * above(r.q, 1.8e6))})
			if c == "hpcc" {
				bufNote += fmt.Sprintf("%v MB: max %.2f MB, %.0f %% > 1.8 MB; ", mb, mx, 100*above(r.q, 1.8e6))
			}
		}
	}
	return bt, bufNote
}

// c1Result is what congestion 1 reads from a run.
type c1Result struct {
	t        [3][]float64 // bin start (ms) per flow
	gbps     [3][]float64 // Flow1, Flow2, victim
	mean     [3]float64   // mean rate over the bins but the last (Gb/s)
	pausedUs [3]float64   // time each sender's NIC was paused by PFC
	starved  float64      // % of bins with the victim under C/3/10
}

// c1Senders are the node ids of S1, S2, S3 (A.h0, A.h1, A.h2).
var c1Senders = [3]int{0, 1, 2}

func readC1(ctx *experiment.Context, c string) (*c1Result, error) {
	run, err := ctx.Run("c1 cc=" + c)
	if err != nil {
		return nil, err
	}
	s, err := run.Summary()
	if err != nil {
		return nil, err
	}
	r := &c1Result{}
	for _, p := range s.PFC.Ports {
		for k, n := range c1Senders {
			if p.Node == n && p.Port == 0 {
				r.pausedUs[k] = p.PausedUs
			}
		}
	}
	if err := flowRates(run, r.t[:], r.gbps[:]); err != nil {
		return nil, err
	}
	n := min(len(r.gbps[0]), len(r.gbps[1]), len(r.gbps[2])) - 1 // the last bin may be short
	if n < 1 {
		return nil, fmt.Errorf("%s: too few rate bins", run.Dir)
	}
	starved := 0
	for k := 0; k < n; k++ {
		for f := range r.mean {
			r.mean[f] += r.gbps[f][k] / float64(n)
		}
		if r.gbps[2][k] < 100.0/3/10 {
			starved++
		}
	}
	r.starved = 100 * float64(starved) / float64(n)
	return r, nil
}

// analyzeC1 adds congestion 1's table and figures to sec.
func analyzeC1(ctx *experiment.Context, sec *report.Section) (map[string]*c1Result, []string) {
	var notes []string
	res := map[string]*c1Result{}
	t := report.Table{ID: "c1", Title: "Congestion 1: two cross-DC flows and an intra-DC victim share SW1's uplink (100 Gb/s) — mean rates (Gb/s), PFC pause time of each sender's NIC (µs)",
		Columns: []string{"algorithm", "Flow1", "Flow2", "victim", "uplink use (%)", "victim < C/30 (% of bins)", "S1 paused", "S2 paused", "victim paused"}}
	for _, c := range e0Algs {
		r, err := readC1(ctx, c)
		if err != nil {
			notes = append(notes, err.Error())
			continue
		}
		res[c] = r
		t.Rows = append(t.Rows, []string{algs.Name(c), experiment.G4Dash(r.mean[0]), experiment.G4Dash(r.mean[1]), experiment.G4Dash(r.mean[2]), experiment.G4Dash(r.mean[0] + r.mean[1] + r.mean[2]), experiment.G4Dash(r.starved), experiment.G4Dash(r.pausedUs[0]), experiment.G4Dash(r.pausedUs[1]), experiment.G4Dash(r.pausedUs[2])})
		fig := report.Figure{ID: "c1-" + c + "-rates", Title: algs.Name(c) + ", congestion 1: the cross-DC flows and the intra-DC victim", XLabel: "time (ms)", YLabel: "delivered rate (Gb/s)"}
		for f, label := range []string{"Flow1 S1 → R1 (cross-DC)", "Flow2 S2 → R2 (cross-DC)", "victim S3 → R3 (intra-DC)"} {
			fig.Series = append(fig.Series, report.Series{Label: label, X: r.t[f], Y: r.gbps[f], Style: f + 1})
		}
		sec.Figures = append(sec.Figures, fig)
	}
	sec.Tables = append(sec.Tables, t)
	return res, notes
}

func convText(r *e0Result) string {
	if math.IsNaN(r.convergeMs) {
		return "never"
	}
	return fmt.Sprintf("from %.1f ms", r.convergeMs)
}

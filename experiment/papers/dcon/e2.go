package dcon

// E2: burst intensity on the testbed (Fig. 7): the average FCT of the 422
// flows as the short flows' interval and size vary.

import (
	"fmt"
	"math"
	"slices"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/report"
)

var (
	e2Intervals = []float64{10, 15, 20, 25, 30}  // µs
	e2SizesKB   = []int64{32, 64, 128, 256, 512} // KB (1000 B)
)

const (
	e2DefInterval = 15.0
	e2DefSizeKB   = 64
)

// e2Scale: long flows' size, short flows per sender, burst start (the
// primary reading: after the long flows converged, as in E0).
func e2Scale(sc experiment.Scale) (longBytes int64, count int, startMs float64) {
	if sc == experiment.ScaleQuick {
		return 10_000_000, 4, timing(sc).startMs
	}
	return 200_000_000, 30, timing(sc).startMs
}

// e2Start10 is the start-10ms reading's burst start (ms).
func e2Start10(sc experiment.Scale) float64 { return experiment.AtScale(sc, 1.0, 10.0) }

func e2Runs(sc experiment.Scale) []experiment.RunSpec {
	longBytes, count, start := e2Scale(sc)
	point := func(ivUs float64, kb int64) map[string]any {
		return map[string]any{"workload": map[string]any{"long_short": map[string]any{
			"short_min_bytes": kb * 1000, "short_max_bytes": kb * 1000, "interval_us": ivUs}}}
	}
	base := map[string]any{
		"stop_ms": 2000,
		"workload": map[string]any{"long_short": map[string]any{
			"long_size_bytes": longBytes, "short_count": count, "short_start_ns": start * 1e6}},
		"outputs": map[string]any{"series": nil, "ref_pfc": false},
	}
	var iv, sz experiment.Axis
	iv.Name, sz.Name = "interval_us", "size_kb"
	for _, x := range e2Intervals {
		iv.Values = append(iv.Values, experiment.Value{Label: fmt.Sprint(x), Patch: point(x, e2DefSizeKB)})
	}
	for _, kb := range e2SizesKB {
		sz.Values = append(sz.Values, experiment.Value{Label: fmt.Sprint(kb), Patch: point(e2DefInterval, kb)})
	}
	seeds := experiment.Seeds(sc)
	runs := experiment.Sweep{Base: testbed, Patch: base, Axes: []experiment.Axis{iv}, CC: algs.CCs(), CCPatch: ccPatch(), Seeds: seeds}.Expand()
	return append(runs, experiment.Sweep{Base: testbed, Patch: base, Axes: []experiment.Axis{sz}, CC: algs.CCs(), CCPatch: ccPatch(), Seeds: seeds}.Expand()...)
}

func e2() *experiment.Experiment {
	return &experiment.Experiment{
		ID:      "e2",
		Title:   "Burst intensity on the testbed (Fig. 7)",
		SetupAt: e2Setup,
		Claims:  e2Claims(),
		Readings: []experiment.Reading{
			{ID: "converged", Primary: true, Title: "the burst after the long flows converged (as E0); a CNM for every burst packet, the sender's 50 µs window",
				Why: "§6.1.2 prints no start time; its scenario varies §3.1's burst, whose premise is 「假设f0和f1在突发流量启动之前已经收敛到公平速率20 Gbps」 (f0 and f1 converged to 20 Gb/s before the burst): the burst starts when E0's does. CNMs: " + cnmSenderWhy},
			cnmGapReading(),
			{ID: "start-10ms", Title: "the burst from 10 ms (1 ms at quick scale), before DCQCN's long flows have converged",
				Why: "the start time before issue 16 (\"from 10 ms, when they have converged\"): the text gives no time, but at 10 ms DCQCN's long flows run at about half the fair rate (measured 11.0 of 19.1 Gb/s payload over 9–10 ms), so the premise does not hold (measured for issue 16 with two long flows alone)",
				Patch: func(sc experiment.Scale) map[string]any {
					return map[string]any{"workload": map[string]any{"long_short": map[string]any{"short_start_ns": e2Start10(sc) * 1e6}}}
				}},
		},
		Checks:  e2Checks(),
		Runs:    e2Runs,
		Analyze: analyzeE2,
	}
}

// e2Setup is E2's setup text at a scale.
func e2Setup(sc experiment.Scale) string {
	longBytes, count, start := e2Scale(sc)
	n := 2 + 14*count
	return fmt.Sprintf(`The testbed of E0 (T4). H0 → R0 and H1 → R1 each send one %g MB flow (pinned through S1, as in E0) from 0; H2–H15 each send %d short flows to R1, one every interval (all 14 senders at once): 2 + 14 × %d = %d flows. The burst starts at %g ms (primary reading: after the long flows converged, as in E0; the reading start-10ms starts it at %g ms). (a) interval 10, 15, 20, 25, 30 µs with 64 KB flows; (b) short-flow size 32, 64, 128, 256, 512 KB with a 15 µs interval (the defaults are interpretations: 64 KB from E0, 15 µs from the paper's §6.1.2). Metric: the average FCT of all %d flows (the two long flows included), a flow still unfinished at the end counted with its FCT censored at the end (a lower bound; the count shown beside). Algorithms: DCQCN (the DCQCN paper's parameters, CNP every 50 µs, step ECN at 200 KB), Swift with its defaults but a base target of 65 µs (the fabric's 40 µs base RTT plus the default 25 µs: with 25 µs every RTT would exceed the target), PCN with its defaults, DCON with its defaults (Q_ECN 200 KB, dynamic Q_CNM, T = 3 RTT). Each run ends when every flow has finished (at most 2 s). Seeds: %d (ECMP hashing of the short flows), the tables show their mean.`,
		float64(longBytes)/1e6, count, count, n, start, e2Start10(sc), n, len(experiment.Seeds(sc)))
}

// e2Axis is one of Fig. 7's sweeps as the analysis reads it; xs in
// increasing burst intensity's order are intensity.
type e2Axis struct {
	id, name, unit string
	xs             []float64
	key            func(x float64, cc string) string
	// increasing lists the points' indices in order of increasing
	// intensity (a shorter interval, a larger size)
	increasing []int
}

var e2Axes = []e2Axis{
	{"interval", "interval between a sender's short flows", "µs", e2Intervals, func(x float64, cc string) string { return fmt.Sprintf("interval_us=%v cc=%s", x, cc) }, []int{4, 3, 2, 1, 0}},
	{"size", "short-flow size", "KB", toF(e2SizesKB), func(x float64, cc string) string { return fmt.Sprintf("size_kb=%v cc=%s", x, cc) }, []int{0, 1, 2, 3, 4}},
}

// e2Claims are E2's claims: every algorithm's FCT grows with intensity in
// each sweep, DCON is the lowest at every point, and the −47 % at 20 µs.
func e2Claims() []experiment.Claim {
	var out []experiment.Claim
	for _, ax := range e2Axes {
		what := map[string]string{"interval": "as the interval shrinks (30 → 10 µs)", "size": "as the short flows grow (32 → 512 KB)"}[ax.id]
		for _, a := range algs {
			out = append(out, experiment.Claim{ID: "grows-" + ax.id + "-" + a.CC, Description: a.Name + "'s average FCT grows " + what,
				PaperValue: "yes", Unit: "µs", Kind: experiment.Order, Rel: experiment.Less})
		}
	}
	for _, ax := range e2Axes {
		out = append(out, experiment.Claim{ID: "lowest-" + ax.id, Description: "DCON's average FCT is below DCQCN's, Swift's and PCN's at every " + ax.name + " (point × baseline pairs)",
			PaperValue: "15 of 15", Unit: "pairs", Kind: experiment.Count, Need: 15, Of: 15})
	}
	return append(out, experiment.Claim{ID: "vs-dcqcn-20us", Description: "at a 20 µs interval DCON's average FCT is 47 % below DCQCN's",
		PaperValue: "−47", Unit: "%", Kind: experiment.Direction, Rel: experiment.Less, Mag: experiment.MagValue, Paper: -47})
}

// e2Point is one algorithm's average FCT at one point, over the seeds.
type e2Point struct {
	avg      experiment.Sample
	censored int // flows censored over all seeds
	flows    []int
}

// lower reports whether the point's mean is a lower bound.
func (p *e2Point) lower() bool { return p.censored > 0 }

func analyzeE2(ctx *experiment.Context) (*report.Section, error) {
	sec := &report.Section{}
	var notes []string
	for _, ax := range e2Axes {
		vals, t, fig := e2Sweep(ctx, ax, &notes)
		measureAll(ctx, e2Measures(ax, vals))
		sec.Tables = append(sec.Tables, t)
		sec.Figures = append(sec.Figures, fig)
	}
	sec.Notes = notes
	return sec, nil
}

// e2Measures measures E2's claims on one sweep.
func e2Measures(ax e2Axis, vals map[string][]*e2Point) map[string]experiment.Measure {
	ms := map[string]experiment.Measure{}
	for _, a := range algs {
		m := experiment.Measure{}
		for _, i := range ax.increasing {
			p := vals[a.CC][i]
			m.Values = append(m.Values, p.avg)
			m.Lower = append(m.Lower, p.lower())
			m.Labels = append(m.Labels, fmt.Sprint(ax.xs[i]))
		}
		ms["grows-"+ax.id+"-"+a.CC] = m
	}
	var d, b []experiment.Sample
	var dl, bl []bool
	for i := range ax.xs {
		for _, x := range baselines {
			d, dl = append(d, vals["dcon"][i].avg), append(dl, vals["dcon"][i].lower())
			b, bl = append(b, vals[x.CC][i].avg), append(bl, vals[x.CC][i].lower())
		}
	}
	m := pairs(experiment.Less, d, b, dl, bl)
	m = withCountText(m)
	m.Text += "; " + lowestByPoint(ax, vals)
	ms["lowest-"+ax.id] = m
	if ax.id != "interval" {
		return ms
	}
	i := slices.Index(ax.xs, 20)
	dp, qp := vals["dcon"][i], vals["dcqcn"][i]
	mag := make(experiment.Sample, len(dp.avg))
	for k := range mag {
		mag[k] = experiment.Pct(dp.avg[k], qp.avg[k])
	}
	v := experiment.Measure{Values: []experiment.Sample{dp.avg, qp.avg}, Lower: []bool{dp.lower(), qp.lower()}, Labels: []string{"DCON", "DCQCN"},
		Mag: []experiment.Sample{mag}, MagLower: []bool{dp.lower()}}
	if qp.lower() {
		v.Note = "DCQCN's mean is a lower bound (censored flows): the reduction may be larger"
	}
	ms["vs-dcqcn-20us"] = v
	return ms
}

// e2Sweep reads one sweep: each algorithm's average FCT per point over the
// seeds (NaN where a run is missing; failures, censored flows and
// unexpected flow counts noted), as a table and a figure of the means.
func e2Sweep(ctx *experiment.Context, ax e2Axis, notes *[]string) (map[string][]*e2Point, report.Table, report.Figure) {
	_, count, _ := e2Scale(ctx.Scale)
	n := 2 + 14*count
	t := report.Table{ID: ax.id, Title: fmt.Sprintf("Average FCT of the %d flows (µs) by %s (mean over the seeds, their range in brackets; censored flows in parentheses)", n, ax.name), Columns: []string{ax.name + " (" + ax.unit + ")"}}
	fig := report.Figure{ID: ax.id, Title: "Fig. 7 — average FCT by " + ax.name, XLabel: ax.name + " (" + ax.unit + ")", YLabel: "average FCT (µs)"}
	for _, a := range algs {
		t.Columns = append(t.Columns, a.Name)
	}
	vals := map[string][]*e2Point{}
	for _, x := range ax.xs {
		row := []string{fmt.Sprint(x)}
		for _, a := range algs {
			key := ax.key(x, a.CC)
			p, err := readE2Point(ctx, key)
			if err != nil {
				*notes = append(*notes, err.Error())
			}
			for _, f := range p.flows {
				if f != n {
					*notes = append(*notes, fmt.Sprintf("%s: %d flows, not %d", key, f, n))
				}
			}
			if p.censored > 0 {
				*notes = append(*notes, fmt.Sprintf("%s: %d flows unfinished at the end, censored (the average is a lower bound)", key, p.censored))
			}
			vals[a.CC] = append(vals[a.CC], p)
			cell := sampleCell(p.avg)
			if p.censored > 0 {
				cell = fmt.Sprintf("≥ %s (%d censored)", cell, p.censored)
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	for i, a := range algs {
		var y []float64
		for _, p := range vals[a.CC] {
			y = append(y, p.avg.Mean())
		}
		fig.Series = append(fig.Series, report.Series{Label: a.Name, X: ax.xs, Y: y, Points: true, Style: i + 1})
	}
	return vals, t, fig
}

// readE2Point is the average FCT (µs) of every seed of run key, its
// unfinished flows censored at the run's end (metrics.SummarizeFlows); a
// point of NaN when a run is missing.
func readE2Point(ctx *experiment.Context, key string) (*e2Point, error) {
	p := &e2Point{}
	runs, err := ctx.SeedRuns(key)
	if err != nil {
		p.avg = experiment.Sample{math.NaN()}
		return p, err
	}
	for _, run := range runs {
		avg, cens, n, err := runAvgFCT(run)
		if err != nil {
			return &e2Point{avg: experiment.Sample{math.NaN()}}, err
		}
		p.avg = append(p.avg, avg)
		p.censored += cens
		p.flows = append(p.flows, n)
	}
	return p, nil
}

// runAvgFCT is a run's average FCT (µs) over every flow that started, the
// unfinished ones censored at the run's end, with the censored count and
// the number of flows.
func runAvgFCT(run *experiment.RunRef) (avg float64, censored, flows int, err error) {
	recs, err := run.Flows()
	if err != nil {
		return math.NaN(), 0, 0, err
	}
	sum, err := run.Summary()
	if err != nil {
		return math.NaN(), 0, 0, err
	}
	s := metrics.SummarizeFlows(recs, sum.End())
	return s.All.FCTUs.Mean, s.Censored, len(recs), nil
}

// lowestByPoint names the algorithm with the lowest mean average FCT at
// each point ("—" where a value is missing).
func lowestByPoint(ax e2Axis, vals map[string][]*e2Point) string {
	s := ""
	for i, x := range ax.xs {
		best, bv := experiment.Dash, math.Inf(1)
		for _, a := range algs {
			v := vals[a.CC][i].avg.Mean()
			if math.IsNaN(v) {
				best = experiment.Dash
				break
			}
			if v < bv {
				best, bv = a.Name, v
			}
		}
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%v: %s", x, best)
	}
	return "lowest mean by point: " + s
}

// toF converts the sizes to the x values of a figure.
func toF(xs []int64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// pairs is experiment.CountPairs with the undecided count left out when it
// is 0 ([k, n] decides as [k, n, 0]). Workaround: experiment.Flip builds
// a supporting count measure of two values, so a three-valued one fails
// the flip check (reported to the lead).
func pairs(r experiment.Rel, a, b []experiment.Sample, aLow, bLow []bool) experiment.Measure {
	m := experiment.CountPairs(r, a, b, aLow, bLow)
	if len(m.Values) == 3 && m.Values[2].Mean() == 0 {
		m.Values = m.Values[:2]
	}
	return m
}

package wrcc

// E4, continued: what a perftest run gives (probe latency with the message
// in flight at the end censored, throughput, fairness), the claims and the
// analysis.

import (
	"fmt"
	"math"
	"strings"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/sim"
)

// probeGuard is the end of a test's probe window before its end: probe
// messages posted later are not counted (a selection by post time, not by
// outcome), so that a message still in flight at the end is censored at
// ≥ the guard, above the latencies of the others.
func probeGuard(dist string) sim.Time {
	if dist == "long" {
		return 2 * 6400 * sim.Microsecond
	}
	return sim.Millisecond
}

// e4Result is what E4 reads from a run.
type e4Result struct {
	latMean, latP99 stat    // µs over the window's probe messages
	gbps            float64 // bandwidth flows' total throughput
	gap             float64 // |r1 − r2| / (r1 + r2) of the first two bandwidth flows, %
	drops           int64
}

// probeStats are the mean and p99 latency (µs) of the probe messages
// posted before end − guard (messages.csv: the completed ones; each
// message is posted when the previous one completes, the first at the
// test start), the message in flight at the end — posted at the last
// completion — censored at end − its post. The mean is a lower bound when
// a message is censored; the p99 by metrics.PercentileCensored.
func probeStats(posts, dones []sim.Time, end, guard sim.Time) (mean, p99 stat) {
	var s sample
	last := sim.Time(0)
	for i := range posts {
		if dones[i] > last {
			last = dones[i]
		}
		if posts[i] < end-guard {
			s.add((dones[i] - posts[i]).Microseconds(), false)
		}
	}
	if last < end-guard && last < end {
		s.add((end - last).Microseconds(), true)
	}
	if len(s.x) == 0 {
		nan := stat{v: math.NaN(), exact: true}
		return nan, nan
	}
	sum, cens := 0.0, 0
	for i, x := range s.x {
		sum += x
		if s.cens[i] {
			cens++
		}
	}
	mean = stat{v: sum / float64(len(s.x)), exact: cens == 0, n: len(s.x), cens: cens, censored: cens > 0}
	return mean, s.quantile(0.99)
}

func readE4(run *experiment.RunRef, dist string) (*e4Result, error) {
	s, err := run.Summary()
	if err != nil {
		return nil, err
	}
	if s.Perftest == nil {
		return nil, fmt.Errorf("%s: summary.json has no perftest section", run.Dir)
	}
	pt := s.Perftest
	r := &e4Result{gbps: pt.Bandwidth.TotalGbps, drops: s.Drops, gap: math.NaN()}
	if f := pt.Bandwidth.Flows; len(f) >= 2 && f[0].Gbps+f[1].Gbps > 0 {
		r.gap = 100 * math.Abs(f[0].Gbps-f[1].Gbps) / (f[0].Gbps + f[1].Gbps)
	}
	var posts, dones []sim.Time
	if pt.Latency.Count > 0 {
		t, err := run.Table("messages.csv")
		if err != nil {
			return nil, err
		}
		cols, err := t.FloatCols("post_ns", "done_ns")
		if err != nil {
			return nil, err
		}
		for i := range cols[0] {
			posts = append(posts, scenarioNs(cols[0][i]))
			dones = append(dones, scenarioNs(cols[1][i]))
		}
	}
	end := sim.Time(math.Round(pt.DurationMs * float64(sim.Millisecond)))
	r.latMean, r.latP99 = probeStats(posts, dones, end, probeGuard(dist))
	return r, nil
}

func scenarioNs(ns float64) sim.Time { return sim.Time(math.Round(ns * float64(sim.Nanosecond))) }

// e4Res are E4's points: distance → point index (e4Points) → algorithm →
// seeds.
type e4Res map[string][]map[string][]*e4Result

func e4Claims() []experiment.Claim {
	fig1112 := " (the points of Figs. 11 and 12: the message-size and MTU sweeps)"
	return []experiment.Claim{
		{ID: "short-avg", Description: "short distance: WRCC's average probe latency is close to DCQCN's (「WRCC在平均时延上与其性能接近」; no number printed: within the paper-wide tolerance, the largest |WRCC/DCQCN − 1| over the points ≤ 25 %)" + fig1112, PaperValue: "close", Unit: "% (largest |difference|)",
			Kind: experiment.Range, Lo: 0, Hi: 25},
		{ID: "short-tail", Description: "short distance: WRCC cuts the tail (p99) latency by 7 %–49 % (「在尾时延上性能提升幅度达到7%~49%」): below DCQCN at every point, the cuts' span overlapping 7–49" + fig1112, PaperValue: "7–49", Unit: "% cut",
			Kind: experiment.Count, Need: 8, Of: 8, Mag: experiment.MagSpan, Lo: 7, Hi: 49},
		{ID: "gap-short", Description: "short distance: WRCC's gap between tail and average latency is far smaller than DCQCN's (「WRCC的平均时延与尾时延的差异远小于DCQCN」): p99 − mean below DCQCN's at every point" + fig1112, PaperValue: "8 of 8", Unit: "points",
			Kind: experiment.Count, Need: 8, Of: 8},
		{ID: "short-fair", Description: "short distance: WRCC and DCQCN both converge and share the bandwidth fairly (「均能正常收敛, 并实现公平带宽共享」): the largest gap |r1 − r2|/(r1 + r2) of the two bandwidth flows over both algorithms and the durations of Fig. 13 below 10 % (E0's convergence bound)", PaperValue: "fair", Unit: "% (largest gap)",
			Kind: experiment.Range, Lo: 0, Hi: 10},
		{ID: "short-tput-close", Description: "short distance: WRCC's throughput is close to DCQCN's (「WRCC与DCQCN的吞吐量与平均时延接近」; within the paper-wide tolerance: the largest |WRCC/DCQCN − 1| over the points of Figs. 11–13 ≤ 25 %)", PaperValue: "close", Unit: "% (largest |difference|)",
			Kind: experiment.Range, Lo: 0, Hi: 25},
		{ID: "long-avg", Description: "640 km: WRCC cuts the average latency by 2 %–7 % (「平均时延和尾时延分别降低2%~7%和45%~49%」): below DCQCN at every point, the cuts' span overlapping 2–7" + fig1112, PaperValue: "2–7", Unit: "% cut",
			Kind: experiment.Count, Need: 8, Of: 8, Mag: experiment.MagSpan, Lo: 2, Hi: 7},
		{ID: "long-tail", Description: "640 km: WRCC cuts the tail latency by 45 %–49 %: below DCQCN at every point, the cuts' span overlapping 45–49" + fig1112, PaperValue: "45–49", Unit: "% cut",
			Kind: experiment.Count, Need: 8, Of: 8, Mag: experiment.MagSpan, Lo: 45, Hi: 49},
		{ID: "gap-long", Description: "640 km: WRCC's p99 − mean latency below DCQCN's at every point" + fig1112, PaperValue: "8 of 8", Unit: "points",
			Kind: experiment.Count, Need: 8, Of: 8},
		{ID: "long-tput", Description: "640 km: WRCC's bandwidth flows reach a higher average throughput than DCQCN's at every test duration, by 26 %–90 % (「在不同测试时间下均能实现更高的平均吞吐量…26%~90%的平均吞吐量提升」; the points of Fig. 13)", PaperValue: "26–90", Unit: "% more",
			Kind: experiment.Count, Need: 5, Of: 5, Mag: experiment.MagSpan, Lo: 26, Hi: 90},
	}
}

func analyzeE4(ctx *experiment.Context) (*report.Section, error) {
	sec := &report.Section{}
	res := e4Res{}
	for _, d := range distances {
		pts := e4Points(ctx.Scale, d.id)
		res[d.id] = make([]map[string][]*e4Result, len(pts))
		for i, p := range pts {
			res[d.id][i] = map[string][]*e4Result{}
			for _, c := range e4Algs {
				runs, err := ctx.SeedRuns(p.key(d.id, c))
				if err != nil {
					return nil, err
				}
				for _, run := range runs {
					r, err := readE4(run, d.id)
					if err != nil {
						return nil, err
					}
					res[d.id][i][c] = append(res[d.id][i][c], r)
				}
			}
		}
		for _, ax := range e4Axes(ctx.Scale, d.id) {
			t, figs := e4Table(ctx.Scale, d.id, d.name, ax, res[d.id])
			sec.Tables = append(sec.Tables, t)
			sec.Figures = append(sec.Figures, figs...)
		}
	}
	measureE4(ctx, res)
	return sec, nil
}

// e4Of is a quantity of one point and algorithm over its seeds.
func e4Of(rs []*e4Result, f func(*e4Result) stat) (experiment.Sample, bool) {
	s := make(experiment.Sample, len(rs))
	low := false
	for i, r := range rs {
		st := f(r)
		s[i], low = st.v, low || !st.exact
	}
	return s, low
}

func e4Num(rs []*e4Result, f func(*e4Result) float64) experiment.Sample {
	s := make(experiment.Sample, len(rs))
	for i, r := range rs {
		s[i] = f(r)
	}
	return s
}

var (
	latMean = func(r *e4Result) stat { return r.latMean }
	latP99  = func(r *e4Result) stat { return r.latP99 }
	latGap  = func(r *e4Result) stat {
		return stat{v: r.latP99.v - r.latMean.v, exact: r.latP99.exact && r.latMean.exact}
	}
	tput = func(r *e4Result) float64 { return r.gbps }
)

// e4Figs are whether point p belongs to one of the figures' sweeps.
func e4In(sc experiment.Scale, dist string, p e4Point, axes ...string) bool {
	for _, a := range axes {
		if p.axis == a {
			return true
		}
	}
	// a sweep's default point also belongs to the other sweeps
	for _, q := range e4Points(sc, dist) {
		for _, a := range axes {
			if q.axis == a && q.same(p) {
				return true
			}
		}
	}
	return false
}

// measureE4 measures E4's claims over the figures' points (each run once:
// a default point shared by sweeps counts once).
func measureE4(ctx *experiment.Context, res e4Res) {
	for _, d := range distances {
		var avg, tail, gap, tp pairs
		var avgMag, tailMag, tpMag mags
		var absAvg, absTput, fair experiment.Sample
		var absAvgLow bool
		seen := []e4Point{}
		for i, p := range e4Points(ctx.Scale, d.id) {
			dup := false
			for _, q := range seen {
				dup = dup || q.same(p)
			}
			if dup {
				continue
			}
			seen = append(seen, p)
			w, dc := res[d.id][i]["wrcc"], res[d.id][i]["dcqcn"]
			name := fmt.Sprintf("%s=%g", p.axis, p.xValue)
			if e4In(ctx.Scale, d.id, p, "msg", "mtu") {
				wm, wml := e4Of(w, latMean)
				dm, dml := e4Of(dc, latMean)
				avg.add(name, wm, wml, dm, dml)
				avgMag.add(name, cutOf(wm, dm), wml || dml)
				if !hasNaN(wm) && !hasNaN(dm) {
					absAvg = append(absAvg, math.Abs(experiment.Pct(wm.Mean(), dm.Mean())))
					absAvgLow = absAvgLow || wml || dml
				}
				wp, wpl := e4Of(w, latP99)
				dp, dpl := e4Of(dc, latP99)
				tail.add(name, wp, wpl, dp, dpl)
				tailMag.add(name, cutOf(wp, dp), wpl || dpl)
				wg, wgl := e4Of(w, latGap)
				dg, dgl := e4Of(dc, latGap)
				gap.add(name, wg, wgl || dgl, dg, wgl || dgl)
			}
			if e4In(ctx.Scale, d.id, p, "msg", "mtu", "dur") && d.id == "short" {
				absTput = append(absTput, math.Abs(experiment.Pct(e4Num(w, tput).Mean(), e4Num(dc, tput).Mean())))
			}
			if e4In(ctx.Scale, d.id, p, "dur") {
				wt, dt := e4Num(w, tput), e4Num(dc, tput)
				tp.add(name, wt, false, dt, false)
				tpMag.add(name, pctOf(wt, dt), false)
				for _, rs := range [][]*e4Result{w, dc} {
					fair = append(fair, e4Num(rs, func(r *e4Result) float64 { return r.gap }).Mean())
				}
			}
		}
		if d.id == "short" {
			ctx.Measure("short-avg", maxMeasure(absAvg, absAvgLow, "largest |WRCC/DCQCN − 1| of the mean latency; cut per point: "+avgMag.text(" %")))
			ctx.Measure("short-tail", rangeMeasure(&tail, &tailMag, ctx.Scale))
			ctx.Measure("gap-short", gapMeasure(&gap, ctx.Scale))
			var gaps []string
			for _, g := range fair {
				gaps = append(gaps, experiment.G4Dash(g))
			}
			ctx.Measure("short-fair", maxMeasure(fair, false, "gap of the two bandwidth flows (%; WRCC, DCQCN per duration): "+strings.Join(gaps, ", ")))
			ctx.Measure("short-tput-close", maxMeasure(absTput, false, "largest |WRCC/DCQCN − 1| of the throughput over the points of Figs. 11–13"))
		} else {
			ctx.Measure("long-avg", rangeMeasure(&avg, &avgMag, ctx.Scale))
			ctx.Measure("long-tail", rangeMeasure(&tail, &tailMag, ctx.Scale))
			ctx.Measure("gap-long", gapMeasure(&gap, ctx.Scale))
			m := tp.count(experiment.Greater, ctx.Scale)
			m.Mag, m.MagLower = tpMag.pts, tpMag.low
			m.Text = countText(m) + " above; " + tpMag.spanText() + " % more"
			m.Note = "throughput (Gb/s) WRCC vs DCQCN: " + m.Note + "; difference: " + tpMag.text(" %")
			ctx.Measure("long-tput", m)
		}
	}
}

// maxMeasure is a Range measure of the largest of xs (NaN entries left
// out); low marks it a bound.
func maxMeasure(xs experiment.Sample, low bool, note string) experiment.Measure {
	mx := math.NaN()
	for _, x := range xs {
		if !math.IsNaN(x) {
			mx = maxNaN(mx, x)
		}
	}
	if math.IsNaN(mx) {
		return nanMeasure(1, "no point measured: "+note)
	}
	m := experiment.M(mx)
	if low {
		m.Lower = []bool{true}
	}
	m.Note = note
	return m
}

// gapMeasure is the Count of points with WRCC's p99 − mean below DCQCN's.
func gapMeasure(p *pairs, sc experiment.Scale) experiment.Measure {
	m := p.count(experiment.Less, sc)
	m.Text = countText(m)
	m.Note = "p99 − mean (µs) WRCC vs DCQCN: " + m.Note
	return m
}

// e4Table is one sweep's table and its latency and throughput figures
// (latency left out of the duration sweep, where the probe window may be
// empty).
func e4Table(sc experiment.Scale, dist, dname string, ax e4Axis, res []map[string][]*e4Result) (report.Table, []report.Figure) {
	t := report.Table{ID: dist + "-" + ax.id, Title: fmt.Sprintf("%s: %s sweep — probe latency (µs; DCQCN: mean over seeds; \"≥\" a lower bound, a message in flight at the end) and bandwidth-flow throughput (Gb/s)", dname, ax.name),
		Columns: []string{ax.name, "WRCC avg", "DCQCN avg", "WRCC p99", "DCQCN p99", "WRCC Gb/s", "DCQCN Gb/s", "WRCC flow gap (%)", "DCQCN flow gap (%)", "WRCC drops", "DCQCN drops"}}
	figLat := report.Figure{ID: dist + "-" + ax.id + "-p99", Title: fmt.Sprintf("%s — p99 probe latency by %s", dname, ax.name), XLabel: axisLabel(ax), YLabel: "p99 latency (µs)", LogX: ax.id == "msg"}
	figBW := report.Figure{ID: dist + "-" + ax.id + "-gbps", Title: fmt.Sprintf("%s — bandwidth flows' throughput by %s", dname, ax.name), XLabel: axisLabel(ax), YLabel: "total throughput (Gb/s)", LogX: ax.id == "msg"}
	xs := map[string][]float64{}
	ys := map[string][2][]float64{}
	for i, p := range e4Points(sc, dist) {
		if p.axis != ax.id {
			continue
		}
		x := p.xValue
		if ax.id == "msg" {
			x /= 1e3
		}
		w, d := res[i]["wrcc"], res[i]["dcqcn"]
		row := []string{experiment.G4Dash(x), cell(e4Of(w, latMean)), cell(e4Of(d, latMean)), cell(e4Of(w, latP99)), cell(e4Of(d, latP99)),
			cell(e4Num(w, tput), false), cell(e4Num(d, tput), false), cell(e4Num(w, func(r *e4Result) float64 { return r.gap }), false), cell(e4Num(d, func(r *e4Result) float64 { return r.gap }), false),
			fmt.Sprint(w[0].drops), cell(e4Num(d, func(r *e4Result) float64 { return float64(r.drops) }), false)}
		t.Rows = append(t.Rows, row)
		for _, c := range e4Algs {
			p99, _ := e4Of(res[i][c], latP99)
			y := ys[c]
			if !hasNaN(p99) {
				xs[c+"lat"] = append(xs[c+"lat"], x)
				y[0] = append(y[0], p99.Mean())
			}
			xs[c] = append(xs[c], x)
			y[1] = append(y[1], e4Num(res[i][c], tput).Mean())
			ys[c] = y
		}
	}
	for k, c := range e4Algs {
		figLat.Series = append(figLat.Series, report.Series{Label: algs.Name(c), X: xs[c+"lat"], Y: ys[c][0], Points: true, Style: k + 1})
		figBW.Series = append(figBW.Series, report.Series{Label: algs.Name(c), X: xs[c], Y: ys[c][1], Points: true, Style: k + 1})
	}
	if ax.id == "dur" {
		return t, []report.Figure{figBW}
	}
	return t, []report.Figure{figLat, figBW}
}

func axisLabel(ax e4Axis) string {
	if ax.unit == "" {
		return ax.name
	}
	return ax.name + " (" + ax.unit + ")"
}

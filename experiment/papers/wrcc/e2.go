package wrcc

// E2: load robustness, WebSearch at 30 %, 60 % and 90 % load (the paper's
// Table 3).

import (
	"fmt"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// loads are E2's loads (the network load; its basis is the reading's).
var loads = []float64{0.3, 0.6, 0.9}

// table3 is the paper's Table 3: p50, p99 FCT slowdown by load and method.
var table3 = map[float64]map[string][2]float64{
	0.3: {"wrcc": {1.96, 18.41}, "dcqcn": {2.87, 33.33}, "hpcc": {2.14, 34.97}, "bicc": {2.17, 20.38}},
	0.6: {"wrcc": {4.12, 25.46}, "dcqcn": {6.56, 51.16}, "hpcc": {7.74, 83.81}, "bicc": {5.84, 28.9}},
	0.9: {"wrcc": {8.82, 30.86}, "dcqcn": {11.56, 72.64}, "hpcc": {15.51, 103.4}, "bicc": {9.67, 50.46}},
}

func e2Runs(sc experiment.Scale) []experiment.RunSpec {
	return crossRuns(sc, patterns[:1], loads, wrccts[:1])
}

// e2Ranges are the paper's summary: WRCC improves the average (p50) and
// tail (p99) slowdown by these ranges (%) over the loads (「WRCC的平均FCT分别
// 提升了24%~37%、8%~47%和10%~29%, 尾FCT分别提升了45%~58%、47%~70%和10%~39%」).
var e2Ranges = map[string][2][2]float64{
	"dcqcn": {{24, 37}, {45, 58}}, "hpcc": {{8, 47}, {47, 70}}, "bicc": {{10, 29}, {10, 39}},
}

// sdStats are the two statistics of Tables 3 and 4.
var sdStats = []struct {
	id, name string
	get      func(*crossPoint) stat
}{{"p50", "p50 (\"average\")", func(p *crossPoint) stat { return p.sdP50 }}, {"p99", "p99 (\"tail\")", func(p *crossPoint) stat { return p.sdP99 }}}

func e2Claims() []experiment.Claim {
	out := []experiment.Claim{
		{ID: "wrcc-best", Description: "WRCC has a lower p50 and p99 slowdown than DCQCN and HPCC at every load (Table 3; implied by the positive improvement ranges)", PaperValue: "12 of 12", Unit: "points",
			Kind: experiment.Count, Need: 12, Of: 12},
		{ID: "wrcc-best-bicc", Description: "WRCC has a lower p50 and p99 slowdown than BiCC at every load (Table 3)" + biccLabel, PaperValue: "6 of 6", Unit: "points",
			Kind: experiment.Count, Need: 6, Of: 6},
	}
	for _, a := range algs[1:] {
		r := e2Ranges[a.CC]
		for qi, q := range sdStats {
			out = append(out, experiment.Claim{ID: q.id + "-" + a.CC, Description: descFor(a.CC, fmt.Sprintf("WRCC improves the %s slowdown against %s at every load, by %g %%–%g %% (the statement: below %s at each of the 3 loads)", q.name, a.Name, r[qi][0], r[qi][1], a.Name)),
				PaperValue: fmt.Sprintf("%g–%g", r[qi][0], r[qi][1]), Unit: "% (cut per load)", Kind: experiment.Count, Need: 3, Of: 3, Mag: experiment.MagSpan, Lo: r[qi][0], Hi: r[qi][1]})
		}
	}
	for _, a := range algs[1:] {
		out = append(out, experiment.Claim{ID: "grows-" + a.CC, Description: descFor(a.CC, "WRCC's advantage over "+a.Name+" grows with the load (「随着网络负载的增加, WRCC的性能优势更加明显」): its p99 cut at 30 % < at 60 % < at 90 % (the paper's own Table 3 supports it for the p99 only)"),
			PaperValue: "yes", Unit: "% (p99 cut at 30, 60, 90 %)", Kind: experiment.Order, Rel: experiment.Less})
	}
	for _, q := range []struct {
		id, name string
		lo, hi   float64
	}{{"abstract-avg", "average (p50)", 8, 47}, {"abstract-tail", "tail (p99)", 10, 70}} {
		out = append(out, experiment.Claim{ID: q.id, Description: fmt.Sprintf("abstract: compared with existing methods WRCC cuts the %s FCT by %g %%–%g %% (「与现有商用方法相比, WRCC能将平均流完成时间降低8%%~47%%, 还能将尾流完成时间降低10%%~70%%」; the union of Table 3's per-baseline ranges, BiCC included): below every baseline at every load, and the 9 cuts' span overlaps the range%s", q.name, q.lo, q.hi, biccLabel),
			PaperValue: fmt.Sprintf("%g–%g", q.lo, q.hi), Unit: "% (9 cuts)", Kind: experiment.Count, Need: 9, Of: 9, Mag: experiment.MagSpan, Lo: q.lo, Hi: q.hi})
	}
	return out
}

func e2() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e2",
		Title: "Load robustness: 30 %, 60 %, 90 % (Table 3)",
		SetupAt: func(sc experiment.Scale) string {
			return crossSetup(sc) + ` E2: WebSearch at loads 30 %, 60 % and 90 %. Metric: the p50 and p99 FCT slowdown over every flow that started, incast flows included (the paper's table is over all flows; slowdown = FCT / the flow's FCT alone in the empty network, clamped to ≥ 1), the unfinished flows censored at the run's end ("≥": a lower bound). The improvement claims state WRCC below the baseline at each load (Count) and compare the span of ccsim's cuts with the printed range (overlap). The paper's own Table 3 gives 8.8 %–29.5 % against BiCC for the p50, not the printed 10 %–29 %.`
		},
		Claims:   e2Claims(),
		Runs:     e2Runs,
		Readings: crossReadings(),
		Checks:   crossChecks(30),
		Analyze:  analyzeE2,
	}
}

// loadRes are the points of a sweep: row → algorithm → seeds.
type loadRes map[float64]map[string]seedPoints

func analyzeE2(ctx *experiment.Context) (*report.Section, error) {
	sec := &report.Section{}
	res := loadRes{}
	for _, l := range loads {
		r, err := readCrossSeeds(ctx, "websearch", l, wrccts[0])
		if err != nil {
			return nil, err
		}
		res[l] = r
	}
	sec.Tables = append(sec.Tables, slowdownTable("table3", "Table 3 — FCT slowdown by load: paper beside ccsim (mean over seeds, range in brackets)", "load", loads, loadLabel, res, table3))
	for _, q := range sdStats {
		fig := report.Figure{ID: q.id, Title: "WebSearch — " + q.id + " FCT slowdown by load (mean over seeds)", XLabel: "load (%)", YLabel: q.id + " FCT slowdown"}
		for k, a := range algs {
			var x, y []float64
			for _, l := range loads {
				s, _ := res[l][a.CC].of(q.get)
				x, y = append(x, 100*l), append(y, s.Mean())
			}
			fig.Series = append(fig.Series, report.Series{Label: a.Name, X: x, Y: y, Points: true, Style: k + 1})
		}
		sec.Figures = append(sec.Figures, fig)
	}
	sec.Tables = append(sec.Tables, groupTable(loads, res), costTable(res[loads[len(loads)-1]], fmt.Sprintf("load %.0f %%", 100*loads[len(loads)-1])))
	measureBest(ctx, loads, loadLabel, res)
	measureRanges(ctx, res)
	measureGrows(ctx, res)
	return sec, nil
}

func loadLabel(l float64) string { return fmt.Sprintf("%.0f %%", 100*l) }

// measureBest measures wrcc-best (DCQCN, HPCC) and wrcc-best-bicc: WRCC's
// p50 and p99 below the baseline's in every row of a table.
func measureBest(ctx *experiment.Context, rows []float64, label func(float64) string, res loadRes) {
	var main, bicc pairs
	for _, r := range rows {
		for _, a := range algs[1:] {
			for _, q := range sdStats {
				ws, wl := res[r]["wrcc"].of(q.get)
				bs, bl := res[r][a.CC].of(q.get)
				p := &main
				if a.CC == "bicc" {
					p = &bicc
				}
				p.add(fmt.Sprintf("%s %s %s", label(r), a.Name, q.id), ws, wl, bs, bl)
			}
		}
	}
	for id, p := range map[string]*pairs{"wrcc-best": &main, "wrcc-best-bicc": &bicc} {
		m := p.count(experiment.Less, ctx.Scale)
		m.Text = countText(m)
		m.Note = "slowdown, WRCC vs the baseline: " + m.Note
		ctx.Measure(id, m)
	}
}

// countText is the value of a Count measure: "k of n (u undecided)".
func countText(m experiment.Measure) string {
	t := fmt.Sprintf("%s of %s", experiment.G4(m.Values[0].Mean()), experiment.G4(m.Values[1].Mean()))
	if len(m.Values) > 2 && m.Values[2].Mean() > 0 {
		t += fmt.Sprintf(" (%s undecided)", experiment.G4(m.Values[2].Mean()))
	}
	return t
}

// measureRanges measures the per-baseline ranges (p50-*, p99-*) and the
// abstract's (abstract-avg, abstract-tail): WRCC below the baseline at
// every load (Count) and the span of the cuts (MagSpan).
func measureRanges(ctx *experiment.Context, res loadRes) {
	abs := map[string]*pairs{"p50": {}, "p99": {}}
	absMag := map[string]*mags{"p50": {}, "p99": {}}
	for _, a := range algs[1:] {
		for _, q := range sdStats {
			var p pairs
			var mg mags
			for _, l := range loads {
				ws, wl := res[l]["wrcc"].of(q.get)
				bs, bl := res[l][a.CC].of(q.get)
				name := loadLabel(l)
				p.add(name, ws, wl, bs, bl)
				mg.add(name, cutOf(ws, bs), wl || bl)
				abs[q.id].add(name+" "+a.Name, ws, wl, bs, bl)
				absMag[q.id].add(name+" "+a.Name, cutOf(ws, bs), wl || bl)
			}
			ctx.Measure(q.id+"-"+a.CC, rangeMeasure(&p, &mg, ctx.Scale))
		}
	}
	ctx.Measure("abstract-avg", rangeMeasure(abs["p50"], absMag["p50"], ctx.Scale))
	ctx.Measure("abstract-tail", rangeMeasure(abs["p99"], absMag["p99"], ctx.Scale))
}

// rangeMeasure is a Count (WRCC below at every point) with a MagSpan of
// the cuts.
func rangeMeasure(p *pairs, mg *mags, sc experiment.Scale) experiment.Measure {
	m := p.count(experiment.Less, sc)
	m.Mag, m.MagLower = mg.pts, mg.low
	m.Text = countText(m) + " below; cut " + mg.spanText() + " %"
	m.Note = "slowdown WRCC vs baseline: " + m.Note + "; cut: " + mg.text(" %")
	return m
}

// measureGrows measures grows-*: WRCC's p99 cut against each baseline in
// the order of the loads.
func measureGrows(ctx *experiment.Context, res loadRes) {
	for _, a := range algs[1:] {
		m := experiment.Measure{}
		var sides [][2]bool
		var mg mags
		for _, l := range loads {
			ws, wl := res[l]["wrcc"].of(sdStats[1].get)
			bs, bl := res[l][a.CC].of(sdStats[1].get)
			c := cutOf(ws, bs)
			m.Values = append(m.Values, c)
			m.Labels = append(m.Labels, loadLabel(l))
			sides = append(sides, [2]bool{wl, bl})
			mg.add(loadLabel(l), c, wl || bl)
		}
		m.Lower = cutLowers(sides...)
		m.Note = "p99 cut per load: " + mg.text(" %")
		ctx.Measure("grows-"+a.CC, m)
	}
}

// slowdownTable prints a paper table (p50, p99 per row and method) beside
// ccsim's (means over the seeds, their range; "≥" a lower bound) with the
// censored flows under each statistic.
func slowdownTable(id, title, rowName string, rows []float64, label func(float64) string, res loadRes, paper map[float64]map[string][2]float64) report.Table {
	t := report.Table{ID: id, Title: title, Columns: []string{rowName, "method", "paper p50", "ccsim p50", "paper p99", "ccsim p99", "censored flows (per seed)"}}
	for _, r := range rows {
		for _, a := range algs {
			pp := paper[r][a.CC]
			sp := res[r][a.CC]
			t.Rows = append(t.Rows, []string{label(r), a.Name, experiment.G4Dash(pp[0]), cell(sp.of(sdStats[0].get)), experiment.G4Dash(pp[1]), cell(sp.of(sdStats[1].get)),
				sp.censoredText(sdStats[1].get) + " of " + sp.intText(func(p *crossPoint) int { return p.flows })})
		}
	}
	return t
}

// groupTable is Table 3's slowdowns split by the workload's flow groups:
// where each algorithm's overall p50/p99 comes from (cross-DC flows, whose
// ideal FCT holds the 2-ms long-haul RTT, intra-DC flows, incast flows).
func groupTable(rows []float64, res loadRes) report.Table {
	groups := []struct{ id, name string }{{"cross", "cross-DC"}, {"intra", "intra-DC"}, {"incast", "incast"}}
	t := report.Table{ID: "groups", Title: "FCT slowdown p50 / p99 by flow group (cross-DC all-to-all, intra-DC, incast; mean over seeds, censored flows included: \"≥\" a lower bound)", Columns: []string{"load", "method"}}
	for _, g := range groups {
		t.Columns = append(t.Columns, g.name+" p50", g.name+" p99", g.name+" censored")
	}
	for _, l := range rows {
		for _, a := range algs {
			sp := res[l][a.CC]
			row := []string{loadLabel(l), a.Name}
			for _, g := range groups {
				get := func(k int) func(*crossPoint) stat {
					return func(p *crossPoint) stat {
						v, ok := p.groupSd[g.id]
						if !ok {
							return stat{v: nanF, exact: true}
						}
						return v[k]
					}
				}
				row = append(row, cell(sp.of(get(0))), cell(sp.of(get(1))), sp.censoredText(get(1)))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// costTable is the simulation cost of one point per algorithm (first
// seed), with the packets dropped (all control packets when no data byte
// was dropped: the fabric is lossless for data).
func costTable(res map[string]seedPoints, at string) report.Table {
	t := report.Table{ID: "cost", Title: "Simulation cost at " + at + " (first seed, one core each) and drops", Columns: []string{"algorithm", "flows", "incast flows", "events", "wall (s)", "events/s", "packets dropped", "data bytes dropped"}}
	for _, a := range algs {
		p := res[a.CC][0]
		t.Rows = append(t.Rows, []string{a.Name, fmt.Sprint(p.flows), fmt.Sprint(p.incast), fmt.Sprint(p.events), fmt.Sprintf("%.2f", p.wall), experiment.EventsPerSecond(p.events, p.wall), fmt.Sprint(p.drops), fmt.Sprint(p.bytesDropped)})
	}
	return t
}

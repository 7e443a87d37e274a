package dcon

// E3: the large-scale leaf-spine with web-search and data-mining traffic
// (the paper's Figs. 8–10).

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// workloads are E3's traffic patterns: id (in run keys), built-in CDF and
// name.
var workloads = []struct{ id, cdf, name string }{{"websearch", "websearch", "web search"}, {"datamining", "datamining", "data mining"}}

// e3Runs sweeps workload × core load × algorithm × seed. The load's patch
// depends on the workload (the arrival window is sized for the flow count
// from the CDF's mean), so each workload is its own Sweep with the
// workload as a one-value axis that names it in the keys.
func e3Runs(sc experiment.Scale) []experiment.RunSpec {
	var runs []experiment.RunSpec
	for _, w := range workloads {
		wl := experiment.Axis{Name: "workload", Values: []experiment.Value{{Label: w.id}}}
		runs = append(runs, experiment.Sweep{Base: leafspine, Axes: []experiment.Axis{wl, loadAxis(sc, w.cdf)}, CC: algs.CCs(), CCPatch: ccPatch(), Seeds: experiment.Seeds(sc)}.Expand()...)
	}
	return runs
}

// paper §6.2.1: DCON's reductions (%) at core load 0.8 against each
// baseline.
var (
	wsAvgCut = map[string]float64{"dcqcn": 55, "swift": 42, "pcn": 20} // web search, average FCT
	dmP99Cut = map[string]float64{"dcqcn": 64, "swift": 53, "pcn": 32} // data mining, p99 FCT
)

// e3Claims are E3's claims: the reductions at load 0.8, the lowest PAUSE
// rate, average and p99 FCT at every point, and the headline "up to".
func e3Claims() []experiment.Claim {
	var out []experiment.Claim
	for _, m := range []struct {
		id, workload, metric string
		cut                  map[string]float64
	}{{"ws-avg", "web search", "average FCT", wsAvgCut}, {"dm-p99", "data mining", "p99 FCT", dmP99Cut}} {
		for _, a := range baselines {
			out = append(out, experiment.Claim{ID: m.id + "-" + a.CC,
				Description: fmt.Sprintf("%s, load 0.8: DCON's %s is %g %% below %s's (§6.2.1)", m.workload, m.metric, m.cut[a.CC], a.Name),
				PaperValue:  fmt.Sprintf("−%g", m.cut[a.CC]), Unit: "%", Kind: experiment.Direction, Rel: experiment.Less, Mag: experiment.MagValue, Paper: -m.cut[a.CC]})
		}
	}
	count := func(id, what string) experiment.Claim {
		return experiment.Claim{ID: id, Description: what + " (workload × load × baseline pairs)", PaperValue: "30 of 30", Unit: "pairs", Kind: experiment.Count, Need: 30, Of: 30}
	}
	return append(out,
		count("fewest-pauses", "DCON's PFC PAUSE frame rate is below DCQCN's, Swift's and PCN's in both workloads at every load (Figs. 9(a), 10(a))"),
		count("lowest-avg", "DCON's average FCT is the lowest in both workloads at every load (Figs. 9(b), 10(b))"),
		count("lowest-p99", "DCON's p99 FCT is the lowest in both workloads at every load (Figs. 9(c), 10(c))"),
		experiment.Claim{ID: "upto-avg", Description: "DCON cuts the average FCT by up to 55 % (abstract, §7; the best of every workload × load × baseline)",
			PaperValue: "−55", Unit: "%", Kind: experiment.Magnitude, Mag: experiment.MagUpTo, Paper: -55},
		experiment.Claim{ID: "upto-p99", Description: "DCON cuts the p99 FCT by up to 64 % (§1, §7; the best of every workload × load × baseline)",
			PaperValue: "−64", Unit: "%", Kind: experiment.Magnitude, Mag: experiment.MagUpTo, Paper: -64})
}

func e3() *experiment.Experiment {
	return &experiment.Experiment{
		ID:       "e3",
		Title:    "Large-scale leaf-spine: web search and data mining (Figs. 8–10)",
		SetupAt:  e3Setup,
		Claims:   e3Claims(),
		Readings: nsReadings(),
		Checks:   e3Checks(),
		Runs:     e3Runs,
		Analyze:  analyzeE3,
	}
}

// e3Setup is E3's setup text at a scale.
func e3Setup(sc experiment.Scale) string {
	_, flows, ls := lsScale(sc)
	return fmt.Sprintf(`The NS-3 leaf-spine (topology T5): %s (the core-layer load read as the expected utilisation of the leaf → spine uplinks, docs/papers.md §5.3). Poisson flow arrivals between uniformly random host pairs, flow sizes from the web-search (DCTCP) or the data-mining (VL2) distribution, at a core-layer load of %v; the arrival window is sized for about %d flows per point (+5 %%) and each run ends when every flow has finished (at most 3 s; a flow still unfinished is censored at the end). Seeds: %d (arrivals, pairs, sizes, ECMP).

Unspecified in the paper and taken from the testbed (§3.1): 22 MB shared buffer, static PFC at 320 KB per ingress queue, 1000 B payload. DCQCN: the DCQCN paper's parameters and RED marking K_min 5 KB, K_max 200 KB, P_max 1 %% (its own default, not DCON's step); DCON: its defaults (dynamic Q_CNM, M the egress queues holding an ingress's bytes, T = 3 RTT, a CNM per burst packet and the sender's 50 µs window) with the reading's Q_ECN (primary 200 KB); Swift: its defaults with a base target of 65 µs (as in E2); PCN: its defaults. Metrics: the PFC PAUSE frame rate (all PAUSE frames of the network per ms of the Poisson arrival window, the same span for every algorithm at a point), the average and the 99th-percentile FCT over every flow (censored ones included, counted beside).`,
		lsTopologyText(sc), ls, flows, len(experiment.Seeds(sc)))
}

// e3Metrics are the three metrics of Figs. 8–10.
var e3Metrics = []struct {
	id, title, unit string
	get             func(*lsPoint) experiment.Sample
	fct             bool
}{
	{"pause", "PFC PAUSE frame rate", "frames/ms", (*lsPoint).pause, false},
	{"avg", "average FCT", "µs", (*lsPoint).avg, true},
	{"p99", "99th-percentile FCT", "µs", (*lsPoint).p99, true},
}

// e3Res is E3's points: workload → algorithm → one point per load.
type e3Res map[string]map[string][]*lsPoint

func analyzeE3(ctx *experiment.Context) (*report.Section, error) {
	_, _, ls := lsScale(ctx.Scale)
	sec := &report.Section{}
	res, notes := readE3(ctx, ls)
	for _, w := range workloads {
		for _, m := range e3Metrics {
			t, fig := lsTable(w.id+"-"+m.id, fmt.Sprintf("%s: %s (%s) by core load", w.name, m.title, m.unit), w.name+" — "+m.title, m.title+" ("+m.unit+")",
				ls, algs.Name, algs.CCs(), res[w.id], m.get, m.fct)
			sec.Tables = append(sec.Tables, t)
			sec.Figures = append(sec.Figures, fig)
		}
	}
	sec.Tables = append(sec.Tables, e3Cost(res, ls))
	measureAll(ctx, e3Measures(res, ls))
	sec.Notes = append(notes, e3Findings(ctx, res, ls)...)
	return sec, nil
}

// lsTable is a table and a figure of one metric by core load, a column or
// series per setting (cols, named by name).
func lsTable(id, title, figTitle, yLabel string, ls []float64, name func(string) string, cols []string,
	pts map[string][]*lsPoint, get func(*lsPoint) experiment.Sample, fct bool) (report.Table, report.Figure) {
	t := report.Table{ID: id, Title: title + " (mean over the seeds, their range in brackets)", Columns: []string{"core load"}}
	fig := report.Figure{ID: id, Title: figTitle, XLabel: "core-layer load", YLabel: yLabel}
	for _, c := range cols {
		t.Columns = append(t.Columns, name(c))
	}
	for i, l := range ls {
		row := []string{fmt.Sprint(l)}
		for _, c := range cols {
			p := pts[c][i]
			cell := sampleCell(get(p))
			if fct && p.censored() > 0 {
				cell = fmt.Sprintf("≥ %s (%d censored)", cell, p.censored())
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	for k, c := range cols {
		var y []float64
		for _, p := range pts[c] {
			y = append(y, get(p).Mean())
		}
		fig.Series = append(fig.Series, report.Series{Label: name(c), X: ls, Y: y, Points: true, Style: k + 1})
	}
	return t, fig
}

// readE3 reads every point, noting failures, censored flows and short
// points.
func readE3(ctx *experiment.Context, ls []float64) (e3Res, []string) {
	res := e3Res{}
	var notes []string
	for _, w := range workloads {
		res[w.id] = map[string][]*lsPoint{}
		for _, a := range algs {
			for _, l := range ls {
				p, err := readLS(ctx, fmt.Sprintf("workload=%s load=%v cc=%s", w.id, l, a.CC))
				if err != nil {
					notes = append(notes, err.Error())
				}
				notes = append(notes, pointNotes(ctx, fmt.Sprintf("%s load %v %s", w.id, l, a.Name), p)...)
				res[w.id][a.CC] = append(res[w.id][a.CC], p)
			}
		}
	}
	return res, notes
}

// pointNotes notes a point's censored flows and short runs.
func pointNotes(ctx *experiment.Context, what string, p *lsPoint) []string {
	var out []string
	for _, r := range p.runs {
		if r.censored > 0 {
			out = append(out, fmt.Sprintf("%s: %d of %d flows unfinished at the end, censored (FCT statistics are lower bounds)", what, r.censored, r.flows))
		}
		if r.flows > 0 && r.flows < minFlows && ctx.Scale == experiment.ScalePaper {
			out = append(out, fmt.Sprintf("%s: only %d flows", what, r.flows))
		}
	}
	return out
}

// e3Measures measures E3's claims.
func e3Measures(res e3Res, ls []float64) map[string]experiment.Measure {
	ms := map[string]experiment.Measure{}
	last := len(ls) - 1
	for _, m := range []struct {
		id, w string
		get   func(*lsPoint) experiment.Sample
	}{{"ws-avg", "websearch", (*lsPoint).avg}, {"dm-p99", "datamining", (*lsPoint).p99}} {
		for _, a := range baselines {
			ms[m.id+"-"+a.CC] = reduction(res[m.w]["dcon"][last], res[m.w][a.CC][last], m.get, a.Name)
		}
	}
	var pd, pb, ad, ab, qd, qb []experiment.Sample
	var adl, abl []bool
	var upAvg, upP99 experiment.Measure
	for _, w := range workloads {
		for i := range ls {
			d := res[w.id]["dcon"][i]
			for _, a := range baselines {
				x := res[w.id][a.CC][i]
				pd, pb = append(pd, d.pause()), append(pb, x.pause())
				ad, ab, qd, qb = append(ad, d.avg()), append(ab, x.avg()), append(qd, d.p99()), append(qb, x.p99())
				adl, abl = append(adl, d.censored() > 0), append(abl, x.censored() > 0)
				upAvg.Mag, upAvg.MagLower = append(upAvg.Mag, pctSample(d.avg(), x.avg())), append(upAvg.MagLower, d.censored() > 0)
				upP99.Mag, upP99.MagLower = append(upP99.Mag, pctSample(d.p99(), x.p99())), append(upP99.MagLower, d.censored() > 0)
			}
		}
	}
	ms["fewest-pauses"] = withCountText(pairs(experiment.Less, pd, pb, nil, nil))
	ms["lowest-avg"] = withCountText(pairs(experiment.Less, ad, ab, adl, abl))
	ms["lowest-p99"] = withCountText(pairs(experiment.Less, qd, qb, adl, abl))
	upAvg.Text, upP99.Text = bestText(upAvg.Mag), bestText(upP99.Mag)
	ms["upto-avg"] = upAvg
	ms["upto-p99"] = upP99
	return ms
}

// reduction is a "DCON's X is N % below Y's" measure at one point: the
// direction on the statistic's means and the magnitude per seed.
func reduction(d, x *lsPoint, get func(*lsPoint) experiment.Sample, name string) experiment.Measure {
	m := experiment.Measure{Values: []experiment.Sample{get(d), get(x)}, Lower: []bool{d.censored() > 0, x.censored() > 0},
		Labels: []string{"DCON", name}, Mag: []experiment.Sample{pctSample(get(d), get(x))}, MagLower: []bool{d.censored() > 0}}
	if x.censored() > 0 {
		m.Note = name + "'s statistic is a lower bound (censored flows): the reduction may be larger"
	}
	return m
}

// pctSample is Pct(d, x) per seed (the seeds are paired).
func pctSample(d, x experiment.Sample) experiment.Sample {
	if len(d) != len(x) {
		return experiment.Sample{math.NaN()}
	}
	out := make(experiment.Sample, len(d))
	for i := range d {
		out[i] = experiment.Pct(d[i], x[i])
	}
	return out
}

// bestText is an "up to" measure's text: the best (lowest) mean point and
// the span of all.
func bestText(pts []experiment.Sample) string {
	best, worstV := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		best, worstV = min(best, p.Mean()), max(worstV, p.Mean())
	}
	return fmt.Sprintf("best %s %% (points %s … %s %%)", experiment.G4(best), experiment.G4(best), experiment.G4(worstV))
}

// withCountText gives a count measure its text: "k of n pairs" (and the
// undecided ones).
func withCountText(m experiment.Measure) experiment.Measure {
	m.Text = fmt.Sprintf("%s of %s pairs", experiment.G4(m.Values[0].Mean()), experiment.G4(m.Values[1].Mean()))
	if len(m.Values) == 3 {
		m.Text += fmt.Sprintf(", %s undecided", experiment.G4(m.Values[2].Mean()))
	}
	return m
}

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

// e3Runs sweeps workload × core load × algorithm. The load's patch
// depends on the workload (the arrival window is sized for the flow count
// from the CDF's mean), so each workload is its own Sweep with the
// workload as a one-value axis that names it in the keys.
func e3Runs(sc experiment.Scale) []experiment.RunSpec {
	var runs []experiment.RunSpec
	for _, w := range workloads {
		wl := experiment.Axis{Name: "workload", Values: []experiment.Value{{Label: w.id}}}
		runs = append(runs, experiment.Sweep{Base: leafspine, Axes: []experiment.Axis{wl, loadAxis(sc, w.cdf)}, CC: algs.CCs(), CCPatch: ccPatch(e3DCON)}.Expand()...)
	}
	return runs
}

// paper §6.2: DCON's reductions (%) at core load 0.8 against each
// baseline, in the order of algs.
var (
	wsAvgCut = map[string]int{"dcqcn": 55, "swift": 42, "pcn": 20} // web search, average FCT
	dmP99Cut = map[string]int{"dcqcn": 64, "swift": 53, "pcn": 32} // data mining, p99 FCT
)

// e3Claims are E3's claims: the reductions above, and the PAUSE rates.
func e3Claims() []experiment.Claim {
	var out []experiment.Claim
	for _, m := range []struct {
		id, workload, metric string
		cut                  map[string]int
	}{{"ws-avg", "web search", "average FCT", wsAvgCut}, {"dm-p99", "data mining", "p99 FCT", dmP99Cut}} {
		for _, a := range algs[:3] {
			out = append(out, experiment.Claim{ID: m.id + "-" + a.CC,
				Description: fmt.Sprintf("%s, load 0.8: DCON's %s is %d %% lower than %s's", m.workload, m.metric, m.cut[a.CC], a.Name),
				PaperValue:  fmt.Sprintf("−%d", m.cut[a.CC]), Unit: "%", Verdict: true})
		}
	}
	return append(out, experiment.Claim{ID: "fewest-pauses", Description: "DCON has the lowest PFC PAUSE rate in both workloads (every load)", PaperValue: "yes", Verdict: true})
}

func e3() *experiment.Experiment {
	return &experiment.Experiment{
		ID:      "e3",
		Title:   "Large-scale leaf-spine: web search and data mining (Figs. 8–10)",
		Setup:   `The NS-3 leaf-spine (topology T5): 8 spines, 10 leaves, 24 servers per leaf (240 servers), every leaf linked to every spine, all links 40 Gb/s, 5 µs per hop (3:1 oversubscribed). Poisson flow arrivals between uniformly random host pairs, flow sizes from the web-search (DCTCP) or the data-mining (VL2) distribution, at a core-layer load of 0.4, 0.5, 0.6, 0.7, 0.8 (interpretation: the expected utilisation of the leaf → spine uplinks; a host's offered load is then 0.369 × the core load, docs/papers.md §5.3); the arrival window is sized for about 10,500 flows per point and each run ends when every flow has finished. Unspecified in the paper and chosen as the testbed: 22 MB shared buffer, static PFC at 320 KB per ingress queue, 1000 B payload. DCQCN: the DCQCN paper's parameters and RED marking K_min 5 KB, K_max 200 KB, P_max 1 %; DCON: Q_ECN 100 KB (so that E4's 40 %/60 % of the PFC threshold lie above it), dynamic Q_CNM, T = 3 RTT; Swift: its defaults with a base target of 65 µs (as in E2); PCN: its defaults. Metrics: the PFC PAUSE frame rate (all PAUSE frames of the network per ms of the run), the average and the 99th-percentile FCT.`,
		Claims:  e3Claims(),
		Runs:    e3Runs,
		Analyze: analyzeE3,
	}
}

// e3Metrics are the three metrics of Figs. 8–10.
var e3Metrics = []struct {
	id, title, unit string
	get             func(*lsPoint) float64
}{
	{"pause", "PFC PAUSE frame rate", "frames/ms", func(p *lsPoint) float64 { return p.pausePerMs }},
	{"avg", "average FCT", "µs", func(p *lsPoint) float64 { return p.avg }},
	{"p99", "99th-percentile FCT", "µs", func(p *lsPoint) float64 { return p.p99 }},
}

func analyzeE3(ctx *experiment.Context) (*report.Section, error) {
	_, _, ls := lsScale(ctx.Scale)
	sec := &report.Section{}
	res, notes := readE3(ctx, ls)
	for _, w := range workloads {
		for _, m := range e3Metrics {
			t := report.Table{ID: w.id + "-" + m.id, Title: fmt.Sprintf("%s: %s (%s) by core load", w.name, m.title, m.unit), Columns: []string{"core load"}}
			fig := report.Figure{ID: w.id + "-" + m.id, Title: fmt.Sprintf("%s — %s", w.name, m.title), XLabel: "core-layer load", YLabel: m.title + " (" + m.unit + ")"}
			for _, a := range algs {
				t.Columns = append(t.Columns, a.Name)
			}
			for i, l := range ls {
				row := []string{fmt.Sprint(l)}
				for _, a := range algs {
					row = append(row, experiment.G4DashNaN(m.get(res[w.id][a.CC][i])))
				}
				t.Rows = append(t.Rows, row)
			}
			for k, a := range algs {
				var y []float64
				for _, p := range res[w.id][a.CC] {
					y = append(y, m.get(p))
				}
				fig.Series = append(fig.Series, report.Series{Label: a.Name, X: ls, Y: y, Points: true, Style: k + 1})
			}
			sec.Tables = append(sec.Tables, t)
			sec.Figures = append(sec.Figures, fig)
		}
	}
	cost := report.Table{ID: "cost", Title: "Simulation cost at core load " + fmt.Sprint(ls[len(ls)-1]) + " (one core)", Columns: []string{"workload", "algorithm", "flows", "events", "wall (s)", "events/s"}}
	for _, w := range workloads {
		for _, a := range algs {
			p := res[w.id][a.CC][len(ls)-1]
			cost.Rows = append(cost.Rows, []string{w.name, a.Name, fmt.Sprint(p.flows), fmt.Sprint(p.events), fmt.Sprintf("%.2f", p.wall), experiment.EventsPerSecond(p.events, p.wall)})
		}
	}
	sec.Tables = append(sec.Tables, cost)
	sec.Claims = ctx.Claims(e3Verdicts(res, ls))
	sec.Notes = append(notes,
		"With the dynamic threshold, Q_CNM = max(Q_ECN, Q_PFC/M − 3dC(M−1)) equals Q_ECN wherever an ingress feeding the port fans out to two or more egress ports (M ≥ 2; 320 KB/2 − 75 KB < 100 KB): there the ECN band vanishes and a port goes straight from no congestion to burst. DCON's end-to-end loop then gets few marks (web search at core load 0.8, the first 10 ms of arrivals, 1,973 flows: DCON's switches marked 60,103 packets, DCQCN's RED 409,334; summary.json ecn_marked), the fast path answers only flows whose ingress carries innocent flows, and first-hop bursts — a new flow starting at line rate on a host port that carries nothing else — are left to PFC, which pauses the sending host. Hence DCON's PAUSE rate, the highest of the four, in both workloads; E4's static 40 % threshold (an ECN band of 100–128 KB) does better at low load.",
		"Swift's base target is raised to 65 µs for this fabric (40 µs base RTT); with its default 25 µs every RTT exceeds the target and Swift only decreases.")
	return sec, nil
}

// readE3 reads every point: workload → algorithm → one point per load (NaN
// metrics where a run is missing), noting failures, unfinished flows and
// short points.
func readE3(ctx *experiment.Context, ls []float64) (map[string]map[string][]*lsPoint, []string) {
	res := map[string]map[string][]*lsPoint{}
	var notes []string
	for _, w := range workloads {
		res[w.id] = map[string][]*lsPoint{}
		for _, a := range algs {
			for _, l := range ls {
				p, err := readPoint(ctx, fmt.Sprintf("workload=%s load=%v cc=%s", w.id, l, a.CC))
				if err != nil {
					notes = append(notes, err.Error())
					p = &lsPoint{avg: math.NaN(), p99: math.NaN(), pausePerMs: math.NaN()}
				}
				if p.unfinished > 0 {
					notes = append(notes, fmt.Sprintf("%s load %v %s: %d of %d flows unfinished (excluded from the FCTs)", w.id, l, a.CC, p.unfinished, p.flows))
				}
				if p.flows > 0 && p.flows < minFlows && ctx.Scale == experiment.ScalePaper {
					notes = append(notes, fmt.Sprintf("%s load %v %s: only %d flows", w.id, l, a.CC, p.flows))
				}
				res[w.id][a.CC] = append(res[w.id][a.CC], p)
			}
		}
	}
	return res, notes
}

// e3Verdicts evaluates DCON's reductions at the highest load and its PAUSE
// rates at every load.
func e3Verdicts(res map[string]map[string][]*lsPoint, ls []float64) map[string]report.Claim {
	last := len(ls) - 1
	claims := map[string]report.Claim{}
	for c := range wsAvgCut {
		d, o := res["websearch"]["dcon"][last].avg, res["websearch"][c][last].avg
		claims["ws-avg-"+c] = report.Verdict(fmt.Sprintf("%+.0f", experiment.Pct(d, o)), d < o, fmt.Sprintf("DCON %.0f µs, %s %.0f µs", d, algs.Name(c), o))
		d, o = res["datamining"]["dcon"][last].p99, res["datamining"][c][last].p99
		claims["dm-p99-"+c] = report.Verdict(fmt.Sprintf("%+.0f", experiment.Pct(d, o)), d < o, fmt.Sprintf("DCON %.0f µs, %s %.0f µs", d, algs.Name(c), o))
	}
	fewest, worst := true, ""
	for _, w := range workloads {
		for i, l := range ls {
			for _, c := range []string{"dcqcn", "swift", "pcn"} {
				if !(res[w.id]["dcon"][i].pausePerMs < res[w.id][c][i].pausePerMs) {
					fewest = false
					worst += fmt.Sprintf("%s %v: %s %.3g ≤ DCON %.3g; ", w.id, l, algs.Name(c), res[w.id][c][i].pausePerMs, res[w.id]["dcon"][i].pausePerMs)
				}
			}
		}
	}
	claims["fewest-pauses"] = report.Verdict(fmt.Sprint(fewest), fewest, worst)
	return claims
}

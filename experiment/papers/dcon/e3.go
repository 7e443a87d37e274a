package dcon

// E3: the large-scale leaf-spine (Figs. 8–10) and E4: DCON's parameter
// sensitivity (Figs. 11, 12).

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

const leafspine = "leafspine.yaml"

var (
	loads     = []float64{0.4, 0.5, 0.6, 0.7, 0.8}
	workloads = []struct{ id, cdf, name string }{{"websearch", "websearch", "web search"}, {"datamining", "datamining", "data mining"}}
)

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

// e3DCON is DCON's setting on the leaf-spine: Q_ECN 100 KB (interpretation
// of the unspecified NS-3 settings, so that E4's 40 %/60 % of the 320 KB
// PFC threshold lie above it).
var e3DCON = map[string]any{"q_ecn_kb": 100}

func e3Runs(sc experiment.Scale) []experiment.RunSpec {
	_, _, ls := lsScale(sc)
	var runs []experiment.RunSpec
	for _, w := range workloads {
		ax := experiment.Axis{Name: "load"}
		for _, l := range ls {
			ax.Values = append(ax.Values, experiment.Value{Label: fmt.Sprint(l), Patch: lsPatch(sc, w.cdf, l)})
		}
		for _, r := range (experiment.Sweep{Base: leafspine, Axes: []experiment.Axis{ax}, CC: ccNames(), CCPatch: ccPatch(e3DCON)}).Expand() {
			r.Key = "workload=" + w.id + " " + r.Key
			runs = append(runs, r)
		}
	}
	return runs
}

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
			out = append(out, experiment.Claim{ID: m.id + "-" + a.cc,
				Description: fmt.Sprintf("%s, load 0.8: DCON's %s is %d %% lower than %s's", m.workload, m.metric, m.cut[a.cc], a.name),
				PaperValue:  fmt.Sprintf("−%d", m.cut[a.cc]), Unit: "%", Verdict: true})
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

func analyzeE3(ctx *experiment.Context) (*report.Section, error) {
	_, _, ls := lsScale(ctx.Scale)
	sec := &report.Section{}
	res := map[string]map[string][]*lsPoint{} // workload → cc → per load
	var notes []string
	for _, w := range workloads {
		res[w.id] = map[string][]*lsPoint{}
		for _, a := range algs {
			for _, l := range ls {
				p, err := readPoint(ctx, fmt.Sprintf("workload=%s load=%v cc=%s", w.id, l, a.cc))
				if err != nil {
					notes = append(notes, err.Error())
					p = &lsPoint{avg: math.NaN(), p99: math.NaN(), pausePerMs: math.NaN()}
				}
				if p.unfinished > 0 {
					notes = append(notes, fmt.Sprintf("%s load %v %s: %d of %d flows unfinished (excluded from the FCTs)", w.id, l, a.cc, p.unfinished, p.flows))
				}
				if p.flows > 0 && p.flows < minFlows && ctx.Scale == experiment.ScalePaper {
					notes = append(notes, fmt.Sprintf("%s load %v %s: only %d flows", w.id, l, a.cc, p.flows))
				}
				res[w.id][a.cc] = append(res[w.id][a.cc], p)
			}
		}
	}
	metrics := []struct {
		id, title, unit string
		get             func(*lsPoint) float64
	}{
		{"pause", "PFC PAUSE frame rate", "frames/ms", func(p *lsPoint) float64 { return p.pausePerMs }},
		{"avg", "average FCT", "µs", func(p *lsPoint) float64 { return p.avg }},
		{"p99", "99th-percentile FCT", "µs", func(p *lsPoint) float64 { return p.p99 }},
	}
	for _, w := range workloads {
		for _, m := range metrics {
			t := report.Table{ID: w.id + "-" + m.id, Title: fmt.Sprintf("%s: %s (%s) by core load", w.name, m.title, m.unit), Columns: []string{"core load"}}
			fig := report.Figure{ID: w.id + "-" + m.id, Title: fmt.Sprintf("%s — %s", w.name, m.title), XLabel: "core-layer load", YLabel: m.title + " (" + m.unit + ")"}
			for _, a := range algs {
				t.Columns = append(t.Columns, a.name)
			}
			for i, l := range ls {
				row := []string{fmt.Sprint(l)}
				for _, a := range algs {
					row = append(row, f3(m.get(res[w.id][a.cc][i])))
				}
				t.Rows = append(t.Rows, row)
			}
			for k, a := range algs {
				var y []float64
				for _, p := range res[w.id][a.cc] {
					y = append(y, m.get(p))
				}
				fig.Series = append(fig.Series, report.Series{Label: a.name, X: ls, Y: y, Points: true, Style: k + 1})
			}
			sec.Tables = append(sec.Tables, t)
			sec.Figures = append(sec.Figures, fig)
		}
	}
	cost := report.Table{ID: "cost", Title: "Simulation cost at core load " + fmt.Sprint(ls[len(ls)-1]) + " (one core)", Columns: []string{"workload", "algorithm", "flows", "events", "wall (s)", "events/s"}}
	for _, w := range workloads {
		for _, a := range algs {
			p := res[w.id][a.cc][len(ls)-1]
			cost.Rows = append(cost.Rows, []string{w.name, a.name, fmt.Sprint(p.flows), fmt.Sprint(p.events), fmt.Sprintf("%.2f", p.wall), fmt.Sprintf("%.3g", float64(p.events)/p.wall)})
		}
	}
	sec.Tables = append(sec.Tables, cost)

	last := len(ls) - 1
	claims := map[string]report.Claim{}
	for c := range wsAvgCut {
		d, o := res["websearch"]["dcon"][last].avg, res["websearch"][c][last].avg
		claims["ws-avg-"+c] = report.Verdict(fmt.Sprintf("%+.0f", pct(d, o)), d < o, fmt.Sprintf("DCON %.0f µs, %s %.0f µs", d, nameOf(c), o))
		d, o = res["datamining"]["dcon"][last].p99, res["datamining"][c][last].p99
		claims["dm-p99-"+c] = report.Verdict(fmt.Sprintf("%+.0f", pct(d, o)), d < o, fmt.Sprintf("DCON %.0f µs, %s %.0f µs", d, nameOf(c), o))
	}
	fewest, worst := true, ""
	for _, w := range workloads {
		for i, l := range ls {
			for _, c := range []string{"dcqcn", "swift", "pcn"} {
				if !(res[w.id]["dcon"][i].pausePerMs < res[w.id][c][i].pausePerMs) {
					fewest = false
					worst += fmt.Sprintf("%s %v: %s %.3g ≤ DCON %.3g; ", w.id, l, nameOf(c), res[w.id][c][i].pausePerMs, res[w.id]["dcon"][i].pausePerMs)
				}
			}
		}
	}
	claims["fewest-pauses"] = report.Verdict(fmt.Sprint(fewest), fewest, worst)
	sec.Claims = ctx.Claims(claims)
	sec.Notes = append(notes,
		"With the dynamic threshold, Q_CNM = max(Q_ECN, Q_PFC/M − 3dC(M−1)) equals Q_ECN wherever an ingress feeding the port fans out to two or more egress ports (M ≥ 2; 320 KB/2 − 75 KB < 100 KB): there the ECN band vanishes and a port goes straight from no congestion to burst. DCON's end-to-end loop then gets few marks (web search at core load 0.8, the first 10 ms of arrivals, 1,973 flows: DCON's switches marked 60,103 packets, DCQCN's RED 409,334; summary.json ecn_marked), the fast path answers only flows whose ingress carries innocent flows, and first-hop bursts — a new flow starting at line rate on a host port that carries nothing else — are left to PFC, which pauses the sending host. Hence DCON's PAUSE rate, the highest of the four, in both workloads; E4's static 40 % threshold (an ECN band of 100–128 KB) does better at low load.",
		"Swift's base target is raised to 65 µs for this fabric (40 µs base RTT); with its default 25 µs every RTT exceeds the target and Swift only decreases.")
	return sec, nil
}

// E4: Q_CNM ∈ {40 %, 60 % of Q_PFC, dynamic} and T ∈ {2, 3, 4} RTT, web
// search, DCON only.
var (
	e4QCNM = []struct {
		label string
		p     map[string]any
	}{
		{"40%", map[string]any{"q_cnm_mode": "pfc_fraction", "q_cnm_pfc_fraction": 0.4}},
		{"60%", map[string]any{"q_cnm_mode": "pfc_fraction", "q_cnm_pfc_fraction": 0.6}},
		{"dynamic", map[string]any{}},
	}
	e4T = []float64{2, 3, 4}
)

func e4Runs(sc experiment.Scale) []experiment.RunSpec {
	_, _, ls := lsScale(sc)
	var runs []experiment.RunSpec
	add := func(axis, label string, p map[string]any) {
		for _, l := range ls {
			runs = append(runs, experiment.RunSpec{
				Key:   fmt.Sprintf("%s=%s load=%v", axis, label, l),
				Base:  leafspine,
				Patch: experiment.Merge(lsPatch(sc, "websearch", l), map[string]any{"params": map[string]any{"dcon": experiment.Merge(e3DCON, p)}}),
				CC:    "dcon",
			})
		}
	}
	for _, q := range e4QCNM {
		add("q_cnm", q.label, q.p)
	}
	for _, t := range e4T {
		add("window_rtts", fmt.Sprint(t), map[string]any{"window_rtts": t})
	}
	return runs
}

func e4() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e4",
		Title: "DCON's sensitivity to Q_CNM and T (Figs. 11, 12)",
		Setup: `E3's leaf-spine with web-search traffic at core loads 0.4–0.8, DCON only. (a) Q_CNM = 40 % or 60 % of "a fixed buffer size" (interpretation: of the ingress PFC threshold, 128 KB and 192 KB of 320 KB) or the dynamic threshold of the paper's §4.4; (b) the window T = 2, 3 or 4 base RTTs (with the dynamic threshold). The other settings as in E3 (Q_ECN 100 KB). Metric: average FCT.`,
		Claims: []experiment.Claim{
			{ID: "qcnm-dynamic-best", Description: "the dynamic Q_CNM gives the lowest average FCT (mean over the loads; wins per load in the note)", PaperValue: "yes", Verdict: true},
			{ID: "t3-best", Description: "T = 3 RTT gives the lowest average FCT (mean over the loads; wins per load in the note)", PaperValue: "yes", Verdict: true},
		},
		Runs: e4Runs,
		Analyze: func(ctx *experiment.Context) (*report.Section, error) {
			_, _, ls := lsScale(ctx.Scale)
			sec := &report.Section{}
			claims := map[string]report.Claim{}
			var notes []string
			for _, part := range []struct {
				axis, title, claim, best string
				labels                   []string
			}{
				{"q_cnm", "Q_CNM", "qcnm-dynamic-best", "dynamic", []string{"40%", "60%", "dynamic"}},
				{"window_rtts", "T (base RTTs)", "t3-best", "3", []string{"2", "3", "4"}},
			} {
				t := report.Table{ID: part.axis, Title: "Average FCT (µs) by core load and " + part.title, Columns: []string{"core load"}}
				fig := report.Figure{ID: part.axis, Title: "Web search — average FCT by " + part.title, XLabel: "core-layer load", YLabel: "average FCT (µs)"}
				means := map[string]float64{}
				ys := map[string][]float64{}
				for _, lb := range part.labels {
					t.Columns = append(t.Columns, part.title+" = "+lb)
					for _, l := range ls {
						p, err := readPoint(ctx, fmt.Sprintf("%s=%s load=%v", part.axis, lb, l))
						v := math.NaN()
						if err != nil {
							notes = append(notes, err.Error())
						} else {
							v = p.avg
						}
						ys[lb] = append(ys[lb], v)
						means[lb] += v / float64(len(ls))
					}
				}
				wins := map[string]int{}
				for i, l := range ls {
					row := []string{fmt.Sprint(l)}
					best := part.labels[0]
					for _, lb := range part.labels {
						row = append(row, f3(ys[lb][i]))
						if ys[lb][i] < ys[best][i] {
							best = lb
						}
					}
					wins[best]++
					t.Rows = append(t.Rows, row)
				}
				bestMean := part.labels[0]
				for k, lb := range part.labels {
					fig.Series = append(fig.Series, report.Series{Label: part.title + " = " + lb, X: ls, Y: ys[lb], Points: true, Style: k + 1})
					if means[lb] < means[bestMean] {
						bestMean = lb
					}
				}
				var winNote string
				for _, lb := range part.labels {
					winNote += fmt.Sprintf("%s: lowest at %d of %d loads, mean %.0f µs; ", lb, wins[lb], len(ls), means[lb])
				}
				claims[part.claim] = report.Verdict("lowest mean: "+bestMean, bestMean == part.best, winNote)
				sec.Tables = append(sec.Tables, t)
				sec.Figures = append(sec.Figures, fig)
			}
			sec.Claims = ctx.Claims(claims)
			sec.Notes = notes
			return sec, nil
		},
	}
}

package wrcc

// E1: the basic results, WebSearch, Google RPC and Data Mining at 60 %
// load (the paper's Figs. 8, 9).

import (
	"fmt"
	"strconv"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// e1Cut are the paper's "up to" reductions (%) of WRCC against DCQCN,
// HPCC and BiCC (§4.1.2: 「WRCC最高能将短流的平均FCT分别降低63%、94%和43.8%…」).
var e1Cut = []struct {
	id, what string
	get      func(*crossPoint) stat
	paper    map[string]float64
}{
	{"short-avg", "short-flow average (median) FCT", func(p *crossPoint) stat { return p.shortP50 }, map[string]float64{"dcqcn": 63, "hpcc": 94, "bicc": 43.8}},
	{"short-tail", "short-flow tail (p99) FCT", func(p *crossPoint) stat { return p.shortP99 }, map[string]float64{"dcqcn": 30, "hpcc": 59, "bicc": 21.5}},
	{"long-avg", "long-flow average (median) FCT", func(p *crossPoint) stat { return p.longP50 }, map[string]float64{"dcqcn": 38.6, "hpcc": 49.7, "bicc": 22.8}},
	{"long-tail", "long-flow tail (p99) FCT", func(p *crossPoint) stat { return p.longP99 }, map[string]float64{"dcqcn": 41, "hpcc": 7.2, "bicc": 30.3}},
}

func e1Runs(sc experiment.Scale) []experiment.RunSpec {
	return crossRuns(sc, patterns, []float64{0.6}, wrccts[:1])
}

func e1Claims() []experiment.Claim {
	var out []experiment.Claim
	for _, m := range e1Cut {
		for _, a := range algs[1:] {
			out = append(out, experiment.Claim{ID: m.id + "-" + a.CC,
				Description: descFor(a.CC, fmt.Sprintf("WRCC cuts the %s against %s by up to %g %% (the points: the three traffic patterns of Fig. 8, the sentence's 「不同…流量模式」; the statement: WRCC below %s in the pattern of its largest cut)", m.what, a.Name, m.paper[a.CC], a.Name)),
				PaperValue:  strconv.FormatFloat(m.paper[a.CC], 'f', -1, 64), Unit: "% (best of the three patterns)",
				Kind: experiment.Direction, Rel: experiment.Less, Mag: experiment.MagUpTo, Paper: m.paper[a.CC]})
		}
	}
	for _, a := range algs[1:] {
		out = append(out, experiment.Claim{ID: "q80-" + a.CC, Description: descFor(a.CC, "WRCC's 80th-percentile switch queue (every switch port's samples) is below "+a.Name+"'s in every pattern, shorter by 40 %–90 %"),
			PaperValue: "40–90", Unit: "% shorter", Kind: experiment.Count, Need: 3, Of: 3, Mag: experiment.MagSpan, Lo: 40, Hi: 90})
	}
	for _, a := range algs[1:] {
		out = append(out, experiment.Claim{ID: "pfc-" + a.CC, Description: descFor(a.CC, "WRCC's total switch-port PFC pause time (Fig. 9) is more than an order of magnitude below "+a.Name+"'s (baseline > 10 × WRCC) in every pattern"),
			PaperValue: "> 10 ×", Unit: "patterns", Kind: experiment.Count, Need: 3, Of: 3})
	}
	for _, a := range algs[1:] {
		out = append(out, experiment.Claim{ID: "all-improve-" + a.CC, Description: descFor(a.CC, "WRCC improves on "+a.Name+" at every flow size and in every pattern (「在不同流量大小和流量模式下均表现出良好的性能提升」): its median and p99 FCT of short and of long flows below "+a.Name+"'s in each of the 3 patterns"),
			PaperValue: "12 of 12", Unit: "points", Kind: experiment.Count, Need: 12, Of: 12})
	}
	for _, a := range algs[1:] {
		out = append(out, experiment.Claim{ID: "short-more-" + a.CC, Description: descFor(a.CC, "WRCC's improvement on "+a.Name+" is larger for short flows (「WRCC对短流表现出更显著的性能提升」): its best median-FCT cut of short flows above that of long flows (the paper's own numbers support it for the median only)"),
			PaperValue: "yes", Unit: "% (best cut)", Kind: experiment.Direction, Rel: experiment.Greater})
	}
	return out
}

func e1() *experiment.Experiment {
	return &experiment.Experiment{
		ID:       "e1",
		Title:    "Basic results: WebSearch, Google RPC and Data Mining at 60 % load (Figs. 8, 9)",
		SetupAt:  func(sc experiment.Scale) string { return crossSetup(sc) + e1Setup(sc) },
		Claims:   e1Claims(),
		Runs:     e1Runs,
		Readings: crossReadings(),
		Checks:   crossChecks(60),
		Analyze:  analyzeE1,
	}
}

func e1Setup(sc experiment.Scale) string {
	bins := "the HPCC-style table of p50/p99 slowdown in 20 bins of 5 % of the flows by size (every flow, censored ones at the run's end; the first seed)"
	if sc == experiment.ScaleQuick {
		bins = "the HPCC-style table of p50/p99 slowdown in up to 20 size bins (at quick scale a pattern may have fewer flows than bins: data mining has a handful)"
	}
	return ` E1: the three flow-size distributions at load 60 %. Metrics (interpretations: short flows < 100 KB, long flows ≥ 1 MB, the incast flows among the long ones as the paper calls them long flows): the median ("average" in the paper, §4.1.1 「50%流完成时间(平均FCT)」) and p99 ("tail") FCT of short and long flows, every flow that started, the unfinished ones censored at the run's end (a statistic at or above a censored value is a lower bound, shown "≥"); the 80th-percentile queue length over all 10-µs samples of every switch port that carried traffic (the platform samples every port; the busy-sample p80 is shown in the table only); the total PFC pause time of switch ports (Fig. 9 「交换机端口PFC暂停时间总和」; host NICs shown apart); and ` + bins + `. An "up to X %" claim compares ccsim's largest cut over the three patterns with X (±25 %) and states WRCC below the baseline in that pattern.`
}

// e1Res are E1's points: pattern → algorithm → seeds.
type e1Res map[string]map[string]seedPoints

func analyzeE1(ctx *experiment.Context) (*report.Section, error) {
	sec := &report.Section{}
	res := e1Res{}
	for _, w := range patterns {
		r, err := readCrossSeeds(ctx, w.id, 0.6, wrccts[0])
		if err != nil {
			return nil, err
		}
		res[w.id] = r
	}
	sec.Tables = append(sec.Tables, fctTable(res), costTable(res[patterns[0].id], "WebSearch, load 60 %"))
	for _, w := range patterns {
		bt, fig := binsTable(w, res[w.id])
		sec.Tables = append(sec.Tables, bt)
		sec.Figures = append(sec.Figures, fig)
	}
	measureCuts(ctx, res)
	measureQueuePause(ctx, res)
	measureAllImprove(ctx, res)
	sec.Notes = censoredNotes(res)
	return sec, nil
}

// measureCuts measures the "up to X %" claims (Direction at the pattern
// of ccsim's largest cut, MagUpTo over the patterns) and short-more.
func measureCuts(ctx *experiment.Context, res e1Res) {
	bestCut := map[string]experiment.Sample{} // id → the best cut's per-seed values
	bestLow := map[string][2]bool{}           // its sides' lower bounds (WRCC, baseline)
	for _, m := range e1Cut {
		for _, a := range algs[1:] {
			id := m.id + "-" + a.CC
			var mg mags
			var vals [][2]experiment.Sample
			var lows [][2]bool
			for _, w := range patterns {
				ws, wl := res[w.id]["wrcc"].of(m.get)
				bs, bl := res[w.id][a.CC].of(m.get)
				n := len(mg.pts)
				mg.add(w.name, cutOf(ws, bs), wl || bl)
				if len(mg.pts) > n {
					vals, lows = append(vals, [2]experiment.Sample{ws, bs}), append(lows, [2]bool{wl, bl})
				}
			}
			bi := mg.best()
			if bi < 0 {
				ctx.Measure(id, nanMeasure(2, "no pattern has flows of the class: "+mg.text(" %")))
				continue
			}
			ctx.Measure(id, experiment.Measure{Values: vals[bi][:], Lower: lows[bi][:], Labels: []string{"WRCC", a.Name}, Mag: mg.pts, MagLower: mg.low,
				Text: fmt.Sprintf("best %s (%s): WRCC %s vs %s %s", experiment.G4(mg.pts[bi].Mean()), mg.names[bi], cell(vals[bi][0], lows[bi][0]), a.Name, cell(vals[bi][1], lows[bi][1])),
				Note: "cut per pattern: " + mg.text(" %")})
			if m.id == "short-avg" || m.id == "long-avg" {
				bestCut[id], bestLow[id] = mg.pts[bi], lows[bi]
			}
		}
	}
	for _, a := range algs[1:] {
		s, l := bestCut["short-avg-"+a.CC], bestCut["long-avg-"+a.CC]
		if s == nil || l == nil {
			ctx.Measure("short-more-"+a.CC, nanMeasure(2, "a class without flows"))
			continue
		}
		m := experiment.Measure{Values: []experiment.Sample{s, l}, Labels: []string{"short", "long"},
			Note: "the best cut of each class's median FCT over the patterns (claims short-avg, long-avg)"}
		m.Lower = cutLowers(bestLow["short-avg-"+a.CC], bestLow["long-avg-"+a.CC])
		ctx.Measure("short-more-"+a.CC, m)
	}
}

// cutLowers marks the values of a comparison of cuts (Cut(w, b) per
// value; sides[i] = the lower-bound flags of w and b): a cut whose
// baseline only is a lower bound is itself one; if any cut has a WRCC side
// that is a lower bound (the cut an upper bound, or unknown), every value
// is marked so the comparison is inconclusive.
func cutLowers(sides ...[2]bool) []bool {
	out := make([]bool, len(sides))
	for i, s := range sides {
		if s[0] {
			return allLower(len(sides))
		}
		out[i] = s[1]
	}
	return out
}

// measureQueuePause measures q80-* (Count of patterns with WRCC's p80
// below the baseline's, MagSpan of the cuts) and pfc-* (Count of patterns
// with the baseline's pause time above 10 × WRCC's).
func measureQueuePause(ctx *experiment.Context, res e1Res) {
	for _, a := range algs[1:] {
		var q, p pairs
		var mg mags
		for _, w := range patterns {
			wq, bq := res[w.id]["wrcc"].num(func(p *crossPoint) float64 { return p.qP80 }), res[w.id][a.CC].num(func(p *crossPoint) float64 { return p.qP80 })
			q.add(w.name, wq, false, bq, false)
			mg.add(w.name, cutOf(wq, bq), false)
			wp, bp := res[w.id]["wrcc"].num(func(p *crossPoint) float64 { return p.pauseUs }), res[w.id][a.CC].num(func(p *crossPoint) float64 { return p.pauseUs })
			p.add(w.name, bp, false, scaled(wp, 10), false)
		}
		m := q.count(experiment.Less, ctx.Scale)
		m.Mag, m.MagLower = mg.pts, mg.low
		m.Text = countText(m) + " patterns below; cut " + mg.spanText() + " %"
		m.Note = "p80 (B) WRCC vs " + a.Name + ": " + q.note() + "; cut: " + mg.text(" %")
		ctx.Measure("q80-"+a.CC, m)
		pm := p.count(experiment.Greater, ctx.Scale)
		pm.Text = countText(pm) + " patterns"
		pm.Note = "switch-port pause time (µs), " + a.Name + " vs 10 × WRCC: " + p.note()
		ctx.Measure("pfc-"+a.CC, pm)
	}
}

// measureAllImprove measures all-improve-*: WRCC below the baseline in
// the median and p99 FCT of short and long flows in every pattern.
func measureAllImprove(ctx *experiment.Context, res e1Res) {
	for _, a := range algs[1:] {
		var p pairs
		for _, w := range patterns {
			for _, m := range e1Cut {
				ws, wl := res[w.id]["wrcc"].of(m.get)
				bs, bl := res[w.id][a.CC].of(m.get)
				p.add(w.name+" "+m.id, ws, wl, bs, bl)
			}
		}
		m := p.count(experiment.Less, ctx.Scale)
		m.Text = countText(m) + " points"
		m.Note = "FCT (µs), WRCC vs " + a.Name + ": " + m.Note
		ctx.Measure("all-improve-"+a.CC, m)
	}
}

// censoredNotes say, per pattern and algorithm, how many flows were
// censored at the run's end.
func censoredNotes(res e1Res) []string {
	var notes []string
	for _, w := range patterns {
		var parts []string
		for _, a := range algs {
			sp := res[w.id][a.CC]
			parts = append(parts, fmt.Sprintf("%s %s of %s", a.Name, sp.intText(func(p *crossPoint) int { return p.censored }), sp.intText(func(p *crossPoint) int { return p.flows })))
		}
		notes = append(notes, fmt.Sprintf("%s: flows censored at the run's end (per seed): %s", w.name, joinSemi(parts)))
	}
	return notes
}

// fctTable lists each pattern's and algorithm's FCTs, queues and pause
// time (means over the seeds, their range in brackets; "≥": a lower bound
// because of censored flows).
func fctTable(res e1Res) report.Table {
	t := report.Table{ID: "fct", Title: "FCT (µs) of short (< 100 KB) and long (≥ 1 MB) flows at 60 % load, censored flows included; queue p80 and p99 over all samples and p80 over the non-empty samples (KB); PFC pause time (µs) of switch ports and of host NICs",
		Columns: []string{"pattern", "algorithm", "short p50", "short p99", "long p50", "long p99", "queue p80 (KB)", "queue p99 (KB)", "busy-queue p80 (KB)", "switch PFC pause (µs)", "host PFC pause (µs)", "flows", "censored", "long censored"}}
	for _, w := range patterns {
		for _, a := range algs {
			sp := res[w.id][a.CC]
			st := func(f func(*crossPoint) stat) string { return cell(sp.of(f)) }
			num := func(f func(*crossPoint) float64, k float64) string { return cell(scaled(sp.num(f), k), false) }
			t.Rows = append(t.Rows, []string{w.name, a.Name,
				st(func(p *crossPoint) stat { return p.shortP50 }), st(func(p *crossPoint) stat { return p.shortP99 }),
				st(func(p *crossPoint) stat { return p.longP50 }), st(func(p *crossPoint) stat { return p.longP99 }),
				num(func(p *crossPoint) float64 { return p.qP80 }, 1e-3), num(func(p *crossPoint) float64 { return p.qP99 }, 1e-3), num(func(p *crossPoint) float64 { return p.qP80busy }, 1e-3),
				num(func(p *crossPoint) float64 { return p.pauseUs }, 1), num(func(p *crossPoint) float64 { return p.hostPauseUs }, 1),
				sp.intText(func(p *crossPoint) int { return p.flows }), sp.intText(func(p *crossPoint) int { return p.censored }),
				sp.censoredText(func(p *crossPoint) stat { return p.longP99 })})
		}
	}
	return t
}

// binsTable is one pattern's p50/p99 slowdown in 20 size bins per
// algorithm (the first seed), and the p99 as a figure.
func binsTable(w pattern, res map[string]seedPoints) (report.Table, report.Figure) {
	bt := report.Table{ID: "bins-" + w.id, Title: w.name + ": p50 / p99 FCT slowdown in 20 size bins of 5 % of the flows each (fewer with fewer than 20 flows; every flow, censored ones at the run's end; the first seed)", Columns: []string{"bin", "size ≤ (B)"}, Collapsed: true}
	fig := report.Figure{ID: "bins-" + w.id, Title: w.name + " — p99 slowdown by flow size (first seed)", XLabel: "flow size (B, upper bin edge)", YLabel: "p99 FCT slowdown", LogX: true}
	for _, a := range algs {
		bt.Columns = append(bt.Columns, a.Name+" p50", a.Name+" p99", a.Name+" censored")
	}
	nb := 0
	for _, a := range algs {
		nb = max(nb, len(res[a.CC][0].bins))
	}
	for i := 0; i < nb; i++ {
		row := []string{fmt.Sprint(i + 1), ""}
		for _, a := range algs {
			b := res[a.CC][0].bins
			if i < len(b) {
				if row[1] == "" {
					row[1] = fmt.Sprint(b[i].MaxSizeBytes)
				}
				row = append(row, experiment.G4Dash(b[i].P50), experiment.G4Dash(b[i].P99), fmt.Sprint(b[i].Censored))
			} else {
				row = append(row, "—", "—", "—")
			}
		}
		bt.Rows = append(bt.Rows, row)
	}
	for k, a := range algs {
		var x, y []float64
		for _, b := range res[a.CC][0].bins {
			x = append(x, float64(b.MaxSizeBytes))
			y = append(y, b.P99)
		}
		fig.Series = append(fig.Series, report.Series{Label: a.Name, X: x, Y: y, Points: true, Style: k + 1})
	}
	return bt, fig
}
